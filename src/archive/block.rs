//! One coded block of a block container, on its own: the block format that codes it (picked
//! once per archive), the model it was made with, and decoding it with every check of its
//! header (length, checksum and counts).

use crate::container::{BlockHeader, BlockStats, EncodedBlock, FileHeader, InputFormat};
use crate::error::Error;
use crate::format::BlockFormat;
use crate::model::Level;
use crate::model::Model;
use crate::model::transformer::{TRANSFORMER_LEVEL, Weights};
use crate::movetext::Movetext;
use crate::pgn;
use crate::pgn::Pgn;

/// The block format of `format`: picked once per archive.
pub(crate) fn block_format(format: InputFormat) -> &'static dyn BlockFormat {
    match format {
        InputFormat::Movetext => &Movetext,
        InputFormat::Pgn => &Pgn,
    }
}

/// The model an archive was made with: the embedded release of its level with its id.
///
/// # Errors
/// [`Error::Unsupported`] if this build does not embed that model.
pub fn model_for(header: &FileHeader) -> Result<&'static Model, Error> {
    let level = header.level;
    // A level byte out of range names no release either.
    if let Some(model) = Level::new(level).ok().and_then(|l| Model::released(l, header.model_id)) {
        if level == TRANSFORMER_LEVEL {
            return Ok(Model::with_weights(model, Weights::find(&header.weights.unwrap_or_default())?));
        }
        return Ok(model);
    }
    Err(Error::Unsupported(format!(
        "archive was made with model {:016x} (level {level}), which this build of chesszip does not include",
        header.model_id
    )))
}

/// Decodes block number `n` (for messages) of a `format` archive and checks it against its
/// header: the text's length and checksum, and every count the header records (lines, whether
/// the last is partial, games, plies, raw lines) against what decoding found, so that a forged
/// count (re-signed header and index) cannot mislead the readers that trust the index.
///
/// # Errors
/// [`Error::Corrupt`] naming the block if it does not decode to the text its header describes;
/// [`Error::LimitExceeded`] naming the block if decoding would exceed its work budget.
pub(crate) fn expand_one(header: FileHeader, model: &Model, n: u64, h: &BlockHeader, block: &EncodedBlock) -> Result<Vec<u8>, Error> {
    let mut text = Vec::new();
    let found = block_format(header.format).decode(model, header.coding, block, h.lines as u64, h.text_len as usize, &mut text).map_err(
        |e| match e {
            Error::Corrupt(m) => Error::Corrupt(format!("block {n}: {m}")),
            Error::LimitExceeded(m) => Error::LimitExceeded(format!("block {n}: {m}")),
            other => other,
        },
    )?;
    if text.len() != h.text_len as usize || crc32fast::hash(&text) != h.text_crc {
        return Err(Error::Corrupt(format!("block {n}: checksum mismatch, the block is damaged")));
    }
    check_counts(n, h, &found, &text)?;
    Ok(text)
}

/// Checks the counts of block header `h` (block `n`) against its decoded `text` and the
/// counts its decoder `found` (whose line count is that of the text: the movetext decoder
/// decodes exactly the header's lines, the PGN decoder counts the text's).
///
/// # Errors
/// [`Error::Corrupt`] naming the block and the first count that differs.
pub(crate) fn check_counts(n: u64, h: &BlockHeader, found: &BlockStats, text: &[u8]) -> Result<(), Error> {
    let partial = text.last() != Some(&b'\n');
    let counts = [
        ("lines", h.lines as u64, pgn::codec::count_lines(text)),
        ("games", h.games as u64, found.games),
        ("plies", h.plies as u64, found.plies),
        ("raw lines", h.raw_lines as u64, found.raw_lines),
        ("last lines without line feed", h.partial_line as u64, partial as u64),
    ];
    for (what, recorded, decoded) in counts {
        if recorded != decoded {
            return Err(Error::Corrupt(format!("block {n}: header records {recorded} {what}, the block holds {decoded}")));
        }
    }
    Ok(())
}
