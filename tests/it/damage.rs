//! Damaged and foreign archives: every change is reported as an error naming what is wrong,
//! never a panic, a hang or wrong output.

use crate::common;

use std::io::Cursor;

use chesszip::container::{BlockHeader, Coding, FileHeader, IndexedReader};
use chesszip::model::Model;
use chesszip::{CompressOptions, Error, expand_bytes, extract_lines};
use common::{expand_opts, fast, first_games, round_trip_with};

/// A small archive of three blocks (one with a raw line), and its text.
fn small_archive() -> (Vec<u8>, Vec<u8>) {
    let mut text = first_games(4);
    text.extend_from_slice(b"[Event \"raw line\"]\n");
    text.extend_from_slice(&common::game_line(4));
    let archive = round_trip_with(&text, &CompressOptions { block_lines: 2, ..fast() });
    (archive, text)
}

/// Checks that every way of reading `damaged` fails, with a message; `what` names the damage.
#[track_caller]
fn assert_rejected(damaged: &[u8], what: &str) {
    match expand_bytes(damaged, &expand_opts()) {
        Err(Error::Corrupt(m) | Error::Unsupported(m) | Error::LimitExceeded(m)) => assert!(!m.is_empty()),
        Err(e) => panic!("{what}: unexpected error kind {e}"),
        Ok(text) => panic!("{what}: damaged archive expanded to {} bytes", text.len()),
    }
    // Random access reads the same bytes through the index: it must fail too.
    let mut out = Vec::new();
    assert!(extract_lines(Cursor::new(damaged), 1..=u64::MAX, &mut out, 1).is_err(), "{what}: extract succeeded");
}

#[test]
fn every_flipped_byte_is_an_error() {
    let (archive, _) = small_archive();
    for i in 0..archive.len() {
        for mask in [0x01, 0x80, 0xFF] {
            let mut bad = archive.clone();
            bad[i] ^= mask;
            assert_rejected(&bad, &format!("byte {i} ^ {mask:#04x}"));
        }
    }
}

#[test]
fn every_flipped_bit_of_the_first_block_is_an_error() {
    let (archive, _) = small_archive();
    let end = (FileHeader::LEN + BlockHeader::LEN + 64).min(archive.len());
    for i in 0..end {
        for bit in 0..8 {
            let mut bad = archive.clone();
            bad[i] ^= 1 << bit;
            assert_rejected(&bad, &format!("byte {i} bit {bit}"));
        }
    }
}

#[test]
fn truncation_at_every_length_is_an_error() {
    let (archive, _) = small_archive();
    for len in 0..archive.len() {
        assert_rejected(&archive[..len], &format!("truncated to {len} bytes"));
    }
}

#[test]
fn trailing_data_is_an_error() {
    let (archive, _) = small_archive();
    // A whole archive after it is a member of a concatenation (tests/it/concat.rs).
    // Zero bytes alone are padding, ignored (tests/it/concat.rs); zeros then another byte are not.
    for extra in [&b"\0\x01"[..], b"garbage", &archive[..archive.len() - 1]] {
        assert_rejected(&[&archive[..], extra].concat(), "trailing data");
    }
}

#[test]
fn foreign_files_are_not_archives() {
    for input in [&b""[..], b"\x89CHZ", b"e4 e5 1-0\n", &[0u8; 100], &first_games(3)] {
        match expand_bytes(input, &expand_opts()) {
            Err(Error::Corrupt(m)) => assert!(m.contains("not a chesszip archive"), "{m}"),
            other => panic!("{other:?}"),
        }
    }
}

/// A change to the first 20 bytes of a file header.
type HeaderEdit = Box<dyn Fn(&mut [u8])>;

/// A change to a block header.
type BlockEdit = Box<dyn Fn(&mut BlockHeader)>;

/// `archive` with its file header replaced by `header` bytes 0..20, checksum recomputed.
fn with_header(archive: &[u8], edit: impl Fn(&mut [u8])) -> Vec<u8> {
    let mut bad = archive.to_vec();
    edit(&mut bad[..20]);
    let crc = crc32fast::hash(&bad[..20]);
    bad[20..24].copy_from_slice(&crc.to_le_bytes());
    bad
}

#[test]
fn other_versions_and_models_are_unsupported() {
    let (archive, _) = small_archive();
    let cases: [(&str, HeaderEdit); 6] = [
        ("version 2", Box::new(|h| h[8] = 2)),
        ("version 0", Box::new(|h| h[8] = 0)),
        ("input format 9", Box::new(|h| h[9] = 9)),
        ("unknown block coding", Box::new(|h| h[11] = Coding::NEWEST as u8 + 1)),
        ("a PGN-only coding on movetext", Box::new(|h| h[11] = Coding::PgnFacts as u8)),
        ("unknown model", Box::new(|h| h[12] ^= 1)),
    ];
    for (what, edit) in cases {
        let bad = with_header(&archive, edit);
        match expand_bytes(&bad, &expand_opts()) {
            Err(Error::Unsupported(m)) => assert!(!m.is_empty()),
            other => panic!("{what}: {other:?}"),
        }
        assert!(chesszip::info(Cursor::new(&bad)).is_err() || what == "unknown model", "{what}");
    }
    // The header of another level's model: the model exists, but not for that level.
    let level2 = Model::builtin(chesszip::Level::new(2).unwrap()).id().to_le_bytes();
    let bad = with_header(&archive, |h| h[12..20].copy_from_slice(&level2));
    assert!(matches!(expand_bytes(&bad, &expand_opts()), Err(Error::Unsupported(_))));
    // Info still reads an archive of a model this build lacks, and says so.
    let bad = with_header(&archive, |h| h[12] ^= 1);
    assert!(!chesszip::info(Cursor::new(&bad)).unwrap().model_available);
}

/// Re-signs block header `n` (at `offset`) after `edit`, so that only deeper checks can
/// catch the lie.
fn forge_block_header(archive: &mut [u8], offset: usize, edit: impl Fn(&mut BlockHeader)) {
    let bytes: &[u8; BlockHeader::LEN] = archive[offset..offset + BlockHeader::LEN].try_into().unwrap();
    let mut h = BlockHeader::parse(bytes, 0).unwrap();
    edit(&mut h);
    archive[offset..offset + BlockHeader::LEN].copy_from_slice(&h.to_bytes());
}

#[test]
fn forged_headers_never_allocate_or_hang() {
    let (archive, _) = small_archive();
    let first = FileHeader::LEN;
    let forgeries: [(&str, BlockEdit); 7] = [
        ("huge range length", Box::new(|h| h.range_len = u32::MAX)),
        ("huge raw length", Box::new(|h| h.raw_len = 1 << 30)),
        ("huge text length", Box::new(|h| h.text_len = u32::MAX)),
        ("largest text length", Box::new(|h| h.text_len = 16 << 20)),
        ("many lines", Box::new(|h| h.lines = h.text_len)),
        ("wrong text checksum", Box::new(|h| h.text_crc ^= 1)),
        ("no partial line", Box::new(|h| h.partial_line = !h.partial_line)),
    ];
    for (what, edit) in forgeries {
        let mut bad = archive.clone();
        forge_block_header(&mut bad, first, edit);
        assert_rejected(&bad, what);
    }
}

#[test]
fn forged_index_is_an_error() {
    let (archive, _) = small_archive();
    // A footer pointing anywhere: before, into and after the index.
    let len = archive.len();
    for offset in [0u64, 1, 24, 25, (len - 17) as u64, (len - 16) as u64, len as u64, u64::MAX] {
        let mut bad = archive.clone();
        bad[len - 16..len - 8].copy_from_slice(&offset.to_le_bytes());
        assert_rejected(&bad, &format!("footer offset {offset}"));
        assert!(IndexedReader::open(Cursor::new(&bad)).is_err(), "footer offset {offset}");
    }
}

#[test]
fn garbage_streams_that_pass_their_checksum_are_still_caught() {
    // A forger who recomputes every checksum: the decoder must stop on its own, within the
    // header's text length, and the text checksum must catch the rest.
    let (archive, _) = small_archive();
    let first = FileHeader::LEN;
    let h = BlockHeader::parse(archive[first..first + BlockHeader::LEN].try_into().unwrap(), 0).unwrap();
    let streams = first + BlockHeader::LEN;
    for seed in 0..40u32 {
        let mut bad = archive.clone();
        for (i, b) in bad[streams..streams + h.range_len as usize].iter_mut().enumerate() {
            *b = (seed.wrapping_mul(0x9E37_79B9) ^ (i as u32).wrapping_mul(0x85EB_CA6B)).to_le_bytes()[i % 4];
        }
        let crc = BlockHeader::streams_crc(
            &bad[streams..streams + h.range_len as usize],
            &bad[streams + h.range_len as usize..][..h.raw_len as usize],
        );
        forge_block_header(&mut bad, first, |h| h.stream_crc = crc);
        match expand_bytes(&bad, &expand_opts()) {
            Err(Error::Corrupt(m) | Error::LimitExceeded(m)) => assert!(m.starts_with("block 0"), "{m}"),
            other => panic!("seed {seed}: {other:?}"),
        }
    }
}

#[test]
fn hostile_blocks_claiming_huge_texts_stop_quickly() {
    // A forger claims 16 MiB of text for a few bytes of stream that pass every checksum: the
    // decoder must give up after about as many symbols as those bytes can carry (it stops at
    // invalid data, at the information the stream holds, or at the symbol budget of the
    // claimed length), not after millions of plies.
    let (archive, _) = small_archive();
    let first = FileHeader::LEN;
    let h = BlockHeader::parse(archive[first..first + BlockHeader::LEN].try_into().unwrap(), 0).unwrap();
    let streams = first + BlockHeader::LEN;
    let started = std::time::Instant::now();
    for seed in 0..200u32 {
        let mut bad = archive.clone();
        let range = &mut bad[streams..streams + h.range_len as usize];
        for (i, b) in range.iter_mut().enumerate() {
            // Random words, then zeros (what the range decoder reads past its data).
            let random = (seed.wrapping_mul(0x9E37_79B9) ^ (i as u32).wrapping_mul(0x85EB_CA6B)).to_le_bytes()[i % 4];
            *b = if i < 4 * (1 + seed as usize % 3) { random } else { 0 };
        }
        let crc = BlockHeader::streams_crc(
            &bad[streams..streams + h.range_len as usize],
            &bad[streams + h.range_len as usize..][..h.raw_len as usize],
        );
        forge_block_header(&mut bad, first, |h| {
            h.stream_crc = crc;
            h.text_len = 16 << 20;
            h.plies = h.text_len / 3;
            h.lines = 1 + seed % 3;
        });
        assert!(expand_bytes(&bad, &expand_opts()).is_err(), "seed {seed}");
    }
    let elapsed = started.elapsed();
    assert!(elapsed.as_secs() < 30, "200 hostile blocks took {elapsed:?}");
}
