//! The movetext block format: one game per line (SAN moves, then the result), each line coded
//! with the model ([`block`]), the moves of a game with the [`GameCoder`] that the PGN format
//! shares ([`crate::format::game_coder`]), and games in other notations with the notation
//! models ([`crate::format::notation_coder`]). Blocks are cut at line ends ([`Movetext`]).

pub mod block;

use std::io::BufRead;

// The game coder, the notation coder and `MoveText` live in `crate::format`, shared with the PGN
// format; these paths (`chesszip::movetext::game_coder`, ...) still name them.
pub use crate::format::{GameCoder, MoveText, game_coder, move_text, notation_coder};

use crate::container::{BlockStats, Coding, EncodedBlock, InputFormat};
use crate::error::Error;
use crate::format::{BlockFormat, BlockSplitter};
use crate::model::Model;

/// The movetext format as a [`BlockFormat`]: blocks of whole lines.
#[derive(Clone, Copy, Debug, Default)]
pub struct Movetext;

impl BlockFormat for Movetext {
    fn input_format(&self) -> InputFormat {
        InputFormat::Movetext
    }

    fn splitter(&self) -> Box<dyn BlockSplitter> {
        Box::new(LineSplitter)
    }

    fn encode(&self, model: &Model, text: &[u8]) -> (EncodedBlock, BlockStats) {
        block::encode_block(model, text)
    }

    fn encode_stored(&self, model: &Model, text: &[u8]) -> (EncodedBlock, BlockStats) {
        block::encode_block_stored(model, text)
    }

    fn decode(
        &self,
        model: &Model,
        coding: Coding,
        block: &EncodedBlock,
        lines: u64,
        max_len: usize,
        out: &mut Vec<u8>,
    ) -> Result<BlockStats, Error> {
        block::decode_block(model, coding, block, lines, max_len, out)
    }
}

/// Cuts movetext input into blocks of lines.
struct LineSplitter;

impl BlockSplitter for LineSplitter {
    fn read(&mut self, input: &mut dyn BufRead, units: u32, max_bytes: usize, out: &mut Vec<u8>) -> Result<(), Error> {
        read_block(input, units, max_bytes, out)
    }
}

/// Reads the next block of input: up to `lines` whole lines and at most `max_bytes` bytes (a
/// longer line is cut; the cut is invisible after expansion). Empty at end of input.
fn read_block(input: &mut dyn BufRead, lines: u32, max_bytes: usize, out: &mut Vec<u8>) -> Result<(), Error> {
    out.clear();
    let mut count = 0;
    while count < lines && out.len() < max_bytes {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        if buf.is_empty() {
            break;
        }
        let room = max_bytes - out.len();
        let window = &buf[..buf.len().min(room)];
        let mut used = 0;
        for i in memchr::memchr_iter(b'\n', window) {
            used = i + 1;
            count += 1;
            if count == lines {
                break;
            }
        }
        if count < lines {
            used = window.len();
        }
        out.extend_from_slice(&window[..used]);
        input.consume(used);
    }
    Ok(())
}
