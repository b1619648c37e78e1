//! Reading an archive without expanding all of it: its statistics from the index alone
//! ([`info`]), and chosen lines of the input by decoding only the blocks that hold them
//! ([`extract_lines`]).

use std::io::{Read, Seek, Write};
use std::ops::RangeInclusive;

use rayon::prelude::*;

use crate::Error;
use crate::archive::{expand_one, model_for};
use crate::container::{FileHeader, IndexedReader};
use crate::model::Model;

/// What an archive holds, from its header and index.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArchiveInfo {
    /// The file header (format, level, model id).
    pub header: FileHeader,
    /// Whether this build embeds the model the archive needs to be expanded.
    pub model_available: bool,
    /// Blocks in the archive.
    pub blocks: u64,
    /// Lines of the input (a last line without line feed counts).
    pub lines: u64,
    /// Lines coded as games.
    pub games: u64,
    /// Lines stored raw (not games).
    pub raw_lines: u64,
    /// Plies of the games.
    pub plies: u64,
    /// Bytes of the input.
    pub text_bytes: u64,
    /// Bytes of the archive.
    pub archive_bytes: u64,
}

impl ArchiveInfo {
    /// Archive bits per ply, all overhead included (0 without plies).
    pub fn bits_per_ply(&self) -> f64 {
        if self.plies == 0 { 0.0 } else { 8.0 * self.archive_bytes as f64 / self.plies as f64 }
    }
}

/// Lines of the input in an archive with this index: each line feed ends one, and a last
/// piece without line feed is one more.
fn input_lines(reader: &IndexedReader<impl Read + Seek>) -> u64 {
    let entries = reader.entries();
    let feeds: u64 = entries.iter().map(|e| e.line_feeds()).sum();
    feeds + entries.last().is_some_and(|e| e.partial_line) as u64
}

/// Reads an archive's statistics from its header and index, checking every block header
/// against its index entry but without decoding any block (so the blocks' contents, and the
/// counts that only decoding can confirm, are not checked: use [`crate::expand`] with a sink
/// for that).
///
/// # Errors
/// As [`IndexedReader::open`].
pub fn info<R: Read + Seek>(input: R) -> Result<ArchiveInfo, Error> {
    let reader = IndexedReader::open(input)?;
    let entries = reader.entries();
    let sum = |f: fn(&crate::container::IndexEntry) -> u64| entries.iter().map(f).sum::<u64>();
    let lines = input_lines(&reader);
    let raw_pieces = sum(|e| e.raw_lines as u64);
    Ok(ArchiveInfo {
        header: *reader.header(),
        model_available: model_for(reader.header()).is_ok(),
        blocks: entries.len() as u64,
        lines,
        games: sum(|e| e.games as u64),
        raw_lines: raw_pieces,
        plies: sum(|e| e.plies as u64),
        text_bytes: sum(|e| e.text_len as u64),
        archive_bytes: reader.file_len(),
    })
}

/// Writes lines `range` (1-based, inclusive, as numbered in the input) of the archive to
/// `output`, each with its line end, decoding only the blocks that hold them. Lines past the
/// end of the input are not written: the number of lines written is returned.
///
/// # Errors
/// [`Error::Corrupt`] or [`Error::Unsupported`] as for [`crate::expand`], for the archive's
/// header and index and for the blocks decoded; [`Error::Io`] from reading or writing.
pub fn extract_lines<R: Read + Seek, W: Write>(input: R, range: RangeInclusive<u64>, mut output: W, threads: usize) -> Result<u64, Error> {
    let mut reader = IndexedReader::open(input)?;
    let model: &Model = model_for(reader.header())?;
    let format = reader.header().format;
    let (first, last) = (*range.start(), *range.end());
    if first == 0 || last < first {
        return Ok(0);
    }
    // Block k starts inside line `starts[k]`; it holds lines starts[k] ..= starts[k] + lines - 1.
    let mut starts = Vec::with_capacity(reader.entries().len());
    let mut line = 1u64;
    for e in reader.entries() {
        starts.push(line);
        line += e.line_feeds();
    }
    let entries = reader.entries().to_vec();
    let wanted: Vec<usize> = (0..entries.len()).filter(|&k| starts[k] <= last && starts[k] + entries[k].lines as u64 > first).collect();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(|e| Error::Io(std::io::Error::other(e)))?;
    let batch = pool.current_num_threads() * 2;
    let mut written = 0;
    for chunk in wanted.chunks(batch) {
        let mut blocks = Vec::with_capacity(chunk.len());
        for &k in chunk {
            blocks.push(reader.read_block(k)?);
        }
        let texts: Vec<Result<Vec<u8>, Error>> =
            pool.install(|| chunk.par_iter().zip(&blocks).map(|(&k, (h, b))| expand_one(format, model, k as u64, h, b)).collect());
        for (&k, text) in chunk.iter().zip(texts) {
            let text = text?;
            let mut line = starts[k];
            for piece in text.split_inclusive(|&b| b == b'\n') {
                if (first..=last).contains(&line) {
                    output.write_all(piece)?;
                }
                if piece.ends_with(b"\n") {
                    if (first..=last).contains(&line) {
                        written += 1;
                    }
                    line += 1;
                }
            }
            // A last line without line feed at the end of the input.
            if k + 1 == entries.len() && entries[k].partial_line && (first..=last).contains(&line) {
                written += 1;
            }
        }
    }
    output.flush()?;
    Ok(written)
}
