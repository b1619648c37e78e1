//! Compact copy-make board used inside the search.
//!
//! Built once per [`super::Searcher::score_moves`] (or `score_packed`) call from the shakmaty
//! root position, then copied and updated per searched move (no allocation). Moves are
//! generated pseudo-legally with shakmaty's attack tables (magic bitboards); legality is checked after making a move by testing
//! whether the mover's king is attacked, which yields exactly shakmaty's legal move set
//! (castling through or out of check is rejected at generation, like shakmaty does).

use shakmaty::{Bitboard, CastlingSide, Chess, Color, Move, Position, Role, Square, attacks};

use crate::chess::SwapList;
use crate::chess::movegen::Packed;
use crate::chess::pst::{PIECE_VALUE, PST};
use crate::chess::rays::{BISHOP_RAYS, KING_ATTACKS, KNIGHT_ATTACKS, ROOK_RAYS};

pub(crate) const PAWN: usize = 0;
pub(crate) const KNIGHT: usize = 1;
pub(crate) const BISHOP: usize = 2;
pub(crate) const ROOK: usize = 3;
pub(crate) const QUEEN: usize = 4;
pub(crate) const KING: usize = 5;

/// Colour indices (shakmaty's `Color as usize`).
const BLACK: usize = Color::Black as usize;
const WHITE: usize = Color::White as usize;

const RANK_1: u64 = 0xff;
const RANK_8: u64 = 0xff << 56;
const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;

/// Material + PST per `[colour][role][square]` (shakmaty square numbering), from the owner's
/// point of view: [`PST`] read at the square mirrored for Black.
pub(crate) static VAL: [[[i32; 64]; 6]; 2] = {
    let mut out = [[[0; 64]; 6]; 2];
    let mut r = 0;
    while r < 6 {
        let mut sq = 0;
        while sq < 64 {
            out[WHITE][r][sq] = PST[r][sq];
            out[BLACK][r][sq] = PST[r][sq ^ 56];
            sq += 1;
        }
        r += 1;
    }
    out
};

/// Move kinds stored in [`Mv`].
const KIND_NORMAL: u32 = 0;
const KIND_EP: u32 = 1;
const KIND_CASTLE: u32 = 2;

/// A packed move: bits 0-5 from, 6-11 to, 12-14 moving role, 15-17 captured role (7 = none),
/// 18-20 promotion role (0 = none), 21-22 kind. For castling, `from` is the king's square and
/// `to` the rook's square (shakmaty's convention).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Mv(pub u32);

const NO_VICTIM: u32 = 7;

impl Mv {
    #[inline]
    fn new(from: u32, to: u32, role: usize, victim: u32, promo: usize, kind: u32) -> Mv {
        Mv(from | to << 6 | (role as u32) << 12 | victim << 15 | (promo as u32) << 18 | kind << 21)
    }
    /// The search's packing of a legal move given in the model's packing ([`Packed`]): the same
    /// from, to and role bits; the captured and promotion roles shifted down by one (no
    /// capture [`NO_VICTIM`], no promotion 0; en passant captures a pawn); for castling, `to`
    /// is the rook's square. [`Board::convert`] of the same move gives the same result.
    #[inline]
    pub(crate) fn from_packed(p: Packed) -> Mv {
        let (from, to, role) = (p.from() as u32, p.to() as u32, p.role());
        match p.kind() {
            Packed::NORMAL => {
                let victim = if p.capture() == 0 { NO_VICTIM } else { p.capture() as u32 - 1 };
                Mv::new(from, to, role, victim, p.promotion().saturating_sub(1), KIND_NORMAL)
            }
            Packed::EN_PASSANT => Mv::new(from, to, PAWN, PAWN as u32, 0, KIND_EP),
            _ => Mv::new(from, p.0 >> 23 & 63, KING, NO_VICTIM, 0, KIND_CASTLE),
        }
    }
    #[inline]
    pub fn from(self) -> u32 {
        self.0 & 63
    }
    #[inline]
    pub fn to(self) -> u32 {
        (self.0 >> 6) & 63
    }
    #[inline]
    fn role(self) -> usize {
        ((self.0 >> 12) & 7) as usize
    }
    #[inline]
    fn victim(self) -> u32 {
        (self.0 >> 15) & 7
    }
    #[inline]
    fn promo(self) -> usize {
        ((self.0 >> 18) & 7) as usize
    }
    #[inline]
    fn kind(self) -> u32 {
        self.0 >> 21
    }
    /// Whether the move is neither en passant nor castling.
    #[inline]
    pub(crate) fn is_normal(self) -> bool {
        self.kind() == KIND_NORMAL
    }
    /// The squares whose contents the move changes (origin and destination; the captured
    /// pawn's square for en passant; the king's and rook's squares for castling).
    #[inline]
    pub(crate) fn touched(self) -> u64 {
        let (from, to) = (self.from(), self.to());
        let both = 1u64 << from | 1u64 << to;
        match self.kind() {
            KIND_NORMAL => both,
            KIND_EP => both | 1u64 << ((to & 7) | (from & !7)),
            _ => {
                let (kt, rt) = castle_targets(from, to);
                both | 1u64 << kt | 1u64 << rt
            }
        }
    }
}

/// A move with its [`crate::chess::move_value`] (centipawns), as stored in the search's move stack.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scored {
    pub value: i32,
    pub mv: Mv,
}

/// Most pseudo-legal moves any position can have: at most 16 pieces with at most 27 moves each
/// (a queen; a pawn has at most 3 targets x 4 promotions), plus 2 castling moves.
pub(crate) const MAX_MOVES: usize = 16 * 27 + 2;

/// Length of a node's move list: room for every move plus one scratch slot.
pub(crate) const LIST_LEN: usize = MAX_MOVES + 1;

/// The part of the search's move stack that one node fills (a slice of at least
/// [`LIST_LEN`] entries) and how many moves it holds.
pub(crate) struct MoveList<'a> {
    buf: &'a mut [Scored],
    pub len: usize,
}

impl<'a> MoveList<'a> {
    #[inline]
    pub fn new(buf: &'a mut [Scored]) -> Self {
        debug_assert!(buf.len() >= LIST_LEN);
        MoveList { buf, len: 0 }
    }

    #[inline(always)]
    pub fn push(&mut self, m: Scored) {
        self.buf[self.len] = m;
        self.len += 1;
    }

    /// Pushes `m` if `keep` (branch-free: the slot after the last move is scratch space).
    #[inline(always)]
    pub(crate) fn push_if(&mut self, keep: bool, m: Scored) {
        self.buf[self.len] = m;
        self.len += keep as usize;
    }
}

/// Castling geometry of the root position (constant during a search; whether a right is still
/// available is tracked by [`Board::castle`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CastleInfo {
    /// Rook square per `[colour][side]` (0 = king side, 1 = queen side), 64 = none.
    rook: [[u8; 2]; 2],
    /// Squares that must be empty, per `[colour][side]` (shakmaty's `Castles::path`).
    path: [[u64; 2]; 2],
}

impl CastleInfo {
    pub(crate) fn from_chess(pos: &Chess) -> CastleInfo {
        let castles = pos.castles();
        let mut info = CastleInfo { rook: [[64; 2]; 2], path: [[0; 2]; 2] };
        for color in Color::ALL {
            for (i, side) in [CastlingSide::KingSide, CastlingSide::QueenSide].into_iter().enumerate() {
                if let Some(rook) = castles.rook(color, side) {
                    info.rook[color as usize][i] = rook as u8;
                    info.path[color as usize][i] = castles.path(color, side).0;
                }
            }
        }
        info
    }
}

#[inline]
fn sq(i: u32) -> Square {
    Square::new(i & 63)
}

#[inline]
fn bb(x: u64) -> Bitboard {
    Bitboard(x)
}

/// King's and rook's destination squares of a castling move `king` -> `rook` square.
#[inline]
fn castle_targets(king: u32, rook: u32) -> (u32, u32) {
    let base = king & !7;
    if rook < king { (base + 2, base + 3) } else { (base + 6, base + 5) }
}

/// Board state: piece bitboards by role and colour, castling rights (as the set of rook squares
/// that may still castle), en-passant target square and side to move. 80 bytes, so copy-make
/// is a few vector moves.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub(crate) struct Board {
    roles: [u64; 6],
    colors: [u64; 2],
    /// Rook squares that still carry a castling right.
    castle: u64,
    /// En-passant target square after a double push (pseudo-legal, as shakmaty), 0 = none.
    ep: u8,
    /// Side to move (`Color as usize`).
    turn: u8,
}

impl Board {
    pub(crate) fn from_chess(pos: &Chess) -> Board {
        let board = pos.board();
        let mut b = Board {
            roles: [0; 6],
            colors: [board.black().0, board.white().0],
            castle: pos.castles().castling_rights().0,
            ep: pos.maybe_ep_square().map_or(0, |s| s as u8),
            turn: pos.turn() as u8,
        };
        for role in Role::ALL {
            let r = role as usize - 1;
            b.roles[r] = board.by_role(role).0;
        }
        b
    }

    /// The same pieces with the other side to move and no en-passant square (a null move;
    /// castling rights unchanged).
    #[inline]
    pub(crate) fn passed(&self) -> Board {
        Board { ep: 0, turn: self.turn ^ 1, ..*self }
    }

    #[inline]
    fn occupied(&self) -> u64 {
        self.colors[0] | self.colors[1]
    }

    #[inline]
    fn us(&self) -> usize {
        self.turn as usize
    }

    #[inline]
    fn king_sq(&self, color: usize) -> u32 {
        (self.roles[KING] & self.colors[color]).trailing_zeros()
    }

    /// Whether `square` is attacked by `by`'s pieces given occupancy `occ`.
    #[inline]
    fn attacked(&self, square: u32, by: usize, occ: u64) -> bool {
        let s = sq(square);
        let them = self.colors[by];
        let diag = (self.roles[BISHOP] | self.roles[QUEEN]) & them;
        let orth = (self.roles[ROOK] | self.roles[QUEEN]) & them;
        let us_color = if by == WHITE { Color::Black } else { Color::White };
        (attacks::knight_attacks(s).0 & self.roles[KNIGHT] & them) != 0
            || (attacks::pawn_attacks(us_color, s).0 & self.roles[PAWN] & them) != 0
            || (attacks::king_attacks(s).0 & self.roles[KING] & them) != 0
            || (diag & BISHOP_RAYS[square as usize] != 0 && attacks::bishop_attacks(s, bb(occ)).0 & diag != 0)
            || (orth & ROOK_RAYS[square as usize] != 0 && attacks::rook_attacks(s, bb(occ)).0 & orth != 0)
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn in_check(&self) -> bool {
        let us = self.us();
        self.attacked(self.king_sq(us), us ^ 1, self.occupied())
    }

    /// Whether the side that just moved left its king attacked (the move was illegal).
    #[inline]
    pub(crate) fn mover_in_check(&self) -> bool {
        let mover = self.us() ^ 1;
        self.attacked(self.king_sq(mover), mover ^ 1, self.occupied())
    }

    /// [`crate::chess::move_value`] of `m` for the side to move.
    #[inline]
    pub fn value(&self, m: Mv) -> i32 {
        let us = self.us();
        let (from, to, role) = (m.from() as usize, m.to() as usize, m.role());
        match m.kind() {
            KIND_NORMAL => {
                let promo = m.promo();
                let new_role = if promo != 0 { promo } else { role };
                let mut v = VAL[us][new_role][to] - VAL[us][role][from];
                let victim = m.victim();
                if victim != NO_VICTIM {
                    v += VAL[us ^ 1][victim as usize][to];
                }
                v
            }
            KIND_EP => {
                let victim_sq = (to & 7) | (from & !7);
                VAL[us][PAWN][to] - VAL[us][PAWN][from] + VAL[us ^ 1][PAWN][victim_sq]
            }
            _ => {
                let (kt, rt) = castle_targets(from as u32, to as u32);
                VAL[us][KING][kt as usize] - VAL[us][KING][from] + VAL[us][ROOK][rt as usize] - VAL[us][ROOK][to]
            }
        }
    }

    /// [`crate::chess::see()`] of `m` (a pseudo-legal move of the side to move): the same swap-list
    /// computation, on this board's bitboards, with the same choices (least valuable attacker
    /// by role, lowest square first; x-rays; the king rule; promotions; at most 33 captures).
    pub fn see(&self, m: Mv) -> i32 {
        let us = self.us();
        let (from, to) = (m.from(), m.to());
        let (first_gain, on_square, mut occ) = match m.kind() {
            KIND_NORMAL => {
                let victim = m.victim();
                let captured = if victim == NO_VICTIM { 0 } else { PIECE_VALUE[victim as usize] };
                let promo = m.promo();
                let piece = if promo != 0 { promo } else { m.role() };
                (captured + PIECE_VALUE[piece] - PIECE_VALUE[m.role()], PIECE_VALUE[piece], self.occupied() & !(1 << from))
            }
            KIND_EP => {
                let victim_sq = (to & 7) | (from & !7);
                (PIECE_VALUE[PAWN], PIECE_VALUE[PAWN], self.occupied() & !(1 << from | 1 << victim_sq))
            }
            _ => return 0,
        };
        let promotes = (1u64 << to) & (RANK_1 | RANK_8) != 0;
        let diag = self.roles[BISHOP] | self.roles[QUEEN];
        let orth = self.roles[ROOK] | self.roles[QUEEN];
        let (diag_rays, orth_rays) = (BISHOP_RAYS[to as usize], ROOK_RAYS[to as usize]);
        let s = sq(to);
        // Every piece attacking `to` through `occ` (both colours); pieces that have captured
        // are taken out of `occ`, and filtered out below.
        let mut attackers = (KNIGHT_ATTACKS[to as usize] & self.roles[KNIGHT])
            | (KING_ATTACKS[to as usize] & self.roles[KING])
            | (attacks::pawn_attacks(Color::Black, s).0 & self.roles[PAWN] & self.colors[WHITE])
            | (attacks::pawn_attacks(Color::White, s).0 & self.roles[PAWN] & self.colors[BLACK]);
        if diag & diag_rays != 0 {
            attackers |= attacks::bishop_attacks(s, bb(occ)).0 & diag;
        }
        if orth & orth_rays != 0 {
            attackers |= attacks::rook_attacks(s, bb(occ)).0 & orth;
        }
        if attackers & occ & self.colors[us ^ 1] == 0 {
            // No recapture: the loop below would stop at once.
            return first_gain;
        }
        let mut swaps = SwapList::new(first_gain, on_square, promotes);
        let mut side = us ^ 1;
        loop {
            let side_attackers = attackers & occ & self.colors[side];
            if side_attackers == 0 {
                break;
            }
            let mut role = PAWN;
            while side_attackers & self.roles[role] == 0 {
                role += 1;
            }
            if role == KING && attackers & occ & self.colors[side ^ 1] != 0 {
                // The king may not capture onto a square the other side still defends.
                break;
            }
            let capturer = (side_attackers & self.roles[role]).trailing_zeros();
            let more = swaps.capture(role);
            let bit = 1u64 << capturer;
            occ &= !bit;
            // X-rays: only a piece on a line through `to` can uncover a slider behind it.
            if bit & diag_rays != 0 {
                attackers |= attacks::bishop_attacks(s, bb(occ)).0 & diag;
            }
            if bit & orth_rays != 0 {
                attackers |= attacks::rook_attacks(s, bb(occ)).0 & orth;
            }
            side ^= 1;
            if !more {
                break;
            }
        }
        swaps.resolve()
    }

    /// A superset of the squares whose contents [`Board::see`] reads for a capture (or
    /// promotion) onto `to`: `to`, the knight squares and neighbours of `to`, and along each line
    /// from `to` every square up to and including the first piece that can never capture
    /// along it (one that is not a slider of the line's kind, beyond the neighbours). Such a
    /// piece never leaves the board during the exchange, so nothing behind it is ever seen.
    /// Another position with the same contents on these squares has the same set and the
    /// same exchanges onto `to` (the origin and moved piece are on these squares too).
    pub(crate) fn exchange_reach(&self, to: u32) -> u64 {
        let t = to as usize;
        let near = KING_ATTACKS[t];
        let occ = self.occupied() & !near;
        let diag = self.roles[BISHOP] | self.roles[QUEEN];
        let orth = self.roles[ROOK] | self.roles[QUEEN];
        let s = sq(to);
        1u64 << to | KNIGHT_ATTACKS[t] | near | attacks::bishop_attacks(s, bb(occ & !diag)).0 | attacks::rook_attacks(s, bb(occ & !orth)).0
    }

    /// Upper bound of [`Board::see`] for `m`, in centipawns: the material it captures plus its
    /// promotion gain (the first entry of the swap list, which the exchange can only lower);
    /// 0 for a quiet move and castling.
    #[inline]
    pub(crate) fn see_bound(m: Mv) -> i32 {
        match m.kind() {
            KIND_NORMAL => {
                let victim = m.victim();
                let captured = if victim == NO_VICTIM { 0 } else { PIECE_VALUE[victim as usize] };
                let promo = m.promo();
                captured + if promo != 0 { PIECE_VALUE[promo] - PIECE_VALUE[PAWN] } else { 0 }
            }
            KIND_EP => PIECE_VALUE[PAWN],
            _ => 0,
        }
    }

    /// Converts a shakmaty move (legal in the position this board mirrors) to a packed move.
    pub fn convert(&self, m: &Move) -> Mv {
        match *m {
            Move::Normal { role, from, capture, to, promotion } => Mv::new(
                from as u32,
                to as u32,
                role as usize - 1,
                capture.map_or(NO_VICTIM, |r| r as u32 - 1),
                promotion.map_or(0, |r| r as usize - 1),
                KIND_NORMAL,
            ),
            Move::EnPassant { from, to } => Mv::new(from as u32, to as u32, PAWN, PAWN as u32, 0, KIND_EP),
            Move::Castle { king, rook } => Mv::new(king as u32, rook as u32, KING, NO_VICTIM, 0, KIND_CASTLE),
            Move::Put { .. } => unreachable!("no drops in standard chess"),
        }
    }

    #[inline]
    fn remove(&mut self, s: usize, role: usize, color: usize) {
        let mask = !(1u64 << s);
        self.roles[role] &= mask;
        self.colors[color] &= mask;
    }

    #[inline]
    fn put(&mut self, s: usize, role: usize, color: usize) {
        let bit = 1u64 << s;
        self.roles[role] |= bit;
        self.colors[color] |= bit;
    }

    /// Plays `m` (pseudo-legal for the side to move), updating castling rights, en passant and
    /// the side to move like shakmaty's `play_unchecked`.
    #[inline(always)]
    pub fn make(&mut self, m: Mv) {
        let us = self.us();
        let them = us ^ 1;
        let (from, to, role) = (m.from() as usize, m.to() as usize, m.role());
        self.ep = 0;
        match m.kind() {
            KIND_NORMAL => {
                let victim = m.victim();
                if victim != NO_VICTIM {
                    self.remove(to, victim as usize, them);
                }
                self.remove(from, role, us);
                let promo = m.promo();
                self.put(to, if promo != 0 { promo } else { role }, us);
                if role == PAWN && (from ^ to) == 16 {
                    self.ep = ((from + to) / 2) as u8;
                }
                if role == KING {
                    self.castle &= if us == WHITE { !RANK_1 } else { !RANK_8 };
                }
                self.castle &= !(1u64 << from | 1u64 << to);
            }
            KIND_EP => {
                let victim_sq = (to & 7) | (from & !7);
                self.remove(victim_sq, PAWN, them);
                self.remove(from, PAWN, us);
                self.put(to, PAWN, us);
            }
            _ => {
                let (kt, rt) = castle_targets(from as u32, to as u32);
                self.remove(from, KING, us);
                self.remove(to, ROOK, us);
                self.put(kt as usize, KING, us);
                self.put(rt as usize, ROOK, us);
                self.castle &= if us == WHITE { !RANK_1 } else { !RANK_8 };
            }
        }
        self.turn ^= 1;
    }

    /// Role of the enemy piece on `to`, which must hold a non-king piece (branch-free).
    #[inline(always)]
    fn victim_at(&self, to: usize) -> usize {
        (((self.roles[KNIGHT] >> to) & 1)
            + ((self.roles[BISHOP] >> to) & 1) * 2
            + ((self.roles[ROOK] >> to) & 1) * 3
            + ((self.roles[QUEEN] >> to) & 1) * 4) as usize
    }

    /// Pushes captures of `targets` (enemy pieces, king excluded) by our `role` (not a pawn)
    /// on `from` whose value exceeds `floor`. The value is the move's
    /// [`crate::chess::move_value`], or its [`Board::see_bound`] if `BOUND`.
    #[inline(always)]
    fn push_captures<const BOUND: bool>(&self, out: &mut MoveList, role: usize, from: u32, targets: u64, floor: i32) {
        let us = self.us();
        let val_role = &VAL[us][role];
        let val_them = &VAL[us ^ 1];
        let from_val = val_role[from as usize];
        let mut t = targets;
        while t != 0 {
            let to = t.trailing_zeros() as usize;
            t &= t - 1;
            let victim = self.victim_at(to);
            let value = if BOUND { PIECE_VALUE[victim] } else { val_role[to] - from_val + val_them[victim][to] };
            out.push_if(value > floor, Scored { value, mv: Mv::new(from, to as u32, role, victim as u32, 0, KIND_NORMAL) });
        }
    }

    /// Pushes pawn captures of `targets` (enemy pieces, king excluded) from `delta` squares
    /// back, with all four promotions on the last rank, whose value (as in
    /// [`Board::push_captures`]) exceeds `floor`.
    #[inline(always)]
    fn push_pawn_captures<const BOUND: bool>(&self, out: &mut MoveList, targets: u64, delta: i32, floor: i32) {
        let us = self.us();
        let val_pawn = &VAL[us][PAWN];
        let val_them = &VAL[us ^ 1];
        let promo_rank = if us == WHITE { RANK_8 } else { RANK_1 };
        let mut t = targets & !promo_rank;
        while t != 0 {
            let to = t.trailing_zeros() as usize;
            t &= t - 1;
            let from = (to as i32 - delta) as usize;
            let victim = self.victim_at(to);
            let value = if BOUND { PIECE_VALUE[victim] } else { val_them[victim][to] + val_pawn[to] - val_pawn[from] };
            out.push_if(value > floor, Scored { value, mv: Mv::new(from as u32, to as u32, PAWN, victim as u32, 0, KIND_NORMAL) });
        }
        let mut t = targets & promo_rank;
        while t != 0 {
            let to = t.trailing_zeros() as usize;
            t &= t - 1;
            let from = (to as i32 - delta) as usize;
            let victim = self.victim_at(to);
            let base = if BOUND { PIECE_VALUE[victim] - PIECE_VALUE[PAWN] } else { val_them[victim][to] - val_pawn[from] };
            for promo in [QUEEN, ROOK, BISHOP, KNIGHT] {
                let value = base + if BOUND { PIECE_VALUE[promo] } else { VAL[us][promo][to] };
                out.push_if(value > floor, Scored { value, mv: Mv::new(from as u32, to as u32, PAWN, victim as u32, promo, KIND_NORMAL) });
            }
        }
    }

    /// Pushes pawn pushes onto the empty squares `targets` from `delta` squares back, with all
    /// four promotions on the last rank, whose value (as in [`Board::push_captures`]) exceeds
    /// `floor`.
    #[inline(always)]
    fn push_pawn_pushes<const BOUND: bool>(&self, out: &mut MoveList, targets: u64, delta: i32, floor: i32) {
        let us = self.us();
        let val_us = &VAL[us];
        let promo_rank = if us == WHITE { RANK_8 } else { RANK_1 };
        let mut t = targets;
        while t != 0 {
            let to = t.trailing_zeros();
            t &= t - 1;
            let from = (to as i32 - delta) as u32;
            let base = if BOUND { -PIECE_VALUE[PAWN] } else { -val_us[PAWN][from as usize] };
            if (1u64 << to) & promo_rank != 0 {
                for promo in [QUEEN, ROOK, BISHOP, KNIGHT] {
                    let value = base + if BOUND { PIECE_VALUE[promo] } else { val_us[promo][to as usize] };
                    out.push_if(value > floor, Scored { value, mv: Mv::new(from, to, PAWN, NO_VICTIM, promo, KIND_NORMAL) });
                }
            } else {
                let value = if BOUND { 0 } else { base + val_us[PAWN][to as usize] };
                out.push_if(value > floor, Scored { value, mv: Mv::new(from, to, PAWN, NO_VICTIM, 0, KIND_NORMAL) });
            }
        }
    }

    /// Pushes pawn captures (en passant included) and, if `quiet`, pushes (single and double,
    /// promotions always), whose value (as in [`Board::push_captures`]) exceeds `floor`.
    /// Returns `true` if a pawn attacks the enemy king.
    #[inline(always)]
    fn gen_pawns<const BOUND: bool>(&self, out: &mut MoveList, quiet: bool, floor: i32) -> bool {
        let us = self.us();
        let our = self.colors[us];
        let their = self.colors[us ^ 1];
        let occ = our | their;
        let pawns = self.roles[PAWN] & our;
        let (left, right, fwd, promo_rank, third): (u64, u64, u64, u64, u64) = if us == WHITE {
            ((pawns & !FILE_A) << 7, (pawns & !FILE_H) << 9, (pawns << 8) & !occ, RANK_8, RANK_1 << 16)
        } else {
            ((pawns & !FILE_H) >> 7, (pawns & !FILE_A) >> 9, (pawns >> 8) & !occ, RANK_1, RANK_8 >> 16)
        };
        if (left | right) & their & self.roles[KING] != 0 {
            return true;
        }
        let (dl, dr, df): (i32, i32, i32) = if us == WHITE { (7, 9, 8) } else { (-7, -9, -8) };
        self.push_pawn_captures::<BOUND>(out, left & their, dl, floor);
        self.push_pawn_captures::<BOUND>(out, right & their, dr, floor);
        if quiet {
            self.push_pawn_pushes::<BOUND>(out, fwd, df, floor);
            let double = if us == WHITE { ((fwd & third) << 8) & !occ } else { ((fwd & third) >> 8) & !occ };
            self.push_pawn_pushes::<BOUND>(out, double, 2 * df, floor);
        } else {
            self.push_pawn_pushes::<BOUND>(out, fwd & promo_rank, df, floor);
        }
        if self.ep != 0 {
            let ep = self.ep as u32;
            let them_color = if us == WHITE { Color::Black } else { Color::White };
            let mut f = attacks::pawn_attacks(them_color, sq(ep)).0 & pawns;
            while f != 0 {
                let from = f.trailing_zeros();
                f &= f - 1;
                let m = Mv::new(from, ep, PAWN, PAWN as u32, 0, KIND_EP);
                let value = if BOUND { PIECE_VALUE[PAWN] } else { self.value(m) };
                if value > floor {
                    out.push(Scored { value, mv: m });
                }
            }
        }
        false
    }

    /// Pushes the side to move's pseudo-legal captures (en passant and capture-promotions
    /// included) and non-capture promotions whose value exceeds `floor`: the move's
    /// [`crate::chess::move_value`], or, if `BOUND`, the upper bound of its static exchange
    /// ([`Board::see_bound`]).
    ///
    /// Returns `true`, possibly before generating everything, if the opponent's king can be
    /// captured, i.e. the move that led here was illegal.
    #[inline(always)]
    pub(crate) fn gen_captures<const BOUND: bool>(&self, out: &mut MoveList, floor: i32) -> bool {
        self.gen_captures_known::<BOUND, false>(out, floor, &KnownAttacks::NONE)
    }

    /// [`Board::gen_captures`], reading a slider's attacks from `known` (if `KNOWN`) where
    /// they are still valid ([`KnownAttacks`]) instead of the attack tables.
    #[inline(always)]
    pub(crate) fn gen_captures_known<const BOUND: bool, const KNOWN: bool>(
        &self,
        out: &mut MoveList,
        floor: i32,
        known: &KnownAttacks,
    ) -> bool {
        let us = self.us();
        let our = self.colors[us];
        let their = self.colors[us ^ 1];
        let occ = our | their;
        let their_king = self.roles[KING] & their;
        if self.gen_pawns::<BOUND>(out, false, floor) {
            return true;
        }
        // Sliders whose empty-board rays miss every enemy piece are skipped without an
        // attack-table lookup.
        macro_rules! captures_by {
            ($role:expr, |$from:ident| $attacks:expr) => {
                let mut pieces = self.roles[$role] & our;
                while pieces != 0 {
                    let $from = pieces.trailing_zeros();
                    pieces &= pieces - 1;
                    let t = $attacks;
                    if t != 0 {
                        if t & their_king != 0 {
                            return true;
                        }
                        self.push_captures::<BOUND>(out, $role, $from, t, floor);
                    }
                }
            };
        }
        captures_by!(KNIGHT, |from| KNIGHT_ATTACKS[from as usize] & their);
        captures_by!(BISHOP, |from| if BISHOP_RAYS[from as usize] & their != 0 {
            known.get::<KNOWN>(from, || attacks::bishop_attacks(sq(from), bb(occ)).0) & their
        } else {
            0
        });
        captures_by!(ROOK, |from| if ROOK_RAYS[from as usize] & their != 0 {
            known.get::<KNOWN>(from, || attacks::rook_attacks(sq(from), bb(occ)).0) & their
        } else {
            0
        });
        captures_by!(QUEEN, |from| if (ROOK_RAYS[from as usize] | BISHOP_RAYS[from as usize]) & their != 0 {
            known.get::<KNOWN>(from, || attacks::queen_attacks(sq(from), bb(occ)).0) & their
        } else {
            0
        });
        captures_by!(KING, |from| KING_ATTACKS[from as usize] & their);
        false
    }

    /// Pushes all pseudo-legal moves of the side to move with their values. Castling moves are
    /// only generated when the king is not in check and does not pass through an attacked
    /// square (the destination is checked by the legality test after making the move).
    ///
    /// Returns `true`, possibly before generating everything, if the opponent's king can be
    /// captured, i.e. the move that led here was illegal.
    pub(crate) fn gen_all(&self, out: &mut MoveList, castling: &CastleInfo) -> bool {
        let us = self.us();
        let them = us ^ 1;
        let our = self.colors[us];
        let their = self.colors[them];
        let occ = our | their;
        let their_king = self.roles[KING] & their;
        if self.gen_pawns::<false>(out, true, i32::MIN) {
            return true;
        }
        for role in [KNIGHT, BISHOP, ROOK, QUEEN, KING] {
            let mut pieces = self.roles[role] & our;
            let val_role = &VAL[us][role];
            while pieces != 0 {
                let from = pieces.trailing_zeros();
                pieces &= pieces - 1;
                let t = piece_attacks(role, from, occ) & !our;
                if t & their_king != 0 {
                    return true;
                }
                self.push_captures::<false>(out, role, from, t & their, i32::MIN);
                let from_val = val_role[from as usize];
                let mut q = t & !occ;
                while q != 0 {
                    let to = q.trailing_zeros();
                    q &= q - 1;
                    let value = val_role[to as usize] - from_val;
                    out.push(Scored { value, mv: Mv::new(from, to, role, NO_VICTIM, 0, KIND_NORMAL) });
                }
            }
        }

        // Castling.
        if self.castle & our != 0 {
            let king = self.king_sq(us);
            for side in 0..2 {
                let rook = castling.rook[us][side] as u32;
                if rook >= 64 || self.castle & (1u64 << rook) == 0 || castling.path[us][side] & occ != 0 {
                    continue;
                }
                let (kt, _) = castle_targets(king, rook);
                let occ_wo_king = occ & !(1u64 << king);
                let king_path = attacks::between(sq(king), sq(kt)).0 | 1u64 << king;
                let mut p = king_path;
                let mut safe = true;
                while p != 0 {
                    let s = p.trailing_zeros();
                    p &= p - 1;
                    if self.attacked(s, them, occ_wo_king) {
                        safe = false;
                        break;
                    }
                }
                if safe {
                    let m = Mv::new(king, rook, KING, NO_VICTIM, 0, KIND_CASTLE);
                    out.push(Scored { value: self.value(m), mv: m });
                }
            }
        }
        false
    }
}

/// The attack sets of one side's sliders (bishops, rooks, queens) in a position, for
/// [`Board::gen_captures_known`] in positions that differ from it only on the squares
/// `touched` and have that side's sliders where it has them (the root position with the
/// opponent to move, and the positions after the root moves). A slider attacks up to and
/// including the first piece on each line, so its attack set is the same wherever the
/// contents of the squares in it and of its own square are the same.
pub(crate) struct KnownAttacks {
    /// Attack set per square of the side's sliders (other entries are not read).
    attacks: [u64; 64],
    /// Squares whose contents may differ.
    pub(crate) touched: u64,
}

impl KnownAttacks {
    /// Knows nothing (never read: for [`Board::gen_captures`]).
    const NONE: KnownAttacks = KnownAttacks { attacks: [0; 64], touched: u64::MAX };

    /// The attack sets of the sliders of the side to move of `b`, valid in `b` (`touched` empty).
    pub(crate) fn of(b: &Board) -> KnownAttacks {
        let mut known = KnownAttacks { attacks: [0; 64], touched: 0 };
        known.refill(b);
        known
    }

    /// Replaces the attack sets with those of the sliders of the side to move of `b`.
    pub(crate) fn refill(&mut self, b: &Board) {
        let occ = b.occupied();
        let ours = b.colors[b.us()];
        for role in [BISHOP, ROOK, QUEEN] {
            let mut pieces = b.roles[role] & ours;
            while pieces != 0 {
                let from = pieces.trailing_zeros();
                pieces &= pieces - 1;
                self.attacks[from as usize] = piece_attacks(role, from, occ);
            }
        }
        self.touched = 0;
    }

    /// The attack set of the slider on `from` (one of the side's sliders): the known one if
    /// `KNOWN` and none of its squares is touched, else `look_up()`.
    #[inline(always)]
    fn get<const KNOWN: bool>(&self, from: u32, look_up: impl FnOnce() -> u64) -> u64 {
        if KNOWN {
            let a = self.attacks[from as usize];
            if (a | 1u64 << from) & self.touched == 0 {
                return a;
            }
        }
        look_up()
    }
}

/// Attack set of a non-pawn `role` on square `from` with occupancy `occ`.
#[inline]
fn piece_attacks(role: usize, from: u32, occ: u64) -> u64 {
    let s = sq(from);
    match role {
        KNIGHT => attacks::knight_attacks(s).0,
        BISHOP => attacks::bishop_attacks(s, bb(occ)).0,
        ROOK => attacks::rook_attacks(s, bb(occ)).0,
        QUEEN => attacks::queen_attacks(s, bb(occ)).0,
        _ => attacks::king_attacks(s).0,
    }
}
