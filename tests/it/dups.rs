//! Duplicate games (coding 2, issue 35): a line seen earlier anywhere in the input is coded as a
//! reference; the archive of repeated games costs little more than one copy, and every reader
//! (expand, salvage, extract, `Games`) gives the text back.

use crate::common;

use std::io::Cursor;

use chesszip::{CompressOptions, ExpandOptions, Games, compress_bytes, expand_bytes, extract_lines};
use common::{fast, first_games, info_of, round_trip_with, shared_data};
use proptest::prelude::*;

/// Lines of `text`, each with its line feed.
fn lines(text: &[u8]) -> Vec<Vec<u8>> {
    text.split_inclusive(|&b| b == b'\n').map(<[u8]>::to_vec).collect()
}

#[test]
fn repeated_games_cost_little_more_than_one_copy() {
    let one = first_games(300);
    let mut text = one.clone();
    // A second and third copy, a shuffled run of heldout games with repeats, a last copy.
    let heldout = std::fs::read(shared_data("heldout/lichess_heldout.txt")).unwrap();
    let held: Vec<Vec<u8>> = lines(&heldout).into_iter().take(200).collect();
    text.extend_from_slice(&one);
    text.extend_from_slice(&one);
    for i in 0..400 {
        text.extend_from_slice(&held[(i * 37) % held.len()]);
    }
    text.extend_from_slice(&one);
    let opts = CompressOptions { block_lines: 100, ..fast() };
    let single = compress_bytes(&one, &opts).len();
    let heldout_alone = compress_bytes(&held.concat(), &opts).len();
    let archive = round_trip_with(&text, &opts);
    assert!(archive.len() < single + heldout_alone + 1500, "{} vs {single} + {heldout_alone}", archive.len());
    let info = info_of(&archive);
    assert_eq!(info.header.coding, chesszip::container::Coding::Duplicates);
    assert!(info.references >= 1000 && info.lines == info.games + info.raw_lines, "{info:?}");

    // Random access: lines that are references, one by one and as a range across blocks.
    for line in [301u64, 650, 905, 1150, 1500] {
        let mut out = Vec::new();
        extract_lines(Cursor::new(&archive), line..=line, &mut out, 2).unwrap();
        assert_eq!(out, lines(&text)[line as usize - 1], "line {line}");
    }
    let mut out = Vec::new();
    extract_lines(Cursor::new(&archive), 250..=1250, &mut out, 2).unwrap();
    assert_eq!(out, lines(&text)[249..1250].concat());
    // Games: all of them, and after a seek into the copies.
    let games: Vec<Vec<u8>> = Games::open(Cursor::new(&archive), 2).unwrap().map(Result::unwrap).collect();
    assert_eq!(games.concat(), text);
    let mut g = Games::open(Cursor::new(&archive), 2).unwrap();
    g.seek(1234).unwrap();
    assert_eq!(g.next_game().unwrap().unwrap(), lines(&text)[1234]);
    // Salvage of an undamaged archive, and one thread.
    let mut back = Vec::new();
    let s =
        chesszip::expand_salvage(Cursor::new(&archive), &mut back, &ExpandOptions { threads: 1, ..Default::default() }, &|_| {}).unwrap();
    assert!(s.is_complete());
    assert_eq!(back, text);
}

#[test]
fn lines_cut_across_blocks_and_without_line_feed() {
    let one = first_games(40);
    let mut text = [one.clone(), one.clone(), one.clone()].concat();
    text.extend_from_slice(b"e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7 1-0");
    for block_bytes in [300, 1000, 4096] {
        let opts = CompressOptions { block_lines: 7, block_bytes, ..fast() };
        round_trip_with(&text, &opts);
    }
}

#[test]
fn a_damaged_original_damages_its_copies_in_salvage_only() {
    let one = first_games(100);
    let text = [one.clone(), one.clone()].concat();
    let opts = CompressOptions { block_lines: 50, ..fast() };
    let mut archive = compress_bytes(&text, &opts);
    // Damage the first block's range stream: blocks 0 and 2 (its copy) are lost, 1 and 3 kept.
    archive[24 + 48 + 10] ^= 0x40;
    assert!(expand_bytes(&archive, &ExpandOptions::default()).is_err());
    let mut back = Vec::new();
    let s = chesszip::expand_salvage(Cursor::new(&archive), &mut back, &ExpandOptions::default(), &|_| {}).unwrap();
    let damaged: Vec<u64> = s.damaged.iter().map(|d| d.block).collect();
    assert_eq!(damaged, [0, 2]);
    assert_eq!(
        back,
        [&one[..], &one[..]]
            .concat()
            .split_inclusive(|&b| b == b'\n')
            .enumerate()
            .filter(|(i, _)| (50..100).contains(&(i % 100)))
            .flat_map(|(_, l)| l.to_vec())
            .collect::<Vec<u8>>()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// Inputs of real game lines repeated and shuffled (and a few short or empty lines)
    /// round trip at any block size.
    #[test]
    fn repeated_and_shuffled_lines_round_trip(
        picks in prop::collection::vec(0usize..60, 1..200),
        block_lines in 1u32..40,
        block_bytes in prop::sample::select(vec![200usize, 1000, 1 << 20]),
        no_final_feed in any::<bool>(),
    ) {
        let pool = lines(&first_games(50));
        let extra: [&[u8]; 10] = [b"\n", b"1-0\n", b"e4 e5 1-0\n", b"junk line\r\n", b"\n", b"d4 1/2-1/2\n", b"x\n", b"\n", b"c4\n", b"Nf3 *\n"];
        let mut text: Vec<u8> = picks.iter().flat_map(|&p| if p < 50 { pool[p].clone() } else { extra[p - 50].to_vec() }).collect();
        if no_final_feed {
            text.pop();
        }
        let opts = CompressOptions { block_lines, block_bytes, ..fast() };
        round_trip_with(&text, &opts);
    }
}
