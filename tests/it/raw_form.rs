//! The whole-input raw form (src/archive/form.rs, src/container/raw.rs): it round-trips through every
//! reader, damage to it is caught, and the archive `compress` chooses is never much larger
//! than `zstd -19 --long` nor, on real chess files, than `xz -9e` (both computed here with
//! the same libraries and settings as those tools).

use std::io::Cursor;

use chesszip::container::raw::{Codec, MAX_HELD, RAW_MAGIC};
use chesszip::{CompressOptions, Error, ExpandOptions, Games, compress_bytes, expand_bytes, extract_games, extract_lines, info};

use crate::common;

/// What `xz -9e` writes for `data` (one thread, CRC64 check: the tool's defaults).
fn xz_9e(data: &[u8]) -> usize {
    let stream = liblzma::stream::Stream::new_easy_encoder(9 | liblzma::stream::PRESET_EXTREME, liblzma::stream::Check::Crc64).unwrap();
    let mut out = Vec::with_capacity(data.len() / 2 + 1024);
    let mut enc = liblzma::write::XzEncoder::new_stream(&mut out, stream);
    std::io::Write::write_all(&mut enc, data).unwrap();
    enc.finish().unwrap();
    out.len()
}

/// What `zstd -19 --long` writes for `data` (content size and checksum in the frame, as the
/// tool does).
fn zstd_19_long(data: &[u8]) -> usize {
    let mut c = zstd::bulk::Compressor::new(19).unwrap();
    c.set_parameter(zstd::zstd_safe::CParameter::WindowLog(27)).unwrap();
    c.set_parameter(zstd::zstd_safe::CParameter::EnableLongDistanceMatching(true)).unwrap();
    c.set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true)).unwrap();
    c.compress(data).unwrap().len()
}

fn expand(archive: &[u8]) -> Result<Vec<u8>, Error> {
    expand_bytes(archive, &ExpandOptions { threads: 2, ..Default::default() })
}

/// Pseudo-random bytes (xorshift).
fn random(n: usize) -> Vec<u8> {
    let mut x = 0x9e37_79b9_u32;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

/// This repository's Rust sources, concatenated.
fn source_code() -> Vec<u8> {
    let mut files = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/src"))];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    files.sort();
    let code: Vec<u8> = files.iter().flat_map(|f| std::fs::read(f).unwrap()).collect();
    assert!(code.len() > 100_000, "the sources are there");
    code
}

/// English prose: this repository's README, documents and licence.
fn prose() -> Vec<u8> {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut text = std::fs::read(format!("{root}/README.md")).unwrap();
    text.extend(std::fs::read(format!("{root}/COPYING")).unwrap());
    for e in std::fs::read_dir(format!("{root}/docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            text.extend(std::fs::read(p).unwrap());
        }
    }
    assert!(text.len() > 50_000, "the documents are there");
    text
}

/// Compresses `input` with the default settings, checks that it expands and returns the
/// archive.
#[track_caller]
fn round_trip(input: &[u8]) -> Vec<u8> {
    let archive = compress_bytes(input, &CompressOptions { threads: 2, ..CompressOptions::default() });
    assert!(expand(&archive).unwrap() == input, "round trip of {} bytes", input.len());
    archive
}

#[track_caller]
fn assert_near_zstd(name: &str, input: &[u8], archive: &[u8]) {
    let z = zstd_19_long(input);
    println!("{name}: {} bytes -> {} (zstd -19 --long {z})", input.len(), archive.len());
    assert!(archive.len() as f64 <= 1.05 * z as f64 + 100.0, "{name}: {} bytes, zstd -19 --long {z}", archive.len());
}

#[test]
fn raw_archives_round_trip_through_every_reader() {
    let text = b"not chess at all\nsecond line\n\nlast line without feed".to_vec();
    let archive = round_trip(&text);
    assert!(archive.starts_with(&RAW_MAGIC), "a tiny input takes the raw form");
    let i = info(Cursor::new(&archive)).unwrap();
    assert!(i.raw.is_some());
    assert_eq!((i.text_bytes, i.lines, i.raw_lines, i.games, i.blocks), (text.len() as u64, 4, 4, 0, 0));
    assert_eq!(i.archive_bytes, archive.len() as u64);
    let mut out = Vec::new();
    assert_eq!(extract_lines(Cursor::new(&archive), 2..=4, &mut out, 1).unwrap(), 3);
    assert_eq!(out, b"second line\n\nlast line without feed");
    // Games of a raw archive are cut as in a container of the same format.
    let pgn = b"[Event \"a\"]\n\n1. e4 e5 1-0\n\n[Event \"b\"]\n\n1. d4 0-1\n".to_vec();
    let archive = round_trip(&pgn);
    assert!(archive.starts_with(&RAW_MAGIC));
    let games: Vec<Vec<u8>> = Games::open(Cursor::new(&archive), 1).unwrap().map(Result::unwrap).collect();
    assert_eq!(games, vec![b"[Event \"a\"]\n\n1. e4 e5 1-0\n\n".to_vec(), b"[Event \"b\"]\n\n1. d4 0-1\n".to_vec()]);
    let mut out = Vec::new();
    assert_eq!(extract_games(Cursor::new(&archive), 2..=2, &mut out, 1).unwrap(), 1);
    assert_eq!(out, games[1]);
    assert_eq!(chesszip::count_games(Cursor::new(&archive), 1).unwrap(), 2);
}

#[test]
fn long_input_streams_and_round_trips() {
    // 20 MB of repeated source code: more than is held, no games.
    let code = source_code();
    let input: Vec<u8> = code.iter().copied().cycle().take(20_000_000).collect();
    assert!(input.len() > MAX_HELD);
    let archive = round_trip(&input);
    let i = info(Cursor::new(&archive)).unwrap();
    assert_eq!(i.raw, Some(Codec::ZstdStreamed));
    assert_eq!(i.text_bytes, input.len() as u64);
    assert_near_zstd("20 MB of repeated source code", &input, &archive);
    let blocks: Vec<Vec<u8>> = chesszip::Blocks::open(Cursor::new(&archive), 1).unwrap().map(Result::unwrap).collect();
    assert_eq!(blocks.concat(), input);
    let mut out = Vec::new();
    let lines = input.split_inclusive(|&b| b == b'\n').count() as u64;
    assert_eq!(extract_lines(Cursor::new(&archive), lines..=lines + 5, &mut out, 1).unwrap(), 1);
    assert_eq!(out, input.split_inclusive(|&b| b == b'\n').next_back().unwrap());
}

#[test]
fn never_much_worse_than_zstd() {
    let code = source_code();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("one byte", b"x".to_vec()),
        ("source code", code.clone()),
        ("source code x 8", code.repeat(8)),
        ("prose", prose()),
        ("random bytes", random(1 << 20)),
        // 2,000 games of the benchmark (560 KB): the block container against zstd on games.
        ("2,000 benchmark games", common::first_games(2000)),
    ];
    for (name, input) in cases {
        let archive = round_trip(&input);
        assert_near_zstd(name, &input, &archive);
    }
}

#[test]
fn real_chess_files_are_never_larger_than_xz() {
    let root = common::shared_data("pgn");
    let mut files = Vec::new();
    let mut dirs = vec![root];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() > 100, "the shared PGN files are there ({} found)", files.len());
    let mut worse = Vec::new();
    for f in &files {
        let input = std::fs::read(f).unwrap();
        let archive = round_trip(&input);
        let xz = xz_9e(&input);
        println!("{} {} {} {xz}", f.display(), input.len(), archive.len());
        if archive.len() > xz {
            worse.push(format!("{}: {} bytes, xz -9e {xz}", f.display(), archive.len()));
        }
    }
    assert!(worse.is_empty(), "{} of {} files larger than xz -9e:\n{}", worse.len(), files.len(), worse.join("\n"));
}

/// The archive of `text` from the default compressor, checked to take the raw form.
fn raw_archive(text: &[u8]) -> Vec<u8> {
    let archive = round_trip(text);
    assert!(archive.starts_with(&RAW_MAGIC));
    archive
}

#[test]
fn damaged_raw_archives_are_refused() {
    let text = b"some words, some words, more words\n".repeat(40);
    let archive = raw_archive(&text);
    // Truncated anywhere: an error, never a wrong text.
    for cut in 0..archive.len() {
        assert!(expand(&archive[..cut]).is_err(), "cut at {cut}");
    }
    // Data after the end.
    let mut longer = archive.clone();
    longer.extend_from_slice(b"\n");
    assert!(matches!(expand(&longer), Err(Error::Corrupt(_))));
    // Every byte flipped: an error or, never, another text.
    for i in 0..archive.len() {
        let mut bad = archive.clone();
        bad[i] ^= 0x04;
        assert!(expand(&bad).is_err(), "byte {i}");
        let mut out = Vec::new();
        assert!(extract_lines(Cursor::new(&bad), 1..=1, &mut out, 1).is_err() && out.is_empty(), "byte {i}");
    }
    // A bad checksum (the four bytes before the stream of a held archive).
    let i = info(Cursor::new(&archive)).unwrap();
    assert!(i.raw.is_some());
    // magic(4) kind(1) length 1400 (2 bytes) lines 40 (1 byte), then the checksum.
    let mut bad = archive.clone();
    bad[8] ^= 1;
    let err = expand(&bad).unwrap_err();
    assert!(err.to_string().contains("checksum"), "{err}");
}

#[test]
fn forged_lengths_stop_decoding() {
    // A held archive claiming fewer bytes than its stream gives stops at the claim; one
    // claiming more is found short.
    let text = b"abcdefgh".repeat(300);
    let archive = raw_archive(&text);
    assert_eq!(&archive[5..7], &[0xe0, 0x12], "2400 bytes as a varint");
    for (len, limit) in [([0xdf, 0x12], true), ([0xe1, 0x12], false)] {
        let mut forged = archive.clone();
        forged[5..7].copy_from_slice(&len);
        let err = expand(&forged).unwrap_err();
        assert_eq!(matches!(err, Error::LimitExceeded(_)), limit, "{err}");
    }
    // A length beyond what a held archive may hold is refused before decoding.
    let mut huge = RAW_MAGIC.to_vec();
    huge.extend_from_slice(&[0x12, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0, 0, 0]);
    assert!(matches!(expand(&huge), Err(Error::Corrupt(_))));
    // A streamed archive whose trailer is cut or forged.
    let code: Vec<u8> = source_code().into_iter().cycle().take(MAX_HELD + 1).collect();
    let archive = round_trip(&code);
    assert_eq!(info(Cursor::new(&archive)).unwrap().raw, Some(Codec::ZstdStreamed));
    for cut in [1, 4, 12, 20, 21] {
        assert!(expand(&archive[..archive.len() - cut]).is_err(), "cut {cut}");
    }
    let mut forged = archive.clone();
    let at = forged.len() - 16;
    forged[at] ^= 1;
    assert!(expand(&forged).is_err());
}

/// Games then a long stretch of repeated prose (issue 35, "mixed files"), and the reverse:
/// each stretch becomes a member of its own in the form that suits it, so the archive is far
/// below `zstd -19 --long` of the whole (the games coded by the model, the prose by a raw
/// codec with the whole stretch in its window), and every reader gives the text back.
#[test]
fn mixed_games_and_prose_are_regions() {
    let games = common::first_games(800);
    let prose_line =
        b"It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife.\n";
    // Every line differs (its number), so that no line is a copy of an earlier one (coding 2
    // would code copies as references inside the block container).
    let prose: Vec<u8> = (0..16_000).flat_map(|i| format!("{i} ").into_bytes().into_iter().chain(prose_line.iter().copied())).collect();
    let opts = CompressOptions { level: chesszip::Level::MIN, threads: 2, ..CompressOptions::default() };
    for (n, text) in [[&games[..], &prose[..]].concat(), [&prose[..], &games[..]].concat()].into_iter().enumerate() {
        let archive = compress_bytes(&text, &opts);
        assert_eq!(expand(&archive).unwrap(), text);
        let i = info(&mut Cursor::new(&archive)).unwrap();
        assert_eq!(i.members, 2, "one member per region");
        assert_eq!(i.games, 800);
        let zstd = zstd_19_long(&text);
        assert!(archive.len() * 2 < zstd, "{} bytes against zstd's {zstd}", archive.len());
        if n == 0 {
            let mut out = Vec::new();
            assert_eq!(extract_games(Cursor::new(&archive), 11..=12, &mut out, 1).unwrap(), 2);
            assert_eq!(out, common::first_games(12)[common::first_games(10).len()..]);
        }
    }
}

/// Movetext then PGN (docs/notes-newuser2.md, finding 1): both are games, but a region's
/// format is detected from its start, so the PGN games were coded as raw lines of the
/// movetext (2.3x the parts' sum on the benchmark and a lichess month). The tags after a long
/// stretch of movetext start a region of their own: two members, movetext and PGN, within
/// 1.05x of the parts compressed alone, held (<= 16 MiB) and streamed (> 16 MiB). PGN then
/// movetext stays one member (PGN coding takes movetext lines as games).
#[test]
fn movetext_then_pgn_are_two_regions() {
    let pgn = std::fs::read(common::shared_data("pgn/lichess/2017-05.pgn")).expect("2017-05.pgn");
    let opts = CompressOptions { level: chesszip::Level::MIN, threads: 2, ..CompressOptions::default() };
    let alone = |text: &[u8]| compress_bytes(text, &opts).len();
    let games = common::first_games(3000);
    let long: Vec<u8> = common::GAMES.iter().copied().cycle().take(MAX_HELD + (1 << 20)).collect();
    let long = &long[..=long.iter().rposition(|&b| b == b'\n').unwrap()];
    for movetext in [&games[..], long] {
        let text = [movetext, &pgn[..]].concat();
        let archive = compress_bytes(&text, &opts);
        assert_eq!(expand(&archive).unwrap(), text);
        let members = chesszip::inspect::info_members(Cursor::new(&archive)).unwrap();
        let formats: Vec<_> = members.iter().map(|m| m.header.format).collect();
        assert_eq!(formats, [chesszip::InputFormat::Movetext, chesszip::InputFormat::Pgn], "{} bytes of movetext", movetext.len());
        assert_eq!(members[1].raw_lines, 0, "the PGN games coded as games");
        let parts = alone(movetext) + alone(&pgn);
        assert!(archive.len() as f64 <= 1.05 * parts as f64, "{} bytes against the parts' {parts}", archive.len());
    }
    let archive = compress_bytes(&[&pgn[..], &games[..]].concat(), &opts);
    assert_eq!(info(&mut Cursor::new(&archive)).unwrap().members, 1);
}
