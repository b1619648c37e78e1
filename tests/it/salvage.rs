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

/// `archive` salvaged from a file ([`expand_salvage`]) and as a stream
/// ([`chesszip::expand_salvage_stream`]) with `opts`: both outputs and results.
fn salvaged_both_ways(archive: &[u8], opts: &ExpandOptions) -> ((Vec<u8>, String), (Vec<u8>, String)) {
    let ((from_file, file), (from_stream, stream)) = salvages_both_ways(archive, opts);
    ((from_file, format!("{file:?}")), (from_stream, format!("{stream:?}")))
}

/// What [`expand_salvage`] and `expand_salvage_stream` return.
type SalvageResult = Result<chesszip::Salvage, chesszip::Error>;

/// As [`salvaged_both_ways`], with the two salvages' results as they are.
fn salvages_both_ways(archive: &[u8], opts: &ExpandOptions) -> ((Vec<u8>, SalvageResult), (Vec<u8>, SalvageResult)) {
    let mut from_file = Vec::new();
    let file = expand_salvage(Cursor::new(archive), &mut from_file, opts, &|_| {});
    let mut from_stream = Vec::new();
    // A reader that gives a few bytes at a time, as a pipe does.
    let stream = chesszip::expand_salvage_stream(Trickle(archive), &mut from_stream, opts, &|_| {});
    ((from_file, file), (from_stream, stream))
}

/// A reader that gives at most 1000 bytes a read.
struct Trickle<'a>(&'a [u8]);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.0.len()).min(1000);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn library_salvage_of_a_stream_is_that_of_the_file() {
    // Single archives and concatenations, sound and damaged in every way salvage tells apart:
    // the same text and the same parts (members, blocks, lines, archive bytes, messages).
    let (archive, text) = ten_blocks();
    let other = compress_bytes(&first_games(120), &CompressOptions { block_lines: 50, ..fast() });
    let prose = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/robustness.md")).unwrap();
    let raw = compress_bytes(&prose, &CompressOptions { raw_form: true, ..fast() });
    assert!(chesszip::container::raw::is_raw(&raw), "prose takes the raw form");
    let (block2, _) = block_bytes(&archive, 2);
    let mut bad_header = archive.clone();
    bad_header[block2.start as usize + 9] ^= 0x01;
    let bad_data = damage_block(&archive, 5);
    let mut bad_footer = bad_data.clone();
    let last = bad_footer.len() - 12;
    bad_footer[last] ^= 0x01;
    let mut bad_raw = raw.clone();
    let mid = bad_raw.len() / 2;
    bad_raw[mid] ^= 0x55;
    let cut = &archive[..archive.len() / 2];
    let zeros = vec![0u8; 3 << 20];
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("sound", archive.clone()),
        ("two members", [&archive[..], &other].concat()),
        ("raw, then a container", [&raw[..], &archive].concat()),
        ("damaged data, then a member", [&bad_data[..], &other].concat()),
        ("damaged header, then a member", [&bad_header[..], &other].concat()),
        ("damaged header, then zeros", [&bad_header[..], &zeros].concat()),
        ("damaged footer, then a member", [&bad_footer[..], &other].concat()),
        ("cut, then a member", [cut, &other].concat()),
        ("a member, then a cut one", [&other[..], cut].concat()),
        ("zeros between members", [&archive[..], &zeros, &other].concat()),
        ("zeros after", [&archive[..], &zeros].concat()),
        ("damaged raw, then a member", [&bad_raw[..], &other].concat()),
        ("damaged header alone", bad_header.clone()),
        ("no archive", zeros.clone()),
        ("empty", Vec::new()),
    ];
    for (name, bytes) in cases {
        let (file, stream) = salvaged_both_ways(&bytes, &expand_opts());
        assert!(file.0 == stream.0, "{name}: the same text");
        assert_eq!(file.1, stream.1, "{name}");
    }
    // Damage to both members: each member's blocks but the damaged one.
    let bad_other = {
        let mut b = other.clone();
        let mid = b.len() / 2;
        b[mid] ^= 0x55;
        b
    };
    let (file, stream) = salvaged_both_ways(&[&bad_data[..], &bad_other].concat(), &expand_opts());
    assert!(file.0 == stream.0);
    assert_eq!(file.1, stream.1);
    assert!(stream.0.starts_with(&without_lines(&text, 500, 1000)[..1000]), "member 0's blocks before the damage");
}

#[test]
fn library_salvage_of_a_stream_past_its_hold_salvages_what_it_holds() {
    // A damaged member that only zeros follow would be held up to the end: at most
    // `memlimit` bytes of it are, salvaged as an archive cut there; the rest is passed over
    // unheld, to the end (a file salvages the same blocks: its part lacks only the reason).
    let (archive, text) = ten_blocks();
    let (block2, _) = block_bytes(&archive, 2);
    let mut bad_header = archive.clone();
    bad_header[block2.start as usize + 9] ^= 0x01;
    let hold = 4u64 << 20;
    let opts = ExpandOptions { limits: chesszip::DecodeLimits { memlimit: Some(hold), ..expand_opts().limits }, ..expand_opts() };
    let input = [&bad_header[..], &vec![0u8; 3 * hold as usize]].concat();
    let mut out = Vec::new();
    let salvage = chesszip::expand_salvage_stream(&input[..], &mut out, &opts, &|_| {}).expect("salvage runs");
    assert_eq!(out, without_lines(&text, 200, 1000), "the blocks before the damage");
    let last = salvage.damaged.last().expect("damage reported");
    assert!(last.to_end);
    assert_eq!(last.archive_range.end, input.len() as u64);
    assert!(last.error.contains(&format!("salvage of a stream holds at most {hold} bytes of one member")), "{}", last.error);
    assert_eq!(salvage.summary.archive_bytes, input.len() as u64);
    // The same from a file: the whole damaged member, to the end.
    let mut from_file = Vec::new();
    let whole = expand_salvage(Cursor::new(&input), &mut from_file, &opts, &|_| {}).unwrap();
    assert!(from_file == out, "what the file gives");
    let file_last = whole.damaged.last().unwrap();
    assert_eq!((file_last.block, &file_last.archive_range), (last.block, &last.archive_range));
    assert!(last.error.starts_with(&file_last.error), "{} / {}", last.error, file_last.error);
}

/// [`ExpandOptions`] of the tests with `memlimit` bytes.
fn with_memlimit(memlimit: u64) -> ExpandOptions {
    ExpandOptions { limits: chesszip::DecodeLimits { memlimit: Some(memlimit), ..expand_opts().limits }, ..expand_opts() }
}

#[test]
fn library_salvage_of_a_stream_exactly_as_long_as_its_hold_is_that_of_the_file() {
    // A stream of exactly `memlimit` bytes is one archive as a file is (one byte more read to
    // know it ends), whose decoding past the memory limit is an error, not a damaged member.
    let archive = compress_bytes(&first_games(120), &CompressOptions { block_lines: 50, ..fast() });
    let (file, stream) = salvaged_both_ways(&archive, &with_memlimit(archive.len() as u64));
    assert!(file.1.starts_with("Err(DecodeLimit"), "the case at hand: {}", file.1);
    assert!(file.0 == stream.0, "the same text");
    assert_eq!(file.1, stream.1);
    // And another archive, with another member after it or not.
    let (sound, _) = ten_blocks();
    for bytes in [sound.clone(), [&sound[..], &archive].concat()] {
        let (file, stream) = salvaged_both_ways(&bytes, &with_memlimit(sound.len() as u64));
        assert!(file.0 == stream.0, "the same text");
        assert_eq!(file.1, stream.1);
    }
}

#[test]
fn library_salvage_of_a_stream_ends_a_member_past_its_hold_at_the_next_one_held() {
    // Block 1's header claims 20 MiB (its checksum made good): the walk of member 0 passes the
    // 1 MiB hold, but the next member starts among the bytes held; member 0 is damaged up to
    // there, as from a file, and the members after it are salvaged.
    let (archive, _) = ten_blocks();
    let (block1, _) = block_bytes(&archive, 1);
    let at = block1.start as usize;
    let len = chesszip::container::BlockHeader::LEN;
    let mut header = chesszip::container::BlockHeader::parse(archive[at..at + len].try_into().unwrap(), 1).unwrap();
    header.range_len = 20 << 20;
    let mut crafted = archive.clone();
    crafted[at..at + len].copy_from_slice(&header.to_bytes());
    let other = compress_bytes(&first_games(30), &fast());
    let hold = 1u64 << 20;
    let mut input = crafted;
    while input.len() < 3 * hold as usize {
        input.extend_from_slice(&other);
    }
    let (file, stream) = salvaged_both_ways(&input, &with_memlimit(hold));
    assert!(file.1.contains("header does not match the index"), "the case at hand: {}", file.1);
    assert!(!stream.1.contains("holds at most"), "{}", stream.1);
    assert!(file.0 == stream.0, "the same text");
    assert_eq!(file.1, stream.1);
}

#[test]
fn library_salvage_of_a_stream_whose_first_member_passes_its_hold_is_that_of_the_file() {
    // The first member is larger than the hold and its first block decodes beyond `memlimit`
    // (held whole, or cut by the hold: one block of 120 games): from a file it is left out
    // whole with the limit's error and the members after it are read, or for a single archive
    // the error is the result. From a stream (before: its bytes held gave nothing, and the
    // rest was reported not read) it is passed over unheld to its end: the same.
    let blocks = compress_bytes(&first_games(120), &CompressOptions { block_lines: 50, ..fast() });
    let one_block = compress_bytes(&first_games(120), &CompressOptions { block_lines: 1000, ..fast() });
    let other = compress_bytes(&first_games(5), &fast());
    let zeros = vec![0u8; 3 << 20];
    for big in [&blocks, &one_block] {
        let hold = big.len() as u64 / 2;
        for (name, input) in [
            ("then a member", [&big[..], &other].concat()),
            ("alone", big.to_vec()),
            ("then zeros and a member", [&big[..], &zeros, &other].concat()),
            ("then itself", [&big[..], big].concat()),
        ] {
            let (file, stream) = salvaged_both_ways(&input, &with_memlimit(hold));
            assert!(file.1.contains("block 0: decoding the block takes about"), "{name}: the case at hand: {}", file.1);
            assert!(file.0 == stream.0, "{name}: the same text");
            assert_eq!(file.1, stream.1, "{name}");
        }
    }
}

#[test]
fn library_salvage_of_a_stream_goes_on_past_a_member_larger_than_its_hold() {
    // A sound member of 40 small blocks, larger than the hold: its blocks held are written,
    // the rest of it is passed over unheld (a file writes them all), and the member after it
    // is salvaged as from a file.
    let text = first_games(1000);
    let big = compress_bytes(&text, &CompressOptions { block_lines: 25, ..fast() });
    let other_text = first_games(7);
    let other = compress_bytes(&other_text, &fast());
    let hold = big.len() as u64 * 2 / 3;
    let input = [&big[..], &other].concat();
    let mut out = Vec::new();
    let salvage = chesszip::expand_salvage_stream(&input[..], &mut out, &with_memlimit(hold), &|_| {}).expect("salvage runs");
    assert_eq!(salvage.damaged.len(), 1, "{salvage:?}");
    let cut = &salvage.damaged[0];
    assert!(cut.block > 0 && cut.to_end, "{cut:?}");
    assert_eq!(cut.archive_range.end, big.len() as u64, "it reaches the member's end");
    assert!(cut.error.contains(&format!("salvage of a stream holds at most {hold} bytes of one member")), "{}", cut.error);
    let written = text.split_inclusive(|&b| b == b'\n').take(25 * cut.block as usize).flatten().copied().collect::<Vec<u8>>();
    assert!(out == [&written[..], &other_text].concat(), "the blocks held, then the member after");
    assert_eq!(salvage.summary.archive_bytes, input.len() as u64);
    // A file writes the whole member.
    let mut from_file = Vec::new();
    let whole = expand_salvage(Cursor::new(&input), &mut from_file, &with_memlimit(hold), &|_| {}).unwrap();
    assert!(whole.is_complete() && from_file == [&text[..], &other_text].concat());
}

/// The text of the docs (prose, not games), which takes the raw form: some 380 KB.
fn docs_text() -> Vec<u8> {
    let mut paths: Vec<_> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/docs")).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    paths.iter().filter(|p| p.extension().is_some_and(|x| x == "md")).flat_map(|p| std::fs::read(p).unwrap()).collect()
}

/// Line feeds in `text`.
fn line_feeds(text: &[u8]) -> u64 {
    text.iter().filter(|&&b| b == b'\n').count() as u64
}

#[test]
fn library_salvage_counts_the_text_of_a_part_that_failed_partway() {
    // The raw form cut short writes its text up to the cut, and a member whose decoding a
    // limit stops after a round of its blocks wrote that round's text: the summary counts it
    // (before: the sound blocks only, 0 bytes for the raw form), and the part is lost from the
    // first line not written whole (before: from its first line). From a file and a stream.
    let text = docs_text();
    let raw = compress_bytes(&text, &CompressOptions { raw_form: true, ..fast() });
    assert!(chesszip::container::raw::is_raw(&raw), "prose takes the raw form");
    let cut = &raw[..raw.len() * 3 / 4];
    let (archive, games) = ten_blocks();
    let other = compress_bytes(&first_games(7), &fast());
    // One thread: rounds of 8 blocks; the limit stops block 9, in the second round.
    let nine_blocks = without_lines(&games, 900, 1000).len() as u64;
    let limited = ExpandOptions { threads: 1, limits: chesszip::DecodeLimits { max_output: Some(nine_blocks), ..expand_opts().limits } };
    for (name, bytes, opts) in [
        ("raw cut", cut.to_vec(), expand_opts()),
        ("a member, then the raw cut", [&other[..], cut].concat(), expand_opts()),
        ("a limit, then a member", [&archive[..], &other].concat(), limited),
    ] {
        let mut out = Vec::new();
        let salvage = expand_salvage(Cursor::new(&bytes), &mut out, &opts, &|_| {}).expect("salvage runs");
        let lost = salvage.damaged.iter().find(|d| d.to_end).expect("a part that failed");
        assert_eq!(salvage.summary.text_bytes, out.len() as u64, "{name}: every byte written is counted");
        let partial = !out.is_empty() && !out.ends_with(b"\n");
        let lines_written = line_feeds(&out);
        assert_eq!(salvage.summary.stats.lines, lines_written + partial as u64, "{name}");
        if name == "a limit, then a member" {
            assert!(
                out.starts_with(&without_lines(&games, 800, 1000)) && out.ends_with(&first_games(7)),
                "{name}: the first round, then the member after"
            );
            assert_eq!(lost.first_line, Some(800), "{name}: lost from line 801");
            assert!(lost.error.contains("expands to more than"), "{name}: the case at hand: {}", lost.error);
        } else {
            assert!(out.len() > 100_000, "{name}: the case at hand: text before the cut");
            assert_eq!(lost.first_line, Some(lines_written), "{name}: lost from the first line not written whole");
            assert!(lost.error.contains("cut off"), "{name}: {}", lost.error);
        }
        let (file, stream) = salvaged_both_ways(&bytes, &opts);
        assert!(file.0 == stream.0 && file.0 == out, "{name}: the same text");
        assert_eq!(file.1, stream.1, "{name}");
    }
}

#[test]
fn library_salvage_of_two_archives_the_first_with_block_0_damaged_is_the_same_from_a_stream() {
    // Two real archives concatenated, a byte of the first's block 0 flipped (in its coded data,
    // then in its header, which stops the walk through it): from a file and from a stream, the
    // first's other nine blocks and the second whole, block 0 of member 0 reported.
    let (archive, text) = ten_blocks();
    let other_text = first_games(120);
    let other = compress_bytes(&other_text, &CompressOptions { block_lines: 50, ..fast() });
    let (block0, _) = block_bytes(&archive, 0);
    let mut bad_header = archive.clone();
    bad_header[block0.start as usize + 9] ^= 0x01;
    for (name, first) in [("data", damage_block(&archive, 0)), ("header", bad_header)] {
        let input = [&first[..], &other].concat();
        let ((from_file, file), (from_stream, stream)) = salvages_both_ways(&input, &expand_opts());
        let (file, stream) = (file.expect("salvage runs"), stream.expect("salvage runs"));
        assert!(from_file == [without_lines(&text, 0, 100), other_text.clone()].concat(), "{name}: all but block 0");
        assert!(from_stream == from_file, "{name}: the same text");
        assert_eq!(file, stream, "{name}: the same parts");
        let d: Vec<_> = file.damaged.iter().map(|d| (d.member, d.block, d.archive_range.clone(), d.first_line)).collect();
        assert_eq!(d, [(0, 0, block0.clone(), Some(0))], "{name}");
        assert_eq!(file.summary.archive_bytes, input.len() as u64);
    }
}

#[test]
fn library_salvage_of_an_archive_written_over_the_start_of_a_larger_one_is_the_same_from_a_stream() {
    // A small archive written over the start of a larger one, not truncated (`dd
    // conv=notrunc`): the footer and index at the end are the larger one's and check out, so a
    // file's salvage took the whole for one archive and wrote its blocks after the small one
    // (a stream, walking from the start, wrote the small one's text). Both now walk from the
    // start: the small archive's text, the rest one damaged part to the end.
    let (big, _) = ten_blocks();
    let small_text = first_games(120);
    let small = compress_bytes(&small_text, &CompressOptions { block_lines: 50, ..fast() });
    let (block1, _) = block_bytes(&big, 1);
    assert!((small.len() as u64) < block1.end, "the case at hand: the larger one's blocks 0 and 1 overwritten");
    let mut input = big.clone();
    input[..small.len()].copy_from_slice(&small);
    let by_footer = chesszip::container::members::scan(&mut Cursor::new(&input)).unwrap();
    assert_eq!(by_footer.len(), 1, "the case at hand: the footer and index at the end check out, one archive to `scan`");
    let (file, stream) = salvaged_both_ways(&input, &expand_opts());
    assert!(file.0 == small_text, "the small archive's text");
    assert!(stream.0 == file.0, "the same text");
    assert_eq!(file.1, stream.1, "the same parts");
    assert!(file.1.contains(&format!("archive_range: {}..{}", small.len(), input.len())), "{}", file.1);
}
