//! Writing the games of an archive (PGN or movetext) in the movetext format: one game per
//! line, canonical SAN without move numbers or check marks, then the result, so that PGN
//! archives can feed the benchmark tools.
//!
//! PGN is read with pgn-reader here (nothing needs to be byte-exact): its main line, with
//! variations, comments and NAGs skipped; moves are checked with shakmaty and rewritten in
//! canonical SAN. Games from a set-up position (`FEN` tag) or of another variant, games with
//! an illegal move, and lines of a movetext archive that are not games are skipped.

use std::io::{Read, Write};
use std::ops::ControlFlow;

use pgn_reader::{KnownOutcome, Outcome, RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::san::San;
use shakmaty::{Chess, Color, Position};

use super::lexer::GameSplitter;
use crate::Error;
use crate::archive::{ExpandOptions, Progress, expand};
use crate::container::{FileHeader, InputFormat};
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
    type Output = Option<Vec<u8>>;

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
        ControlFlow::Continue(Line { tags, pos: Chess::default(), text: Vec::new(), plies: 0, illegal: false, outcome: None })
    }

    fn san(&mut self, line: &mut Line, san_plus: SanPlus) -> ControlFlow<Self::Output> {
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

    fn end_game(&mut self, line: Line) -> Option<Vec<u8>> {
        let result = line.outcome.or(line.tags.result);
        if line.illegal || line.tags.unsupported || (line.plies == 0 && result.is_none()) {
            return None;
        }
        let mut text = line.text;
        text.extend_from_slice(result.unwrap_or(b"*"));
        text.push(b'\n');
        Some(text)
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
                    Some(game) => {
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
                    None => summary.skipped += 1,
                }
            }
        }
        InputFormat::Pgn => {
            let mut reader = Reader::new(text);
            while let Ok(Some(game)) = reader.read_game(&mut ToMovetext) {
                match game {
                    Some(line) => {
                        out.extend_from_slice(&line);
                        summary.games += 1;
                    }
                    None => summary.skipped += 1,
                }
            }
        }
    }
    summary.bytes = (out.len() - before) as u64;
    summary
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
        self.scanned -= end;
        Ok(())
    }
}

impl<W: Write> Write for Sink<W> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        while let Some(i) = memchr::memchr(b'\n', &self.buf[self.scanned..]) {
            let line_start = self.scanned;
            self.scanned += i + 1;
            match self.format {
                InputFormat::Movetext => self.emit(self.scanned)?,
                InputFormat::Pgn => {
                    let line = &self.buf[line_start..self.scanned - 1];
                    if self.splitter.starts_game(line) && line_start > 0 {
                        self.emit(line_start)?;
                    }
                }
            }
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Expands the archive from `input` and writes its games to `output` in the movetext format
/// (see the module documentation for what is skipped).
///
/// # Errors
/// As [`crate::archive::expand`].
pub fn convert<R: Read, W: Write>(mut input: R, output: W, opts: &ExpandOptions, progress: Progress<'_>) -> Result<ConvertSummary, Error> {
    let mut head = [0u8; FileHeader::LEN];
    let mut got = 0;
    while got < head.len() {
        let n = input.read(&mut head[got..])?;
        if n == 0 {
            break;
        }
        got += n;
    }
    let format = if got == head.len() { FileHeader::parse(&head)?.format } else { InputFormat::Movetext };
    let mut sink = Sink {
        format,
        out: output,
        buf: Vec::new(),
        scanned: 0,
        splitter: GameSplitter::new(),
        summary: ConvertSummary::default(),
        converted: Vec::new(),
    };
    let expanded = expand(std::io::Cursor::new(&head[..got]).chain(input), &mut sink, opts, progress)?;
    sink.summary.archive_bytes = expanded.archive_bytes;
    let end = sink.buf.len();
    sink.emit(end)?;
    sink.out.flush()?;
    Ok(sink.summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgn_becomes_movetext() {
        let pgn = b"[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 (2. f4) Nc6 3. Bb5+ $1 {x} 1-0\n\n\
                    [FEN \"8/8/8/8/8/8/8/K1k5 w - - 0 1\"]\n\n1. Kb1 *\n\n\
                    1. e4 e4 *\n\n[Result \"0-1\"]\n\n1. d4\n";
        let mut out = Vec::new();
        let s = to_movetext(InputFormat::Pgn, pgn, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), "e4 e5 Nf3 Nc6 Bb5 1-0\nd4 0-1\n");
        assert_eq!((s.games, s.skipped), (2, 2));
        let mut out = Vec::new();
        to_movetext(InputFormat::Movetext, b"e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7# 1-0\nxx\n", &mut out);
        assert_eq!(out, b"e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7 1-0\n");
    }
}
