//! Writing the games of an archive (PGN or movetext) in the movetext format: one game per
//! line, canonical SAN without move numbers or check marks, then the result, so that PGN
//! archives can feed the benchmark tools.
//!
//! PGN is read with pgn-reader here (nothing needs to be byte-exact): its main line, with
//! variations, comments and NAGs skipped; moves are checked with shakmaty and rewritten in
//! canonical SAN. Games from a set-up position (`FEN` tag) or of another variant, games with
//! an illegal move or a null move, and lines of a movetext archive that are not games are
//! skipped.
//!
//! A conversion never changes a game: pgn-reader silently passes over tokens it cannot read
//! (`Qxf7++`, `exd6e.p.`, `+-`), ends a game at a blank line and runs on after a result, so
//! each game it reads is checked against an independent scan of the game's text
//! ([`main_line_moves`]): the game is written only if its main line has exactly the move
//! tokens pgn-reader turned into moves, and nothing after its result; otherwise it is skipped
//! (and counted, so that the command line warns).

use std::io::{Read, Write};
use std::ops::ControlFlow;

use pgn_reader::{KnownOutcome, Outcome, RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::san::San;
use shakmaty::{Chess, Color, Position};

use crate::archive::{DecodeLimits, ExpandOptions, Progress, expand_members};
use crate::chess::NULL_MOVE;
use crate::container::InputFormat;
use crate::error::Error;
use crate::pgn::lexer::{GameSplitter, split_games};
use crate::text::{parse_game, split_lines};

/// What a conversion did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConvertSummary {
    /// Games written.
    pub games: u64,
    /// Games (or movetext lines) skipped.
    pub skipped: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Bytes of the archive read.
    pub archive_bytes: u64,
}

/// Tags that matter for conversion.
#[derive(Default)]
struct Tags {
    unsupported: bool,
    result: Option<&'static [u8]>,
}

/// The main line being converted.
struct Line {
    tags: Tags,
    pos: Chess,
    text: Vec<u8>,
    plies: usize,
    /// SAN tokens pgn-reader reported in the main line (legal or not).
    sans: usize,
    illegal: bool,
    outcome: Option<&'static [u8]>,
}

/// pgn-reader visitor producing one movetext line per game (`None`: skip the game).
struct ToMovetext;

fn result_token(v: &[u8]) -> Option<&'static [u8]> {
    [&b"1-0"[..], b"0-1", b"1/2-1/2", b"*"].into_iter().find(|t| *t == v)
}

impl Visitor for ToMovetext {
    type Tags = Tags;
    type Movetext = Line;
    /// The movetext line (`None`: skip the game) and the SAN tokens of the main line.
    type Output = (Option<Vec<u8>>, usize);

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(Tags::default())
    }

    fn tag(&mut self, tags: &mut Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<Self::Output> {
        match name {
            b"FEN" => tags.unsupported = true,
            b"Variant" => tags.unsupported |= !value.as_bytes().eq_ignore_ascii_case(b"standard"),
            b"Result" => tags.result = result_token(value.as_bytes()),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Tags) -> ControlFlow<Self::Output, Line> {
        ControlFlow::Continue(Line { tags, pos: Chess::default(), text: Vec::new(), plies: 0, sans: 0, illegal: false, outcome: None })
    }

    fn san(&mut self, line: &mut Line, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        line.sans += 1;
        if line.illegal || line.tags.unsupported {
            return ControlFlow::Continue(());
        }
        match san_plus.san.to_move(&line.pos) {
            Ok(m) => {
                San::from_move(&line.pos, m).append_ascii_to(&mut line.text);
                line.text.push(b' ');
                line.pos.play_unchecked(m);
                line.plies += 1;
            }
            Err(_) => line.illegal = true,
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _line: &mut Line) -> ControlFlow<Self::Output, Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn outcome(&mut self, line: &mut Line, outcome: Outcome) -> ControlFlow<Self::Output> {
        if line.outcome.is_none() {
            line.outcome = Some(match outcome {
                Outcome::Known(KnownOutcome::Decisive { winner: Color::White }) => b"1-0",
                Outcome::Known(KnownOutcome::Decisive { winner: Color::Black }) => b"0-1",
                Outcome::Known(KnownOutcome::Draw) => b"1/2-1/2",
                Outcome::Unknown => b"*",
            });
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, line: Line) -> Self::Output {
        let result = line.outcome.or(line.tags.result);
        if line.illegal || line.tags.unsupported || (line.plies == 0 && result.is_none()) {
            return (None, line.sans);
        }
        let mut text = line.text;
        text.extend_from_slice(result.unwrap_or(b"*"));
        text.push(b'\n');
        (Some(text), line.sans)
    }
}

/// Converts complete text of `format` to movetext lines appended to `out`.
pub fn to_movetext(format: InputFormat, text: &[u8], out: &mut Vec<u8>) -> ConvertSummary {
    let mut summary = ConvertSummary::default();
    let before = out.len();
    match format {
        InputFormat::Movetext => {
            for line in split_lines(text) {
                match parse_game(line.content) {
                    // The movetext format's canonical SAN has no null move.
                    Some(game) if !game.moves.contains(&NULL_MOVE) => {
                        let mut pos = Chess::default();
                        for m in &game.moves {
                            San::from_move(&pos, *m).append_ascii_to(out);
                            out.push(b' ');
                            pos.play_unchecked(*m);
                        }
                        out.extend_from_slice(game.result.token());
                        out.push(b'\n');
                        summary.games += 1;
                    }
                    _ => summary.skipped += 1,
                }
            }
        }
        InputFormat::Pgn => {
            for piece in split_games(text) {
                let mut reader = Reader::new(piece);
                let mut games = Vec::new();
                let complete = loop {
                    match reader.read_game(&mut ToMovetext) {
                        Ok(Some(game)) => games.push(game),
                        Ok(None) => break true,
                        Err(_) => break false,
                    }
                };
                match (&games[..], complete) {
                    ([], true) => {}
                    // One game, read in full, with every move token of its main line.
                    ([(Some(line), sans)], true) if main_line_moves(piece) == Some(*sans) => {
                        out.extend_from_slice(line);
                        summary.games += 1;
                    }
                    _ => summary.skipped += games.len().max(1) as u64,
                }
            }
        }
    }
    summary.bytes = (out.len() - before) as u64;
    summary
}

/// The move tokens of the main line of one PGN game's `text`, counted independently of
/// pgn-reader: words (cut at whitespace, `.` and the PGN delimiters) outside tag pairs,
/// comments, `%` lines and variations that are not move numbers, results, NAGs or glyphs.
/// `None` if the text cannot be accounted for: an unclosed comment, tag or variation, a `)`
/// without `(`, or a move token after a result (pgn-reader would join two games).
pub fn main_line_moves(text: &[u8]) -> Option<usize> {
    let is_separator = |b: u8| b.is_ascii_whitespace() || matches!(b, b'.' | b'{' | b'}' | b'(' | b')' | b';' | b'[' | b']');
    let mut moves = 0;
    let mut depth = 0usize;
    let mut ended = false;
    let mut i = 0;
    let mut line_start = true;
    while i < text.len() {
        let b = text[i];
        let at_line_start = line_start;
        line_start = b == b'\n';
        match b {
            b'%' if at_line_start => i += memchr::memchr(b'\n', &text[i..]).unwrap_or(text.len() - i),
            b'[' => {
                // A tag pair: to the `]` after the closing quote of its value.
                let open = i + 1 + memchr::memchr(b'"', &text[i + 1..])?;
                let mut close = open + 1;
                loop {
                    close += memchr::memchr(b'"', &text[close..])?;
                    if text[close - 1] != b'\\' || text.get(close + 1) == Some(&b']') {
                        break;
                    }
                    close += 1;
                }
                i = close + 1 + memchr::memchr(b']', &text[close + 1..])? + 1;
            }
            b'{' => i += memchr::memchr(b'}', &text[i..])? + 1,
            b';' => i += memchr::memchr(b'\n', &text[i..]).unwrap_or(text.len() - i),
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' => {
                depth = depth.checked_sub(1)?;
                i += 1;
            }
            b']' | b'}' => return None,
            _ if is_separator(b) => i += 1,
            _ => {
                let len = text[i..].iter().position(|&c| is_separator(c)).unwrap_or(text.len() - i);
                let word = &text[i..i + len];
                i += len;
                if depth > 0 {
                    continue;
                }
                let glyphs = |w: &[u8]| !w.is_empty() && w.iter().all(|c| matches!(c, b'!' | b'?'));
                let result = matches!(word, b"1-0" | b"0-1" | b"1/2-1/2" | b"*") || word == "½-½".as_bytes();
                if result {
                    ended = true;
                } else if !(word.iter().all(u8::is_ascii_digit) || word.starts_with(b"$") || glyphs(word)) {
                    if ended {
                        return None;
                    }
                    moves += 1;
                }
            }
        }
    }
    (depth == 0).then_some(moves)
}

/// A writer that converts text as it arrives, a whole game at a time.
struct Sink<W: Write> {
    format: InputFormat,
    out: W,
    buf: Vec<u8>,
    scanned: usize,
    splitter: GameSplitter,
    summary: ConvertSummary,
    converted: Vec<u8>,
    /// Ceilings: a game (or line) longer than the game ceiling is refused, not held.
    limits: DecodeLimits,
}

impl<W: Write> Sink<W> {
    /// Converts `buf[..end]` and drops it.
    fn emit(&mut self, end: usize) -> std::io::Result<()> {
        self.converted.clear();
        let s = to_movetext(self.format, &self.buf[..end], &mut self.converted);
        self.out.write_all(&self.converted)?;
        self.summary.games += s.games;
        self.summary.skipped += s.skipped;
        self.summary.bytes += s.bytes;
        self.buf.drain(..end);
        // A last line without its line feed is emitted past what was scanned.
        self.scanned = self.scanned.saturating_sub(end);
        Ok(())
    }

    /// Starts a member of `format` (the members of a concatenation may differ): what is held of
    /// the member before is converted in its own format (its last game or line ends with it),
    /// then the text that follows is read as `format`.
    fn start_member(&mut self, format: InputFormat) -> std::io::Result<()> {
        let end = self.buf.len();
        self.emit(end)?;
        self.format = format;
        self.splitter = GameSplitter::new();
        Ok(())
    }
}

impl<W: Write> Write for Sink<W> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        while let Some(i) = memchr::memchr(b'\n', &self.buf[self.scanned..]) {
            let line_start = self.scanned;
            self.scanned += i + 1;
            let check = |limits: &DecodeLimits, len: usize| limits.check_game(len as u64).map_err(std::io::Error::other);
            match self.format {
                InputFormat::Movetext => {
                    check(&self.limits, self.scanned)?;
                    self.emit(self.scanned)?
                }
                InputFormat::Pgn => {
                    let line = &self.buf[line_start..self.scanned - 1];
                    if self.splitter.starts_game(line) && line_start > 0 {
                        check(&self.limits, line_start)?;
                        self.emit(line_start)?;
                    } else {
                        check(&self.limits, self.scanned)?;
                    }
                }
            }
        }
        // What is left is the game (or line) being read: refused, not held, past the ceiling.
        self.limits.check_game(self.buf.len() as u64).map_err(std::io::Error::other)?;
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// The library error a writer carried through an I/O error ([`Sink`]'s limits), or `e`.
fn unwrap_limit(e: Error) -> Error {
    match e {
        Error::Io(io) if io.get_ref().is_some_and(|inner| inner.is::<Error>()) => {
            *io.into_inner().expect("checked").downcast::<Error>().expect("checked")
        }
        other => other,
    }
}

/// Expands the archive from `input` and writes its games to `output` in the movetext format
/// (see the module documentation for what is skipped). Each member of a concatenation is read
/// in its own format (`cat games.txt.chz games.pgn.chz`), and its last game or line ends with
/// it. A game is held whole to convert it:
/// one longer than [`DecodeLimits::max_game_bytes`] (or [`DecodeLimits::memlimit`]) stops the
/// conversion with [`Error::DecodeLimit`] before it grows past that.
///
/// # Errors
/// As [`crate::archive::expand`]; [`Error::DecodeLimit`] for a game beyond the ceiling.
pub fn convert<R: Read, W: Write>(input: R, output: W, opts: &ExpandOptions, progress: Progress<'_>) -> Result<ConvertSummary, Error> {
    // Each member sets its format before its text comes (a concatenation may mix them).
    let mut sink = Sink {
        format: InputFormat::Movetext,
        out: output,
        buf: Vec::new(),
        scanned: 0,
        splitter: GameSplitter::new(),
        summary: ConvertSummary::default(),
        converted: Vec::new(),
        limits: opts.limits,
    };
    let expanded = expand_members(input, &mut sink, opts, progress, |sink, format| Ok(sink.start_member(format)?)).map_err(unwrap_limit)?;
    sink.summary.archive_bytes = expanded.archive_bytes;
    let end = sink.buf.len();
    sink.emit(end)?;
    sink.out.flush()?;
    Ok(sink.summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game pgn-reader would read with a move left out, or joined to the next, is skipped,
    /// never changed.
    #[test]
    fn games_that_would_change_are_skipped() {
        let cases: [&[u8]; 6] = [
            b"[Event \"x\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7++ 1-0\n",
            b"1. e4 e5 2. Nf3 +- 1-0\n",
            b"1. e4 d5 2. e5 f5 3. exf6e.p. 1-0\n",
            b"1. e4 e5 1-0 2. Nf3 *\n",
            b"1. e4 e5 2. Nf3 {unclosed 1-0\n",
            b"1. e4 e5 2. Nf3) 1-0\n",
        ];
        for text in cases {
            let mut out = Vec::new();
            let s = to_movetext(InputFormat::Pgn, text, &mut out);
            assert_eq!((s.games, s.skipped, &out[..]), (0, 1, &b""[..]), "{}", String::from_utf8_lossy(text));
        }
        assert_eq!(main_line_moves(b"[Event \"a \\\"q\\\" ]\"]\n\n1.e4 (1. d4 d5) e5 $1 2.Nf3?? *"), Some(3));
        assert_eq!(main_line_moves(b"1. e4 e5 1-0 Nf3"), None);
    }

    #[test]
    fn pgn_becomes_movetext() {
        let pgn = b"[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 (2. f4) Nc6 3. Bb5+ $1 {x} 1-0\n\n\
                    [FEN \"8/8/8/8/8/8/8/K1k5 w - - 0 1\"]\n\n1. Kb1 *\n\n\
                    1. e4 e4 *\n\n[Result \"0-1\"]\n\n1. d4\n";
        let mut out = Vec::new();
        let s = to_movetext(InputFormat::Pgn, pgn, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), "e4 e5 Nf3 Nc6 Bb5 1-0\nd4 0-1\n");
        assert_eq!((s.games, s.skipped), (2, 2));
        // Castling with zeros, glyphs on moves, comments, `%` lines and NAGs are read.
        let mut out = Vec::new();
        let s = to_movetext(
            InputFormat::Pgn,
            b"1. e4 e5 2. Nf3!? Nc6 3. Bc4 Bc5 4. 0-0 {x (y}\n%skip 5. Qh5\n $3 ; z\n Nf6 1/2-1/2\n",
            &mut out,
        );
        assert_eq!((String::from_utf8(out).unwrap().as_str(), s.skipped), ("e4 e5 Nf3 Nc6 Bc4 Bc5 O-O Nf6 1/2-1/2\n", 0));
        let mut out = Vec::new();
        to_movetext(InputFormat::Movetext, b"e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7# 1-0\nxx\n", &mut out);
        assert_eq!(out, b"e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7 1-0\n");
    }
}
