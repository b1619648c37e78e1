//! The `chesszip` binary under adverse conditions: killed mid-write (no temporary file may
//! survive SIGINT, SIGTERM or SIGHUP), archives read from a FIFO, forged indexes, and
//! conversions that would have to change a game.

use crate::common;

use std::fs;
use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use chesszip::container::Footer;
use common::{first_games, listing};

fn chesszip() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_chesszip"));
    cmd.env_remove("RUST_BACKTRACE");
    cmd
}

/// Sends `signal` (a name for kill(1)) to process `pid`.
fn kill(pid: u32, signal: &str) {
    let status = Command::new("kill").arg("-s").arg(signal).arg(pid.to_string()).status().unwrap();
    assert!(status.success(), "kill -s {signal} {pid}");
}

#[test]
fn no_temporary_file_survives_a_signal() {
    for (signal, number) in [("TERM", 15), ("INT", 2), ("HUP", 1)] {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.chz");
        // Compressing standard input that never ends: the temporary file exists, the run is
        // stuck reading, and the signal comes in the middle of it.
        let mut child = chesszip().args(["compress", "-1", "-o"]).arg(&target).stdin(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&first_games(50)).unwrap();
        stdin.flush().unwrap();
        let started = Instant::now();
        while !listing(dir.path()).iter().any(|n| n.starts_with(".chesszip-")) {
            assert!(started.elapsed() < Duration::from_secs(30), "SIG{signal}: no temporary file appeared");
            std::thread::sleep(Duration::from_millis(20));
        }
        kill(child.id(), signal);
        let status = child.wait().unwrap();
        drop(stdin);
        assert_eq!(status.signal(), Some(number), "SIG{signal}: {status:?}");
        assert_eq!(listing(dir.path()), Vec::<String>::new(), "SIG{signal}: files left behind");
    }
}

#[test]
fn replacing_a_file_with_force_still_works() {
    // The commit path (sync, rename, directory sync) keeps its result.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("games.txt");
    fs::write(&input, first_games(5)).unwrap();
    let target = dir.path().join("games.txt.chz");
    fs::write(&target, b"old").unwrap();
    assert!(!chesszip().args(["compress", "-1", "-k"]).arg(&input).status().unwrap().success(), "refuses without -f");
    assert_eq!(fs::read(&target).unwrap(), b"old");
    assert!(chesszip().args(["compress", "-1", "-k", "-f"]).arg(&input).status().unwrap().success());
    let out = chesszip().arg("-dc").arg(&target).output().unwrap();
    assert_eq!(out.stdout, first_games(5));
    assert_eq!(listing(dir.path()), ["games.txt", "games.txt.chz"]);
}

/// Writes `bytes` to the FIFO at `path` from another thread (opening blocks until a reader
/// comes).
fn feed_fifo(path: &Path, bytes: Vec<u8>) -> std::thread::JoinHandle<()> {
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let mut f = fs::OpenOptions::new().write(true).open(&path).unwrap();
        let _ = f.write_all(&bytes);
    })
}

#[test]
fn info_and_extract_read_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let text = first_games(9);
    let archive = chesszip::compress_bytes(&text, &chesszip::CompressOptions { block_lines: 4, ..common::fast() });
    let fifo = dir.path().join("archive.chz");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());

    let writer = feed_fifo(&fifo, archive.clone());
    let out = chesszip().arg("info").arg(&fifo).output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "info: {}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("lines:          9"), "{}", String::from_utf8_lossy(&out.stdout));

    let writer = feed_fifo(&fifo, archive.clone());
    let out = chesszip().args(["extract", "--game", "6"]).arg(&fifo).output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "extract: {}", String::from_utf8_lossy(&out.stderr));
    let line6: Vec<u8> = text.split_inclusive(|&b| b == b'\n').nth(5).unwrap().to_vec();
    assert_eq!(out.stdout, line6);

    // Expanding from a FIFO reads it once (the size estimate must not open it again).
    let writer = feed_fifo(&fifo, archive);
    let out = chesszip().args(["-dc"]).arg(&fifo).output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "expand: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout, text);
}

#[test]
fn a_forged_index_makes_info_and_extract_fail() {
    // The forgery: one block's line count changed in the index, index checksum
    // recomputed. `extract` used to print the wrong line with exit 0.
    let dir = tempfile::tempdir().unwrap();
    let text = first_games(12);
    let mut archive = chesszip::compress_bytes(&text, &chesszip::CompressOptions { block_lines: 4, ..common::fast() });
    let len = archive.len();
    let index_offset = u64::from_le_bytes(archive[len - Footer::LEN..len - 8].try_into().unwrap()) as usize;
    let lines_of_block_0 = index_offset + 8 + 8;
    let lines = u32::from_le_bytes(archive[lines_of_block_0..lines_of_block_0 + 4].try_into().unwrap());
    archive[lines_of_block_0..lines_of_block_0 + 4].copy_from_slice(&(lines + 1).to_le_bytes());
    let crc_at = len - Footer::LEN - 4;
    let crc = crc32fast::hash(&archive[index_offset..crc_at]);
    archive[crc_at..crc_at + 4].copy_from_slice(&crc.to_le_bytes());
    let path = dir.path().join("forged.chz");
    fs::write(&path, &archive).unwrap();

    for args in [&["info"][..], &["extract", "--game", "10"], &["-t"], &["-dc"]] {
        let out = chesszip().args(args).arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stderr).contains("corrupt archive"), "{args:?}");
        if args[0] == "extract" {
            assert!(out.stdout.is_empty(), "extract printed {:?}", String::from_utf8_lossy(&out.stdout));
        }
    }
}

#[test]
fn a_conversion_never_changes_a_game() {
    // `Qxf7++` is not SAN that a reader can take without guessing: the game is left out with a
    // warning (exit 2), never written without the move.
    let dir = tempfile::tempdir().unwrap();
    let pgn = b"[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7++ 1-0\n\n\
                [Event \"b\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";
    let input = dir.path().join("games.pgn");
    fs::write(&input, pgn).unwrap();
    assert!(chesszip().args(["compress", "-1", "-k"]).arg(&input).status().unwrap().success());
    let out = chesszip().args(["expand", "--format", "movetext", "-c"]).arg(dir.path().join("games.pgn.chz")).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "f3 e5 g4 Qh4 0-1\n");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("1 game or line could not be written"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut back = Vec::new();
    fs::File::open(dir.path().join("games.pgn.chz")).unwrap().read_to_end(&mut back).unwrap();
    assert_eq!(chesszip::expand_bytes(&back, &common::expand_opts()).unwrap(), pgn, "the archive itself keeps the game");
}

/// `/dev/full`, where every write fails with "no space left on device".
fn full() -> Stdio {
    Stdio::from(fs::OpenOptions::new().write(true).open("/dev/full").unwrap())
}

/// Runs `cmd` and checks that it exited 1, not killed by a signal (a panic aborts the release
/// build), with `what` in the message.
#[track_caller]
fn exits_1(mut cmd: Command, what: &str) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert_eq!(out.status.signal(), None, "{what}: killed by a signal: {:?}", out.status);
    assert_eq!(out.status.code(), Some(1), "{what}: {:?}, stderr {}", out.status, String::from_utf8_lossy(&out.stderr));
    out
}

#[test]
fn a_full_standard_error_stops_no_work_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    let b = dir.path().join("b.txt");
    fs::write(&a, first_games(5)).unwrap();
    fs::write(&b, first_games(7)).unwrap();
    // -v's line for a.txt cannot be written: b.txt is still compressed.
    let mut cmd = chesszip();
    cmd.args(["-1", "-v"]).arg(&a).arg(&b).stderr(full());
    exits_1(cmd, "compress -v 2>/dev/full");
    assert_eq!(listing(dir.path()), ["a.txt", "a.txt.chz", "b.txt", "b.txt.chz"]);
    for (archive, text) in [("a.txt.chz", first_games(5)), ("b.txt.chz", first_games(7))] {
        let out = chesszip().arg("-dc").arg(dir.path().join(archive)).output().unwrap();
        assert_eq!(out.stdout, text, "{archive}");
    }
    // -t -v of both: both tested (a damaged second archive still fails, with its message lost).
    let mut cmd = chesszip();
    cmd.args(["-t", "-v"]).arg(dir.path().join("a.txt.chz")).arg(dir.path().join("b.txt.chz")).stderr(full());
    exits_1(cmd, "-t -v 2>/dev/full");
    // Without -v nothing is written to standard error: success.
    let status = chesszip().arg("-t").arg(dir.path().join("a.txt.chz")).stderr(full()).status().unwrap();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn a_full_standard_output_is_exit_1_never_a_signal() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    fs::write(&a, first_games(5)).unwrap();
    assert!(chesszip().arg("-1").arg(&a).status().unwrap().success());
    let archive = dir.path().join("a.txt.chz");
    let cases: [&[&str]; 6] =
        [&["info"], &["-dc"], &["-d", "-o", "-"], &["extract", "--game", "1"], &["completions", "bash"], &["manpage"]];
    for args in cases {
        let mut cmd = chesszip();
        cmd.args(args);
        if !matches!(args[0], "completions" | "manpage") {
            cmd.arg(&archive);
        }
        cmd.stdout(full());
        let out = exits_1(cmd, &format!("{args:?} >/dev/full"));
        assert!(String::from_utf8_lossy(&out.stderr).contains("No space left"), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let mut cmd = chesszip();
    cmd.arg("--help").stdout(full());
    exits_1(cmd, "--help >/dev/full");
    // -dc of two archives: stops after the first, with one message.
    let mut cmd = chesszip();
    cmd.arg("-dc").arg(&archive).arg(&archive).stdout(full());
    let out = exits_1(cmd, "-dc a a >/dev/full");
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1, "{}", String::from_utf8_lossy(&out.stderr));
}

/// Runs `chesszip ARGS` with standard output a pipe whose reading end is closed before the run
/// writes anything, and returns how it ended.
fn with_closed_stdout(args: &[&str], dir: &Path) -> std::process::ExitStatus {
    let mut child =
        chesszip().args(args).current_dir(dir).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    drop(child.stdout.take());
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    let status = child.wait().unwrap();
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    status
}

#[test]
fn a_broken_output_pipe_is_never_success() {
    // `chesszip -c big.txt | head -c 10`: the output is cut, so the run ends as gzip, xz and
    // zstd end, killed by SIGPIPE (exit status 141 in a shell), whatever it was writing.
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("g.txt"), first_games(300)).unwrap();
    let archive = chesszip::compress_bytes(&first_games(300), &common::fast());
    fs::write(dir.path().join("a.chz"), &archive).unwrap();
    for args in [
        &["-1", "-c", "g.txt"][..],
        &["compress", "-1", "-c", "g.txt"],
        &["-dc", "a.chz"],
        &["expand", "-c", "a.chz"],
        &["expand", "--format", "movetext", "-c", "a.chz"],
        &["extract", "--game", "1..", "a.chz"],
        &["info", "a.chz"],
        &["-l", "a.chz"],
    ] {
        // A child that another test forks meanwhile may hold the reading end for a moment
        // (until its exec), so that a short output still fits in the pipe: a few tries.
        let status = (0..5).map(|_| with_closed_stdout(args, dir.path())).find(|s| !s.success()).unwrap_or_default();
        assert!(!status.success(), "{args:?}: {status:?}");
        assert_eq!(status.signal(), Some(13), "{args:?}: killed by SIGPIPE, as gzip is: {status:?}");
    }
    assert_eq!(listing(dir.path()), ["a.chz", "g.txt"], "no temporary file left");
}

/// Bytes [`stream_into`] writes at most: far more than the 4 KiB `info`, `-l` and `extract`
/// check before reading a stream whole.
const STREAM_LIMIT: usize = 64 << 20;

/// Writes `pattern` again and again, up to [`STREAM_LIMIT`] bytes, into `sink` until a write
/// fails (the reader has gone); returns the bytes written.
fn write_repeated(mut sink: impl Write, pattern: &[u8]) -> usize {
    let chunk: Vec<u8> = pattern.iter().copied().cycle().take(1 << 16).collect();
    let mut written = 0;
    while written < STREAM_LIMIT && sink.write_all(&chunk).is_ok() {
        written += chunk.len();
    }
    written
}

/// Runs chesszip with `args`, standard input a pipe carrying `pattern` repeated (at most
/// [`STREAM_LIMIT`] bytes): its output and the bytes it took before it ended.
fn stream_into(args: &[&str], pattern: &'static [u8]) -> (std::process::Output, usize) {
    let mut child = chesszip().args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || write_repeated(stdin, pattern));
    let out = child.wait_with_output().unwrap();
    (out, writer.join().unwrap())
}

/// Runs chesszip with `args` and then a FIFO named `zeros.chz` that a thread fills with zeros
/// until the reader closes it, and checks that it was refused as no archive (status 1, the
/// magic bytes' message) after less than a quarter of [`STREAM_LIMIT`] bytes.
fn fifo_of_zeros_is_refused_at_once(args: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("zeros.chz");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let path = fifo.clone();
    let writer = std::thread::spawn(move || write_repeated(fs::OpenOptions::new().write(true).open(&path).unwrap(), &[0]));
    let out = chesszip().args(args).arg(&fifo).output().unwrap();
    let taken = writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("zeros.chz: corrupt archive: not a chesszip archive (wrong magic bytes)"), "{stderr}");
    assert!(taken < STREAM_LIMIT / 4, "read {taken} bytes of a FIFO that is no archive");
}

/// Pseudo-random bytes (xorshift), a stream no check mistakes for text or compressed data.
fn noise() -> &'static [u8] {
    let mut x = 0x9e37_79b9_u32;
    let bytes: Vec<u8> = (0..20_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect();
    bytes.leak()
}

#[test]
fn a_large_stream_that_is_no_archive_is_refused_at_once() {
    // `yes | chesszip -l` used to read the whole stream before looking at it (out of memory).
    let cases: [(&[u8], &str); 3] = [
        (b"y\n", "not a chesszip archive (it looks like text: compress it with `chesszip FILE`)"),
        (&[0], "corrupt archive: not a chesszip archive (wrong magic bytes)"),
        (noise(), "corrupt archive: not a chesszip archive (wrong magic bytes)"),
    ];
    for args in [&["-l"][..], &["info", "-"], &["extract", "-", "--game", "1"], &["extract", "-", "--tags"]] {
        for (pattern, message) in cases {
            let (out, taken) = stream_into(args, pattern);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
            assert!(stderr.contains(&format!("(stdin): {message}")), "{args:?}: {stderr}");
            assert!(taken < STREAM_LIMIT / 4, "{args:?} read {taken} bytes of a stream that is no archive");
        }
    }
    // The message is the one `-t` gives.
    let (out, _) = stream_into(&["-t"], &[0]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("(stdin): corrupt archive: not a chesszip archive (wrong magic bytes)"));
}

#[test]
fn a_large_fifo_that_is_no_archive_is_refused_at_once() {
    fifo_of_zeros_is_refused_at_once(&["info"]);
}

#[test]
fn a_salvage_of_a_stream_that_is_no_archive_is_refused_at_once() {
    // `head -c 200M /dev/zero | chesszip -d --salvage` used to read the whole stream into memory
    // before the library refused it from its first bytes; it is refused from its head, with
    // the same message.
    for pattern in [&[0u8][..], noise()] {
        for args in [&["-d", "--salvage", "-c"][..], &["expand", "--salvage", "-c", "-"]] {
            let (out, taken) = stream_into(args, pattern);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
            assert!(stderr.contains("(stdin): corrupt archive: not a chesszip archive (wrong magic bytes)"), "{args:?}: {stderr}");
            assert!(out.stdout.is_empty(), "{args:?}");
            assert!(taken < STREAM_LIMIT / 4, "{args:?} read {taken} bytes of a stream that is no archive");
        }
    }
    // A FIFO, named as a file.
    fifo_of_zeros_is_refused_at_once(&["-d", "--salvage", "-f", "-c"]);
}

/// `bytes` written to `path` and salvaged (`-d --salvage -c`, and `args`) from the file and
/// from a pipe: checks that both exit with `status` and give the same output and messages,
/// and returns the pipe's run.
fn salvaged_from_file_and_pipe(path: &Path, bytes: Vec<u8>, args: &[&str], status: i32) -> std::process::Output {
    let name = path.display().to_string();
    fs::write(path, &bytes).unwrap();
    let from_file = chesszip().args(["-d", "--salvage", "-c"]).args(args).arg(path).output().unwrap();
    let mut child = chesszip()
        .args(["-d", "--salvage", "-c"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // (A stream refused from its head is not read to its end: the write may then fail.)
    let writer = std::thread::spawn(move || stdin.write_all(&bytes).is_ok());
    let from_pipe = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&from_file.stderr).replace(&name, "(stdin)");
    assert_eq!(from_file.status.code(), Some(status), "{name}: {stderr}");
    assert_eq!(from_pipe.status.code(), Some(status), "{name}: {}", String::from_utf8_lossy(&from_pipe.stderr));
    assert!(from_pipe.stdout == from_file.stdout, "{name}");
    assert_eq!(String::from_utf8_lossy(&from_pipe.stderr), stderr, "{name}");
    from_pipe
}

#[test]
fn a_salvage_from_a_pipe_recovers_what_it_does_from_a_file() {
    // An archive followed by 64 KiB of zeros (padding, ignored: status 0) and by zeros and a
    // byte (a damaged concatenation: they start no member), and the zeros followed by the
    // archive (no archive at all); two members, the
    // first with a damaged block, and with the zeros between them: the same output, messages
    // and status from a pipe (salvaged member by member) as from the file.
    let games = first_games(400);
    let archive = chesszip::compress_bytes(&games, &common::fast());
    let zeros = vec![0u8; 1 << 16];
    let blocks = chesszip::compress_bytes(&games, &chesszip::CompressOptions { block_lines: 100, raw_form: false, ..common::fast() });
    let mut damaged = blocks.clone();
    let mid = damaged.len() / 2;
    damaged[mid] ^= 0x55;
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes, status) in [
        ("after.chz", [&archive[..], &zeros].concat(), 0),
        ("after-x.chz", [&archive[..], &zeros, b"x"].concat(), 2),
        ("before.chz", [&zeros[..], &archive].concat(), 1),
        ("two.chz", [&damaged[..], &archive].concat(), 2),
        ("between.chz", [&damaged[..], &zeros, &archive].concat(), 2),
    ] {
        let from_pipe = salvaged_from_file_and_pipe(&dir.path().join(name), bytes, &[], status);
        if name.starts_with("after") {
            assert!(from_pipe.stdout == games, "{name}: the archive's text is recovered");
        } else if status == 2 {
            assert!(from_pipe.stdout.ends_with(&games), "{name}: the second member's text is recovered");
            assert!(from_pipe.stdout.len() > games.len(), "{name}: and the first's sound blocks");
        }
    }
}

/// Lines of `len` bytes (the line feed included) of `alphabet`'s bytes drawn by xorshift from
/// `seed`, `count` of them.
fn random_lines(alphabet: &[u8], len: usize, count: usize, seed: u32) -> Vec<u8> {
    let mut x = seed;
    let mut out = Vec::with_capacity(len * count);
    for i in 0..len * count {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        out.push(if i % len == len - 1 { b'\n' } else { alphabet[x as usize % alphabet.len()] });
    }
    out
}

#[test]
fn a_salvage_from_a_pipe_of_a_member_larger_than_the_memlimit_is_that_of_a_file() {
    // Under `--memlimit 1MiB`, a first member larger than that (the hold of a pipe's salvage)
    // whose first block or raw window the limit refuses: a file leaves it out whole and reads
    // the members after it, or fails for a single archive. A pipe held 1 MiB of it, which gave
    // nothing, and reported the rest as not read (status 2, the members after it lost); it now
    // passes over the member unheld to its end. Also bytes that start no member past 1 MiB
    // between members (a pipe's scan for the next member panicked under so small a hold).
    let games = first_games(400);
    let archive = chesszip::compress_bytes(&games, &common::fast());
    let bytes: Vec<u8> = (1..=255u8).filter(|&b| b != b'\n').collect();
    let noise = random_lines(&bytes, 1000, 1300, 0x1234_5678);
    let one_block = chesszip::compress_bytes(&noise, &chesszip::CompressOptions { block_lines: 2000, ..common::fast() });
    let letters = random_lines(b"abcdefghijklmnopqrstuvwxyz", 500, 5000, 0x9e37_79b9);
    let raw = chesszip::compress_bytes(&letters, &chesszip::CompressOptions { raw_form: true, ..common::fast() });
    assert!(chesszip::container::raw::is_raw(&raw) && !chesszip::container::raw::is_raw(&one_block));
    assert!(one_block.len() > 1 << 20 && raw.len() > 1 << 20, "{} and {} bytes", one_block.len(), raw.len());
    let zeros = vec![0u8; 3 << 20];
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes, status) in [
        ("block.chz", [&one_block[..], &archive].concat(), 2),
        ("raw.chz", [&raw[..], &archive].concat(), 2),
        ("alone.chz", one_block.clone(), 1),
        ("zeros.chz", [&archive[..], &zeros, &archive].concat(), 2),
        ("all.chz", [&one_block[..], &zeros, &raw, &archive].concat(), 2),
    ] {
        let out = salvaged_from_file_and_pipe(&dir.path().join(name), bytes, &["--memlimit", "1MiB"], status);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("not read") && !stderr.contains("holds at most"), "{name}: {stderr}");
        if name == "alone.chz" {
            assert!(stderr.contains("memory limit"), "{name}: {stderr}");
        } else {
            assert!(out.stdout.ends_with(&games), "{name}: the last member's text is recovered");
        }
    }
}

/// Peak resident memory of process `pid` so far (`VmHWM`), in bytes.
fn peak_rss(pid: u32) -> u64 {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).expect("VmHWM in /proc/PID/status");
    kb.trim().trim_end_matches("kB").trim().parse::<u64>().unwrap() * 1024
}

#[test]
fn a_salvage_of_an_archive_and_a_long_tail_from_a_pipe_holds_little() {
    // `cat a.chz /dev/zero | chesszip -d --salvage` held the whole stream until memory ran
    // out; the stream is salvaged member by member, and the zeros (no member) are scanned
    // without being held: a's text, and a peak far below the 64 MiB. Zeros to the end are
    // padding (status 0, nothing said); any other byte after them would make them a part
    // left out (`a_salvage_from_a_pipe_recovers_what_it_does_from_a_file`).
    let games = first_games(400);
    let archive = chesszip::compress_bytes(&games, &common::fast());
    let mut child =
        chesszip().args(["-d", "--salvage", "-c"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        stdin.write_all(&archive).unwrap();
        let written = write_repeated(&mut stdin, &[0]);
        // All but what the pipe buffers is read: the peak so far is the run's.
        (written, peak_rss(pid))
    });
    let out = child.wait_with_output().unwrap();
    let (written, peak) = writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(written, STREAM_LIMIT, "the whole tail is read");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(out.stdout == games, "the archive's text");
    assert!(stderr.is_empty(), "zero padding: {stderr}");
    assert!(peak < 48 << 20, "peak RSS {peak} bytes for a 64 MiB tail");
}

#[test]
fn archives_longer_than_the_checked_head_still_read_from_a_pipe() {
    // A block-container archive and a raw-form one (incompressible bytes), both past 4 KiB.
    let games = chesszip::compress_bytes(&first_games(400), &common::fast());
    let raw = chesszip::compress_bytes(noise(), &chesszip::CompressOptions { raw_form: true, ..common::fast() });
    assert!(raw.starts_with(&chesszip::container::raw::RAW_MAGIC), "incompressible input takes the raw form");
    for archive in [games, raw] {
        assert!(archive.len() > 4096, "{} bytes", archive.len());
        let mut child = chesszip().arg("-l").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let bytes = archive.clone();
        let writer = std::thread::spawn(move || stdin.write_all(&bytes));
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stdout).contains("(stdin)"), "{}", String::from_utf8_lossy(&out.stdout));
    }
}
