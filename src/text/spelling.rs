//! How a move is written in SAN: which disambiguation it shows and which check suffix.
//!
//! Canonical SAN shows the least disambiguation needed among legal moves and, in the benchmark
//! format, no `+`/`#`. Real exports differ: many add check marks, some disambiguate against
//! pseudo-legal moves (writing `Rfe1` when the other rook is pinned). A [`Spelling`] records the
//! variant actually used so that the text can be rebuilt byte for byte, and [`expected`]
//! predicts it from the position so that it costs almost nothing to code.

use shakmaty::{
    Bitboard, Chess, Move, Position, Role, Square, attacks,
    san::{San, SanPlus, Suffix},
};

use crate::chess::movegen::Packed;

/// The disambiguation and suffix of one written move: a symbol in `0..Spelling::COUNT`.
///
/// Bit 0: the origin file is written; bit 1: the origin rank is written; value / 4: the suffix
/// (0 none, 1 `+`, 2 `#`). Castling never shows file or rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Spelling(pub u8);

impl Spelling {
    /// Number of distinct spellings.
    pub const COUNT: usize = 12;

    /// Builds a spelling from its parts.
    pub fn new(file: bool, rank: bool, suffix: Option<Suffix>) -> Spelling {
        let s = match suffix {
            None => 0,
            Some(Suffix::Check) => 1,
            Some(Suffix::Checkmate) => 2,
        };
        Spelling(file as u8 | (rank as u8) << 1 | s << 2)
    }

    /// Whether the origin file is written.
    pub fn file(self) -> bool {
        self.0 & 1 != 0
    }

    /// Whether the origin rank is written.
    pub fn rank(self) -> bool {
        self.0 & 2 != 0
    }

    /// The check suffix.
    pub fn suffix(self) -> Option<Suffix> {
        match self.0 >> 2 {
            0 => None,
            1 => Some(Suffix::Check),
            _ => Some(Suffix::Checkmate),
        }
    }

    /// The SAN of `m` (legal in the position before it) written this way.
    pub fn san(self, m: &Move) -> SanPlus {
        let san = match *m {
            Move::Normal { role, from, capture, to, promotion } => San::Normal {
                role,
                file: self.file().then(|| from.file()),
                rank: self.rank().then(|| from.rank()),
                capture: capture.is_some(),
                to,
                promotion,
            },
            Move::EnPassant { from, to } => San::Normal {
                role: Role::Pawn,
                file: self.file().then(|| from.file()),
                rank: self.rank().then(|| from.rank()),
                capture: true,
                to,
                promotion: None,
            },
            Move::Castle { .. } | Move::Put { .. } => San::from_move(&Chess::default(), *m),
        };
        SanPlus { san, suffix: self.suffix() }
    }

    /// Appends the SAN of `m` written this way to `out`.
    pub fn write(self, m: &Move, out: &mut Vec<u8>) {
        self.san(m).append_ascii_to(out);
    }
}

/// How a whole game tends to write its moves; the model predicts each move's [`Spelling`] from
/// this and the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Convention {
    /// Moves carry `+` for check and `#` for mate.
    pub check_marks: bool,
    /// Disambiguation is computed against pseudo-legal moves (pins ignored).
    pub pseudo_legal_disambiguation: bool,
}

impl Convention {
    /// All conventions, indexed by their symbol value.
    pub const ALL: [Convention; 4] = [
        Convention { check_marks: false, pseudo_legal_disambiguation: false },
        Convention { check_marks: true, pseudo_legal_disambiguation: false },
        Convention { check_marks: false, pseudo_legal_disambiguation: true },
        Convention { check_marks: true, pseudo_legal_disambiguation: true },
    ];

    /// Symbol value in `0..4`.
    pub fn index(self) -> usize {
        self.check_marks as usize | (self.pseudo_legal_disambiguation as usize) << 1
    }
}

/// The spelling of `m` that `convention` predicts in `pos`. `legal` are the legal moves of
/// `pos` (any order); `after` is the position after `m` (to decide the suffix).
pub fn expected(pos: &Chess, m: &Move, legal: &[Packed], after: &Chess, convention: Convention) -> Spelling {
    expected_with(pos, m, legal, convention, || after.clone())
}

/// [`expected`], computing the position after `m` with `after` only when the convention needs
/// it (check marks).
#[inline]
pub fn expected_with(pos: &Chess, m: &Move, legal: &[Packed], convention: Convention, after: impl FnOnce() -> Chess) -> Spelling {
    let suffix = if convention.check_marks {
        let after = after();
        if after.is_check() { Some(if after.legal_moves().is_empty() { Suffix::Checkmate } else { Suffix::Check }) } else { None }
    } else {
        None
    };
    let (file, rank) = match *m {
        Move::Normal { role, from, to, .. } if role != Role::Pawn && convention.pseudo_legal_disambiguation => {
            let board = pos.board();
            disambiguation(board.attacks_to(to, pos.turn(), board.occupied()) & pos.our(role), from)
        }
        // A piece that no other piece of its kind attacks the destination with needs no
        // disambiguation (the common case, answered without scanning the legal moves).
        Move::Normal { role, from, to, .. } if role != Role::Pawn && sole_attacker(pos, role, from, to) => (false, false),
        _ => legal_disambiguation(m, legal),
    };
    Spelling::new(file, rank, suffix)
}

/// Whether the canonical spelling of legal move `m` shows its origin's file and rank when
/// disambiguating among `legal` (the position's legal moves, as [`expected_with`] takes them,
/// without pseudo-legal disambiguation): what [`expected_with`] gives for them, without the
/// position.
pub(crate) fn legal_disambiguation(m: &Move, legal: &[Packed]) -> (bool, bool) {
    match *m {
        Move::Normal { role: Role::Pawn, capture, .. } => (capture.is_some(), false),
        Move::EnPassant { .. } => (true, false),
        Move::Normal { role, from, to, .. } => {
            let (r, t) = (role as usize - 1, to as usize);
            let rivals = legal
                .iter()
                .filter(|c| c.role() == r && c.to() == t && c.kind() != Packed::CASTLE)
                .map(|c| Square::new(c.from() as u32))
                .collect();
            disambiguation(rivals, from)
        }
        Move::Castle { .. } | Move::Put { .. } => (false, false),
    }
}

/// Whether the side to move's piece of `role` on `from` is the only one of its kind that
/// attacks `to` (pseudo-legally): then no legal rival exists either. Kings are always alone.
#[inline]
fn sole_attacker(pos: &Chess, role: Role, from: Square, to: Square) -> bool {
    if role == Role::King {
        return true;
    }
    let board = pos.board();
    let piece = shakmaty::Piece { color: pos.turn(), role };
    // Non-pawn attacks are symmetric: the squares a piece on `to` attacks are those it is
    // attacked from.
    (attacks::attacks(to, piece, board.occupied()) & pos.our(role)).without(from).is_empty()
}

/// The file and rank a piece on `from` shows among `rivals` (pieces of its role that reach the
/// same square; `from` itself may be among them).
fn disambiguation(rivals: Bitboard, from: Square) -> (bool, bool) {
    let rivals = rivals.without(from);
    let same_file = rivals.into_iter().any(|s| s.file() == from.file());
    let same_rank = rivals.into_iter().any(|s| s.rank() == from.rank());
    (rivals.any() && (!same_file || same_rank), same_file)
}

/// Parses one SAN token in `pos`. Returns the legal move and its spelling when writing the move
/// with that spelling gives back exactly `token`; `None` otherwise (illegal, ambiguous, or a
/// form such as `0-0` or `e8Q` that [`Spelling::write`] would not reproduce).
pub fn parse_token(pos: &Chess, token: &[u8]) -> Option<(Move, Spelling)> {
    parse_token_with(pos, token, &mut Vec::with_capacity(16))
}

/// [`parse_token`] with a caller-provided scratch buffer (avoids an allocation per move).
pub(crate) fn parse_token_with(pos: &Chess, token: &[u8], buf: &mut Vec<u8>) -> Option<(Move, Spelling)> {
    let san_plus = SanPlus::from_ascii(token).ok()?;
    let m = san_plus.san.to_move(pos).ok()?;
    let spelling = match san_plus.san {
        San::Normal { file, rank, .. } => Spelling::new(file.is_some(), rank.is_some(), san_plus.suffix),
        _ => Spelling::new(false, false, san_plus.suffix),
    };
    buf.clear();
    spelling.write(&m, buf);
    (buf[..] == *token).then_some((m, spelling))
}

/// The fast path of [`parse_token`] for the canonical forms that [`Spelling::write`] produces
/// (`[NBRQK]?[a-h]?[1-8]?x?[a-h][1-8](=[NBRQ])?[+#]?`, `O-O`, `O-O-O`), resolved against the
/// position's legal moves `packed` (all of them, any order): the index of the move and the
/// spelling. `None` means "not decided here": the caller falls back to [`parse_token`], which
/// also decides every token this refuses (other forms, unknown or ambiguous moves).
///
/// Whenever this returns a move, [`parse_token`] returns the same move and spelling: shakmaty's
/// SAN reader reads a canonical form back into the same fields, `San::to_move` picks the unique
/// legal move of that role and destination matching the origin file and rank, the capture
/// flag and the promotion (the filter below), and writing that move with those fields gives
/// back the token. Debug builds check it token by token.
pub fn parse_token_fast(token: &[u8], packed: &[Packed]) -> Option<(usize, Spelling)> {
    let (t, suffix) = match token.split_last()? {
        (b'+', t) => (t, 1u8),
        (b'#', t) => (t, 2),
        _ => (token, 0),
    };
    if t == b"O-O" || t == b"O-O-O" {
        // The king's destination file tells the side: g for the king side, c for the queen side.
        let file = if t.len() == 3 { 6 } else { 2 };
        let mut found = None;
        for (i, p) in packed.iter().enumerate() {
            if p.kind() == Packed::CASTLE && p.to() % 8 == file {
                if found.is_some() {
                    return None;
                }
                found = Some(i);
            }
        }
        return found.map(|i| (i, Spelling(suffix << 2)));
    }
    let (role, t) = match *t.first()? {
        b'N' => (1, &t[1..]),
        b'B' => (2, &t[1..]),
        b'R' => (3, &t[1..]),
        b'Q' => (4, &t[1..]),
        b'K' => (5, &t[1..]),
        b'a'..=b'h' => (0, t),
        _ => return None,
    };
    let (t, promotion) = match t {
        [rest @ .., b'=', p] => {
            let p = match p {
                b'N' => 2,
                b'B' => 3,
                b'R' => 4,
                b'Q' => 5,
                _ => return None,
            };
            (rest, p)
        }
        _ => (t, 0),
    };
    let (t, to) = match t {
        [rest @ .., f @ b'a'..=b'h', r @ b'1'..=b'8'] => (rest, ((r - b'1') * 8 + (f - b'a')) as usize),
        _ => return None,
    };
    let (t, capture) = match t {
        [rest @ .., b'x'] => (rest, true),
        _ => (t, false),
    };
    let (file, rank) = match *t {
        [] => (None, None),
        [f @ b'a'..=b'h'] => (Some((f - b'a') as usize), None),
        [r @ b'1'..=b'8'] => (None, Some((r - b'1') as usize)),
        [f @ b'a'..=b'h', r @ b'1'..=b'8'] => (Some((f - b'a') as usize), Some((r - b'1') as usize)),
        _ => return None,
    };
    // Destination, role, promotion and "not castling" compared in one masked test (the
    // fields of [`Packed`]); the rare candidates that pass it are checked further.
    const MASK: u32 = 0x3f << 6 | 7 << 12 | 7 << 18 | (Packed::CASTLE << 21);
    let pattern = (to as u32) << 6 | role << 12 | (promotion as u32) << 18;
    let mut found = None;
    for (i, p) in packed.iter().enumerate() {
        if p.0 & MASK == pattern
            && (p.capture() != 0) == capture
            && file.is_none_or(|f| p.from() % 8 == f)
            && rank.is_none_or(|r| p.from() / 8 == r)
        {
            if found.is_some() {
                return None;
            }
            found = Some(i);
        }
    }
    found.map(|i| (i, Spelling(file.is_some() as u8 | (rank.is_some() as u8) << 1 | suffix << 2)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    #[test]
    fn tokens_round_trip_and_odd_forms_are_refused() {
        let pos = Chess::default();
        let (m, s) = parse_token(&pos, b"Nf3").unwrap();
        assert_eq!(s, Spelling::default());
        let mut out = Vec::new();
        s.write(&m, &mut out);
        assert_eq!(out, b"Nf3");
        assert!(parse_token(&pos, b"Ngf3").is_some());
        assert!(parse_token(&pos, b"Nf3+").is_some());
        assert!(parse_token(&pos, b"Nf6").is_none());
        assert!(parse_token(&pos, b"nf3").is_none());
        // Long algebraic is SAN with full disambiguation; with a hyphen it is not SAN.
        assert_eq!(parse_token(&pos, b"e2e4").unwrap().1, Spelling::new(true, true, None));
        assert!(parse_token(&pos, b"e2-e4").is_none());
    }

    #[test]
    fn fast_parse_agrees_with_parse_token() {
        use crate::chess::movegen::legal_moves_sorted_into;
        let text = include_str!("../../data/Chess_Games.txt");
        let mut moves = Vec::new();
        let mut buf = Vec::new();
        let (mut fast, mut total) = (0, 0);
        for line in text.lines().take(300) {
            let game = crate::text::parse_game(line.as_bytes()).unwrap();
            let mut pos = Chess::default();
            for m in &game.moves {
                moves.clear();
                legal_moves_sorted_into(&pos, &mut moves);
                for cand in &moves {
                    for s in 0..Spelling::COUNT as u8 {
                        buf.clear();
                        Spelling(s).write(&cand.to_move(), &mut buf);
                        let reference = parse_token(&pos, &buf);
                        total += 1;
                        if let Some((i, spelling)) = parse_token_fast(&buf, &moves) {
                            assert_eq!(Some((moves[i].to_move(), spelling)), reference, "{}", String::from_utf8_lossy(&buf));
                            fast += 1;
                        }
                    }
                }
                pos.play_unchecked(*m);
            }
        }
        // Most canonical spellings take the fast path (not those that make a move ambiguous).
        assert!(fast * 2 > total, "{fast} of {total}");
    }

    #[test]
    fn sole_attackers_need_no_disambiguation() {
        // The fast path of `expected_with` agrees with the scan of the legal moves.
        let mut legal = Vec::new();
        let mut fast = 0;
        for line in include_str!("../../data/Chess_Games.txt").lines().take(500) {
            let game = crate::text::parse_game(line.as_bytes()).expect("benchmark lines parse");
            let mut pos = Chess::default();
            for m in &game.moves {
                legal.clear();
                crate::chess::movegen::legal_moves_sorted_into(&pos, &mut legal);
                for p in &legal {
                    let c = p.to_move();
                    if let Move::Normal { role, from, to, .. } = c
                        && role != Role::Pawn
                        && sole_attacker(&pos, role, from, to)
                    {
                        assert_eq!(legal_disambiguation(&c, &legal), (false, false), "{c:?}");
                        fast += 1;
                    }
                }
                pos.play_unchecked(*m);
            }
        }
        assert!(fast > 100_000, "{fast}");
    }

    #[test]
    fn pseudo_legal_disambiguation_counts_pinned_rivals() {
        // The rook on e3 is pinned to the king on e1 by the rook on e8, so `Rc3` is
        // unambiguous among legal moves but not among pseudo-legal ones.
        let pos = position("4r2k/8/8/8/8/R3R3/8/4K3 w - - 0 1");
        let m = parse_token(&pos, b"Rc3").unwrap().0;
        let legal: Vec<Packed> = pos.legal_moves().iter().map(Packed::of).collect();
        let mut after = pos.clone();
        after.play_unchecked(m);
        let legal_rule = Convention { check_marks: false, pseudo_legal_disambiguation: false };
        let pseudo = Convention { check_marks: false, pseudo_legal_disambiguation: true };
        assert_eq!(expected(&pos, &m, &legal, &after, legal_rule), Spelling::new(false, false, None));
        assert_eq!(expected(&pos, &m, &legal, &after, pseudo), Spelling::new(true, false, None));
    }
}
