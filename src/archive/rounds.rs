//! Blocks coded or decoded in parallel rounds: the worker pool, how many blocks make a round,
//! and [`Rounds`], the one loop body that decodes a round of a block container's blocks
//! (for [`super::expand`] and both ways of [`super::expand_salvage`]).

use std::io::Read;

use rayon::prelude::*;

use super::block::model_for;
use super::dups;
use super::limits::Meter;
use super::options::ExpandOptions;
use crate::container::{BlockHeader, EncodedBlock, FileHeader, MAX_BLOCK_TEXT, Reader};
use crate::error::Error;
use crate::model::Model;

/// Blocks read (or decoded) per round, per worker thread: each round ends at a barrier, where a
/// worker that finished its share waits for the others, so fewer, larger rounds keep the
/// threads busier (the benchmark's 10 blocks of 1,000 games fit in one round with two threads).
pub(crate) const BLOCKS_PER_THREAD: usize = 8;

/// Most bytes of text in flight per round, whatever the thread count: a round also ends once
/// its blocks hold this much text (it always takes at least one block). With the temporaries
/// of coding a block (about as large as its text), this sets the memory ceiling of [`compress`](super::compress)
/// and [`expand`](super::expand), independent of the number of threads (docs/robustness.md). Real games come
/// in blocks of a few hundred KB, so a round holds a hundred of them or more; only inputs of
/// very long lines (blocks near [`MAX_BLOCK_TEXT`]) are coded two blocks at a time.
pub const ROUND_TEXT_BYTES: usize = 2 * MAX_BLOCK_TEXT;

/// How many of the blocks whose text lengths `text_lens` lists make one round: at most
/// `max_blocks`, and no more once they hold [`ROUND_TEXT_BYTES`] of text; at least one (if
/// any).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn round_len(text_lens: impl IntoIterator<Item = u32>, max_blocks: usize) -> usize {
    round_len_within(text_lens, max_blocks, ROUND_TEXT_BYTES)
}

/// [`round_len`] with rounds of at most `max_bytes` of text instead of [`ROUND_TEXT_BYTES`]
/// (see [`DecodeLimits::memlimit`](super::DecodeLimits::memlimit)).
pub(crate) fn round_len_within(text_lens: impl IntoIterator<Item = u32>, max_blocks: usize, max_bytes: usize) -> usize {
    let mut bytes = 0usize;
    let mut n = 0;
    for len in text_lens.into_iter().take(max_blocks.max(1)) {
        if n > 0 && bytes >= max_bytes {
            break;
        }
        bytes += len as usize;
        n += 1;
    }
    n
}

/// Most worker threads of any pool: a larger request is clamped to it (zstd clamps at 200 the
/// same way). Rounds bound the memory whatever the count ([`ROUND_TEXT_BYTES`]); this bounds
/// the threads themselves, each with its stack and model state.
pub const MAX_THREADS: usize = 256;

/// A pool of `threads` worker threads (0: one per core), at most [`MAX_THREADS`].
///
/// # Errors
/// [`Error::Io`] if the threads cannot be started.
pub(crate) fn worker_pool(threads: usize) -> Result<rayon::ThreadPool, Error> {
    rayon::ThreadPoolBuilder::new().num_threads(threads.min(MAX_THREADS)).build().map_err(|e| Error::Io(std::io::Error::other(e)))
}

/// A round of blocks read in order ([`Rounds::read_round`]).
pub(crate) struct Round {
    /// The blocks read: each one's header and coded block.
    pub(crate) blocks: Vec<(BlockHeader, EncodedBlock)>,
    /// The error that stopped the reading before the round was full (a damaged block), if any.
    pub(crate) failed: Option<Error>,
}

/// A block container's blocks decoded round by round, in parallel: the archive's header and
/// model, the worker pool, a round's ceilings and, for coding 2, the lines later blocks may
/// copy ([`dups::Store`], at most [`dups::WINDOW`] bytes).
pub(crate) struct Rounds {
    header: FileHeader,
    model: &'static Model,
    pool: rayon::ThreadPool,
    /// Most blocks per round: [`BLOCKS_PER_THREAD`] per worker thread.
    pub(crate) batch: usize,
    /// Most bytes of text per round ([`ROUND_TEXT_BYTES`], or less under a memory limit).
    pub(crate) round_max: usize,
    store: Option<dups::Store>,
}

impl Rounds {
    /// The rounds of the container of header `header`, expanded with `opts`.
    ///
    /// # Errors
    /// [`Error::Unsupported`] if this build lacks the archive's model ([`model_for`]);
    /// [`Error::Io`] if the threads cannot be started.
    pub(crate) fn new(header: FileHeader, opts: &ExpandOptions) -> Result<Rounds, Error> {
        let model = model_for(&header)?;
        let pool = worker_pool(opts.threads)?;
        let batch = pool.current_num_threads() * BLOCKS_PER_THREAD;
        let round_max = opts.limits.round_bytes(ROUND_TEXT_BYTES);
        let store = dups::has_refs(header.format, header.coding).then(dups::Store::expander);
        Ok(Rounds { header, model, pool, batch, round_max, store })
    }

    /// Reads the next round of blocks in order from `reader`, each admitted by `meter` from its
    /// header (and the archive's bytes up to its end) before its streams are read: a block
    /// refused is never held.
    ///
    /// # Errors
    /// [`Error::Io`] from reading; [`Error::DecodeLimit`] from `meter`.
    pub(crate) fn read_round<R: Read>(&self, reader: &mut Reader<R>, meter: &mut Meter) -> Result<Round, Error> {
        let mut blocks = Vec::with_capacity(self.batch);
        let mut round_bytes = 0;
        while blocks.len() < self.batch && round_bytes < self.round_max {
            let n = reader.blocks_read();
            match reader.next_block_admitted(|h, end| meter.admit(n, h, end)) {
                Ok(Some(b)) => {
                    round_bytes += b.0.text_len as usize;
                    blocks.push(b)
                }
                Ok(None) => break,
                Err(Error::Io(e)) => return Err(Error::Io(e)),
                Err(e @ Error::DecodeLimit { .. }) => return Err(e),
                Err(e) => return Ok(Round { blocks, failed: Some(e) }),
            }
        }
        Ok(Round { blocks, failed: None })
    }

    /// Decodes a round of blocks in parallel, one task per block: `blocks[i]` is block number
    /// `first + i`, its header and coded block as `block` gives them (or the error that stands
    /// for it). The results come in order, to be [`resolved`](Self::resolve) in order.
    pub(crate) fn decode_round<B: Sync>(
        &self,
        first: u64,
        blocks: &[B],
        block: impl Fn(&B) -> Result<&(BlockHeader, EncodedBlock), Error> + Sync,
    ) -> Vec<Result<dups::Decoded, Error>> {
        self.pool.install(|| {
            blocks
                .par_iter()
                .with_max_len(1)
                .enumerate()
                .map(|(i, b)| block(b).and_then(|(h, b)| dups::expand_block(self.header, self.model, first + i as u64, h, b)))
                .collect()
        })
    }

    /// The text of one block decoded by [`Self::decode_round`], its copies (coding 2) resolved
    /// from the lines of the blocks before it; blocks must be resolved in archive order.
    ///
    /// # Errors
    /// The block's decoding error, or [`Error::Corrupt`] for a copy that cannot be resolved.
    pub(crate) fn resolve(&mut self, decoded: Result<dups::Decoded, Error>) -> Result<Vec<u8>, Error> {
        match (&mut self.store, decoded) {
            (_, Err(e)) => Err(e),
            (Some(store), Ok(d)) => store.resolve(d),
            (None, Ok(d)) => d.into_text(),
        }
    }

    /// Skips a block that could not be resolved, of `line_feeds` line feeds (`partial`: its
    /// last line has none), so that the line numbers of the blocks after it stay right.
    pub(crate) fn skip(&mut self, line_feeds: u64, partial: bool) {
        if let Some(store) = &mut self.store {
            store.skip(line_feeds, partial);
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_are_clamped_to_max_threads() {
        assert_eq!(worker_pool(100_000).unwrap().current_num_threads(), MAX_THREADS);
        assert_eq!(worker_pool(3).unwrap().current_num_threads(), 3);
    }

    #[test]
    fn rounds_end_at_their_block_count_or_text_budget() {
        // Small blocks: the block count rules.
        assert_eq!(round_len([1000; 50], 16), 16);
        assert_eq!(round_len([1000; 5], 16), 5);
        // Full blocks: two per round whatever the thread count.
        let full = MAX_BLOCK_TEXT as u32;
        assert_eq!(round_len([full; 40], 8), 2);
        assert_eq!(round_len([full; 40], 128), 2);
        // Always one block, even one larger than the budget.
        assert_eq!(round_len([u32::MAX; 3], 128), 1);
        assert_eq!(round_len([full; 3], 0), 1);
        assert_eq!(round_len([], 8), 0);
    }
}
