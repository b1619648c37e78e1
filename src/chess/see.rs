//! Static exchange evaluation (SEE) with Sunfish's material values.

use shakmaty::{Bitboard, Chess, Color, Move, Position, Rank, Role, Square, attacks};

use super::pst::PIECE_VALUE;
use super::rays::{slider_attacks, xray_through};

#[inline]
fn piece_value(role: Role) -> i32 {
    PIECE_VALUE[role as usize - 1]
}

/// Static exchange evaluation of `m` (legal in `pos`), in centipawns for the side to move:
/// the material balance of the best capture sequence on `m`'s destination square when both
/// sides alternately recapture with their least valuable attacker and either may stop at any
/// point (the classic swap-list algorithm, chessprogramming.org "SEE - The Swap Algorithm").
///
/// * Material values are Sunfish's [`PIECE_VALUE`] (no piece-square terms), so e.g. a rook
///   taking a pawn defended by a pawn scores `100 - 479 = -379`.
/// * Sliders behind other attackers (x-rays, batteries) join the exchange once the pieces in
///   front have captured; the first attacks come from shakmaty's attack tables, the x-rays
///   from the line tables of [`super::rays`].
/// * A king only captures when the square is no longer defended. Pins and checks are ignored.
/// * Promotions: the moved pawn counts as the promoted piece (the promotion gain is included),
///   and a pawn recapturing on the last rank counts as a queen.
/// * En passant captures a pawn (and clears its square for x-rays).
/// * A non-capture scores minus the material the moved piece is expected to lose on its
///   destination: `0` if it is safe there, e.g. `-280` for a knight moving to a square
///   attacked by an enemy pawn. Castling scores `0`.
pub fn see(pos: &Chess, m: &Move) -> i32 {
    let board = pos.board();
    let us = pos.turn();
    let (from, to, first_gain, on_square) = match *m {
        Move::Normal { role, from, capture, to, promotion } => {
            let piece = promotion.unwrap_or(role);
            (from, to, see_unopposed(role, capture, promotion), piece_value(piece))
        }
        Move::EnPassant { from, to } => (from, to, piece_value(Role::Pawn), piece_value(Role::Pawn)),
        Move::Castle { .. } | Move::Put { .. } => return 0,
    };
    let mut occupied = board.occupied().without(from);
    if let Move::EnPassant { from, to } = *m {
        occupied.discard(Square::from_coords(to.file(), from.rank()));
    }
    let last_rank = Bitboard::from_rank(Rank::First) | Bitboard::from_rank(Rank::Eighth);
    let promotes = last_rank.contains(to);
    let diagonal = board.bishops() | board.queens();
    let orthogonal = board.rooks() | board.queens();

    // Everything attacking `to` with the current occupancy (what `Board::attacks_to` gives for
    // both colours); pieces already used are removed from `occupied` and filtered out below.
    let mut attackers = slider_attacks(to, occupied, diagonal, orthogonal)
        | attacks::knight_attacks(to) & board.knights()
        | attacks::king_attacks(to) & board.kings()
        | attacks::pawn_attacks(Color::Black, to) & board.pawns() & board.white()
        | attacks::pawn_attacks(Color::White, to) & board.pawns() & board.black();
    if (attackers & occupied & board.by_color(!us)).is_empty() {
        // No recapture (the first step of the loop below, without setting up the swap list).
        return first_gain;
    }

    let mut swaps = SwapList::new(first_gain, on_square, promotes);
    let mut side = !us;
    loop {
        let side_attackers = attackers & occupied & board.by_color(side);
        if side_attackers.is_empty() {
            break;
        }
        let (sq, role) = Role::ALL
            .into_iter()
            .find_map(|role| (side_attackers & board.by_role(role)).first().map(|sq| (sq, role)))
            .expect("some attacker");
        if role == Role::King && (attackers & occupied & board.by_color(!side)).any() {
            // The king may not capture onto a square the other side still defends.
            break;
        }
        let more = swaps.capture(role as usize - 1);
        occupied.discard(sq);
        // X-rays: a slider behind the piece that just captured now sees the square. Only the
        // line from the square through the capturer opens (none for a knight, never on a line
        // through the square it attacks), and on it only the first piece beyond the capturer
        // can be a new attacker: two table reads ([`xray_through`]), no magic lookup.
        attackers |= xray_through(to, sq, occupied, diagonal, orthogonal);
        side = !side;
        if !more {
            break;
        }
    }
    swaps.resolve()
}

/// The swap list of a static exchange evaluation, shared by [`see`] and the engine's
/// `Board::see` (which find the attackers on their own boards): the gains of the captures on
/// one square so far, and the piece standing on it.
///
/// Entry `k` is what the side making capture `k` has won if the exchange stops after it; at
/// the end, each side in turn, from the last capture back, may decline to capture
/// ([`SwapList::resolve`]). Values are Sunfish's [`PIECE_VALUE`] in centipawns; at most 33
/// captures are counted.
pub struct SwapList {
    /// `gain[k]` after capture `k` (`gain[0]`: the move itself).
    gain: [i32; 34],
    /// Captures after the move itself.
    depth: usize,
    /// Value of the piece on the square, which the next capture takes.
    on_square: i32,
    /// Whether the square is on the first or last rank: a pawn recapturing there promotes (to
    /// a queen).
    promotes: bool,
}

impl SwapList {
    /// The list after the move itself: it wins `first_gain` outright (the captured piece and
    /// any promotion gain) and leaves a piece worth `on_square` on the square; `promotes`:
    /// whether the square is on the first or last rank.
    #[inline(always)]
    pub fn new(first_gain: i32, on_square: i32, promotes: bool) -> Self {
        let mut list = SwapList { gain: [0; 34], depth: 0, on_square, promotes };
        list.gain[0] = first_gain;
        list
    }

    /// Adds a recapture by the other side with a piece of role `role` (0 pawn .. 5 king, the
    /// index of [`PIECE_VALUE`]); a pawn promotes where the square is on the last rank. Returns
    /// whether another capture may still be counted.
    #[inline(always)]
    pub fn capture(&mut self, role: usize) -> bool {
        self.depth += 1;
        self.gain[self.depth] = self.on_square - self.gain[self.depth - 1];
        self.on_square = PIECE_VALUE[role];
        if role == 0 && self.promotes {
            self.gain[self.depth] += PIECE_VALUE[4] - PIECE_VALUE[0];
            self.on_square = PIECE_VALUE[4];
        }
        self.depth + 1 < self.gain.len()
    }

    /// The exchange's value for the side that made the first move, in centipawns: from the
    /// last capture back, each side takes the better of capturing and stopping.
    #[inline(always)]
    pub fn resolve(&mut self) -> i32 {
        let mut depth = self.depth;
        while depth > 0 {
            self.gain[depth - 1] = -(-self.gain[depth - 1]).max(self.gain[depth]);
            depth -= 1;
        }
        self.gain[0]
    }
}

/// The SEE of a normal move that meets no recapture ([`super::Threats::unopposed`]), in centipawns: what it
/// wins outright, the captured piece plus the promotion gain (Sunfish's [`PIECE_VALUE`]).
#[inline]
pub fn see_unopposed(role: Role, capture: Option<Role>, promotion: Option<Role>) -> i32 {
    capture.map_or(0, piece_value) + promotion.map_or(0, |p| piece_value(p) - piece_value(role))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen, uci::UciMove};

    /// [`see`] as it was before its x-rays came from [`xray_through`] (every slider attacking
    /// the square looked up again after each capture): the reference it must equal.
    fn see_reference(pos: &Chess, m: &Move) -> i32 {
        let board = pos.board();
        let us = pos.turn();
        let (from, to, first_gain, on_square) = match *m {
            Move::Normal { role, from, capture, to, promotion } => {
                let piece = promotion.unwrap_or(role);
                (from, to, see_unopposed(role, capture, promotion), piece_value(piece))
            }
            Move::EnPassant { from, to } => (from, to, piece_value(Role::Pawn), piece_value(Role::Pawn)),
            Move::Castle { .. } | Move::Put { .. } => return 0,
        };
        let mut occupied = board.occupied().without(from);
        if let Move::EnPassant { from, to } = *m {
            occupied.discard(Square::from_coords(to.file(), from.rank()));
        }
        let last_rank = Bitboard::from_rank(Rank::First) | Bitboard::from_rank(Rank::Eighth);
        let promotes = last_rank.contains(to);
        let diagonal = board.bishops() | board.queens();
        let orthogonal = board.rooks() | board.queens();

        // Everything attacking `to` with the current occupancy (what `Board::attacks_to` gives for
        // both colours); pieces already used are removed from `occupied` and filtered out below.
        let mut attackers = slider_attacks(to, occupied, diagonal, orthogonal)
            | attacks::knight_attacks(to) & board.knights()
            | attacks::king_attacks(to) & board.kings()
            | attacks::pawn_attacks(Color::Black, to) & board.pawns() & board.white()
            | attacks::pawn_attacks(Color::White, to) & board.pawns() & board.black();
        if (attackers & occupied & board.by_color(!us)).is_empty() {
            // No recapture (the first step of the loop below, without setting up the swap list).
            return first_gain;
        }

        let mut swaps = SwapList::new(first_gain, on_square, promotes);
        let mut side = !us;
        loop {
            let side_attackers = attackers & occupied & board.by_color(side);
            if side_attackers.is_empty() {
                break;
            }
            let (sq, role) = Role::ALL
                .into_iter()
                .find_map(|role| (side_attackers & board.by_role(role)).first().map(|sq| (sq, role)))
                .expect("some attacker");
            if role == Role::King && (attackers & occupied & board.by_color(!side)).any() {
                // The king may not capture onto a square the other side still defends.
                break;
            }
            let more = swaps.capture(role as usize - 1);
            occupied.discard(sq);
            // X-rays: sliders behind the piece that just captured now see the square. Only lines
            // through its square open: a diagonal one for a pawn or bishop, an orthogonal one for
            // a rook, none for a knight (never on a line through the square it attacks).
            attackers |= match role {
                Role::Pawn | Role::Bishop => slider_attacks(to, occupied, diagonal, Bitboard::EMPTY),
                Role::Rook => slider_attacks(to, occupied, Bitboard::EMPTY, orthogonal),
                Role::Knight => Bitboard::EMPTY,
                Role::Queen | Role::King => slider_attacks(to, occupied, diagonal, orthogonal),
            };
            side = !side;
            if !more {
                break;
            }
        }
        swaps.resolve()
    }

    #[test]
    fn see_equals_the_reference_on_every_move_of_benchmark_positions() {
        let (mut moves, mut exchanges) = (0, 0);
        for line in include_str!("../../data/Chess_Games.txt").lines().take(400) {
            let game = crate::chess::testing::parse_game(line.as_bytes()).expect("benchmark lines parse");
            let mut pos = Chess::default();
            for m in &game.moves {
                for cand in pos.legal_moves() {
                    let expected = see_reference(&pos, &cand);
                    assert_eq!(see(&pos, &cand), expected, "{cand:?} in {}", Fen::from_position(&pos, shakmaty::EnPassantMode::Legal));
                    moves += 1;
                    exchanges += (expected != 0) as usize;
                }
                pos.play_unchecked(*m);
            }
        }
        assert!(moves > 500_000 && exchanges > moves / 10, "{exchanges} non-zero of {moves} moves");
    }

    fn see_uci(fen: &str, uci: &str) -> i32 {
        let pos: Chess = fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap();
        let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        see(&pos, &m)
    }

    #[test]
    fn see_textbook_examples() {
        // Rook takes a pawn defended by a pawn: wins 100, loses the rook.
        assert_eq!(see_uci("4k3/8/3p4/4p3/8/8/8/4RK2 w - - 0 1", "e1e5"), 100 - 479);
        // Undefended pawn (chessprogramming.org SEE example 1).
        assert_eq!(see_uci("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5"), 100);
        // Chessprogramming.org SEE example 2, Nxe5 with x-rays on both sides: NxP, NxN, and
        // White stops (RxN BxR QxB QxQ would lose more).
        assert_eq!(see_uci("1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "d3e5"), 100 - 280);
        // Equal trade: knight takes knight defended by a pawn.
        assert_eq!(see_uci("4k3/8/3p4/4n3/8/5N2/8/4K3 w - - 0 1", "f3e5"), 0);
        // Pawn takes a defended queen.
        assert_eq!(see_uci("4k3/8/3p4/4q3/3P4/8/8/4K3 w - - 0 1", "d4e5"), 929 - 100);
        // Battery: the queen behind the rook supports RxP against a rook defender.
        assert_eq!(see_uci("4r1k1/8/8/4p3/8/8/4R3/4QK2 w - - 0 1", "e2e5"), 100);
        // Without the queen the same capture loses the exchange.
        assert_eq!(see_uci("4r1k1/8/8/4p3/8/8/4R3/5K2 w - - 0 1", "e2e5"), 100 - 479);
        // The king may take an undefended piece, but not a defended one.
        assert_eq!(see_uci("4k3/8/8/8/8/8/3p4/4K3 w - - 0 1", "e1d2"), 100);
    }

    #[test]
    fn unopposed_moves_score_their_first_gain_on_benchmark_positions() {
        let (mut moves, mut shortcuts) = (0, 0);
        for line in include_str!("../../data/Chess_Games.txt").lines().take(300) {
            let game = crate::chess::testing::parse_game(line.as_bytes()).expect("benchmark lines parse");
            let mut pos = Chess::default();
            for m in &game.moves {
                let t = crate::chess::Threats::new(&pos);
                for cand in pos.legal_moves() {
                    moves += 1;
                    if let Move::Normal { role, from, capture, to, promotion } = cand
                        && t.unopposed(from, to)
                    {
                        assert_eq!(see_unopposed(role, capture, promotion), see(&pos, &cand), "{cand:?}");
                        shortcuts += 1;
                    }
                }
                pos.play_unchecked(*m);
            }
        }
        assert!(moves > 500_000 && shortcuts > moves / 4, "{shortcuts} shortcuts of {moves} moves");
    }

    #[test]
    fn see_quiet_moves_and_specials() {
        // Knight to a square attacked by a pawn: loses the knight.
        assert_eq!(see_uci("4k3/8/3p4/8/8/5N2/8/4K3 w - - 0 1", "f3e5"), -280);
        // Safe quiet move.
        assert_eq!(see_uci("4k3/8/8/8/8/5N2/8/4K3 w - - 0 1", "f3e5"), 0);
        // Defended destination: the exchange would still lose the knight for a pawn? No: the
        // knight is attacked by a pawn and defended by a pawn, PxN PxP leaves -280 + 100.
        assert_eq!(see_uci("4k3/8/3p4/8/3P4/5N2/8/4K3 w - - 0 1", "f3e5"), -280 + 100);
        // Safe promotion gains queen minus pawn; a promotion onto a guarded square loses it.
        assert_eq!(see_uci("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q"), 929 - 100);
        assert_eq!(see_uci("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q"), -100);
        // En passant of an undefended pawn.
        assert_eq!(see_uci("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"), 100);
        // Castling is 0.
        assert_eq!(see_uci("4k3/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1"), 0);
    }
}
