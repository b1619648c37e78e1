//! Round trip before success (src/archive.rs, src/archive/form.rs): the inputs that once gave
//! archives failing their own `-t` (64 KiB of zeros, a 24 MiB log, 64 MiB of zeros), a
//! property test over repetitive inputs of the sizes where the coders change buffers or forms,
//! the command line's compress -> test -> expand of such an input, and the stored fallback that
//! a block failing its check is coded as.

use chesszip::container::raw::{Codec, MAX_HELD};
use chesszip::container::{Coding, InputFormat};
use chesszip::model::Model;
use chesszip::{CompressOptions, ExpandOptions, compress_bytes, expand_bytes, info};
use proptest::prelude::*;

use crate::common;

/// The default settings on two threads; `verify` off to test the encoders themselves, not the
/// fallback that would hide their bugs.
fn unchecked() -> CompressOptions {
    CompressOptions { threads: 2, verify: false, ..CompressOptions::default() }
}

/// Compresses `input` with `opts`, expands the archive and compares; returns the archive.
#[track_caller]
fn round_trip(input: &[u8], opts: &CompressOptions) -> Vec<u8> {
    let archive = compress_bytes(input, opts);
    let back = expand_bytes(&archive, &ExpandOptions { threads: 2, ..Default::default() }).expect("the archive expands");
    assert!(back == input, "round trip of {} bytes differs", input.len());
    archive
}

/// Lines of a server log: timestamps, ids and durations that vary, words that repeat.
fn log_lines(len: usize) -> Vec<u8> {
    let mut text = Vec::with_capacity(len + 200);
    let mut i = 0u64;
    while text.len() < len {
        let line = format!(
            "2026-12-02T18:{:02}:{:02}.{:03}Z INFO http request id={} method=GET path=/api/game/{} status=200 took={}ms\n",
            (i / 60_000) % 60,
            (i / 1000) % 60,
            i % 1000,
            i * 7919 % 1_000_003,
            i * 104_729 % 99_991,
            i * 31 % 997
        );
        text.extend_from_slice(line.as_bytes());
        i += 1;
    }
    text.truncate(len);
    text
}

#[test]
fn zeros_of_a_full_buffer_round_trip() {
    let zeros = vec![0u8; 1 << 16];
    for opts in [unchecked(), CompressOptions { threads: 2, ..CompressOptions::default() }] {
        let archive = round_trip(&zeros, &opts);
        assert_eq!(info(std::io::Cursor::new(&archive)).unwrap().raw, Some(Codec::Zstd));
    }
}

#[test]
fn long_repetitive_inputs_stream_and_round_trip() {
    for (name, input) in [("a 24 MiB log", log_lines(24 << 20)), ("64 MiB of zeros", vec![0u8; 64 << 20])] {
        let archive = round_trip(&input, &unchecked());
        assert_eq!(info(std::io::Cursor::new(&archive)).unwrap().raw, Some(Codec::ZstdStreamed), "{name}");
    }
}

#[test]
fn the_command_line_tests_and_expands_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [("zeros", vec![0u8; 1 << 16]), ("games", common::first_games(300))] {
        let path = dir.path().join(name);
        std::fs::write(&path, &text).unwrap();
        common::chesszip().arg("-k").arg(&path).assert().success();
        let archive = dir.path().join(format!("{name}.chz"));
        common::chesszip().arg("-t").arg(&archive).assert().success();
        let out = dir.path().join(format!("{name}.out"));
        common::chesszip().arg("-d").arg("-c").arg(&archive).output().map(|o| std::fs::write(&out, o.stdout)).unwrap().unwrap();
        assert!(std::fs::read(&out).unwrap() == text, "{name}: -d -c");
        std::fs::remove_file(&path).unwrap();
        common::chesszip().arg("-d").arg(&archive).assert().success();
        assert!(std::fs::read(&path).unwrap() == text, "{name}: -d to a file");
    }
}

/// The stored fallback of a block that fails its check: every line (or game) raw, decoded by
/// the format's decoder to the same text.
#[test]
fn stored_blocks_decode_to_their_text() {
    let model = Model::builtin(chesszip::Level::MIN);
    let movetext = common::first_games(200);
    let (block, stats) = chesszip::movetext::block::encode_block_stored(model, &movetext);
    assert_eq!((stats.games, stats.plies, stats.raw_lines), (0, 0, 200));
    let mut back = Vec::new();
    chesszip::movetext::block::decode_block(model, Coding::NEWEST, &block, 200, movetext.len(), &mut back).unwrap();
    assert!(back == movetext);

    let pgn = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/pgn/lichess/2017-05.pgn")).unwrap();
    let (block, stats) = chesszip::pgn::codec::encode_block_stored(model, &pgn);
    assert_eq!((stats.games, stats.plies), (0, 0));
    assert!(stats.raw_lines > 0);
    let mut back = Vec::new();
    chesszip::pgn::decode_block(model, Coding::NEWEST, &block, pgn.len(), &mut back).unwrap();
    assert!(back == pgn);
}

/// Sizes next to which the readers and writers change buffers or forms: the 64 KiB buffers,
/// the container's 16 KiB raw-form threshold, and the 512 KiB probe.
const SMALL_BOUNDARIES: [usize; 5] = [16 << 10, 1 << 16, 1 << 17, 3 << 16, 512 << 10];

/// A repeated unit: a run of one byte, a game line, a line of text, or arbitrary bytes.
fn unit() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        any::<u8>().prop_map(|b| vec![b]),
        (0usize..50).prop_map(|i| [common::game_line(i), b"\n".to_vec()].concat()),
        "[a-z ]{0,60}\n".prop_map(String::into_bytes),
        prop::collection::vec(any::<u8>(), 1..40),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn repetitive_inputs_near_boundaries_round_trip(
        unit in unit(),
        at in prop::sample::select(SMALL_BOUNDARIES.to_vec()),
        delta in -3isize..=3,
        raw_form in any::<bool>(),
        movetext in any::<bool>(),
    ) {
        let input: Vec<u8> = unit.iter().copied().cycle().take((at as isize + delta) as usize).collect();
        let format = movetext.then_some(InputFormat::Movetext);
        round_trip(&input, &CompressOptions { level: chesszip::Level::MIN, raw_form, format, ..unchecked() });
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, failure_persistence: None, ..ProptestConfig::default() })]

    /// Around the held limit, where a longer input is probed and streamed: units that are no
    /// games (a game line repeated to 16 MiB would take minutes at level 1).
    #[test]
    fn repetitive_inputs_near_the_held_limit_round_trip(
        unit in prop_oneof![any::<u8>().prop_map(|b| vec![b]), prop::collection::vec(any::<u8>(), 1..40)],
        delta in prop::sample::select(vec![-1isize, 0, 1, 1 << 16]),
    ) {
        let input: Vec<u8> = unit.iter().copied().cycle().take((MAX_HELD as isize + delta) as usize).collect();
        round_trip(&input, &CompressOptions { level: chesszip::Level::MIN, ..unchecked() });
    }
}
