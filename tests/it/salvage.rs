//! `expand --salvage` and [`chesszip::expand_salvage`]: every block of a damaged archive that
//! checks out is written, in order; each damaged one is left out and reported.

use crate::common;

use std::io::Cursor;

use chesszip::container::IndexedReader;
use chesszip::{CompressOptions, ExpandOptions, compress_bytes, expand_salvage};
use common::{chesszip, expand_opts, fast, first_games, stderr_of};

/// The first 1000 benchmark games at level 1 in 10 blocks of 100 lines, always the block
/// container, and their text.
fn ten_blocks() -> (Vec<u8>, Vec<u8>) {
    let text = first_games(1000);
    let archive = compress_bytes(&text, &CompressOptions { block_lines: 100, ..fast() });
    (archive, text)
}

/// The archive bytes of block `n` and the offset of its range-coded data (after its header).
fn block_bytes(archive: &[u8], n: usize) -> (std::ops::Range<u64>, u64) {
    let reader = IndexedReader::open(Cursor::new(archive)).expect("a sound archive");
    assert_eq!(reader.entries().len(), 10);
    let range = reader.block_range(n);
    (range.clone(), range.start + chesszip::container::BlockHeader::LEN as u64)
}

/// `archive` with a byte flipped in the middle of block `n`'s range-coded data.
fn damage_block(archive: &[u8], n: usize) -> Vec<u8> {
    let (_, data) = block_bytes(archive, n);
    let reader = IndexedReader::open(Cursor::new(archive)).expect("a sound archive");
    let mut r = reader;
    let (h, _) = r.read_block(n).expect("block reads");
    let at = (data + h.range_len as u64 / 2) as usize;
    let mut bad = archive.to_vec();
    bad[at] ^= 0x55;
    bad
}

/// `text` without its lines `from..to` (0-based, `to` excluded).
fn without_lines(text: &[u8], from: usize, to: usize) -> Vec<u8> {
    text.split_inclusive(|&b| b == b'\n').enumerate().filter(|(i, _)| !(from..to).contains(i)).flat_map(|(_, l)| l).copied().collect()
}

#[test]
fn library_salvage_leaves_out_only_the_damaged_block() {
    let (archive, text) = ten_blocks();
    let bad = damage_block(&archive, 5);
    assert!(chesszip::expand_bytes(&bad, &expand_opts()).is_err(), "plain expand rejects the damage");
    let mut out = Vec::new();
    let salvage = expand_salvage(Cursor::new(&bad), &mut out, &expand_opts(), &|_| {}).expect("salvage runs");
    assert_eq!(out, without_lines(&text, 500, 600));
    assert_eq!(salvage.damaged.len(), 1, "{:?}", salvage.damaged);
    let d = &salvage.damaged[0];
    let (range, _) = block_bytes(&archive, 5);
    assert_eq!((d.block, d.lines, d.games, d.first_line), (5, Some(100), Some(100), Some(500)));
    assert_eq!(d.archive_range, range);
    assert!(!d.to_end);
    assert!(d.error.contains("block 5"), "{}", d.error);
    assert_eq!(salvage.summary.blocks, 9);
    assert_eq!(salvage.summary.stats.lines, 900);
    assert_eq!(salvage.summary.text_bytes, out.len() as u64);
}

#[test]
fn library_salvage_of_a_sound_archive_is_expand() {
    let (archive, text) = ten_blocks();
    let mut out = Vec::new();
    let salvage = expand_salvage(Cursor::new(&archive), &mut out, &ExpandOptions { threads: 1, ..Default::default() }, &|_| {})
        .expect("salvage runs");
    assert!(salvage.is_complete());
    assert_eq!(out, text);
    let mut plain = Vec::new();
    let summary = chesszip::expand(&archive[..], &mut plain, &expand_opts(), &|_| {}).unwrap();
    assert_eq!(salvage.summary, summary);
}

#[test]
fn library_salvage_skips_a_block_with_a_damaged_header() {
    let (archive, text) = ten_blocks();
    let (range, _) = block_bytes(&archive, 2);
    let mut bad = archive.clone();
    bad[range.start as usize + 9] ^= 0x01; // the block header's line count
    let mut out = Vec::new();
    let salvage = expand_salvage(Cursor::new(&bad), &mut out, &expand_opts(), &|_| {}).expect("salvage runs");
    assert_eq!(out, without_lines(&text, 200, 300));
    assert_eq!(salvage.damaged.iter().map(|d| d.block).collect::<Vec<_>>(), [2]);
}

#[test]
fn library_salvage_without_an_index_stops_at_the_first_damage() {
    let (archive, text) = ten_blocks();
    let mut bad = damage_block(&archive, 5);
    let last = bad.len() - 12; // the footer's index offset
    bad[last] ^= 0x01;
    let mut out = Vec::new();
    let salvage = expand_salvage(Cursor::new(&bad), &mut out, &expand_opts(), &|_| {}).expect("salvage runs");
    assert_eq!(out, without_lines(&text, 500, 1000));
    assert_eq!(salvage.damaged.len(), 1);
    let d = &salvage.damaged[0];
    let (range, _) = block_bytes(&archive, 5);
    assert_eq!((d.block, d.first_line, d.to_end), (5, Some(500), true));
    assert_eq!(d.archive_range, range.start..bad.len() as u64);
}

#[test]
fn library_salvage_of_a_damaged_raw_form_reports_one_part() {
    // Prose, not games: it takes the raw form.
    let text = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/robustness.md")).unwrap();
    let archive = compress_bytes(&text, &CompressOptions { raw_form: true, ..fast() });
    assert!(chesszip::container::raw::is_raw(&archive), "prose takes the raw form");
    let mut bad = archive.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 0x55;
    let mut out = Vec::new();
    let salvage = expand_salvage(Cursor::new(&bad), &mut out, &expand_opts(), &|_| {}).expect("salvage runs");
    assert_eq!(salvage.damaged.len(), 1);
    assert_eq!(salvage.damaged[0].archive_range, 0..bad.len() as u64);
    assert!(salvage.damaged[0].to_end);
}

#[test]
fn cli_salvage_writes_all_but_the_damaged_block_and_warns() {
    let (archive, text) = ten_blocks();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.txt.chz");
    std::fs::write(&path, damage_block(&archive, 5)).unwrap();
    let out_path = dir.path().join("games.txt");
    let out = chesszip().arg("-d").arg("--salvage").arg(&path).output().unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let (range, _) = block_bytes(&archive, 5);
    assert!(err.contains("block 5 damaged"), "{err}");
    assert!(err.contains("lines 501..600 (100 lines), 100 games"), "{err}");
    assert!(err.contains(&format!("archive bytes {}..{}", range.start, range.end)), "{err}");
    assert!(err.contains("1 damaged part was left out"), "{err}");
    assert_eq!(std::fs::read(&out_path).unwrap(), without_lines(&text, 500, 600));

    // Without --salvage: an error, and no output left.
    std::fs::remove_file(&out_path).unwrap();
    let out = chesszip().arg("-d").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(!out_path.exists());

    // The expand command, from standard input (read into memory).
    let out = chesszip().args(["expand", "--salvage", "-c"]).pipe_stdin(&path).unwrap().output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert_eq!(out.stdout, without_lines(&text, 500, 600));
}

#[test]
fn cli_salvage_of_a_sound_archive_succeeds_quietly() {
    let (archive, text) = ten_blocks();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.txt.chz");
    std::fs::write(&path, &archive).unwrap();
    let out = chesszip().arg("-d").arg("--salvage").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert_eq!(stderr_of(&out), "");
    assert_eq!(std::fs::read(dir.path().join("games.txt")).unwrap(), text);
}

#[test]
fn cli_salvage_refuses_test_and_format() {
    for args in [&["-d", "--salvage", "-t"][..], &["expand", "--salvage", "--format", "movetext"], &["--salvage"]] {
        let out = chesszip().args(args).arg("x.chz").output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr_of(&out));
    }
}
