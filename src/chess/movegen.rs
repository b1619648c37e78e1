//! Legal move generation straight into the canonical order ([`move_key`]).
//!
//! The model needs the legal moves of every position sorted by origin, destination (the rook
//! square for castling) and promotion role. Generating them with shakmaty's `legal_moves` and
//! sorting costs several times as much as generating them in that order: origins ascending,
//! each piece's destinations ascending, promotions knight to queen. The rules are shakmaty's,
//! step by step (`legal_moves`, `evasions`, `gen_castling_moves`, `is_safe`), so the set of
//! moves is the same; the tests compare both on every position of the benchmark and on perft
//! trees of tricky positions. Moves come out [`Packed`]: what the model's per-move loops read,
//! without shakmaty's [`Move`] enum ([`Packed::to_move`] converts).

use super::rays::{BISHOP_RAYS, ROOK_RAYS, slider_attacks};
use shakmaty::{Bitboard, Board, CastlingSide, Chess, Color, Move, MoveList, Position, Role, Square, attacks};

/// Canonical sort key of a move: origin, destination (the rook square for castling, as
/// shakmaty stores it), promotion role. Independent of shakmaty's generation order.
#[inline]
pub fn move_key(m: &Move) -> u16 {
    let from = m.from().map_or(0, |s| s as u16);
    let promo = m.promotion().map_or(0, |r| r as u16);
    from << 9 | (m.to() as u16) << 3 | promo
}

/// A legal move in 32 bits: what the model's per-move loops read, decoded by shifts instead of
/// matching on [`Move`]. Bits 0-5 origin, 6-11 destination (the king's destination for
/// castling, unlike [`Move::to`]), 12-14 role index (pawn 0 .. king 5), 15-17 captured role
/// index + 1 (0: none; a pawn for en passant), 18-20 promotion role index + 1 (0: none), 21-22
/// kind ([`Packed::NORMAL`], [`Packed::EN_PASSANT`], [`Packed::CASTLE`]), 23-28 the rook's
/// square for castling (0 otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packed(pub u32);

impl Packed {
    /// A normal move (including promotions).
    pub const NORMAL: u32 = 0;
    /// En passant.
    pub const EN_PASSANT: u32 = 1;
    /// Castling.
    pub const CASTLE: u32 = 2;

    /// Packs the fields; `capture` and `promotion` are role index + 1, 0 for none.
    #[inline]
    pub const fn new(from: u32, to: u32, role: u32, capture: u32, promotion: u32, kind: u32) -> Packed {
        Packed(from | to << 6 | role << 12 | capture << 15 | promotion << 18 | kind << 21)
    }

    /// Packs a legal move of a position.
    pub fn of(m: &Move) -> Packed {
        let index = |r: Option<Role>| r.map_or(0, |r| r as u32);
        match *m {
            Move::Normal { role, from, capture, to, promotion } => {
                Packed::new(from as u32, to as u32, role as u32 - 1, index(capture), index(promotion), Packed::NORMAL)
            }
            Move::EnPassant { from, to } => Packed::new(from as u32, to as u32, 0, 1, 0, Packed::EN_PASSANT),
            Move::Castle { king, rook } => {
                let side = m.castling_side().expect("castle");
                let to = Square::from_coords(side.king_to_file(), king.rank());
                Packed(Packed::new(king as u32, to as u32, 5, 0, 0, Packed::CASTLE).0 | (rook as u32) << 23)
            }
            Move::Put { .. } => panic!("standard chess has no drops"),
        }
    }

    /// The move as shakmaty's [`Move`].
    #[inline]
    pub fn to_move(self) -> Move {
        let role = |index: usize| Role::ALL[index.min(5)];
        let square = |index: u32| Square::new(index & 63);
        let (from, to) = (square(self.0), square(self.0 >> 6));
        match self.kind() {
            Packed::NORMAL => Move::Normal {
                role: role(self.role()),
                from,
                capture: (self.capture() != 0).then(|| role(self.capture() - 1)),
                to,
                promotion: (self.promotion() != 0).then(|| role(self.promotion() - 1)),
            },
            Packed::EN_PASSANT => Move::EnPassant { from, to },
            _ => Move::Castle { king: from, rook: square(self.0 >> 23) },
        }
    }

    /// [`move_key`] of the move.
    #[inline]
    pub const fn key(self) -> u16 {
        let to = if self.kind() == Packed::CASTLE { self.0 >> 23 & 63 } else { self.0 >> 6 & 63 };
        (self.0 as u16 & 63) << 9 | (to as u16) << 3 | self.promotion() as u16
    }

    /// Origin square index.
    #[inline]
    pub const fn from(self) -> usize {
        (self.0 & 63) as usize
    }

    /// Destination square index (the king's destination for castling).
    #[inline]
    pub const fn to(self) -> usize {
        (self.0 >> 6 & 63) as usize
    }

    /// Role index of the moved piece (pawn 0 .. king 5).
    #[inline]
    pub const fn role(self) -> usize {
        (self.0 >> 12 & 7) as usize
    }

    /// Captured role index + 1, 0 if none.
    #[inline]
    pub const fn capture(self) -> usize {
        (self.0 >> 15 & 7) as usize
    }

    /// Promotion role index + 1, 0 if none.
    #[inline]
    pub const fn promotion(self) -> usize {
        (self.0 >> 18 & 7) as usize
    }

    /// [`Packed::NORMAL`], [`Packed::EN_PASSANT`] or [`Packed::CASTLE`].
    #[inline]
    pub const fn kind(self) -> u32 {
        self.0 >> 21 & 3
    }

    /// A normal move that does not promote: the common case that needs no special handling.
    #[inline]
    pub(crate) const fn is_plain(self) -> bool {
        self.0 >> 18 == 0
    }
}

/// Something legal moves can be appended to.
pub trait MoveSink {
    /// Appends a move.
    fn push_move(&mut self, p: Packed);
}

impl MoveSink for Vec<Packed> {
    #[inline]
    fn push_move(&mut self, p: Packed) {
        self.push(p);
    }
}

impl MoveSink for MoveList {
    #[inline]
    fn push_move(&mut self, p: Packed) {
        self.push(p.to_move());
    }
}

/// `board.attacks_to(sq, attacker, occupied)`, looking the sliders' attacks up in the magic
/// tables only when a slider of `attacker` stands on one of the lines through `sq`
/// ([`slider_attacks`]).
#[inline]
fn attackers(board: &Board, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
    let theirs = board.by_color(attacker);
    theirs
        & (attacks::knight_attacks(sq) & board.knights()
            | attacks::king_attacks(sq) & board.kings()
            | attacks::pawn_attacks(!attacker, sq) & board.pawns())
        | slider_attacks(sq, occupied, board.bishops_and_queens() & theirs, board.rooks_and_queens() & theirs)
}

/// Promotion roles in canonical order (by `Role as u16`, the promotion part of the key).
const PROMOTIONS: [Role; 4] = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];

/// Appends the legal moves of `pos` to `out` in canonical order (ascending
/// [`move_key`]). Returns the pieces giving check.
pub fn legal_moves_sorted_into<S: MoveSink>(pos: &Chess, out: &mut S) -> Bitboard {
    let board = pos.board();
    let us = pos.turn();
    let them = !us;
    let ours = board.by_color(us);
    let theirs = board.by_color(them);
    let occupied = board.occupied();
    let king = board.king_of(us).expect("king in standard chess");
    let checkers = attackers(board, king, them, occupied);

    // Pieces alone between the king and an enemy slider (shakmaty's `slider_blockers`).
    let snipers = (Bitboard(ROOK_RAYS[king as usize]) & board.rooks_and_queens()
        | Bitboard(BISHOP_RAYS[king as usize]) & board.bishops_and_queens())
        & theirs;
    let mut pinned = Bitboard::EMPTY;
    for sniper in snipers {
        let b = attacks::between(king, sniper) & occupied;
        if !b.more_than_one() {
            pinned |= b;
        }
    }
    pinned &= ours;

    // Destinations of non-king moves and of king moves (shakmaty's `evasions` when in check).
    let (target, king_target) = if checkers.is_empty() {
        (!ours, !ours)
    } else {
        let mut attacked = Bitboard::EMPTY;
        for checker in checkers & board.sliders() {
            attacked |= attacks::ray(checker, king) ^ checker;
        }
        let target = match checkers.single_square() {
            Some(checker) => attacks::between(king, checker).with(checker),
            None => Bitboard::EMPTY,
        };
        (target, !ours & !attacked)
    };

    // The capture field of a move to each square: the opponent's role index + 1, or 0.
    let mut captured = [0u32; 64];
    for (index, role) in Role::ALL.into_iter().enumerate() {
        for sq in board.by_role(role) & theirs {
            captured[sq as usize] = (index as u32 + 1) << 15;
        }
    }
    // Destinations and packed origin/role bits of each of our pieces, filled piece type by
    // piece type (predictable loops), then emitted in origin order. Pawns that promote or may
    // capture en passant, and the king, take the slow path of `special`.
    let mut reach = [Bitboard::EMPTY; 64];
    let mut base = [0u32; 64];
    // A pinned piece moves along the line through it and the king (`is_safe`).
    let allowed = |from: Square| if pinned.contains(from) { target & attacks::ray(from, king) } else { target };
    // A generic function rather than a closure taking `&dyn Fn`, so that each attack lookup
    // is inlined into its own loop.
    #[inline(always)]
    fn fill(
        reach: &mut [Bitboard; 64],
        base: &mut [u32; 64],
        pieces: Bitboard,
        role: u32,
        allowed: impl Fn(Square) -> Bitboard,
        reach_of: impl Fn(Square) -> Bitboard,
    ) {
        for from in pieces {
            reach[from as usize] = reach_of(from) & allowed(from);
            base[from as usize] = from as u32 | role << 12;
        }
    }
    fill(&mut reach, &mut base, board.knights() & ours, 1, allowed, attacks::knight_attacks);
    fill(&mut reach, &mut base, board.bishops() & ours, 2, allowed, |from| attacks::bishop_attacks(from, occupied));
    fill(&mut reach, &mut base, board.rooks() & ours, 3, allowed, |from| attacks::rook_attacks(from, occupied));
    fill(&mut reach, &mut base, board.queens() & ours, 4, allowed, |from| attacks::queen_attacks(from, occupied));
    let ep = pos.maybe_ep_square();
    let (push, start_half) = match us {
        Color::White => (8, Bitboard::SOUTH),
        Color::Black => (-8, Bitboard::NORTH),
    };
    let our_pawns = board.pawns() & ours;
    // Pawns one step from promotion (the back ranks shifted back: the 7th rank for White, the
    // 2nd for Black), pawns next to an en passant square, and the king.
    let mut special = our_pawns & Bitboard::BACKRANKS.shift(-push) | Bitboard::from_square(king);
    if let Some(to) = ep {
        special |= attacks::pawn_attacks(them, to) & our_pawns;
    }
    for from in our_pawns & !special {
        let captures = attacks::pawn_attacks(us, from) & theirs;
        let single = Bitboard::from_square(from).shift(push) & !occupied;
        let double = single.shift(push) & start_half & !occupied;
        reach[from as usize] = (captures | single | double) & allowed(from);
        base[from as usize] = from as u32;
    }

    for from in ours {
        if special.contains(from) {
            if from == king {
                gen_king(pos, king, king_target, checkers.is_empty(), &captured, out);
            } else {
                gen_special_pawn(pos, from, king, allowed(from), &captured, out);
            }
        } else {
            let b = base[from as usize];
            for to in reach[from as usize] {
                out.push_move(Packed(b | (to as u32) << 6 | captured[to as usize]));
            }
        }
    }
    checkers
}

/// The moves of the pawn on `from` that promotes or may capture en passant, in canonical
/// order; `allowed` are the destinations that keep the king safe (pins and checks), en passant
/// aside, which is tested by playing it out (`is_safe`), even in check.
#[inline(never)]
fn gen_special_pawn<S: MoveSink>(pos: &Chess, from: Square, king: Square, allowed: Bitboard, captured: &[u32; 64], out: &mut S) {
    let board = pos.board();
    let us = pos.turn();
    let occupied = board.occupied();
    let push = if us == Color::White { 8 } else { -8 };
    let start_half = if us == Color::White { Bitboard::SOUTH } else { Bitboard::NORTH };
    let captures = attacks::pawn_attacks(us, from) & board.by_color(!us) & allowed;
    let single = Bitboard::from_square(from).shift(push) & !occupied;
    let double = single.shift(push) & start_half & !occupied;
    let mut dests = captures | (single | double) & allowed;
    let ep_to = match pos.maybe_ep_square() {
        Some(to) if attacks::pawn_attacks(us, from).contains(to) && ep_is_safe(pos, king, from, to) => {
            dests.add(to);
            Some(to)
        }
        _ => None,
    };
    let base = from as u32;
    for to in dests {
        let t = to as u32;
        if Some(to) == ep_to {
            out.push_move(Packed::new(base, t, 0, 1, 0, Packed::EN_PASSANT));
        } else {
            let packed = base | t << 6 | captured[to as usize];
            if Bitboard::BACKRANKS.contains(to) {
                for p in PROMOTIONS {
                    out.push_move(Packed(packed | (p as u32) << 18));
                }
            } else {
                out.push_move(Packed(packed));
            }
        }
    }
}

/// The king's moves to safe squares of `target` and, when not in check, castling, in order of
/// destination (the rook's square for castling).
#[inline]
fn gen_king<S: MoveSink>(pos: &Chess, king: Square, target: Bitboard, castling: bool, captured: &[u32; 64], out: &mut S) {
    let board = pos.board();
    let them = !pos.turn();
    let occupied = board.occupied();
    let mut castle_rooks = Bitboard::EMPTY;
    if castling && pos.castles().castling_rights().any() {
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            if let Some(rook) = castling_rook(pos, king, side) {
                castle_rooks.add(rook);
            }
        }
    }
    let base = king as u32 | 5 << 12;
    for to in attacks::king_attacks(king) & target | castle_rooks {
        if castle_rooks.contains(to) {
            out.push_move(Packed::of(&Move::Castle { king, rook: to }));
        } else if attackers(board, to, them, occupied).is_empty() {
            out.push_move(Packed(base | (to as u32) << 6 | captured[to as usize]));
        }
    }
}

/// The rook square of a legal castling move on `side` (shakmaty's `gen_castling_moves`).
fn castling_rook(pos: &Chess, king: Square, side: CastlingSide) -> Option<Square> {
    let us = pos.turn();
    let board = pos.board();
    let castles = pos.castles();
    let rook = castles.rook(us, side)?;
    let occupied = board.occupied();
    if (castles.path(us, side) & occupied).any() {
        return None;
    }
    let king_to = side.king_to(us);
    if attackers(board, king_to, !us, occupied ^ king ^ rook ^ side.rook_to(us)).any() {
        return None;
    }
    for sq in attacks::between(king, king_to).with(king) {
        if attackers(board, sq, !us, occupied ^ king).any() {
            return None;
        }
    }
    Some(rook)
}

/// Whether en passant `from` -> `to` leaves the king safe (shakmaty's `is_safe`). Rare, so
/// shakmaty's `attacks_to` as it is rather than the ray-filtered [`attackers`].
fn ep_is_safe(pos: &Chess, king: Square, from: Square, to: Square) -> bool {
    let board = pos.board();
    let capture = Square::from_coords(to.file(), from.rank());
    board.attacks_to(king, !pos.turn(), board.occupied().toggled(from).toggled(capture).with(to)).without(capture).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    fn reference(pos: &Chess) -> Vec<Move> {
        let mut v: Vec<Move> = pos.legal_moves().into_iter().collect();
        v.sort_by_key(move_key);
        v
    }

    fn check(pos: &Chess) {
        let mut got: Vec<Packed> = Vec::new();
        let checkers = legal_moves_sorted_into(pos, &mut got);
        let moves: Vec<Move> = got.iter().map(|p| p.to_move()).collect();
        assert_eq!(moves, reference(pos), "{}", Fen::from_position(pos, shakmaty::EnPassantMode::Always));
        assert_eq!(checkers, pos.checkers());
        for (m, p) in moves.iter().zip(&got) {
            assert_eq!(*p, Packed::of(m));
            assert_eq!(p.key(), move_key(m));
            assert_eq!(p.role(), m.role() as usize - 1);
            assert_eq!(p.from(), m.from().unwrap() as usize);
            assert_eq!(p.capture(), m.capture().map_or(0, |r| r as usize));
            assert_eq!(p.promotion(), m.promotion().map_or(0, |r| r as usize));
            assert_eq!(p.is_plain(), matches!(m, Move::Normal { promotion: None, .. }));
        }
    }

    fn perft_check(pos: &Chess, depth: u32) -> u64 {
        check(pos);
        if depth == 0 {
            return 1;
        }
        let mut n = 0;
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            n += perft_check(&child, depth - 1);
        }
        n
    }

    #[test]
    fn same_moves_as_shakmaty_on_the_benchmark() {
        let text = include_str!("../../data/Chess_Games.txt");
        let mut positions = 0;
        for line in text.lines().take(2000) {
            let Some(game) = crate::chess::testing::parse_game(line.as_bytes()) else { continue };
            let mut pos = Chess::default();
            for m in &game.moves {
                check(&pos);
                pos.play_unchecked(*m);
                positions += 1;
            }
            check(&pos);
        }
        assert!(positions > 100_000);
    }

    #[test]
    fn attackers_agree_with_shakmaty() {
        let mut checked = 0;
        for line in include_str!("../../data/Chess_Games.txt").lines().take(200) {
            let game = crate::chess::testing::parse_game(line.as_bytes()).expect("benchmark lines parse");
            let mut pos = Chess::default();
            for m in &game.moves {
                let board = pos.board();
                for sq in Square::ALL {
                    for color in Color::ALL {
                        for occupied in [board.occupied(), board.occupied() ^ board.kings()] {
                            assert_eq!(attackers(board, sq, color, occupied), board.attacks_to(sq, color, occupied));
                            checked += 1;
                        }
                    }
                }
                pos.play_unchecked(*m);
            }
        }
        assert!(checked > 1_000_000, "{checked}");
    }

    #[test]
    fn same_moves_as_shakmaty_on_perft_trees() {
        // Standard perft positions (chessprogramming.org) and en passant / castling corner cases.
        for (fen, mode, depth) in [
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", CastlingMode::Standard, 3),
            ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", CastlingMode::Standard, 3),
            ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", CastlingMode::Standard, 4),
            ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", CastlingMode::Standard, 3),
            ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", CastlingMode::Standard, 3),
            ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", CastlingMode::Standard, 2),
            ("8/8/8/KPp4r/8/8/8/7k w - c6 0 2", CastlingMode::Standard, 3),
            ("8/8/3k4/8/1pP5/8/8/4K2Q b - c3 0 1", CastlingMode::Standard, 3),
            ("4k3/8/8/2pP4/8/8/8/4K2B w - c6 0 2", CastlingMode::Standard, 3),
            ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", CastlingMode::Standard, 3),
            ("1r2k2r/8/8/8/8/8/8/R3K1R1 w Qk - 0 1", CastlingMode::Standard, 3),
            ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", CastlingMode::Chess960, 3),
            ("2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9", CastlingMode::Chess960, 3),
            ("1rqbkrbn/1ppppp1p/1n6/p1N3p1/8/2P4P/PP1PPPP1/1RQBKRBN w FBfb - 0 9", CastlingMode::Chess960, 3),
            ("qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w hf - 0 9", CastlingMode::Chess960, 3),
        ] {
            let pos: Chess = fen.parse::<Fen>().unwrap().into_position(mode).unwrap();
            assert!(perft_check(&pos, depth) > 0);
        }
    }
}
