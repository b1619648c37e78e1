//! Ceilings for decoding archives one did not write, as `xz --memlimit` and zstd's window
//! limit: plies, text and memory, checked before the work is done.
//!
//! Every block's header records its text length and its plies, and the whole-input raw form
//! records its text length (held) or is read through a counter (streamed), so the readers
//! check a block against the [`DecodeLimits`] *before* decoding it: a refusal costs no model
//! step. A forged header (one that claims fewer plies or bytes than its block holds) does not
//! escape: the block's own work budget ([`crate::entropy::budget`]) stops its decoder at the
//! text length the header records, and the counts are checked against what was decoded
//! before the text is used ([`crate::archive::expand`]).
//!
//! Exceeding a limit is [`Error::DecodeLimit`], whose message names the limit, its value and
//! the command-line flag and Python keyword that raise it.

use crate::container::{BlockHeader, MAX_BLOCK_TEXT};
use crate::error::{Error, Limit};

/// Plies every archive may decode whatever its size under [`DecodeLimits::max_plies_per_byte`]:
/// a small archive of a few long games is not refused by a ratio meant for large ones.
pub const WORK_FLOOR_PLIES: u64 = 1 << 16;

/// The default of [`DecodeLimits::max_game_bytes`]: 16 MiB, a block's largest text
/// ([`MAX_BLOCK_TEXT`]). No game of chess comes near it (a game the 75-move rule ends has at
/// most 17,697 plies, about 130 KB of movetext; PGN with comments and clocks rarely reaches
/// 1 MB), and a game is held whole only by the readers that return or convert games one at a
/// time ([`crate::Games`], `extract --game`, the conversion to movetext, which holds some 26
/// bytes of parsed moves per byte of a game); `expand` streams any line.
pub const DEFAULT_MAX_GAME_BYTES: u64 = MAX_BLOCK_TEXT as u64;

/// Most bytes of text read past (a game not asked for) that a reader holds when no
/// [`DecodeLimits::memlimit`] is set: 256 MiB, so that a game read past is bounded even without
/// the option (the games asked for are bounded by [`DecodeLimits::max_game_bytes`]).
pub const DEFAULT_MAX_HELD_BYTES: u64 = 256 << 20;

/// The memory a reader is assumed to hold to decode a block of `text_len` bytes whose streams
/// have `stream_bytes` bytes: the streams, the text, and the decoded structures the block's
/// work budget lets grow up to the text's size again.
pub fn block_memory(text_len: u64, stream_bytes: u64) -> u64 {
    2 * text_len + stream_bytes
}

/// Ceilings on what decoding an archive may do; `None` is no ceiling. The default
/// ([`DecodeLimits::default`]) refuses no archive chesszip writes: only
/// [`DecodeLimits::max_game_bytes`] is set, for the readers that hold one game whole.
/// [`DecodeLimits::unlimited`] lifts that one too.
///
/// Decoding work is bounded by default by each block's work budget
/// ([`crate::entropy::budget`]): its plies by the information its stream can hold. That is
/// the tightest bound that holds for every archive an encoder can write, because the model
/// gives no ply less than about 2^-13 bits of information (its floor on the game-end flag): a
/// collection of one game repeated is a valid archive of some 80 plies per archive byte at
/// level 9, and more copies give more. Typical archives hold 2-3 plies per byte (2.5-3.5
/// bits a ply), so a service that decodes archives it did not write sets
/// [`DecodeLimits::max_plies_per_byte`] (say 100) or [`DecodeLimits::max_plies`].
///
/// ```
/// use chesszip::{CompressOptions, DecodeLimits, Error, ExpandOptions, compress_bytes, expand_bytes};
///
/// let games = b"e4 e5 Nf3 Nc6 Bb5 a6 1-0\n".repeat(100);
/// let archive = compress_bytes(&games, &CompressOptions { level: chesszip::Level::MIN, raw_form: false, ..CompressOptions::default() });
/// let opts = ExpandOptions { limits: DecodeLimits { max_plies: Some(500), ..DecodeLimits::default() }, ..ExpandOptions::default() };
/// assert!(matches!(expand_bytes(&archive, &opts), Err(Error::DecodeLimit { .. })));
/// assert_eq!(expand_bytes(&archive, &ExpandOptions::default())?, games);
/// # Ok::<(), chesszip::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeLimits {
    /// Most plies decoded from the archive in all (`--max-plies`, Python `max_plies`): the
    /// model's work, checked against each block's recorded plies before it is decoded.
    pub max_plies: Option<u64>,
    /// Most plies decoded per archive byte read so far (`--max-work`, Python
    /// `max_plies_per_byte`), with a floor of [`WORK_FLOOR_PLIES`] plies: the work an archive
    /// may cause in proportion to its size.
    pub max_plies_per_byte: Option<u64>,
    /// Most bytes of one game (PGN) or line (movetext) that a reader holding a game whole may
    /// hold (`--max-game-bytes`, Python `max_game_bytes`): [`crate::Games`], `extract --game`
    /// and the conversion to movetext; default [`DEFAULT_MAX_GAME_BYTES`].
    pub max_game_bytes: Option<u64>,
    /// Most bytes of text expanded in all (`--max-output`, Python `max_output`), checked
    /// against each block's (or the raw form's) recorded length before decoding it.
    pub max_output: Option<u64>,
    /// Most bytes a reader holds at once to decode (`--memlimit`, Python `memlimit`): the
    /// blocks of a parallel round ([`block_memory`] each), a raw form's window, a game held
    /// whole, and in random access the decoded blocks kept to copy duplicates from (a share of
    /// it: `dups::cache_bytes`). Rounds shrink to fit; a single block or window that does not
    /// fit is refused.
    /// The model itself (its network and books, 10-30 MB) is not counted.
    pub memlimit: Option<u64>,
}

impl Default for DecodeLimits {
    fn default() -> Self {
        DecodeLimits { max_game_bytes: Some(DEFAULT_MAX_GAME_BYTES), ..DecodeLimits::unlimited() }
    }
}

impl DecodeLimits {
    /// No ceiling at all (`--no-limits`); the blocks' own work budgets still hold.
    pub fn unlimited() -> Self {
        DecodeLimits { max_plies: None, max_plies_per_byte: None, max_game_bytes: None, max_output: None, memlimit: None }
    }

    /// The most bytes of a game held whole: the smaller of [`DecodeLimits::max_game_bytes`]
    /// and [`DecodeLimits::memlimit`], as the limit it is.
    pub(crate) fn game_ceiling(&self) -> Option<(Limit, u64)> {
        let game = self.max_game_bytes.map(|v| (Limit::GameBytes, v));
        let mem = self.memlimit.map(|v| (Limit::Memory, v));
        match (game, mem) {
            (Some(g), Some(m)) => Some(if m.1 < g.1 { m } else { g }),
            (g, m) => g.or(m),
        }
    }

    /// Checks that a game (or line) of `len` bytes may be held whole.
    ///
    /// # Errors
    /// [`Error::DecodeLimit`] naming the limit it exceeds.
    pub fn check_game(&self, len: u64) -> Result<(), Error> {
        match self.game_ceiling() {
            Some((limit, value)) if len > value => {
                Err(Error::DecodeLimit { limit, value, detail: format!("a game (or line) holds more than {value} bytes") })
            }
            _ => Ok(()),
        }
    }

    /// Checks that `len` bytes of text read past (a game not asked for, or an open line that
    /// may start the next game) may be held: only [`DecodeLimits::memlimit`] bounds them, as
    /// [`DecodeLimits::max_game_bytes`] bounds the games a reader returns or writes; without a
    /// memlimit, [`DEFAULT_MAX_HELD_BYTES`].
    ///
    /// # Errors
    /// [`Error::DecodeLimit`] naming [`DecodeLimits::memlimit`].
    pub(crate) fn check_held(&self, len: u64) -> Result<(), Error> {
        match self.memlimit.unwrap_or(DEFAULT_MAX_HELD_BYTES) {
            value if len > value => {
                Err(Error::DecodeLimit { limit: Limit::Memory, value, detail: format!("a game (or line) holds more than {value} bytes") })
            }
            _ => Ok(()),
        }
    }

    /// The text bytes of decoded blocks a parallel round may hold: [`DecodeLimits::memlimit`]
    /// shared out (see [`block_memory`]), or `default` without it.
    pub(crate) fn round_bytes(&self, default: usize) -> usize {
        match self.memlimit {
            Some(m) => default.min((m / 2).min(usize::MAX as u64) as usize).max(1),
            None => default,
        }
    }

    /// Checks that a raw form whose decoder holds `window` bytes and whose text has
    /// `text_len` bytes (when recorded) may be decoded.
    ///
    /// # Errors
    /// [`Error::DecodeLimit`] naming the limit it exceeds.
    pub(crate) fn check_raw(&self, window: u64, text_len: Option<u64>) -> Result<(), Error> {
        crate::container::raw::check_window_of(window, self.memlimit)?;
        if let (Some(max), Some(len)) = (self.max_output, text_len)
            && len > max
        {
            return Err(Error::DecodeLimit {
                limit: Limit::Output,
                value: max,
                detail: format!("the archive expands to at least {len} bytes"),
            });
        }
        Ok(())
    }
}

/// What the readers have admitted so far under their [`DecodeLimits`]: the totals of the
/// blocks checked before decoding. One meter runs over every member of a concatenated
/// archive that [`crate::archive::expand`] reads, so that the ceilings hold for the whole
/// file, not for each member.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Meter {
    pub limits: DecodeLimits,
    plies: u64,
    text: u64,
    /// Archive bytes of the members before the current one.
    base: u64,
}

impl Meter {
    pub fn new(limits: DecodeLimits) -> Self {
        Meter { limits, plies: 0, text: 0, base: 0 }
    }

    /// Moves on to the next member, the one before having taken `archive_bytes` bytes.
    pub(crate) fn next_member(&mut self, archive_bytes: u64) {
        self.base += archive_bytes;
    }

    /// [`DecodeLimits::check_raw`] of a raw form whose text so far (or recorded length) is
    /// `text_len`, counted after the text of the members before it.
    pub fn check_raw(&self, window: u64, text_len: Option<u64>) -> Result<(), Error> {
        self.limits.check_raw(window, text_len.map(|t| t.saturating_add(self.text)))
    }

    /// Counts the `text_len` bytes a raw member expanded to.
    pub(crate) fn add_raw(&mut self, text_len: u64) {
        self.text = self.text.saturating_add(text_len);
    }

    /// Admits block `n` of header `h`, the archive having `archive_bytes` bytes up to its end,
    /// before it is decoded.
    ///
    /// # Errors
    /// [`Error::DecodeLimit`] naming the first limit the block would exceed.
    pub(crate) fn admit(&mut self, n: u64, h: &BlockHeader, archive_bytes: u64) -> Result<(), Error> {
        let archive_bytes = archive_bytes.saturating_add(self.base);
        let l = &self.limits;
        let plies = self.plies + h.plies as u64;
        let text = self.text + h.text_len as u64;
        let fail = |limit, value, detail: String| Err(Error::DecodeLimit { limit, value, detail: format!("block {n}: {detail}") });
        if let Some(max) = l.max_plies
            && plies > max
        {
            return fail(Limit::Plies, max, format!("the archive holds more than {max} plies (at least {plies})"));
        }
        if let Some(ratio) = l.max_plies_per_byte {
            let allowed = ratio.saturating_mul(archive_bytes).max(WORK_FLOOR_PLIES);
            if plies > allowed {
                return fail(
                    Limit::Work,
                    ratio,
                    format!("{plies} plies in the first {archive_bytes} bytes of the archive, more than {ratio} a byte"),
                );
            }
        }
        if let Some(max) = l.max_output
            && text > max
        {
            return fail(Limit::Output, max, format!("the archive expands to more than {max} bytes (at least {text})"));
        }
        if let Some(m) = l.memlimit {
            let need = block_memory(h.text_len as u64, (h.range_len as u64).saturating_add(h.raw_len as u64));
            if need > m {
                return fail(Limit::Memory, m, format!("decoding the block takes about {need} bytes"));
            }
        }
        self.plies = plies;
        self.text = text;
        Ok(())
    }
}
