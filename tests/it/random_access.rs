//! `info` and `extract_lines`: statistics from the index, and any range of lines equal to the
//! same lines of the input, across block boundaries and lines cut across blocks.

use crate::common;

use std::io::Cursor;

use chesszip::{CompressOptions, extract_lines};
use common::{fast, first_games, info_of, round_trip_with};

/// Lines `first..=last` (1-based) of `text`, with their line ends.
fn lines_of(text: &[u8], first: u64, last: u64) -> Vec<u8> {
    text.split_inclusive(|&b| b == b'\n')
        .enumerate()
        .filter(|(i, _)| (first..=last).contains(&(*i as u64 + 1)))
        .flat_map(|(_, l)| l.iter().copied())
        .collect()
}

fn extract(archive: &[u8], first: u64, last: u64) -> (Vec<u8>, u64) {
    let mut out = Vec::new();
    let n = extract_lines(Cursor::new(archive), first..=last, &mut out, 2).expect("extract");
    (out, n)
}

#[test]
fn info_counts_games_raw_lines_plies_and_blocks() {
    let mut text = first_games(30);
    text.extend_from_slice(b"[Event \"x\"]\n\nnot a game\r\ne4 e5 1-0");
    let archive = round_trip_with(&text, &CompressOptions { block_lines: 8, ..fast() });
    let info = info_of(&archive);
    assert_eq!(info.lines, 34);
    assert_eq!(info.raw_lines + info.games, 34);
    assert!(info.raw_lines >= 3);
    assert_eq!(info.blocks, 5);
    assert_eq!(info.text_bytes, text.len() as u64);
    assert_eq!(info.archive_bytes, archive.len() as u64);
    assert_eq!(info.header.level, 1);
    assert!(info.model_available);
    let expanded = chesszip::expand_bytes(&archive, &common::expand_opts()).unwrap();
    assert_eq!(expanded, text);
}

#[test]
fn every_range_of_a_small_archive() {
    let text = [first_games(9), b"last line without line feed".to_vec()].concat();
    let archive = round_trip_with(&text, &CompressOptions { block_lines: 3, ..fast() });
    for first in 1..=10 {
        for last in first..=12 {
            let (out, n) = extract(&archive, first, last);
            assert_eq!(out, lines_of(&text, first, last), "lines {first}..={last}");
            assert_eq!(n, last.min(10) - first + 1, "count of lines {first}..={last}");
        }
    }
    assert_eq!(extract(&archive, 11, 20), (Vec::new(), 0));
}

#[test]
fn lines_cut_across_blocks() {
    // Small blocks cut the long lines; line numbers are still those of the input.
    let mut text = Vec::new();
    for i in 0..12 {
        text.extend(std::iter::repeat_n(b'a' + i as u8, 10 + 97 * i));
        text.extend_from_slice(if i % 3 == 0 { b"\r\n" } else { b"\n" });
    }
    text.extend_from_slice(&first_games(5));
    let archive = round_trip_with(&text, &CompressOptions { block_bytes: 100, block_lines: 3, ..fast() });
    let total = text.split_inclusive(|&b| b == b'\n').count() as u64;
    assert_eq!(info_of(&archive).lines, total);
    for first in 1..=total {
        for last in [first, first + 1, first + 4, total] {
            assert_eq!(extract(&archive, first, last).0, lines_of(&text, first, last), "lines {first}..={last}");
        }
    }
}

#[test]
fn empty_archive_has_no_lines() {
    let archive = round_trip_with(b"", &fast());
    assert_eq!(info_of(&archive).lines, 0);
    assert_eq!(extract(&archive, 1, 5), (Vec::new(), 0));
}
