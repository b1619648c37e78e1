//! Coding the input as a block container: blocks cut by the block format, coded in parallel
//! rounds, each checked by decoding it before it is written (the round trip before success of
//! [`super::compress`]).

use std::io::{BufRead, Write};

use rayon::prelude::*;

use super::block::block_format;
use super::dups;
use super::options::{CompressOptions, Progress, Summary};
use super::rounds::{BLOCKS_PER_THREAD, ROUND_TEXT_BYTES, worker_pool};
use crate::container::{BlockHeader, BlockStats, Coding, EncodedBlock, FileHeader, InputFormat, MAX_BLOCK_TEXT, Writer};
use crate::error::Error;
use crate::model::Model;
use crate::model::transformer::TRANSFORMER_LEVEL;
use crate::pgn;

/// [`compress`](super::compress) to a block container, whatever `opts.raw_form` says.
pub(crate) fn compress_blocks<R: BufRead, W: Write>(
    mut input: R,
    output: W,
    opts: &CompressOptions,
    progress: Progress<'_>,
) -> Result<Summary, Error> {
    let block_bytes = opts.block_bytes.min(MAX_BLOCK_TEXT);
    let weights = opts.weights.filter(|_| opts.level.get() == TRANSFORMER_LEVEL);
    let model = match weights {
        Some(w) => Model::with_weights(Model::builtin(opts.level), w),
        None => Model::builtin(opts.level),
    };
    let format = match opts.format {
        Some(f) => f,
        None => pgn::detect(input.fill_buf()?),
    };
    let coder = block_format(format);
    let mut splitter = coder.splitter();
    let header = FileHeader {
        format,
        level: opts.level.get(),
        model_id: Model::builtin_id(opts.level),
        coding: Coding::newest_for(format),
        weights: weights.map(|w| w.sha256),
    };
    let mut writer = Writer::new(output, &header)?;
    let mut store = dups::has_refs(format, header.coding).then(|| dups::Store::compressor(format));
    let pool = worker_pool(opts.threads)?;
    let batch = pool.current_num_threads() * BLOCKS_PER_THREAD;
    let mut summary = Summary::default();
    loop {
        let mut texts = Vec::with_capacity(batch);
        let mut round_bytes = 0;
        while texts.len() < batch && round_bytes < ROUND_TEXT_BYTES {
            let mut text = Vec::new();
            splitter.read(&mut input, opts.block_lines, block_bytes, &mut text)?;
            if text.is_empty() {
                break;
            }
            round_bytes += text.len();
            texts.push(text);
        }
        if texts.is_empty() {
            break;
        }
        // One task per block (`with_max_len(1)`): rayon would otherwise hand a thread runs of
        // two or three blocks, and a thread that finishes early could only wait for them.
        let first = summary.blocks;
        // Duplicates are found in order, before the blocks are coded (dups.rs).
        let found: Vec<Option<(Vec<u8>, Vec<dups::Run>)>> = texts.iter().map(|t| store.as_mut().and_then(|s| s.dedup(t))).collect();
        // Progress as each block is coded (a round can be the whole input): the text bytes of
        // the blocks finished, reported under the lock so that the count only grows.
        let finished = std::sync::Mutex::new(summary.text_bytes);
        let coded: Vec<Result<(BlockHeader, EncodedBlock, BlockStats), Error>> = pool.install(|| {
            texts
                .par_iter()
                .zip(&found)
                .with_max_len(1)
                .enumerate()
                .map(|(i, (t, d))| {
                    let coded = encode_checked(header, model, first + i as u64, t, d.as_ref(), opts.verify);
                    let mut done = finished.lock().unwrap_or_else(|e| e.into_inner());
                    *done += t.len() as u64;
                    progress(*done);
                    coded
                })
                .collect()
        });
        for (text, coded) in texts.iter().zip(coded) {
            let (header, block, stats) = coded?;
            writer.write_block(&header, &block)?;
            summary.text_bytes += text.len() as u64;
            summary.blocks += 1;
            summary.stats += stats;
        }
        progress(summary.text_bytes);
    }
    let (_, size) = writer.finish()?;
    summary.archive_bytes = size;
    Ok(summary)
}

/// The block header of `text` coded with counts `stats`.
fn block_header(text: &[u8], stats: &BlockStats) -> BlockHeader {
    BlockHeader {
        lines: stats.lines as u32,
        text_len: text.len() as u32,
        text_crc: crc32fast::hash(text),
        plies: stats.plies as u32,
        raw_lines: stats.raw_lines as u32,
        games: stats.games as u32,
        partial_line: text.last() != Some(&b'\n'),
        ..BlockHeader::default()
    }
}

/// Codes `text` as block number `n` of an archive with header `file` and, if `verify`, decodes
/// it as [`expand`](super::expand) would and compares; a block that does not give back its
/// text is coded again with every line stored
/// ([`BlockFormat::encode_stored`](crate::format::BlockFormat::encode_stored)) and checked
/// again. With `dedup` (coding 2 and PGN coding 7, [`dups`]), only its other lines are coded and its
/// references written in front of the raw stream.
///
/// # Errors
/// [`Error::SelfCheck`] if the stored block does not decode to `text` either.
fn encode_checked(
    file: FileHeader,
    model: &Model,
    n: u64,
    text: &[u8],
    dedup: Option<&(Vec<u8>, Vec<dups::Run>)>,
    verify: bool,
) -> Result<(BlockHeader, EncodedBlock, BlockStats), Error> {
    let coder = block_format(file.format);
    let (inner, runs): (&[u8], &[dups::Run]) = match dedup {
        Some((inner, runs)) => (inner, runs),
        None => (text, &[]),
    };
    let code = |(mut block, mut stats): (EncodedBlock, BlockStats)| {
        if dups::has_refs(file.format, file.coding) && !(runs.is_empty() && block.raw.is_empty()) {
            let mut raw = Vec::new();
            dups::write_runs(runs, &mut raw);
            raw.extend_from_slice(&block.raw);
            block.raw = raw;
        }
        stats.lines += runs.iter().map(|r| r.len as u64).sum::<u64>();
        if file.format == InputFormat::Pgn && !runs.is_empty() {
            // A PGN block's `games` count its copies too (`dups::Store::dedup` copies games
            // only where this is their number).
            stats.games += dups::copied_games(text, inner).unwrap_or_default();
        }
        (block_header(text, &stats), block, stats)
    };
    let decodes = |header: &BlockHeader, block: &EncodedBlock| {
        dups::expand_block(file, model, n, header, block).and_then(|d| match d {
            dups::Decoded::Text(t) => Ok(t),
            dups::Decoded::Refs(p) => p.check_against(text),
        })
    };
    let (header, block, stats) = code(coder.encode(model, inner));
    if !verify || decodes(&header, &block).is_ok_and(|back| back == text) {
        return Ok((header, block, stats));
    }
    let (header, block, stats) = code(coder.encode_stored(model, inner));
    match decodes(&header, &block) {
        Ok(back) if back == text => Ok((header, block, stats)),
        Ok(_) => Err(Error::SelfCheck(format!("block {n} stored raw decodes to other text"))),
        Err(e) => Err(Error::SelfCheck(format!("block {n} stored raw does not decode: {e}"))),
    }
}
