//! Helpers shared by the integration tests: sample games, round trips at level 1, archives
//! to damage.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::LazyLock;

use chesszip::{CompressOptions, ExpandOptions, compress_bytes, expand_bytes};

/// The benchmark file, read once.
pub static GAMES: LazyLock<Vec<u8>> =
    LazyLock::new(|| std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/data/Chess_Games.txt")).expect("data/Chess_Games.txt"));

/// `relative` in the project's shared data: under `$CHESSZIP_DATA` when set (as in
/// `scripts/`), else under `../shared/data` beside the repository. Panics, naming the path,
/// when it is missing: a test that needs data must not pass without it.
#[track_caller]
pub fn shared_data(relative: &str) -> PathBuf {
    let root = match std::env::var_os("CHESSZIP_DATA") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data")),
    };
    let path = root.join(relative);
    assert!(
        path.exists(),
        "{} is missing: this test needs the project's shared data (../shared/data beside the repository, or set CHESSZIP_DATA)",
        path.display()
    );
    path
}

/// The first `n` lines of the benchmark file, each with its line feed.
pub fn first_games(n: usize) -> Vec<u8> {
    GAMES.split_inclusive(|&b| b == b'\n').take(n).flatten().copied().collect()
}

/// Line `i` (0-based) of the benchmark file, without its line feed.
pub fn game_line(i: usize) -> Vec<u8> {
    GAMES.split(|&b| b == b'\n').nth(i).expect("line exists").to_vec()
}

/// Fast settings: level 1, small blocks, two threads, always the block container (the raw
/// form has its own tests, tests/it/raw_form.rs).
pub fn fast() -> CompressOptions {
    CompressOptions { level: chesszip::Level::MIN, block_lines: 50, threads: 2, raw_form: false, ..CompressOptions::default() }
}

/// Expanding with two threads.
pub fn expand_opts() -> ExpandOptions {
    ExpandOptions { threads: 2, ..Default::default() }
}

/// Compresses `input` with `opts`, expands it, checks the result is `input`, and returns the
/// archive.
#[track_caller]
pub fn round_trip_with(input: &[u8], opts: &CompressOptions) -> Vec<u8> {
    let archive = compress_bytes(input, opts);
    let back = expand_bytes(&archive, &expand_opts()).expect("archive expands");
    if back != input {
        let at = back.iter().zip(input).position(|(a, b)| a != b).unwrap_or(back.len().min(input.len()));
        panic!(
            "round trip differs at byte {at} (input {} bytes, output {} bytes): input {:?}, output {:?}",
            input.len(),
            back.len(),
            String::from_utf8_lossy(&input[at.saturating_sub(20)..(at + 20).min(input.len())]),
            String::from_utf8_lossy(&back[at.saturating_sub(20)..(at + 20).min(back.len())]),
        );
    }
    archive
}

/// [`round_trip_with`] at [`fast`] settings.
#[track_caller]
pub fn round_trip(input: &[u8]) -> Vec<u8> {
    round_trip_with(input, &fast())
}

/// The statistics of an archive held in memory.
pub fn info_of(archive: &[u8]) -> chesszip::ArchiveInfo {
    chesszip::info(std::io::Cursor::new(archive)).expect("info")
}

/// The `chesszip` binary of this build, as a command (no `RUST_BACKTRACE`, so that messages
/// are what users see).
pub fn chesszip() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_chesszip"));
    cmd.env_remove("RUST_BACKTRACE");
    cmd
}

/// A finished command's standard error, as text.
pub fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The names of the files of `dir`, sorted.
pub fn listing(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}
