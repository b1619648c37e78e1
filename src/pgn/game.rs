//! A PGN game as the codec sees it: tags, the move text as a list of items, the moves of the
//! main line and of each variation, and the whitespace between tokens.
//!
//! [`parse`] accepts a piece of text only when [`render`] of the result gives back exactly
//! those bytes, so a parsed game is lossless by construction; everything else is kept raw.
//! Moves are read with shakmaty's SAN parser in the position they are played from
//! ([`crate::text::spelling::parse_token`]), the start position with shakmaty's FEN parser.

use shakmaty::{CastlingMode, Chess, Color, Position, fen::Fen};

use super::lexer::{GLYPHS, Lexed, TokenKind, lex, tag_parts};
use crate::chess::GameResult;
use crate::chess::{legal_moves_sorted_into, play_ply};
use crate::error::Error;
use crate::format::move_text::MoveText;
use crate::text::notation::{self, EnPassant, Written};
use crate::text::spelling::parse_token;

/// A tag pair: name and value as written between the quotes (escapes kept).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tag {
    /// The tag's name, e.g. `Event`.
    pub name: Vec<u8>,
    /// The raw value, e.g. `Rated Blitz game`.
    pub value: Vec<u8>,
}

/// One element of the move text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A move number: `number` then `dots` dots.
    MoveNo {
        /// The number as written.
        number: u32,
        /// How many dots follow (0..=7).
        dots: u8,
    },
    /// The next move of the current line (its SAN comes from [`Game::lines`]).
    Move,
    /// A glyph, index into [`GLYPHS`].
    Glyph(u8),
    /// A numeric annotation glyph `$n`.
    Nag(u8),
    /// A brace comment; the bytes between the braces.
    Comment(Vec<u8>),
    /// A `;` comment; the bytes after the semicolon up to the line break.
    LineComment(Vec<u8>),
    /// `(`: a variation replacing the last move of the current line starts.
    VarStart,
    /// `)`: the current variation ends.
    VarEnd,
    /// A result token.
    Result(GameResult),
}

/// Number of [`Item`] kinds, plus one for "end of move text".
pub const ITEM_KINDS: usize = 10;

impl Item {
    /// The kind of item as a symbol in `0..ITEM_KINDS - 1`.
    pub fn kind(&self) -> usize {
        match self {
            Item::MoveNo { .. } => 0,
            Item::Move => 1,
            Item::Glyph(_) => 2,
            Item::Nag(_) => 3,
            Item::Comment(_) => 4,
            Item::LineComment(_) => 5,
            Item::VarStart => 6,
            Item::VarEnd => 7,
            Item::Result(_) => 8,
        }
    }

    /// The symbol that ends the move text.
    pub const END: usize = 9;
}

/// A game that [`render`]s to exactly the text it was parsed from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// The tag pairs, in order.
    pub tags: Vec<Tag>,
    /// The move text.
    pub items: Vec<Item>,
    /// The main line (`lines[0]`) and the variations in the order they open.
    pub lines: Vec<MoveText>,
    /// The result the move model codes: the first result token outside variations, else the
    /// `Result` tag, else unknown.
    pub result: GameResult,
    /// Whitespace before each tag, before each item, and after the last: `tags.len() +
    /// items.len() + 1` entries.
    pub gaps: Vec<Vec<u8>>,
}

impl Default for Game {
    fn default() -> Self {
        Game { tags: Vec::new(), items: Vec::new(), lines: Vec::new(), result: GameResult::Unknown, gaps: Vec::new() }
    }
}

impl Game {
    /// The value of the first tag named `name`.
    pub fn tag(&self, name: &[u8]) -> Option<&[u8]> {
        self.tags.iter().find(|t| t.name == name).map(|t| &t.value[..])
    }
}

/// The position a game starts from, decided by its tags alone: the `FEN` tag if there is one
/// (Chess960 castling when the `Variant` tag says so or standard castling cannot express the
/// position), else the standard initial position. `None` for variants other than standard
/// chess and Chess960, and for a `FEN` tag that does not parse.
pub fn start_position(tags: &[Tag]) -> Option<Chess> {
    let find = |name: &[u8]| tags.iter().find(|t| t.name == name).map(|t| &t.value[..]);
    let variant = find(b"Variant").unwrap_or(b"").to_ascii_lowercase();
    let chess960 = variant.windows(3).any(|w| w == b"960") || variant.starts_with(b"fischer");
    let standard = matches!(&variant[..], b"" | b"standard" | b"from position" | b"fromposition");
    if !standard && !chess960 {
        return None;
    }
    match find(b"FEN") {
        None => Some(Chess::default()),
        Some(value) => {
            let fen = Fen::from_ascii(value).ok()?;
            let first = if chess960 { CastlingMode::Chess960 } else { CastlingMode::Standard };
            fen.clone().into_position(first).ok().or_else(|| fen.into_position(CastlingMode::Chess960).ok())
        }
    }
}

/// A line being read: its index in [`Game::lines`], the current position, and the position
/// before its last move (where a variation would start).
struct Frame {
    line: usize,
    pos: Chess,
    before: Option<Chess>,
}

/// Parses `text` as one game; `None` unless [`render`] gives back exactly `text`.
pub fn parse(text: &[u8]) -> Option<Game> {
    let lexed = lex(text)?;
    if let Some(game) = parse_lexed(text, &lexed, None) {
        return Some(game);
    }
    // Lowercase piece letters make `bxc3` a pawn's or a bishop's move. Pawns come first; a
    // game that does not read is read again with bishops at the first ambiguous tokens (at
    // most four of them, sixteen readings).
    let mut ambiguous = 0;
    parse_lexed(text, &lexed, Some((0, &mut ambiguous)));
    (1..1u32 << ambiguous.min(4)).find_map(|bishops| parse_lexed(text, &lexed, Some((bishops, &mut 0))))
}

/// [`parse`] of lexed `text`. With `choices` = `(bishops, ambiguous)`, the `k`-th move token
/// (from 0) that reads both as a pawn's and as a lowercase bishop's move is the bishop's if
/// bit `k` of `bishops` is set; `ambiguous` counts those tokens.
fn parse_lexed(text: &[u8], lexed: &Lexed<'_>, mut choices: Option<(u32, &mut u32)>) -> Option<Game> {
    let mut game = Game { gaps: lexed.gaps.iter().map(|g| g.to_vec()).collect(), ..Game::default() };
    let tag_count = lexed.tokens.iter().take_while(|t| t.kind == TokenKind::Tag).count();
    for t in &lexed.tokens[..tag_count] {
        let (name, value) = tag_parts(t.text);
        game.tags.push(Tag { name: name.to_vec(), value: value.to_vec() });
    }
    let start = start_position(&game.tags)?;
    game.lines.push(MoveText::default());
    let mut frames = vec![Frame { line: 0, pos: start, before: None }];
    let mut first_result = None;
    let (mut legal, mut buf) = (Vec::new(), Vec::new());
    // Gaps of tokens merged into the move before them (a spaced ` e.p.`), removed at the end.
    let mut merged = Vec::new();
    for (k, t) in lexed.tokens.iter().enumerate().skip(tag_count) {
        let apart = [EnPassant::Spaced, EnPassant::NewLine, EnPassant::CrLf].into_iter().find(|e| e.separator() == Some(lexed.gaps[k]));
        if let (b"e.p.", Some(apart), Some(&Item::Move)) = (t.text, apart, game.items.last()) {
            // The en passant mark of the move just read, written apart: `exd6 e.p.`, or at
            // the start of the next line.
            let f = frames.last().expect("the main line is never closed");
            let line = &mut game.lines[f.line];
            let last = line.moves.len().checked_sub(1)?;
            if !matches!(line.moves[last], shakmaty::Move::EnPassant { .. }) {
                return None;
            }
            line.written.resize(line.moves.len(), Written::default());
            if line.written[last].notation.en_passant != EnPassant::Unmarked {
                return None;
            }
            line.written[last].notation.en_passant = apart;
            merged.push(k);
            continue;
        }
        let item = match t.kind {
            TokenKind::Tag => return None,
            TokenKind::MoveNo => {
                let digits = t.text.iter().take_while(|b| b.is_ascii_digit()).count();
                let number = std::str::from_utf8(&t.text[..digits]).ok()?.parse().ok()?;
                Item::MoveNo { number, dots: (t.text.len() - digits) as u8 }
            }
            TokenKind::San => {
                let f = frames.last_mut().expect("the main line is never closed");
                let line = &mut game.lines[f.line];
                // A move showing its origin's file and rank is read as long algebraic (it is
                // SAN too, but a costly spelling); a pawn push showing its file (`bb6`) as a
                // bishop's move in lowercase notation.
                let strict = parse_token(&f.pos, t.text).filter(|(m, s)| {
                    let pawn_push = m.role() == shakmaty::Role::Pawn && !m.is_capture();
                    (!(s.file() && s.rank()) || m.is_castle()) && !(pawn_push && s.file() && !s.rank())
                });
                let bishop = match &mut choices {
                    Some((bishops, ambiguous)) if t.text.first() == Some(&b'b') => {
                        legal.clear();
                        legal_moves_sorted_into(&f.pos, &mut legal);
                        let pawn = strict.is_some() || notation::parse_as(&f.pos, &legal, t.text, false, false, &mut buf).is_some();
                        let bishop = notation::parse_as(&f.pos, &legal, t.text, false, true, &mut buf);
                        if pawn && bishop.is_some() {
                            let k = **ambiguous;
                            **ambiguous += 1;
                            bishop.filter(|_| k < 32 && *bishops >> k & 1 == 1)
                        } else {
                            None
                        }
                    }
                    _ => None,
                };
                let strict = if bishop.is_some() { None } else { strict };
                match strict {
                    Some((m, spelling)) => {
                        line.moves.push(m);
                        line.spellings.push(spelling);
                        if !line.written.is_empty() {
                            line.written.push(Written::default());
                        }
                        f.before = Some(f.pos.clone());
                        f.pos.play_unchecked(m);
                    }
                    None => {
                        // Another notation: the line records how each of its plies is written.
                        legal.clear();
                        legal_moves_sorted_into(&f.pos, &mut legal);
                        let (m, spelling, written) = match bishop {
                            Some(read) => read,
                            None => notation::parse(&f.pos, &legal, t.text, false, &mut buf)?,
                        };
                        line.written.resize(line.moves.len(), Written::default());
                        line.moves.push(m);
                        line.spellings.push(spelling);
                        line.written.push(written);
                        f.before = Some(f.pos.clone());
                        play_ply(&mut f.pos, m);
                    }
                }
                Item::Move
            }
            TokenKind::Glyph => Item::Glyph(GLYPHS.iter().position(|g| *g == t.text)? as u8),
            TokenKind::Nag => Item::Nag(std::str::from_utf8(&t.text[1..]).ok()?.parse().ok()?),
            TokenKind::Comment => Item::Comment(t.text[1..t.text.len() - 1].to_vec()),
            TokenKind::LineComment => Item::LineComment(t.text[1..].to_vec()),
            TokenKind::VarStart => {
                let before = frames.last().expect("main line").before.clone()?;
                game.lines.push(MoveText::default());
                frames.push(Frame { line: game.lines.len() - 1, pos: before, before: None });
                Item::VarStart
            }
            TokenKind::VarEnd => {
                if frames.len() == 1 {
                    return None;
                }
                frames.pop();
                Item::VarEnd
            }
            TokenKind::Result => {
                let r = GameResult::from_token(t.text)?;
                if frames.len() == 1 && first_result.is_none() {
                    first_result = Some(r);
                }
                Item::Result(r)
            }
        };
        game.items.push(item);
    }
    for &k in merged.iter().rev() {
        game.gaps.remove(k);
    }
    game.result = first_result.or_else(|| game.tag(b"Result").and_then(GameResult::from_token)).unwrap_or(GameResult::Unknown);
    let mut out = Vec::with_capacity(text.len());
    render(&game, &mut out).ok()?;
    (out == text).then_some(game)
}

/// The bytes of each token of `game` (tags, then items), concatenated into `buf`, with the
/// end offset of each in `ends`.
///
/// # Errors
/// [`Error::Corrupt`] if the items do not fit the lines (more moves or variations than
/// [`Game::lines`] holds); impossible for a parsed game.
pub fn render_tokens(game: &Game, buf: &mut Vec<u8>, ends: &mut Vec<usize>) -> Result<(), Error> {
    let bad = || Error::Corrupt("PGN move text does not match its moves".into());
    for t in &game.tags {
        buf.push(b'[');
        buf.extend_from_slice(&t.name);
        buf.extend_from_slice(b" \"");
        buf.extend_from_slice(&t.value);
        buf.extend_from_slice(b"\"]");
        ends.push(buf.len());
    }
    // (line, moves of it written so far, side to move at its start); the side matters only
    // to figurines, so the start position is read only when some ply is not canonical SAN.
    let first = match game.lines.iter().any(|l| !l.written.is_empty()) {
        true => start_position(&game.tags).map_or(Color::White, |p| p.turn()),
        false => Color::White,
    };
    let mut stack: Vec<(usize, usize, Color)> = vec![(0, 0, first)];
    let mut next_line = 1;
    for item in &game.items {
        match item {
            Item::MoveNo { number, dots } => {
                buf.extend_from_slice(number.to_string().as_bytes());
                buf.extend(std::iter::repeat_n(b'.', *dots as usize));
            }
            Item::Move => {
                let (line, i, start) = stack.last_mut().ok_or_else(bad)?;
                let text = game.lines.get(*line).ok_or_else(bad)?;
                let m = text.moves.get(*i).ok_or_else(bad)?;
                let spelling = *text.spellings.get(*i).ok_or_else(bad)?;
                match text.written.get(*i) {
                    None if text.written.is_empty() => spelling.write(m, buf),
                    None => return Err(bad()),
                    Some(w) => notation::write(m, if *i % 2 == 0 { *start } else { !*start }, spelling, *w, buf),
                }
                *i += 1;
            }
            Item::Glyph(g) => buf.extend_from_slice(GLYPHS.get(*g as usize).ok_or_else(bad)?),
            Item::Nag(n) => {
                buf.push(b'$');
                buf.extend_from_slice(n.to_string().as_bytes());
            }
            Item::Comment(c) => {
                buf.push(b'{');
                buf.extend_from_slice(c);
                buf.push(b'}');
            }
            Item::LineComment(c) => {
                buf.push(b';');
                buf.extend_from_slice(c);
            }
            Item::VarStart => {
                // A variation replaces the last move of the line it opens in.
                let &(_, i, start) = stack.last().ok_or_else(bad)?;
                let mover = if i % 2 == 1 { start } else { !start };
                stack.push((next_line, 0, mover));
                next_line += 1;
                buf.push(b'(');
            }
            Item::VarEnd => {
                if stack.len() < 2 {
                    return Err(bad());
                }
                stack.pop();
                buf.push(b')');
            }
            Item::Result(r) => buf.extend_from_slice(r.token()),
        }
        ends.push(buf.len());
    }
    Ok(())
}

/// Appends the text of `game` to `out`.
///
/// # Errors
/// As [`render_tokens`], and if the gaps do not number one more than the tokens.
pub fn render(game: &Game, out: &mut Vec<u8>) -> Result<(), Error> {
    let mut buf = Vec::new();
    let mut ends = Vec::new();
    render_tokens(game, &mut buf, &mut ends)?;
    if game.gaps.len() != ends.len() + 1 {
        return Err(Error::Corrupt("PGN game has the wrong number of gaps".into()));
    }
    let mut start = 0;
    for (gap, &end) in game.gaps.iter().zip(&ends) {
        out.extend_from_slice(gap);
        out.extend_from_slice(&buf[start..end]);
        start = end;
    }
    out.extend_from_slice(game.gaps.last().expect("at least one gap"));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_parse_and_render() {
        let pgn = b"[Event \"x\"]\n[Result \"1-0\"]\n\n1. e4 { [%clk 0:01:00] } 1... e5?! 2. Nf3 (2. f4 exf4 $2) Nc6 1-0\n\n";
        let g = parse(pgn).unwrap();
        assert_eq!(g.tags.len(), 2);
        assert_eq!(g.lines.len(), 2);
        assert_eq!(g.lines[0].moves.len(), 4);
        assert_eq!(g.lines[1].moves.len(), 2);
        assert_eq!(g.result, GameResult::WhiteWins);
        let chess960 = b"[Variant \"Chess960\"]\n[FEN \"qrknbbnr/pppppppp/8/8/8/8/PPPPPPPP/QRKNBBNR w KQkq - 0 1\"]\n\n1. a4 e6 *\n";
        assert!(parse(chess960).is_some());
    }

    #[test]
    fn lowercase_bishops_are_read_where_the_pawn_reading_fails_later() {
        // `4. bxc3` is the bishop on d2 taking on c3 (the b-pawn could too): only that reading
        // lets `5. bb4` follow.
        let text = b"[Event \"x\"]\n\n1. d4 e5 2. nc3 bb4 3. bd2 bxc3 4. bxc3 d6 5. bb4 1-0\n";
        let game = parse(text).expect("parses");
        let mut out = Vec::new();
        render(&game, &mut out).unwrap();
        assert_eq!(out, text);
        assert_eq!(game.lines[0].moves[6].role(), shakmaty::Role::Bishop);
    }

    #[test]
    fn games_outside_the_rules_are_refused() {
        for s in [
            &b"[Variant \"Antichess\"]\n\n1. e3 b5 *"[..],
            b"1. e4 e4 *",
            b"( 1. e4 ) *",
            b"1. e4 ) *",
            b"[FEN \"bad\"]\n\n*",
            b"1. e4 *\n[Event \"x\"]",
            b"1. 0-0",
        ] {
            assert!(parse(s).is_none(), "{}", String::from_utf8_lossy(s));
        }
    }
}
