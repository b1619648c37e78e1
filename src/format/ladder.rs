//! The encode -> verify -> fall-back ladder of a block, written once for every block format
//! (movetext lines, PGN games): canonical SAN first; games in other notations coded, then
//! checked by decoding; should the check fail, those games stored raw.

use super::notation_coder::Notations;
use crate::container::BlockStats;
use crate::error::Error;

/// Codes a block's `text` as every block format does. Most blocks are canonical SAN: they are
/// coded as such ([`Notations::Refused`]) until a game shows another notation, and then again
/// from the start with the notation models ([`Notations::Coded`]). A block with other
/// notations is decoded once more and compared: should it not give back its text, its games in
/// other notations are stored raw instead ([`Notations::Raw`]: no data loss, whatever a
/// notation bug).
///
/// `encode` codes `text` with games in other notations handled as its argument says (`None`
/// only for [`Notations::Refused`] and a game that needs the notation models); `decode`
/// decodes what it coded, appending the text to its buffer.
///
/// # Panics
/// If `encode` returns `None` for [`Notations::Coded`] or [`Notations::Raw`].
pub(crate) fn notation_ladder<T>(
    text: &[u8],
    mut encode: impl FnMut(Notations) -> Option<T>,
    decode: impl FnOnce(&T, &mut Vec<u8>) -> Result<BlockStats, Error>,
) -> T {
    if let Some(coded) = encode(Notations::Refused) {
        return coded;
    }
    let coded = encode(Notations::Coded).expect("notations allowed");
    let mut back = Vec::new();
    match decode(&coded, &mut back) {
        Ok(_) if back == text => coded,
        _ => encode(Notations::Raw).expect("raw games allowed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each rung is tried only when the one before it fails, in the order of the ladder.
    #[test]
    fn the_ladder_stops_at_the_first_rung_that_holds() {
        let run = |refuses: bool, decodes_to: &'static [u8]| {
            let mut tried = Vec::new();
            let got = notation_ladder(
                b"text",
                |mode| {
                    tried.push(mode);
                    (mode != Notations::Refused || !refuses).then_some(mode)
                },
                |_, back| {
                    back.extend_from_slice(decodes_to);
                    Ok(BlockStats::default())
                },
            );
            (got, tried)
        };
        assert_eq!(run(false, b""), (Notations::Refused, vec![Notations::Refused]));
        assert_eq!(run(true, b"text"), (Notations::Coded, vec![Notations::Refused, Notations::Coded]));
        assert_eq!(run(true, b"txet"), (Notations::Raw, vec![Notations::Refused, Notations::Coded, Notations::Raw]));
    }
}
