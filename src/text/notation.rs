//! Move notations other than canonical SAN, read leniently and written back byte for byte.
//!
//! Exports and older software write legal games in many ways that shakmaty's SAN reader
//! refuses or that [`Spelling`] alone cannot reproduce: castling with zeros (`0-0`), promotion
//! without `=` (`e8Q`), an ` e.p.` mark, long algebraic (`e2-e4`, `Ng1-f3`, `Nb1xc3`) and its
//! compact form (`Ng1f3`), UCI coordinates (`g1f3`, `e7e8q`), lowercase piece letters (`nf3`),
//! figurine pieces (`♘f3`), null moves (`--`, `Z0`), `++` for mate, and move-quality glyphs
//! glued to the move (`e4!?`). A
//! [`Written`] records how one ply was written beyond its [`Spelling`] (which keeps the
//! disambiguation and the check mark), so that [`write()`] gives back exactly the token that
//! [`parse`] read.
//!
//! A [`Notation`] is a handful of independent choices (piece letters, castling, form,
//! promotion, en passant, mate, null move); a file usually keeps to one, so the coder codes a
//! notation per game and each move only where it differs ([`fit`]).

use shakmaty::{Chess, Color, File, Move, Position, Rank, Role, Square, san::Suffix};

use super::spelling::{Spelling, legal_disambiguation};
use crate::chess::NULL_MOVE;
use crate::chess::movegen::Packed;

/// How piece letters are written (also the promotion piece).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Pieces {
    /// `N B R Q K` (SAN).
    #[default]
    Letters = 0,
    /// `n b r q k`.
    Lowercase = 1,
    /// The white figurines `♘ ♗ ♖ ♕ ♔` for both sides.
    Figurines = 2,
    /// White figurines for White's moves, black ones (`♞ ♝ ♜ ♛ ♚`) for Black's.
    ColouredFigurines = 3,
}

/// How castling is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Castling {
    /// `O-O`, `O-O-O` (SAN).
    #[default]
    Letters = 0,
    /// `0-0`, `0-0-0`.
    Zeros = 1,
    /// In coordinates, the king's move onto its rook, as UCI writes castling in Chess960
    /// (`e1h1`; otherwise `e1g1`). Written as `O-O` in the other forms.
    KingTakesRook = 2,
}

/// Which squares a move shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Form {
    /// SAN: the destination and only the disambiguation the [`Spelling`] shows.
    #[default]
    Short = 0,
    /// Long algebraic: origin, `-` (or `x` for a capture), destination: `e2-e4`, `Nb1xc3`.
    Long = 1,
    /// Long algebraic without the hyphen: `e2e4`, `Ng1f3`, `e4xd5`.
    Compact = 2,
    /// Coordinates as UCI writes them: origin and destination only, a lowercase promotion
    /// piece, castling as the king's move (`g1f3`, `d5e4`, `e7e8q`, `e1g1`).
    Coordinates = 3,
}

/// How the promotion piece is attached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Promotion {
    /// `e8=Q` (SAN).
    #[default]
    Equals = 0,
    /// `e8Q`.
    Bare = 1,
}

/// How an en passant capture is marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum EnPassant {
    /// No mark (SAN).
    #[default]
    Unmarked = 0,
    /// `exd6e.p.`
    Glued = 1,
    /// `exd6 e.p.`: a token of its own after the move.
    Spaced = 2,
    /// The mark at the start of the next line (PGN wrapped before it): `exd6\ne.p.`.
    NewLine = 3,
    /// The same with a CR LF line break.
    CrLf = 4,
}

impl EnPassant {
    /// The bytes before a mark written apart (a token of its own).
    pub(crate) fn separator(self) -> Option<&'static [u8]> {
        match self {
            EnPassant::Unmarked | EnPassant::Glued => None,
            EnPassant::Spaced => Some(b" "),
            EnPassant::NewLine => Some(b"\n"),
            EnPassant::CrLf => Some(b"\r\n"),
        }
    }
}

/// How a mate is marked, when the [`Spelling`] marks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Mate {
    /// `#` (SAN).
    #[default]
    Hash = 0,
    /// `++`.
    DoublePlus = 1,
}

/// How a null move (the side to move passes) is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Null {
    /// `--` (lichess and most GUIs).
    #[default]
    Dashes = 0,
    /// `Z0` (ChessBase).
    Z0 = 1,
}

/// A notation: one choice of each kind. The default is canonical SAN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Notation {
    /// Piece letters.
    pub pieces: Pieces,
    /// Castling.
    pub castling: Castling,
    /// Which squares a move shows.
    pub form: Form,
    /// The promotion piece.
    pub promotion: Promotion,
    /// En passant captures.
    pub en_passant: EnPassant,
    /// Mates.
    pub mate: Mate,
    /// Null moves.
    pub null: Null,
}

impl Notation {
    /// Number of fields, as [`Notation::field`] numbers them.
    pub const FIELDS: usize = 7;

    /// Number of values of each field.
    pub const SIZES: [usize; Self::FIELDS] = [4, 3, 4, 2, 5, 2, 2];

    /// Field `i` (in `0..FIELDS`) as a symbol in `0..SIZES[i]`.
    pub fn field(&self, i: usize) -> usize {
        match i {
            0 => self.pieces as usize,
            1 => self.castling as usize,
            2 => self.form as usize,
            3 => self.promotion as usize,
            4 => self.en_passant as usize,
            5 => self.mate as usize,
            _ => self.null as usize,
        }
    }

    /// Sets field `i` to `v` (in `0..SIZES[i]`; larger values saturate to the last one).
    pub(crate) fn set_field(&mut self, i: usize, v: usize) {
        match i {
            0 => self.pieces = [Pieces::Letters, Pieces::Lowercase, Pieces::Figurines, Pieces::ColouredFigurines][v.min(3)],
            1 => self.castling = [Castling::Letters, Castling::Zeros, Castling::KingTakesRook][v.min(2)],
            2 => self.form = [Form::Short, Form::Long, Form::Compact, Form::Coordinates][v.min(3)],
            3 => self.promotion = [Promotion::Equals, Promotion::Bare][v.min(1)],
            4 => {
                self.en_passant = [EnPassant::Unmarked, EnPassant::Glued, EnPassant::Spaced, EnPassant::NewLine, EnPassant::CrLf][v.min(4)]
            }
            5 => self.mate = [Mate::Hash, Mate::DoublePlus][v.min(1)],
            _ => self.null = [Null::Dashes, Null::Z0][v.min(1)],
        }
    }
}

/// The move-quality glyphs that may follow a move, in symbol order from 1 (0: none).
pub const GLYPHS: [&[u8]; 6] = [b"!", b"?", b"!!", b"??", b"!?", b"?!"];

/// Number of glyph symbols: none, then [`GLYPHS`].
pub(crate) const GLYPH_SYMBOLS: usize = GLYPHS.len() + 1;

/// How one ply is written beyond its [`Spelling`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Written {
    /// The notation.
    pub notation: Notation,
    /// The glued glyph: 0 none, else `GLYPHS[glyph - 1]`.
    pub glyph: u8,
}

/// The figurine of `role` in `color`'s set (UTF-8, three bytes; U+2654 to U+265F).
fn figurine(role: Role, color: Color) -> [u8; 3] {
    let white = match role {
        Role::King => 0x94,
        Role::Queen => 0x95,
        Role::Rook => 0x96,
        Role::Bishop => 0x97,
        Role::Knight => 0x98,
        Role::Pawn => 0x99,
    };
    [0xe2, 0x99, if color.is_white() { white } else { white + 6 }]
}

/// The role and colour of a figurine at the start of `s`.
fn figurine_at(s: &[u8]) -> Option<(Role, Color)> {
    match s {
        [0xe2, 0x99, b @ 0x94..=0x9f, ..] => {
            let i = b - 0x94;
            let role = [Role::King, Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn][(i % 6) as usize];
            Some((role, if i < 6 { Color::White } else { Color::Black }))
        }
        _ => None,
    }
}

/// Appends the letter (or figurine) of `role` for a move of `mover`.
fn write_piece(role: Role, mover: Color, pieces: Pieces, out: &mut Vec<u8>) {
    match pieces {
        Pieces::Letters => out.push(role.upper_char() as u8),
        Pieces::Lowercase => out.push(role.char() as u8),
        Pieces::Figurines => out.extend_from_slice(&figurine(role, Color::White)),
        Pieces::ColouredFigurines => out.extend_from_slice(&figurine(role, mover)),
    }
}

/// Appends ply `m` (legal in a position where `mover` is to move, or [`NULL_MOVE`]) written
/// with `spelling` and `written`: the exact bytes [`parse`] reads back. A [`EnPassant::Spaced`]
/// mark is appended after the glyph, with its space.
pub fn write(m: &Move, mover: Color, spelling: Spelling, written: Written, out: &mut Vec<u8>) {
    let n = written.notation;
    if n.form == Form::Coordinates && *m != NULL_MOVE {
        let (from, to) = coordinates(m, n.castling);
        for sq in [from, to] {
            out.push(sq.file().char() as u8);
            out.push(sq.rank().char() as u8);
        }
        if let Some(p) = m.promotion() {
            if n.promotion == Promotion::Equals {
                out.push(b'=');
            }
            write_piece(p, mover, n.pieces, out);
        }
        if matches!(m, Move::EnPassant { .. }) && n.en_passant == EnPassant::Glued {
            out.extend_from_slice(b"e.p.");
        }
    } else if *m == NULL_MOVE {
        out.extend_from_slice(match n.null {
            Null::Dashes => b"--",
            Null::Z0 => b"Z0",
        });
    } else if let Move::Castle { king, rook } = *m {
        let o = match n.castling {
            Castling::Letters | Castling::KingTakesRook => b'O',
            Castling::Zeros => b'0',
        };
        out.extend_from_slice(&[o, b'-', o]);
        if rook.file() < king.file() {
            out.extend_from_slice(&[b'-', o]);
        }
    } else if n == Notation::default() && written.glyph == 0 {
        spelling.write(m, out);
        return;
    } else {
        let (role, from, to, capture, promotion) = match *m {
            Move::Normal { role, from, capture, to, promotion } => (role, from, to, capture.is_some(), promotion),
            Move::EnPassant { from, to } => (Role::Pawn, from, to, true, None),
            Move::Castle { .. } | Move::Put { .. } => unreachable!("castling and drops are handled above"),
        };
        if role != Role::Pawn {
            write_piece(role, mover, n.pieces, out);
        }
        let (file, rank) = match n.form {
            Form::Short => (spelling.file(), spelling.rank()),
            Form::Long | Form::Compact | Form::Coordinates => (true, true),
        };
        if file {
            out.push(from.file().char() as u8);
        }
        if rank {
            out.push(from.rank().char() as u8);
        }
        if capture {
            out.push(b'x');
        } else if n.form == Form::Long {
            out.push(b'-');
        }
        out.push(to.file().char() as u8);
        out.push(to.rank().char() as u8);
        if let Some(p) = promotion {
            if n.promotion == Promotion::Equals {
                out.push(b'=');
            }
            write_piece(p, mover, n.pieces, out);
        }
        if matches!(m, Move::EnPassant { .. }) && n.en_passant == EnPassant::Glued {
            out.extend_from_slice(b"e.p.");
        }
    }
    match spelling.suffix() {
        None => {}
        Some(Suffix::Check) => out.push(b'+'),
        Some(Suffix::Checkmate) => out.extend_from_slice(if n.mate == Mate::Hash { b"#" } else { b"++" }),
    }
    if written.glyph > 0 {
        out.extend_from_slice(GLYPHS[written.glyph as usize - 1]);
    }
    if let Some(separator) = n.en_passant.separator().filter(|_| matches!(m, Move::EnPassant { .. })) {
        out.extend_from_slice(separator);
        out.extend_from_slice(b"e.p.");
    }
}

/// The origin and destination of `m` as UCI writes them (castling: the king's squares, or
/// the king's and its rook's with [`Castling::KingTakesRook`]).
fn coordinates(m: &Move, castling: Castling) -> (Square, Square) {
    match *m {
        Move::Castle { king, rook } if castling == Castling::KingTakesRook => (king, rook),
        Move::Castle { king, rook } => {
            let file = if rook.file() > king.file() { File::G } else { File::C };
            (king, Square::from_coords(file, king.rank()))
        }
        _ => (m.from().expect("a move on the board"), m.to()),
    }
}

/// Reads one ply written in any notation of this module (`token` without a spaced ` e.p.`
/// mark; `spaced_ep` says whether one follows) in `pos`, whose legal moves are `legal`. Returns
/// the ply ([`NULL_MOVE`] for a null move: only where the side to move is not in check and has
/// a legal move), its spelling and how it is written, when [`write()`] gives back exactly the
/// token; `None` otherwise.
pub fn parse(pos: &Chess, legal: &[Packed], token: &[u8], spaced_ep: bool, buf: &mut Vec<u8>) -> Option<(Move, Spelling, Written)> {
    // A leading `b` is a pawn on the b-file or, in lowercase notation, a bishop.
    parse_as(pos, legal, token, spaced_ep, false, buf)
        .or_else(|| if token.first() == Some(&b'b') { parse_as(pos, legal, token, spaced_ep, true, buf) } else { None })
}

/// [`parse`], reading a leading `b` as a bishop if `bishop` (lowercase piece letters make
/// `bxc3` either a pawn's or a bishop's move; a caller that can look ahead tries both).
pub(crate) fn parse_as(
    pos: &Chess,
    legal: &[Packed],
    token: &[u8],
    spaced_ep: bool,
    bishop: bool,
    buf: &mut Vec<u8>,
) -> Option<(Move, Spelling, Written)> {
    let mut w = Written::default();
    let mut t = token;
    // Glyph, then check mark, then a glued e.p. mark, from the end; longer glyphs first.
    let mut glyphs: Vec<usize> = (0..GLYPHS.len()).collect();
    glyphs.sort_by_key(|&i| std::cmp::Reverse(GLYPHS[i].len()));
    if let Some(&i) = glyphs.iter().find(|&&i| t.len() > GLYPHS[i].len() && t.ends_with(GLYPHS[i])) {
        w.glyph = i as u8 + 1;
        t = &t[..t.len() - GLYPHS[i].len()];
    }
    let suffix = if let Some(rest) = t.strip_suffix(b"++") {
        t = rest;
        w.notation.mate = Mate::DoublePlus;
        Some(Suffix::Checkmate)
    } else if let Some(rest) = t.strip_suffix(b"#") {
        t = rest;
        Some(Suffix::Checkmate)
    } else if let Some(rest) = t.strip_suffix(b"+") {
        t = rest;
        Some(Suffix::Check)
    } else {
        None
    };
    let mut glued_ep = false;
    if let Some(rest) = t.strip_suffix(b"e.p.") {
        t = rest;
        glued_ep = true;
    }
    let mover = pos.turn();
    let (m, spelling) = match t {
        b"--" | b"Z0" => {
            w.notation.null = if t == b"Z0" { Null::Z0 } else { Null::Dashes };
            // A null move gives no check: a mark after it is not a notation this reads.
            if suffix.is_some() || legal.is_empty() || pos.is_check() || crate::chess::play_null(pos).is_none() {
                return None;
            }
            (NULL_MOVE, Spelling::default())
        }
        b"O-O" | b"O-O-O" | b"0-0" | b"0-0-0" => {
            if t[0] == b'0' {
                w.notation.castling = Castling::Zeros;
            }
            let file = if t.len() == 3 { 6 } else { 2 };
            let c = legal.iter().find(|p| p.kind() == Packed::CASTLE && p.to() % 8 == file)?;
            (c.to_move(), Spelling::default())
        }
        [f1 @ b'a'..=b'h', r1 @ b'1'..=b'8', f2 @ b'a'..=b'h', r2 @ b'1'..=b'8', promotion @ ..]
            if !bishop
                && matches!(
                    promotion,
                    [] | [b'n' | b'b' | b'r' | b'q' | b'N' | b'B' | b'R' | b'Q']
                        | [b'=', b'n' | b'b' | b'r' | b'q' | b'N' | b'B' | b'R' | b'Q']
                ) =>
        {
            // Coordinates (UCI): the legal move between the two squares; castling as the
            // king's move to its square or onto its rook.
            let square = |f: u8, r: u8| Square::from_coords(File::new((f - b'a') as u32), Rank::new((r - b'1') as u32));
            let (from, to) = (square(*f1, *r1), square(*f2, *r2));
            let letter = promotion.last().copied();
            let role = letter.and_then(|c| Role::from_char(c.to_ascii_lowercase() as char));
            let m = legal.iter().map(|p| p.to_move()).find(|m| {
                m.promotion() == role
                    && (coordinates(m, Castling::Letters) == (from, to) || coordinates(m, Castling::KingTakesRook) == (from, to))
            })?;
            if m.is_castle() && coordinates(&m, Castling::Letters) != (from, to) {
                w.notation.castling = Castling::KingTakesRook;
            }
            if let Some(c) = letter {
                w.notation.promotion = if promotion.len() == 2 { Promotion::Equals } else { Promotion::Bare };
                if c.is_ascii_lowercase() {
                    w.notation.pieces = Pieces::Lowercase;
                }
            }
            w.notation.form = Form::Coordinates;
            let (file, rank) = legal_disambiguation(&m, legal);
            (m, Spelling::new(file, rank, None))
        }
        _ => {
            // Rewrite the rest as SAN for shakmaty: an uppercase piece letter, `=` before the
            // promotion piece, no hyphen.
            buf.clear();
            let mut rest = t;
            if let Some((role, color)) = figurine_at(rest) {
                if role == Role::Pawn {
                    return None;
                }
                // White's figurines on a White move fit both figurine notations.
                w.notation.pieces =
                    if color == Color::Black && mover == Color::Black { Pieces::ColouredFigurines } else { Pieces::Figurines };
                if color == Color::Black && mover == Color::White {
                    return None;
                }
                buf.push(role.upper_char() as u8);
                rest = &rest[3..];
            } else if let Some(&c @ (b'N' | b'B' | b'R' | b'Q' | b'K')) = rest.first() {
                buf.push(c);
                rest = &rest[1..];
            } else if let Some(&c @ (b'n' | b'r' | b'q' | b'k')) = rest.first() {
                w.notation.pieces = Pieces::Lowercase;
                buf.push(c.to_ascii_uppercase());
                rest = &rest[1..];
            } else if bishop && rest.first() == Some(&b'b') {
                w.notation.pieces = Pieces::Lowercase;
                buf.push(b'B');
                rest = &rest[1..];
            }
            let long = rest.len() >= 5 && rest[2] == b'-' && rest[..2].iter().all(u8::is_ascii_alphanumeric);
            for (i, &b) in rest.iter().enumerate() {
                if !(long && i == 2) {
                    buf.push(b);
                }
            }
            // The promotion piece: a figurine or a letter at the end, after `=` or not.
            let end = buf.len();
            if let Some((role, color)) = end.checked_sub(3).and_then(|k| figurine_at(&buf[k..])) {
                buf.truncate(end - 3);
                if matches!(w.notation.pieces, Pieces::Letters | Pieces::Lowercase) {
                    w.notation.pieces =
                        if color == Color::Black && mover == Color::Black { Pieces::ColouredFigurines } else { Pieces::Figurines };
                }
                buf.push(role.upper_char() as u8);
            } else if end >= 3 && matches!(buf[end - 1], b'n' | b'b' | b'r' | b'q') && matches!(buf[end - 2], b'1'..=b'8' | b'=') {
                buf[end - 1] = buf[end - 1].to_ascii_uppercase();
                w.notation.pieces = Pieces::Lowercase;
            }
            let end = buf.len();
            if end >= 3 && matches!(buf[end - 1], b'N' | b'B' | b'R' | b'Q') && buf[end - 2].is_ascii_digit() {
                buf.insert(end - 1, b'=');
                w.notation.promotion = Promotion::Bare;
            }
            let san = std::mem::take(buf);
            let m = shakmaty::san::SanPlus::from_ascii(&san).ok().and_then(|sp| {
                let m = sp.san.to_move(pos).ok()?;
                let shown = match sp.san {
                    shakmaty::san::San::Normal { file, rank, .. } => (file.is_some(), rank.is_some()),
                    _ => (false, false),
                };
                Some((m, shown))
            });
            *buf = san;
            let (m, (mut file, mut rank)) = m?;
            if m.role() == Role::Pawn && !m.is_capture() && file && !rank {
                // `bb6` is a bishop in lowercase notation, never a pawn push (which shows no
                // file in SAN).
                return None;
            }
            if long {
                w.notation.form = Form::Long;
            } else if file && rank {
                w.notation.form = Form::Compact;
            }
            if w.notation.form != Form::Short {
                // The long forms show the origin whatever the spelling: record the least
                // disambiguation, so that only a game written in the long form writes this
                // ply back (short SAN would show less).
                (file, rank) = legal_disambiguation(&m, legal);
            }
            (m, Spelling::new(file, rank, None))
        }
    };
    let spelling = Spelling::new(spelling.file(), spelling.rank(), suffix);
    if matches!(m, Move::EnPassant { .. }) {
        w.notation.en_passant = match (glued_ep, spaced_ep) {
            (false, false) => EnPassant::Unmarked,
            (true, false) => EnPassant::Glued,
            (false, true) => EnPassant::Spaced,
            (true, true) => return None,
        };
    } else if glued_ep || spaced_ep {
        return None;
    }
    buf.clear();
    write(&m, mover, spelling, w, buf);
    let written_back = if spaced_ep { buf.strip_suffix(b" e.p.") } else { Some(&buf[..]) };
    (written_back == Some(token)).then_some((m, spelling, w))
}

/// Whether ply `m` (in a position where `mover` is to move) written with `spelling` and
/// `written` gives the same text as with `notation` in its place.
pub(crate) fn same_text(m: &Move, mover: Color, spelling: Spelling, written: Written, notation: Notation, buf: &mut Vec<u8>) -> bool {
    if written.notation == notation {
        return true;
    }
    buf.clear();
    write(m, mover, spelling, written, buf);
    let split = buf.len();
    write(m, mover, spelling, Written { notation, glyph: written.glyph }, buf);
    buf[..split] == buf[split..]
}

/// The notation that writes the most plies of a game as they are: for each field in turn,
/// the value that keeps the text of every ply if there is one (trying `previous`'s first, so
/// that fields a game never shows repeat the previous game's), else the most common value
/// among the plies. `plies` gives each ply, its mover, spelling and how it is written.
pub fn fit(plies: &[(Move, Color, Spelling, Written)], previous: Notation) -> Notation {
    let mut fitted = previous;
    let mut buf = Vec::new();
    for field in 0..Notation::FIELDS {
        let first = previous.field(field);
        let order = std::iter::once(first).chain((0..Notation::SIZES[field]).filter(|&v| v != first));
        let mut best = (0, first);
        for v in order {
            let kept = plies
                .iter()
                .filter(|(m, mover, s, w)| {
                    let mut n = w.notation;
                    n.set_field(field, v);
                    same_text(m, *mover, *s, *w, n, &mut buf)
                })
                .count();
            if kept == plies.len() {
                best = (kept, v);
                break;
            }
            if kept > best.0 {
                best = (kept, v);
            }
        }
        fitted.set_field(field, best.1);
    }
    fitted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::movegen::legal_moves_sorted_into;
    use shakmaty::{CastlingMode, fen::Fen};

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    fn read(pos: &Chess, token: &str) -> Option<(Move, Spelling, Written)> {
        let mut legal = Vec::new();
        legal_moves_sorted_into(pos, &mut legal);
        parse(pos, &legal, token.as_bytes(), false, &mut Vec::new())
    }

    #[test]
    fn every_notation_reads_and_writes_back() {
        let start = Chess::default();
        for (token, form) in [
            ("e2-e4", Form::Long),
            ("Ng1-f3", Form::Long),
            ("e2e4", Form::Coordinates),
            ("Ng1f3", Form::Compact),
            ("g1f3", Form::Coordinates),
        ] {
            let (_, _, w) = read(&start, token).unwrap_or_else(|| panic!("{token}"));
            assert_eq!(w.notation.form, form, "{token}");
        }
        assert_eq!(read(&start, "nf3").unwrap().2.notation.pieces, Pieces::Lowercase);
        assert_eq!(read(&start, "♘f3").unwrap().2.notation.pieces, Pieces::Figurines);
        assert_eq!(read(&start, "e4!?").unwrap().2.glyph, 5);
        assert_eq!(read(&start, "--").unwrap().0, NULL_MOVE);
        assert_eq!(read(&start, "Z0").unwrap().2.notation.null, Null::Z0);
        // Black's figurines in black.
        let black = position("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        assert_eq!(read(&black, "♞f6").unwrap().2.notation.pieces, Pieces::ColouredFigurines);
        assert_eq!(read(&black, "♘f6").unwrap().2.notation.pieces, Pieces::Figurines);
        // Castling with zeros, promotion without `=`, en passant marks, `++` for mate.
        let castle = position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        assert_eq!(read(&castle, "0-0-0").unwrap().2.notation.castling, Castling::Zeros);
        let promote = position("8/4P3/8/8/8/8/k7/7K w - - 0 1");
        assert_eq!(read(&promote, "e8Q").unwrap().2.notation.promotion, Promotion::Bare);
        assert_eq!(read(&promote, "e8=q").unwrap().2.notation.pieces, Pieces::Lowercase);
        assert_eq!(read(&promote, "e8=♕+").unwrap().2.notation.pieces, Pieces::Figurines);
        let ep = position("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
        assert_eq!(read(&ep, "exd6e.p.").unwrap().2.notation.en_passant, EnPassant::Glued);
        let mut legal = Vec::new();
        legal_moves_sorted_into(&ep, &mut legal);
        assert_eq!(parse(&ep, &legal, b"exd6", true, &mut Vec::new()).unwrap().2.notation.en_passant, EnPassant::Spaced);
        let mate = position("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
        assert_eq!(read(&mate, "Ra8++").unwrap().2.notation.mate, Mate::DoublePlus);
        // Written back exactly.
        for (pos, token) in [
            (&start, "e2-e4!"),
            (&start, "♘g1-f3"),
            (&castle, "0-0+"),
            (&promote, "e7-e8Q+?!"),
            (&black, "♞b8-c6"),
            (&castle, "e1c1"),
            (&castle, "e1a1"),
            (&castle, "e1h1"),
            (&promote, "e7e8q+"),
            (&promote, "e7e8Q"),
            (&promote, "e7e8=q"),
        ] {
            let (m, s, w) = read(pos, token).unwrap_or_else(|| panic!("{token}"));
            let mut out = Vec::new();
            write(&m, pos.turn(), s, w, &mut out);
            assert_eq!(String::from_utf8(out).unwrap(), token);
        }
    }

    #[test]
    fn what_cannot_be_written_back_is_refused() {
        let start = Chess::default();
        for token in ["e4e4", "Nf6", "e2--e4", "0-0", "♙e4", "e4!!!", "P", "", "nf3e.p.", "e4 ", "Ng1-f3-", "--+", "Z0#", "--++"] {
            assert!(read(&start, token).is_none(), "{token}");
        }
        // No null move in check.
        let check = position("4k3/8/8/8/8/8/8/4K2r w - - 0 1");
        assert!(read(&check, "--").is_none());
    }

    #[test]
    fn a_game_fits_one_notation() {
        let mut pos = Chess::default();
        let mut plies = Vec::new();
        for token in ["e2-e4", "e7-e5", "♘g1-f3", "♘b8-c6"] {
            let (m, s, w) = read(&pos, token).unwrap();
            plies.push((m, pos.turn(), s, w));
            pos.play_unchecked(m);
        }
        let n = fit(&plies, Notation::default());
        assert_eq!((n.form, n.pieces), (Form::Long, Pieces::Figurines));
        let mut buf = Vec::new();
        assert!(plies.iter().all(|(m, c, s, w)| same_text(m, *c, *s, *w, n, &mut buf)));
    }
}
