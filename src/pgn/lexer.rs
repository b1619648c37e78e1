//! Byte-exact tokens of PGN text, and where games start.
//!
//! Why not pgn-reader here: it is the right tool to *read* games (and [`mod@crate::convert`] uses
//! it), but it drops whitespace, line breaks, move numbers and the exact spelling of tags, so
//! it cannot rebuild a file byte for byte. This lexer keeps every byte: a game is a sequence
//! of tokens with the whitespace between them ("gaps"), and concatenating gaps and tokens
//! gives back the input exactly. Anything it does not understand is an error, and the caller
//! keeps that game as raw text. SAN and FEN are parsed with shakmaty (in [`super::game`]).

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// A tag pair in the canonical form `[Name "value"]`.
    Tag,
    /// A move number: digits then zero or more dots (`12.`, `12...`).
    MoveNo,
    /// A move candidate: letters, digits, `+#=:/-_` and figurines (U+2654 to U+265F), and
    /// `e.p.`; also `0-0`, `0-0-0` and `--` ([`crate::text::notation`] reads them).
    San,
    /// A move-quality glyph: `!`, `?`, `!!`, `??`, `!?`, `?!`.
    Glyph,
    /// A numeric annotation glyph `$n`.
    Nag,
    /// A brace comment `{...}`.
    Comment,
    /// A rest-of-line comment `;...` (without the line break).
    LineComment,
    /// `(`.
    VarStart,
    /// `)`.
    VarEnd,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    Result,
}

/// One token: its kind and its exact bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token<'a> {
    /// What it is.
    pub kind: TokenKind,
    /// Its bytes in the input.
    pub text: &'a [u8],
}

/// A lexed game: `gaps[0] tokens[0] gaps[1] ... tokens[n-1] gaps[n]` is the input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Lexed<'a> {
    /// The tokens.
    pub tokens: Vec<Token<'a>>,
    /// Whitespace before each token and after the last; one more than `tokens`.
    pub gaps: Vec<&'a [u8]>,
}

/// The UTF-8 byte order mark.
pub(crate) const BOM: &[u8] = "\u{feff}".as_bytes();

/// The move-quality glyphs, indexed by their symbol value.
pub const GLYPHS: [&[u8]; 6] = [b"!", b"?", b"!!", b"??", b"!?", b"?!"];

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn is_symbol(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'#' | b'=' | b':' | b'/' | b'-')
}

/// Length of a tag pair `[Name "value"]` at the start of `s`, if there is one: one space
/// after the name, and the value ends at the first `"]` (so escapes, and even the unescaped
/// quotes some exporters write, stay in the value as they are); no line break inside.
fn tag_len(s: &[u8]) -> Option<usize> {
    let name = s.get(1..)?.iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
    if name == 0 || s.get(1 + name..3 + name)? != b" \"" {
        return None;
    }
    let start = 3 + name;
    let line = memchr::memchr2(b'\n', b'\r', &s[start..]).map_or(s.len(), |i| start + i);
    let end = memchr::memmem::find(&s[start..line], b"\"]")?;
    Some(start + end + 2)
}

/// The name and raw value (escapes kept) of a canonical tag token.
pub(crate) fn tag_parts(text: &[u8]) -> (&[u8], &[u8]) {
    let space = text.iter().position(|&b| b == b' ').expect("tag tokens have a space");
    (&text[1..space], &text[space + 2..text.len() - 2])
}

/// Length of the move candidate at the start of `s` (see [`TokenKind::San`]).
fn move_len(s: &[u8]) -> usize {
    let mut i = 0;
    while i < s.len() {
        if is_symbol(s[i]) {
            i += 1;
        } else if matches!(s[i..], [0xe2, 0x99, 0x94..=0x9f, ..]) || (i > 0 && s[i..].starts_with(b".p.") && s[i - 1] == b'e') {
            // A figurine (three bytes of UTF-8), or the dots of `e.p.`.
            i += 3;
        } else {
            break;
        }
    }
    i
}

/// Splits `s` into tokens and gaps; `None` if some part is not a token this lexer knows.
pub(crate) fn lex(s: &[u8]) -> Option<Lexed<'_>> {
    let mut out = Lexed::default();
    // A byte order mark at the start is part of the first gap.
    let mut i = if s.starts_with(BOM) { BOM.len() } else { 0 };
    loop {
        let start = if out.gaps.is_empty() { 0 } else { i };
        while i < s.len() && is_space(s[i]) {
            i += 1;
        }
        out.gaps.push(&s[start..i]);
        if i == s.len() {
            return Some(out);
        }
        let rest = &s[i..];
        let (kind, len) = match rest[0] {
            b'[' => (TokenKind::Tag, tag_len(rest)?),
            b'{' => (TokenKind::Comment, memchr::memchr(b'}', rest)? + 1),
            b';' => {
                let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
                let end = if end > 0 && end < rest.len() && rest[end - 1] == b'\r' { end - 1 } else { end };
                (TokenKind::LineComment, end)
            }
            b'(' => (TokenKind::VarStart, 1),
            b')' => (TokenKind::VarEnd, 1),
            b'*' => (TokenKind::Result, 1),
            b'$' => {
                let digits = rest[1..].iter().take_while(|b| b.is_ascii_digit()).count();
                if digits == 0 || digits > 3 || (digits > 1 && rest[1] == b'0') || rest.get(1 + digits).is_some_and(|&b| is_symbol(b)) {
                    return None;
                }
                (TokenKind::Nag, 1 + digits)
            }
            b'!' | b'?' => {
                let n = rest.iter().take_while(|b| matches!(b, b'!' | b'?')).count();
                if !GLYPHS.contains(&&rest[..n]) {
                    return None;
                }
                (TokenKind::Glyph, n)
            }
            b'0'..=b'9' => {
                let run = rest.iter().take_while(|&&b| is_symbol(b)).count();
                let word = &rest[..run];
                if word.iter().all(u8::is_ascii_digit) {
                    let dots = rest[run..].iter().take_while(|&&b| b == b'.').count();
                    if run > 9 || (run > 1 && word[0] == b'0') || dots > 7 {
                        return None;
                    }
                    (TokenKind::MoveNo, run + dots)
                } else if matches!(word, b"1-0" | b"0-1" | b"1/2-1/2") {
                    (TokenKind::Result, run)
                } else if word.starts_with(b"0-0") {
                    (TokenKind::San, move_len(rest))
                } else {
                    return None;
                }
            }
            b if b.is_ascii_alphabetic() => (TokenKind::San, move_len(rest)),
            0xe2 if matches!(rest, [0xe2, 0x99, 0x94..=0x9f, ..]) => (TokenKind::San, move_len(rest)),
            b'-' if rest.starts_with(b"--") => (TokenKind::San, move_len(rest)),
            _ => return None,
        };
        out.tokens.push(Token { kind, text: &rest[..len] });
        i += len;
    }
}

/// Finds where games start, line by line, with the same rule for the archive's block reader
/// and the block coder: a game starts at a tag line (`[` and a name character) whose previous
/// non-blank line is a move text line, and at any line whose previous non-blank line ended
/// with a result token (games without tags). The first line of a block is
/// always a start; blank lines before the first game belong to it. The rule only decides how text is grouped; any grouping round-trips.
///
/// [`GameSplitter::new`] is the rule the compressor cuts blocks and codes games by (what an
/// archive's index and block headers count), and stays as it is so that archives do not
/// change. [`GameSplitter::reading`] is the rule the game views (extract, tags, `Games`,
/// the bindings) cut by: the same, except that a UTF-8 byte order mark at the start of the
/// input's first line is skipped when judging that line, so that `<BOM>[Event "x"]` is a tag
/// line and the BOM's game is game 1 (the BOM stays in its text).
#[derive(Clone, Debug, Default)]
pub struct GameSplitter {
    last: LastLine,
    /// The next line is the input's first and may start with a BOM to skip ([`Self::reading`]).
    skip_bom: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum LastLine {
    #[default]
    None,
    Tag,
    Other {
        result: bool,
    },
}

/// Whether `line` (without its terminator) is a tag line for [`GameSplitter`].
pub(crate) fn is_tag_line(line: &[u8]) -> bool {
    let line = line.trim_ascii_start();
    line.first() == Some(&b'[') && line.get(1).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

fn ends_with_result(line: &[u8]) -> bool {
    let t = line.trim_ascii_end();
    [&b"1-0"[..], b"0-1", b"1/2-1/2", b"*"].iter().any(|r| t.ends_with(r) && (t.len() == r.len() || is_space(t[t.len() - r.len() - 1])))
}

impl GameSplitter {
    /// A splitter at the start of input.
    pub fn new() -> Self {
        Self::default()
    }

    /// A splitter at the very start of the input for the game views: as [`Self::new`], but a
    /// UTF-8 BOM (bytes EF BB BF) that starts the first line is not part of what that line is judged
    /// by. Only for the input's (or an archive member's) first byte: a splitter started at a
    /// later block is [`Self::new`].
    pub fn reading() -> Self {
        Self { skip_bom: true, ..Self::default() }
    }

    /// Whether `line` (its bytes without the line break) starts a game; call for every line
    /// in order.
    pub fn starts_game(&mut self, line: &[u8]) -> bool {
        let line = if std::mem::take(&mut self.skip_bom) { line.strip_prefix(BOM).unwrap_or(line) } else { line };
        if line.iter().all(|&b| is_space(b)) {
            return false;
        }
        let tag = is_tag_line(line);
        let start = match self.last {
            LastLine::None | LastLine::Tag => false,
            LastLine::Other { result } => tag || result,
        };
        self.last = if tag { LastLine::Tag } else { LastLine::Other { result: ends_with_result(line) } };
        start
    }
}

/// Splits a block into games with [`GameSplitter`]; every byte belongs to exactly one piece
/// and the first piece starts at 0. Empty input gives no pieces.
pub fn split_games(text: &[u8]) -> Vec<&[u8]> {
    split_with(text, GameSplitter::new())
}

/// Splits text into games as the game views do: [`split_games`] with
/// [`GameSplitter::reading`] when `text` starts the input (a BOM there belongs to game 1 and
/// does not make a game of its own), with [`GameSplitter::new`] otherwise.
pub fn split_games_reading(text: &[u8], input_start: bool) -> Vec<&[u8]> {
    split_with(text, if input_start { GameSplitter::reading() } else { GameSplitter::new() })
}

/// [`split_games`] with a given splitter at the start of `text`.
fn split_with(text: &[u8], mut splitter: GameSplitter) -> Vec<&[u8]> {
    let mut starts = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let end = memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |i| at + i + 1);
        let line = &text[at..end];
        let content = line.strip_suffix(b"\n").unwrap_or(line);
        if splitter.starts_game(content) || at == 0 {
            starts.push(at);
        }
        at = end;
    }
    starts.iter().enumerate().map(|(i, &s)| &text[s..starts.get(i + 1).copied().unwrap_or(text.len())]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn concat(l: &Lexed<'_>) -> Vec<u8> {
        let mut out = l.gaps[0].to_vec();
        for (t, g) in l.tokens.iter().zip(&l.gaps[1..]) {
            out.extend_from_slice(t.text);
            out.extend_from_slice(g);
        }
        out
    }

    #[test]
    fn lexing_keeps_every_byte() {
        let pgn = b"[Event \"a \\\"b\\\"\"]\r\n\n1.e4 e5?! 2. Nf3 $1 {c} (2... Nc6) ; x\r\n 1/2-1/2 *\n";
        let l = lex(pgn).unwrap();
        assert_eq!(concat(&l), pgn);
        let kinds: Vec<TokenKind> = l.tokens.iter().map(|t| t.kind).collect();
        use TokenKind::*;
        assert_eq!(
            kinds,
            [Tag, MoveNo, San, San, Glyph, MoveNo, San, Nag, Comment, VarStart, MoveNo, San, VarEnd, LineComment, Result, Result]
        );
        assert_eq!(tag_parts(l.tokens[0].text), (&b"Event"[..], &b"a \\\"b\\\""[..]));
        assert_eq!(l.tokens[13].text, b"; x");
        let odd = "\u{feff}[White \"\"Mirage\"\"] *".as_bytes();
        let l = lex(odd).unwrap();
        assert_eq!(concat(&l), odd);
        assert_eq!(l.gaps[0], BOM);
        assert_eq!(tag_parts(l.tokens[0].text).1, b"\"Mirage\"");
    }

    #[test]
    fn unknown_text_is_refused() {
        for s in [
            &b"[Event  \"x\"]"[..],
            b"[Event \"x\" ]",
            b"[Event \"x\n\"]",
            b"{ open",
            b"1. e4 \xc2\xbd-\xc2\xbd",
            b"01. e4",
            b"$01",
            b"e4 !!!",
            b"%x",
            b"-",
        ] {
            assert!(lex(s).is_none(), "{}", String::from_utf8_lossy(s));
        }
        assert_eq!(lex(b"").unwrap().gaps, [b""]);
    }

    #[test]
    fn games_split_at_tag_sections_and_after_results() {
        let text = b"[A \"1\"]\n\n[B \"2\"]\n1. e4 1-0\n\n[A \"3\"]\n1. d4 *\n\n1. c4 0-1\n1. f4\n";
        let parts = split_games(text);
        assert_eq!(parts.concat(), text);
        assert_eq!(parts.len(), 4);
        assert!(parts[1].starts_with(b"[A \"3\"]"));
        assert!(parts[2].starts_with(b"1. c4"));
        assert!(split_games(b"").is_empty());
        assert_eq!(split_games(b"\n\nxyz").len(), 1);
    }

    #[test]
    fn a_bom_starts_the_first_game_only_when_reading() {
        let text = "\u{feff}[A \"1\"]\n[B \"2\"]\n\n1. e4 1-0\n\n[A \"3\"]\n1. d4 *\n".as_bytes();
        // The compressor's rule (what archives record) is unchanged: the BOM line is a game.
        assert_eq!(split_games(text).len(), 3);
        let parts = split_games_reading(text, true);
        assert_eq!(parts.concat(), text);
        assert_eq!(parts.len(), 2);
        assert!(parts[0].starts_with(BOM) && parts[1].starts_with(b"[A \"3\"]"));
        // Not at the input's start, and not on a later line, a BOM is text like any other.
        assert_eq!(split_games_reading(text, false).len(), 3);
        let later = "1. e4 *\n\u{feff}[A \"1\"]\n[B \"2\"]\n1. d4 *\n".as_bytes();
        assert_eq!(split_games_reading(later, true), split_games(later));
    }
}
