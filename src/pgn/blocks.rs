//! Cutting PGN input into blocks of whole games, and telling PGN from movetext.

use std::io::{BufRead, Read as _};

use super::lexer::{GameSplitter, is_tag_line};
use crate::container::{InputFormat, MAX_BLOCK_TEXT};
use crate::error::Error;
use crate::text::{parse_game, split_lines};

/// Reads PGN input block by block, cutting before the line that starts a game once a block
/// holds enough games (the same rule as [`super::lexer::split_games`], so blocks hold whole
/// games), or at [`MAX_BLOCK_TEXT`] bytes (a cut inside a game only makes its two halves
/// raw text).
#[derive(Debug, Default)]
pub struct BlockReader {
    splitter: GameSplitter,
    pending: Vec<u8>,
    line: Vec<u8>,
}

impl BlockReader {
    /// A reader at the start of input.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the next block of about `games` games, at most `max_bytes` bytes (clamped to
    /// [`MAX_BLOCK_TEXT`]), into `out` (empty at the end of input).
    ///
    /// # Errors
    /// [`Error::Io`] from reading.
    pub fn read_block<R: BufRead>(&mut self, input: &mut R, games: u32, max_bytes: usize, out: &mut Vec<u8>) -> Result<(), Error> {
        let max_bytes = max_bytes.clamp(1, MAX_BLOCK_TEXT);
        out.clear();
        let mut count = 0u32;
        if !self.pending.is_empty() {
            out.append(&mut self.pending);
            count = 1;
        }
        while out.len() < max_bytes {
            self.line.clear();
            let room = (max_bytes - out.len()) as u64;
            (&mut *input).take(room).read_until(b'\n', &mut self.line)?;
            if self.line.is_empty() {
                break;
            }
            let content = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
            let start = self.splitter.starts_game(content);
            if out.is_empty() {
                // The block's first piece, whatever the line (the first game of the input).
                count = 1;
            } else if start {
                count += 1;
                if count > games.max(1) {
                    std::mem::swap(&mut self.pending, &mut self.line);
                    break;
                }
            }
            out.extend_from_slice(&self.line);
        }
        Ok(())
    }
}

/// Guesses the format of input from its first bytes: PGN if its first lines hold tag pairs or
/// move numbers rather than movetext games.
///
/// Of the first 200 non-blank lines, those that parse as movetext games count for movetext,
/// the others with a tag pair or a move number for PGN; PGN wins if it has any line and at
/// least as many as movetext. The games are parsed (legal moves generated) only when some
/// line looks like PGN: without one the answer is movetext whatever the count.
pub fn detect(sample: &[u8]) -> InputFormat {
    let sample = sample.strip_prefix("\u{feff}".as_bytes()).unwrap_or(sample);
    let lines = || split_lines(sample).map(|l| l.content).filter(|c| !c.trim_ascii().is_empty()).take(200);
    let looks_pgn = |content: &[u8]| is_tag_line(content.trim_ascii_start()) || has_move_number(content);
    if !lines().any(looks_pgn) {
        return InputFormat::Movetext;
    }
    let (mut pgn, mut movetext) = (0, 0);
    for content in lines() {
        if parse_game(content).is_some() {
            movetext += 1;
        } else if looks_pgn(content) {
            pgn += 1;
        }
    }
    if pgn > 0 && pgn >= movetext { InputFormat::Pgn } else { InputFormat::Movetext }
}

/// Whether a line has a token like `1.` or `12...` followed by a letter (a move number).
fn has_move_number(line: &[u8]) -> bool {
    line.split(|&b| b == b' ').any(|w| {
        let digits = w.iter().take_while(|b| b.is_ascii_digit()).count();
        digits > 0 && w.get(digits) == Some(&b'.') && {
            let rest = w[digits..].iter().skip_while(|&&b| b == b'.').copied().collect::<Vec<u8>>();
            rest.is_empty() || rest[0].is_ascii_alphabetic()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_detected() {
        assert_eq!(detect(b"[Event \"x\"]\n\n1. e4 *\n"), InputFormat::Pgn);
        assert_eq!(detect(b"\xef\xbb\xbf1.e4 e5 2.Nf3 *\n"), InputFormat::Pgn);
        assert_eq!(detect(b"e4 e5 Nf3 1-0\nd4 d5 0-1\n"), InputFormat::Movetext);
        assert_eq!(detect(b""), InputFormat::Movetext);
        assert_eq!(detect(b"hello\n"), InputFormat::Movetext);
    }

    #[test]
    fn blocks_hold_whole_games() {
        let game = b"[Event \"x\"]\n[Site \"y\"]\n\n1. e4 *\n\n";
        let text: Vec<u8> = game.iter().copied().cycle().take(game.len() * 10).collect();
        let mut reader = BlockReader::new();
        let mut input = &text[..];
        let mut blocks = Vec::new();
        loop {
            let mut out = Vec::new();
            reader.read_block(&mut input, 3, MAX_BLOCK_TEXT, &mut out).unwrap();
            if out.is_empty() {
                break;
            }
            blocks.push(out);
        }
        assert_eq!(blocks.concat(), text);
        assert!(blocks.iter().all(|b| b.starts_with(b"[Event")));
        assert_eq!(blocks.iter().map(|b| super::super::lexer::split_games(b).len()).collect::<Vec<_>>(), [3, 3, 3, 1]);
    }
}
