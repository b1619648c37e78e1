//! The `chesszip` binary: names, standard streams, existing files, damaged input, exit
//! statuses (0 success, 1 error, 2 warning), info and extract.

use crate::common;

use std::fs;
use std::path::PathBuf;

use common::{chesszip, first_games, listing, stderr_of};

/// A directory with `games.txt` (a few games and a raw line).
fn workdir() -> (tempfile::TempDir, PathBuf, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let text = [first_games(6), b"[Event \"raw\"]\n".to_vec(), first_games(2)].concat();
    let path = dir.path().join("games.txt");
    fs::write(&path, &text).unwrap();
    (dir, path, text)
}

#[test]
fn compress_then_expand_by_name_keeps_the_input() {
    let (dir, path, text) = workdir();
    chesszip().args(["compress", "-1"]).arg(&path).assert().success().stdout("").stderr("");
    assert_eq!(listing(dir.path()), ["games.txt", "games.txt.chz"]);
    assert_eq!(fs::read(&path).unwrap(), text, "input kept");
    fs::rename(&path, dir.path().join("orig.txt")).unwrap();
    chesszip().arg("expand").arg(dir.path().join("games.txt.chz")).assert().success();
    assert_eq!(fs::read(&path).unwrap(), text);
    assert!(dir.path().join("games.txt.chz").exists(), "archive kept");
}

#[test]
fn gzip_style_without_command() {
    let (dir, path, text) = workdir();
    chesszip().args(["-1", "-k"]).arg(&path).assert().success();
    let archive = dir.path().join("games.txt.chz");
    chesszip().arg("-dc").arg(&archive).assert().success().stdout(text.clone());
    chesszip().arg("-t").arg(&archive).assert().success().stdout("");
    fs::remove_file(&path).unwrap();
    chesszip().arg("-d").arg(&archive).assert().success();
    assert_eq!(fs::read(&path).unwrap(), text);
}

#[test]
fn stdin_to_stdout_both_ways() {
    let (_dir, _path, text) = workdir();
    let out = chesszip().args(["-1", "-f"]).write_stdin(text.clone()).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(out.stdout.starts_with(b"\x89CHZ"));
    chesszip().args(["expand", "-"]).write_stdin(out.stdout.clone()).assert().success().stdout(text.clone());
    chesszip().args(["x"]).write_stdin(out.stdout).assert().success().stdout(text);
}

#[test]
fn output_option_and_stdout_option() {
    let (dir, path, text) = workdir();
    let named = dir.path().join("named.bin");
    chesszip().args(["compress", "--level", "1", "-o"]).arg(&named).arg(&path).assert().success();
    let out = dir.path().join("back.txt");
    chesszip().args(["expand", "-o"]).arg(&out).arg(&named).assert().success();
    assert_eq!(fs::read(&out).unwrap(), text);
    let archive = chesszip().args(["compress", "-1", "-c"]).arg(&path).output().unwrap().stdout;
    assert_eq!(archive, fs::read(&named).unwrap());
    chesszip().args(["expand", "-o", "-"]).arg(&named).assert().success().stdout(text);
}

#[test]
fn existing_outputs_need_force() {
    let (dir, path, _) = workdir();
    let archive = dir.path().join("games.txt.chz");
    fs::write(&archive, b"precious").unwrap();
    let out = chesszip().args(["compress", "-1"]).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("already exists"), "{}", stderr_of(&out));
    assert_eq!(fs::read(&archive).unwrap(), b"precious");
    chesszip().args(["compress", "-1", "-f"]).arg(&path).assert().success();
    assert!(fs::read(&archive).unwrap().starts_with(b"\x89CHZ"));
    // Expanding over the existing text file needs -f too.
    let out = chesszip().arg("expand").arg(&archive).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    chesszip().args(["expand", "-f"]).arg(&archive).assert().success();
}

#[test]
fn the_input_is_never_the_output() {
    let (dir, path, _) = workdir();
    chesszip().args(["compress", "-1"]).arg(&path).assert().success();
    let archive = dir.path().join("games.txt.chz");
    let before = fs::read(&archive).unwrap();
    let out = chesszip().args(["expand", "-f", "-o"]).arg(&archive).arg(&archive).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("overwrite the input"), "{}", stderr_of(&out));
    assert_eq!(fs::read(&archive).unwrap(), before);
}

#[test]
fn damaged_archives_fail_cleanly_and_leave_no_output() {
    let (dir, path, _) = workdir();
    chesszip().args(["compress", "-1", "--block-lines", "3"]).arg(&path).assert().success();
    fs::remove_file(&path).unwrap();
    let archive = dir.path().join("games.txt.chz");
    let original = fs::read(&archive).unwrap();
    let mut bytes = original.clone();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x20;
    fs::write(&archive, &bytes).unwrap();
    for args in [&["expand"][..], &["-d"], &["-t"], &["expand", "-c"]] {
        let out = chesszip().args(args).arg(&archive).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr_of(&out);
        assert!(err.starts_with("chesszip: ") && err.contains("games.txt.chz") && err.contains("block"), "{err}");
        assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "{err}");
    }
    assert_eq!(listing(dir.path()), ["games.txt.chz"], "no partial or temporary output");
    // A truncated archive.
    fs::write(&archive, &original[..original.len() - 5]).unwrap();
    let out = chesszip().arg("-d").arg(&archive).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("truncated"), "{}", stderr_of(&out));
    assert_eq!(listing(dir.path()), ["games.txt.chz"]);
    // Not an archive at all.
    let out = chesszip().args(["expand", "-c", "-"]).write_stdin("e4 e5 1-0\n").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("not a chesszip archive"), "{}", stderr_of(&out));
}

#[test]
fn names_that_do_not_fit_are_skipped_with_a_warning() {
    let (dir, path, text) = workdir();
    // Expanding a file without the .chz suffix.
    let out = chesszip().arg("expand").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("unknown suffix"), "{}", stderr_of(&out));
    // Compressing a .chz file.
    let chz = dir.path().join("x.chz");
    fs::write(&chz, &text).unwrap();
    let out = chesszip().args(["compress", "-1"]).arg(&chz).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("already has the .chz suffix"));
    // -q silences warnings but keeps the status.
    chesszip().args(["compress", "-q", "-1"]).arg(&chz).assert().code(2).stderr("");
    // A directory.
    chesszip().args(["compress", "-1"]).arg(dir.path()).assert().code(2);
    assert_eq!(listing(dir.path()), ["games.txt", "x.chz"]);
}

#[test]
fn errors_on_one_file_do_not_stop_the_others() {
    let (dir, path, _) = workdir();
    let missing = dir.path().join("missing.txt");
    let out = chesszip().args(["compress", "-1"]).arg(&missing).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("missing.txt"), "{}", stderr_of(&out));
    assert!(dir.path().join("games.txt.chz").exists());
}

#[test]
fn bad_usage_exits_1() {
    let (dir, path, _) = workdir();
    for args in [&["--level", "0"][..], &["--level", "10"], &["--block-lines", "0"], &["--no-such-flag"]] {
        chesszip().arg("compress").args(args).arg(&path).assert().code(1);
    }
    let other = dir.path().join("other.txt");
    fs::write(&other, "x\n").unwrap();
    chesszip().args(["compress", "-o", "out.chz"]).arg(&path).arg(&other).assert().code(1);
    // Several inputs to standard output are one concatenated archive (tests/it/concat.rs), not an error.
    chesszip().args(["compress", "-c", "-1"]).arg(&path).arg(&other).assert().code(0);
    chesszip().args(["extract", "--game", "0"]).arg(&path).assert().code(1);
    chesszip().args(["extract", "--game", "5..2"]).arg(&path).assert().code(1);
    chesszip().arg("--help").assert().success();
    chesszip().arg("--version").assert().success();
}

#[test]
fn out_of_range_threads_and_levels_are_clear_errors() {
    let (_dir, path, _) = workdir();
    // -T: 0 to 256, as --help says, for every command that has it.
    for args in [&["-T", "257"][..], &["compress", "--threads", "1000"], &["-d", "-T", "257"], &["extract", "-g", "1", "-T", "300"]] {
        let out = chesszip().args(args).arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(stderr_of(&out).contains("is not in 0..=256"), "{args:?}: {}", stderr_of(&out));
    }
    let out = chesszip().args(["-T", "256", "-1", "-c"]).arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    // -19 would be -1 -9 to clap; levels have one digit, and there is no level 0.
    for (args, message) in [
        (&["-19"][..], "-19: level 19 does not exist; the levels are 1 (fastest) to 10 (strongest): -1 .. -9, -10 or --level N"),
        (&["compress", "-v10"], "-v10: there is no level 0"),
        (&["-0"], "-0: there is no level 0; the levels are 1 (fastest) to 10 (strongest"),
        (&["--level", "11"], "11 is not in 1..=10"),
        (&["-11"], "-11: level 11 does not exist; the levels are 1 (fastest) to 10"),
        (&["bench", "-l", "1,11"], "11 is not in 1..=10"),
    ] {
        let out = chesszip().args(args).arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(stderr_of(&out).contains(message), "{args:?}: {}", stderr_of(&out));
        assert!(out.stdout.is_empty());
    }
    // Digits that are an option's value are no levels.
    let out = chesszip().args(["-T16", "-1", "-c"]).arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
}

#[test]
fn levels_last_one_wins() {
    let (_dir, path, _) = workdir();
    // Games enough for the block container, which records the level (a tiny input takes the
    // whole-input raw form, which records none).
    let short = first_games(8);
    for (args, level) in [
        (&["-1"][..], 1u8),
        (&["-9"], 9),
        (&["-3", "-2"], 2),
        (&["--level", "4", "-1"], 1),
        (&["-1", "--level", "4"], 4),
        (&["-1k2"], 2),
        (&["--best"], 9),
        (&["--fast"], 1),
        (&["-9", "--fast"], 1),
        (&["--best", "-3"], 3),
        (&["--fast", "--level", "5"], 5),
    ] {
        let archive = chesszip().arg("compress").args(args).arg("-c").write_stdin(short.clone()).output().unwrap();
        assert!(archive.status.success(), "{args:?}: {}", stderr_of(&archive));
        let info = chesszip().args(["info", "-"]).write_stdin(archive.stdout).output().unwrap();
        let info = String::from_utf8(info.stdout).unwrap();
        assert!(info.contains(&format!("level:          {level}\n")), "{args:?}: {info}");
    }
    let _ = path;
}

#[test]
fn verbose_reports_sizes_and_bits_per_ply() {
    let (_dir, path, text) = workdir();
    let out = chesszip().args(["compress", "-1", "-v", "-c"]).arg(&path).output().unwrap();
    let err = stderr_of(&out);
    assert!(err.contains(&format!("{} ->", text.len())) && err.contains("bits/ply") && err.contains("plies"), "{err}");
    let out = chesszip().args(["-t", "-v", "-"]).write_stdin(out.stdout).output().unwrap();
    assert!(out.status.success());
    assert!(stderr_of(&out).contains("OK"), "{}", stderr_of(&out));
}

#[test]
fn info_and_extract() {
    let (dir, path, text) = workdir();
    chesszip().args(["compress", "-1", "--block-lines", "2"]).arg(&path).assert().success();
    let archive = dir.path().join("games.txt.chz");
    let out = chesszip().arg("info").arg(&archive).output().unwrap();
    let info = String::from_utf8(out.stdout).unwrap();
    for expected in ["games:          8\n", "raw lines:      1\n", "lines:          9\n", "blocks:         5\n", "level:          1\n"] {
        assert!(info.contains(expected), "{expected:?} in {info}");
    }
    assert!(info.contains("bits per ply:") && info.contains("model id:") && info.contains("archive bytes:"));
    let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
    chesszip().arg("extract").arg(&archive).args(["--game", "3"]).assert().success().stdout(lines[2].to_vec());
    chesszip().arg("extract").arg(&archive).args(["-g", "4..7"]).assert().success().stdout(lines[3..7].concat());
    chesszip().arg("extract").arg(&archive).args(["-g", "8.."]).assert().success().stdout(lines[7..].concat());
    // Partly past the end: what exists, and a warning; wholly past the end: an error.
    chesszip().arg("extract").arg(&archive).args(["-g", "9..20"]).assert().code(2).stdout(lines[8].to_vec());
    chesszip().arg("extract").arg(&archive).args(["-g", "10"]).assert().code(1).stdout("");
    // Damaged and foreign files.
    chesszip().arg("info").arg(&path).assert().code(1);
    chesszip().arg("extract").arg(&path).args(["-g", "1"]).assert().code(1);
}

#[test]
fn completions_and_manual_page() {
    let bash = chesszip().args(["completions", "bash"]).output().unwrap();
    assert!(bash.status.success());
    assert!(String::from_utf8_lossy(&bash.stdout).contains("chesszip"));
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        chesszip().args(["completions", shell]).assert().success();
    }
    let man = chesszip().arg("manpage").output().unwrap();
    assert!(man.status.success());
    assert!(String::from_utf8_lossy(&man.stdout).starts_with(".ie"), "roff");
}

#[cfg(unix)]
#[test]
fn fifos_and_devices_are_written_in_place_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let (dir, path, text) = workdir();
    chesszip().args(["compress", "-1"]).arg(&path).assert().success();
    let archive = dir.path().join("games.txt.chz");
    let fifo = dir.path().join("pipe");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let (tx, rx) = std::sync::mpsc::channel();
    let reading = fifo.clone();
    std::thread::spawn(move || tx.send(fs::read(&reading).unwrap()));
    chesszip().args(["expand", "-o"]).arg(&fifo).arg(&archive).assert().success();
    let got = rx.recv_timeout(std::time::Duration::from_secs(20)).expect("the FIFO was written");
    assert_eq!(got, text);
    assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo(), "the FIFO is still a FIFO");
    // /dev/null stays a device (no -f needed, nothing is replaced).
    chesszip().args(["expand", "-o", "/dev/null"]).arg(&archive).assert().success();
    assert!(fs::metadata("/dev/null").unwrap().file_type().is_char_device());
}

#[test]
fn stdout_and_output_together_are_a_usage_error() {
    let (dir, path, _) = workdir();
    let out = chesszip().args(["-1", "-c", "-o"]).arg(dir.path().join("x.chz")).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(out.stdout.is_empty());
    assert_eq!(listing(dir.path()), ["games.txt"]);
}

#[test]
fn movetext_conversion_that_leaves_games_out_warns_with_status_2() {
    // games.txt holds a raw line, which cannot be written as movetext.
    let (dir, path, _) = workdir();
    chesszip().args(["-1"]).arg(&path).assert().success();
    let archive = dir.path().join("games.txt.chz");
    for args in [&["expand", "--format", "movetext", "-c"][..], &["-d", "--format", "movetext", "-c"][..]] {
        let out = chesszip().args(args).arg(&archive).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr_of(&out));
        assert!(stderr_of(&out).contains("left out"));
        assert!(out.stdout == [first_games(6), first_games(2)].concat(), "{args:?}: the games, without the raw line");
    }
    let out = chesszip().args(["-d", "--format", "pgn", "-c"]).arg(&archive).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn info_extract_and_test_on_the_benchmark_archive() {
    let dir = tempfile::tempdir().unwrap();
    let text = fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/data/Chess_Games.txt")).unwrap();
    let path = dir.path().join("Chess_Games.txt");
    fs::write(&path, &text).unwrap();
    chesszip().arg("-1").arg(&path).assert().success();
    let archive = dir.path().join("Chess_Games.txt.chz");

    let out = chesszip().arg("info").arg(&archive).output().unwrap();
    assert!(out.status.success());
    let info = String::from_utf8(out.stdout).unwrap();
    for expected in [
        "games:          10000\n",
        "raw lines:      0\n",
        "lines:          10000\n",
        "plies:          676149\n",
        "blocks:         10\n",
        "level:          1\n",
    ] {
        assert!(info.contains(expected), "{expected:?} in {info}");
    }

    // Single games and a range across the boundary of the first two blocks (1000 games each).
    let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
    for n in [1, 1000, 1001, 5000, 10000] {
        chesszip().arg("extract").arg(&archive).args(["--game", &n.to_string()]).assert().success().stdout(lines[n - 1].to_vec());
    }
    chesszip().arg("extract").arg(&archive).args(["-g", "995..1005"]).assert().success().stdout(lines[994..1005].concat());

    // `-t` passes on the archive and fails on a damaged copy, writing nothing.
    chesszip().arg("-t").arg(&archive).assert().success().stdout("").stderr("");
    let mut damaged = fs::read(&archive).unwrap();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 0x10;
    let damaged_path = dir.path().join("damaged.chz");
    fs::write(&damaged_path, &damaged).unwrap();
    chesszip().arg("-t").arg(&damaged_path).assert().code(1).stdout("");
}

/// A directory with `games.pgn`: three PGN games, the second with CRLF line ends.
fn pgn_workdir() -> (tempfile::TempDir, PathBuf, Vec<&'static [u8]>) {
    let games: Vec<&[u8]> = vec![
        b"[Event \"a\"]\n[Site \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n",
        b"[Event \"b\"]\r\n\r\n1. d4 d5 2. c4 *\r\n\r\n",
        b"[Event \"c\"]\n\n1. c4 { hm } c5 0-1\n",
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.pgn");
    fs::write(&path, games.concat()).unwrap();
    (dir, path, games)
}

#[test]
fn extract_counts_games_in_pgn_archives_and_lines_on_request() {
    let (dir, path, games) = pgn_workdir();
    chesszip().args(["compress", "-1", "--block-lines", "1"]).arg(&path).assert().success();
    let archive = dir.path().join("games.pgn.chz");
    let extract = |args: &[&str]| chesszip().arg("extract").arg(&archive).args(args).assert();
    extract(&["--game", "2"]).success().stdout(games[1].to_vec());
    extract(&["-g", "2..3"]).success().stdout(games[1..].concat());
    extract(&["--games", "1.."]).success().stdout(games.concat());
    let all = games.concat();
    let lines: Vec<&[u8]> = all.split_inclusive(|&b| b == b'\n').collect();
    extract(&["--line", "2"]).success().stdout(lines[1].to_vec());
    extract(&["-l", "4..6"]).success().stdout(lines[3..6].concat());
    // Past the end: what exists and a warning, or an error naming the number of games.
    let out = chesszip().arg("extract").arg(&archive).args(["-g", "3..9"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(out.stdout, games[2]);
    assert!(stderr_of(&out).contains("holds 3 games"), "{}", stderr_of(&out));
    let out = chesszip().arg("extract").arg(&archive).args(["-g", "4"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("cannot extract game 4: the archive holds 3 games"), "{}", stderr_of(&out));
    // One of --game and --line, not both.
    extract(&["-g", "1", "-l", "1"]).code(1);
    chesszip().arg("extract").arg(&archive).assert().code(1);
}

#[test]
fn movetext_conversion_is_named_for_what_it_holds() {
    let (dir, path, games) = pgn_workdir();
    chesszip().args(["-1"]).arg(&path).assert().success();
    let archive = dir.path().join("games.pgn.chz");
    chesszip().args(["expand", "--format", "movetext"]).arg(&archive).assert().success();
    let movetext = b"e4 e5 Nf3 Nc6 1-0\nd4 d5 c4 *\nc4 c5 0-1\n";
    assert_eq!(fs::read(dir.path().join("games.txt")).unwrap(), movetext);
    assert_eq!(fs::read(&path).unwrap(), games.concat(), "input kept");
    // Not over an existing file without -f; -d --format movetext names it the same way.
    chesszip().args(["-d", "--format", "movetext"]).arg(&archive).assert().code(1);
    fs::remove_file(dir.path().join("games.txt")).unwrap();
    chesszip().args(["-d", "--format", "movetext"]).arg(&archive).assert().success();
    assert_eq!(fs::read(dir.path().join("games.txt")).unwrap(), movetext);
    assert_eq!(listing(dir.path()), ["games.pgn", "games.pgn.chz", "games.txt"]);
    let help = String::from_utf8(chesszip().args(["expand", "--help"]).output().unwrap().stdout).unwrap();
    assert!(help.contains("FILE.pgn.chz, FILE.txt.chz and FILE.chz are written to FILE.txt"), "{help}");
}

#[test]
fn help_lists_every_level() {
    for args in [&["--help"][..], &["compress", "--help"]] {
        let help = String::from_utf8(chesszip().args(args).output().unwrap().stdout).unwrap();
        for level in 1..=9 {
            let flag = format!("-{level}");
            let listed =
                help.lines().any(|l| l.trim_start().strip_prefix(&flag).is_some_and(|rest| rest.is_empty() || rest.starts_with("  ")));
            assert!(listed, "{flag} in {args:?}: {help}");
        }
        assert!(help.contains("Level 2 (the default)") && help.contains("--level <N>"), "{help}");
        assert!(help.contains("--fast") && help.contains("Level 9, the strongest without --weights (-9)"), "{help}");
        assert!(help.contains("-1 .. -9 and -10 are short for it; level 10 needs --weights"), "{help}");
    }
}

/// `chesszip-COMMAND(1)` references of a page (roff writes the hyphen `\-`).
fn page_references(page: &str) -> Vec<String> {
    let page = &page.replace("\\-", "-");
    let mut refs = Vec::new();
    for (i, _) in page.match_indices("chesszip-") {
        let name: String = page[i..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
        if page[i + name.len()..].starts_with("(1)") {
            refs.push(name);
        }
    }
    refs
}

#[test]
fn manual_pages_name_only_pages_that_exist() {
    // On standard output: one page that names no other.
    let man = String::from_utf8(chesszip().arg("manpage").output().unwrap().stdout).unwrap();
    assert!(man.starts_with(".ie") && man.contains(".SH COMMANDS"), "{man}");
    assert_eq!(page_references(&man), Vec::<String>::new(), "{man}");
    assert!(man.contains("chesszip extract") && man.contains("manpage \\-\\-dir"), "{man}");
    // With --dir: a page per command, and every page named is there.
    let dir = tempfile::tempdir().unwrap();
    chesszip().args(["manpage", "--dir"]).arg(dir.path()).assert().success().stdout("");
    let pages = listing(dir.path());
    for name in ["chesszip.1", "chesszip-compress.1", "chesszip-expand.1", "chesszip-extract.1", "chesszip-bench.1"] {
        assert!(pages.contains(&name.to_string()), "{name} in {pages:?}");
    }
    let mut named = 0;
    for page in &pages {
        for reference in page_references(&fs::read_to_string(dir.path().join(page)).unwrap()) {
            assert!(pages.contains(&format!("{reference}.1")), "{page} names {reference}(1), which is not in {pages:?}");
            named += 1;
        }
    }
    assert!(named >= 5, "chesszip.1 names the commands' pages");
}

/// `manpage --dir FILE` where FILE is a file says so; it said "cannot create FILE: File exists".
#[test]
fn manual_pages_into_a_file_say_it_is_no_directory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("man");
    fs::write(&file, "x").unwrap();
    let out = chesszip().args(["manpage", "--dir"]).arg(&file).output().unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.code() == Some(1) && e.contains("is not a directory") && !e.contains("File exists"), "{e}");
    assert_eq!(fs::read_to_string(&file).unwrap(), "x");
}

#[test]
fn bench_finds_its_benchmark_anywhere_and_labels_its_columns() {
    let elsewhere = tempfile::tempdir().unwrap();
    let out = chesszip().current_dir(elsewhere.path()).args(["bench", "-l", "1", "--no-peers"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("Chess_Games.txt: 2789897 bytes, 676149 plies"), "{table}");
    assert!(table.contains("time (s)") && table.contains("plies/s/core") && table.contains("wall-clock seconds"), "{table}");
    assert!(table.contains("chesszip -1"), "{table}");
    // A file that is not there is named.
    let out = chesszip().current_dir(elsewhere.path()).args(["bench", "-l", "1", "--no-peers", "missing.txt"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("missing.txt"), "{}", stderr_of(&out));
}

/// A pseudo-terminal's two ends: (controller, terminal). Standard input given the terminal
/// end is a terminal (`isatty`).
fn pty() -> (std::os::fd::OwnedFd, std::os::fd::OwnedFd) {
    use std::os::fd::FromRawFd;
    let (mut controller, mut terminal) = (-1, -1);
    // SAFETY: openpty writes two new descriptors into the pointers; the others may be null.
    let r = unsafe { libc::openpty(&mut controller, &mut terminal, std::ptr::null_mut(), std::ptr::null(), std::ptr::null()) };
    assert_eq!(r, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors are new and owned by nobody else.
    unsafe { (std::os::fd::OwnedFd::from_raw_fd(controller), std::os::fd::OwnedFd::from_raw_fd(terminal)) }
}

#[test]
fn a_terminal_on_standard_input_is_refused_at_once() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    for args in [&[][..], &["-1"], &["-"], &["compress"], &["-d"], &["-t"], &["expand"], &["-dc", "-"]] {
        let (_controller, terminal) = pty();
        let mut child = Command::new(env!("CARGO_BIN_EXE_chesszip"))
            .args(args)
            .stdin(Stdio::from(terminal))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > Duration::from_secs(20) {
                child.kill().unwrap();
                panic!("{args:?}: still waiting for the terminal");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(stderr_of(&out).starts_with("chesszip: stdin is a terminal, aborting"), "{args:?}: {}", stderr_of(&out));
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn list_prints_a_line_per_archive_and_a_total() {
    let (dir, path, _) = workdir();
    chesszip().args(["-1", "-k"]).arg(&path).assert().success();
    let other = dir.path().join("other.txt");
    fs::write(&other, first_games(30)).unwrap();
    chesszip().args(["-2", "-k"]).arg(&other).assert().success();
    let (a, b) = (dir.path().join("games.txt.chz"), dir.path().join("other.txt.chz"));
    let info = |p: &std::path::Path| chesszip::info(fs::File::open(p).unwrap()).unwrap();
    let (ia, ib) = (info(&a), info(&b));
    let line = |i: &chesszip::ArchiveInfo, level: &str, name: &str| {
        let ratio = format!("{:.2}%", 100.0 * i.archive_bytes as f64 / i.text_bytes as f64);
        format!("{:>10} {:>12} {level:>5} {:>14} {:>14} {ratio:>8}  {name}", i.games, i.plies, i.archive_bytes, i.text_bytes)
    };
    let header = format!("{:>10} {:>12} {:>5} {:>14} {:>14} {:>8}  file", "games", "plies", "level", "compressed", "uncompressed", "ratio");

    let out = chesszip().arg("-l").arg(&a).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{header}\n{}\n", line(&ia, "1", &a.display().to_string())));

    let out = chesszip().arg("--list").arg(&a).arg(&b).output().unwrap();
    let total = chesszip::ArchiveInfo {
        games: ia.games + ib.games,
        plies: ia.plies + ib.plies,
        archive_bytes: ia.archive_bytes + ib.archive_bytes,
        text_bytes: ia.text_bytes + ib.text_bytes,
        ..ia
    };
    let expected = format!(
        "{header}\n{}\n{}\n{}\n",
        line(&ia, "1", &a.display().to_string()),
        line(&ib, "2", &b.display().to_string()),
        line(&total, "-", "total (2 files)")
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
    // A file that is no archive: an error, the others listed, the total says how many.
    let out = chesszip().arg("-l").arg(&a).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let listed = String::from_utf8(out.stdout).unwrap();
    assert!(listed.ends_with("total (1 of 2 files)\n"), "{listed}");
    chesszip().args(["-l", "-d"]).arg(&a).assert().code(1);
}

#[test]
fn expanding_what_is_no_archive_says_what_it_looks_like() {
    let (dir, path, _) = workdir();
    let mut bzip2 = b"BZh91AY&SY".to_vec();
    bzip2.extend_from_slice(&[0; 20]);
    let cases: [(&str, Vec<u8>, &str); 5] = [
        ("x.zst", [&[0x28, 0xb5, 0x2f, 0xfd][..], &[0; 20]].concat(), "it looks like zstd data: try `zstd -d`"),
        ("x.gz", [&[0x1f, 0x8b, 0x08][..], &[0; 20]].concat(), "it looks like gzip data: try `gzip -d`"),
        ("x.xz", [&[0xfd, b'7', b'z', b'X', b'Z', 0][..], &[0; 20]].concat(), "it looks like xz data: try `xz -d`"),
        ("x.bz2", bzip2, "it looks like bzip2 data: try `bzip2 -d`"),
        ("x.chz", fs::read(&path).unwrap(), "it looks like text: compress it with `chesszip "),
    ];
    for (name, bytes, what) in cases {
        let file = dir.path().join(name);
        fs::write(&file, bytes).unwrap();
        for args in [&["-t"][..], &["-dc"], &["expand", "-c"]] {
            let out = chesszip().args(args).arg(&file).output().unwrap();
            assert_eq!(out.status.code(), Some(1), "{args:?} {name}");
            let expected = format!("chesszip: {}: not a chesszip archive ({what}", file.display());
            assert!(stderr_of(&out).starts_with(&expected), "{args:?} {name}: {}", stderr_of(&out));
            assert!(out.stdout.is_empty());
        }
    }
    // On standard input too, and an unknown suffix is still only skipped (exit 2).
    let out = chesszip().arg("-t").write_stdin(fs::read(&path).unwrap()).output().unwrap();
    assert!(stderr_of(&out).contains("(stdin): not a chesszip archive (it looks like text: compress it with `chesszip FILE`)"));
    chesszip().arg("-d").arg(&path).assert().code(2);
    // Real archives of both forms still expand, and other bytes are still corrupt.
    chesszip().args(["-1", "-k"]).arg(&path).assert().success();
    chesszip().arg("-t").arg(dir.path().join("games.txt.chz")).assert().success();
    let raw = chesszip::compress_bytes(b"not games at all\n", &chesszip::CompressOptions::default());
    chesszip().arg("-t").write_stdin(raw).assert().success();
    let out = chesszip().arg("-t").write_stdin(vec![0x00, 0x01, 0x02, 0xff, 0xfe]).output().unwrap();
    assert!(stderr_of(&out).contains("corrupt archive"), "{}", stderr_of(&out));
}

#[test]
fn info_labels_bits_per_ply_and_per_game_as_the_whole_archive() {
    let pgn = fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/lichess.pgn.l1.chz")).unwrap();
    let out = chesszip().args(["info", "-"]).write_stdin(pgn.clone()).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let i = chesszip::info(std::io::Cursor::new(&pgn)).unwrap();
    let whole = "(whole archive: tags, comments and layout included)";
    assert!(text.contains(&format!("bits per ply:   {:.4} {whole}\n", i.bits_per_ply())), "{text}");
    assert!(text.contains(&format!("bits per game:  {:.1} {whole}\n", 8.0 * i.archive_bytes as f64 / i.games as f64)), "{text}");
    let (_dir, path, _) = workdir();
    let out = chesszip().args(["-1", "-c"]).arg(&path).output().unwrap();
    let text = String::from_utf8(chesszip().args(["info", "-"]).write_stdin(out.stdout).output().unwrap().stdout).unwrap();
    assert!(text.contains(" (whole archive)\nbits per game:  "), "{text}");
}

#[test]
fn bench_measures_the_text_inside_a_compressed_file() {
    let (dir, path, text) = workdir();
    let plain = chesszip().args(["bench", "-l", "1", "--no-peers"]).arg(&path).output().unwrap();
    assert!(plain.status.success(), "{}", stderr_of(&plain));
    let plain = String::from_utf8(plain.stdout).unwrap();
    let zst = dir.path().join("games.txt.zst");
    fs::write(&zst, zstd::encode_all(&text[..], 3).unwrap()).unwrap();
    let out = chesszip().args(["bench", "-l", "1", "--no-peers"]).arg(&zst).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let table = String::from_utf8(out.stdout).unwrap();
    let first = table.lines().next().unwrap();
    assert!(first.contains(&format!("games.txt.zst: zstd data decoded to {} bytes of text, ", text.len())), "{table}");
    assert!(table.contains("(the file is zstd data: every row compresses the text it decodes to"), "{table}");
    // The same plies and archive as for the text itself.
    let plies = |t: &str| t.lines().next().unwrap().split(", ").nth(1).unwrap().to_string();
    let row = |t: &str| t.lines().find(|l| l.starts_with("chesszip -1")).unwrap().split_whitespace().take(4).collect::<Vec<_>>().join(" ");
    assert!(!plies(&plain).starts_with("0 "), "{plain}");
    assert_eq!(plies(&table), plies(&plain), "{table}\n{plain}");
    assert_eq!(row(&table), row(&plain), "{table}\n{plain}");
    // Data that claims to be zstd but does not decode is an error naming it.
    let broken = dir.path().join("broken.zst");
    fs::write(&broken, [&zstd::encode_all(&text[..], 3).unwrap()[..20], &[0xff; 20][..]].concat()).unwrap();
    let out = chesszip().args(["bench", "-l", "1", "--no-peers"]).arg(&broken).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("the zstd data inside does not decode"), "{}", stderr_of(&out));
}

#[test]
fn bench_refuses_zero_runs() {
    let (_dir, path, _) = workdir();
    let out = chesszip().args(["bench", "-l", "1", "--no-peers", "-r", "0"]).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "a usage error");
    assert!(stderr_of(&out).contains("-r <REPEAT>") || stderr_of(&out).contains("--repeat"), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("0 is not in 1.."), "{}", stderr_of(&out));
}

#[test]
fn bench_says_what_each_ratio_divides_by() {
    let (_dir, path, _) = workdir();
    let out = chesszip().args(["bench", "-l", "1"]).arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let table = String::from_utf8(out.stdout).unwrap();
    if std::process::Command::new("xz").arg("--version").output().is_err() {
        assert!(!table.contains("/ xz"), "{table}");
        return;
    }
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[1].ends_with("  compress time     expand time     expand time"), "{table}");
    assert!(lines[2].ends_with("  / xz compress   / xz compress     / xz expand"), "{table}");
    // xz's own row: its compress time over itself and its expand time over itself (the middle
    // column, its expand time over its compress time, depends on the machine: not checked).
    let xz = lines.iter().find(|l| l.starts_with("xz -9e")).expect("an xz row");
    let ratios: Vec<f64> = xz.split_whitespace().rev().take(3).map(|r| r.parse().unwrap()).collect();
    assert_eq!((ratios[0], ratios[2]), (1.0, 1.0), "{table}");
    assert!(table.contains("/ xz expand: the row's expand time over xz -d's"), "{table}");
}

#[test]
fn outputs_keep_the_input_modification_time() {
    let (dir, path, text) = workdir();
    let when = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_577_836_800); // 2020-01-01
    fs::File::options().write(true).open(&path).unwrap().set_modified(when).unwrap();
    chesszip().args(["compress", "-1"]).arg(&path).assert().success();
    let archive = dir.path().join("games.txt.chz");
    assert_eq!(fs::metadata(&archive).unwrap().modified().unwrap(), when, "compress");
    let out = dir.path().join("back.txt");
    chesszip().args(["expand", "-o"]).arg(&out).arg(&archive).assert().success();
    assert_eq!(fs::read(&out).unwrap(), text);
    assert_eq!(fs::metadata(&out).unwrap().modified().unwrap(), when, "expand");
}

#[test]
fn devices_are_not_read_without_force() {
    // As gzip: "not a regular file - ignored", status 2 (-c: nothing is created in /dev).
    let out = chesszip().args(["-1", "-c", "/dev/null"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("/dev/null: not a regular file -- ignored"), "{}", stderr_of(&out));
    assert!(out.stdout.is_empty());
    let out = chesszip().args(["-dc", "/dev/null"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    // With -f it is read: an empty input.
    let out = chesszip().args(["-1", "-c", "-f", "/dev/null"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(!out.stdout.is_empty());
}

#[test]
fn small_messages_name_what_the_user_named() {
    let (dir, path, _) = workdir();
    // A directory that does not exist: the error names the output, not a temporary file.
    let target = dir.path().join("nodir").join("x.chz");
    let out = chesszip().args(["compress", "-1", "-o"]).arg(&target).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = stderr_of(&out);
    assert!(e.contains(&format!("cannot create {}", target.display())) && !e.contains(".chesszip-"), "{e}");
    // expand's -f is about expanding.
    let help = String::from_utf8(chesszip().args(["expand", "--help"]).output().unwrap().stdout).unwrap();
    assert!(help.contains("read an archive from a terminal") && !help.contains("compress files that"), "{help}");
    // -l of an empty archive: no ratio, as xz -l.
    let empty = dir.path().join("empty.txt");
    fs::write(&empty, b"").unwrap();
    chesszip().args(["compress", "-1"]).arg(&empty).assert().success();
    let out = chesszip().arg("-l").arg(dir.path().join("empty.txt.chz")).output().unwrap();
    assert!(out.status.success());
    let list = String::from_utf8(out.stdout).unwrap();
    assert!(list.lines().nth(1).unwrap().contains("      ---  "), "{list}");
}

#[test]
fn info_and_list_say_what_an_input_that_is_no_archive_looks_like() {
    let (dir, path, _) = workdir();
    let friendly = format!(
        "chesszip: {}: not a chesszip archive (it looks like text: compress it with `chesszip {}`)",
        path.display(),
        path.display()
    );
    // As -d and -t say it (extract too); -l prints no header line before the error (as xz -l).
    for args in [&["info"][..], &["-l"], &["-t"], &["-dc"], &["extract", "--game", "1"]] {
        let out = chesszip().args(args).arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(stderr_of(&out).starts_with(&friendly), "{args:?}: {}", stderr_of(&out));
        assert!(out.stdout.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&out.stdout));
    }
    // On standard input too.
    for args in [&["info", "-"][..], &["-l"]] {
        let out = chesszip().args(args).write_stdin(fs::read(&path).unwrap()).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let e = stderr_of(&out);
        assert!(e.contains("(stdin): not a chesszip archive (it looks like text: compress it with `chesszip FILE`)"), "{args:?}: {e}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // Compressed data is named too, and other bytes are still corrupt.
    let gz = dir.path().join("x.gz");
    fs::write(&gz, [&[0x1f, 0x8b, 0x08][..], &[0; 20]].concat()).unwrap();
    let out = chesszip().arg("info").arg(&gz).output().unwrap();
    assert!(stderr_of(&out).contains("not a chesszip archive (it looks like gzip data: try `gzip -d`)"), "{}", stderr_of(&out));
    let out = chesszip().args(["-l", "-"]).write_stdin(vec![0x00, 0x01, 0x02, 0xff, 0xfe]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("corrupt archive"), "{}", stderr_of(&out));
    // With an archive beside it, the header comes once, before the archive's line.
    chesszip().args(["-1", "-k"]).arg(&path).assert().success();
    let archive = dir.path().join("games.txt.chz");
    let out = chesszip().arg("-l").arg(&path).arg(&archive).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let list = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = list.lines().collect();
    assert_eq!(lines.len(), 3, "{list}");
    assert!(lines[0].ends_with("ratio  file") && lines[1].ends_with("games.txt.chz"), "{list}");
    assert!(lines[2].ends_with("total (1 of 2 files)"), "{list}");
}

#[test]
fn extract_without_a_selector_names_every_selector() {
    let (dir, path, _) = workdir();
    chesszip().args(["-1"]).arg(&path).assert().success();
    let archive = dir.path().join("games.txt.chz");
    let out = chesszip().arg("extract").arg(&archive).output().unwrap();
    assert_ne!(out.status.code(), Some(0));
    let e = stderr_of(&out);
    assert!(e.contains("--game") && e.contains("--line") && e.contains("--tags"), "{e}");
    assert!(out.stdout.is_empty());
    // Each selector alone is enough (--tags of a movetext archive: empty tag sections), and
    // --tags with --game still goes together.
    chesszip().arg("extract").arg(&archive).args(["--game", "1"]).assert().success();
    chesszip().arg("extract").arg(&archive).args(["--line", "1"]).assert().success();
    for args in [&["--tags"][..], &["--tags", "--game", "1"]] {
        let out = chesszip().arg("extract").arg(&archive).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr_of(&out));
    }
}

#[test]
fn info_of_an_empty_archive_gives_no_ratio() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.txt");
    fs::write(&empty, b"").unwrap();
    let out = chesszip().args(["compress", "-1", "-v"]).arg(&empty).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("0 -> ") && stderr_of(&out).contains(" bytes (---), level 1"), "-v: {}", stderr_of(&out));
    let out = chesszip().arg("info").arg(dir.path().join("empty.txt.chz")).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let info = String::from_utf8(out.stdout).unwrap();
    assert!(info.contains("ratio:          ---\n"), "{info}");
}

#[test]
fn info_and_list_skip_a_directory_with_a_warning() {
    // As -d, -t, `gzip -l` and `xz -l` do: "-- ignored", exit status 2, the other files listed.
    let (dir, path, _) = workdir();
    chesszip().args(["-1", "-k"]).arg(&path).assert().success();
    let archive = dir.path().join("games.txt.chz");
    let skipped = format!("chesszip: {}: is a directory -- ignored\n", dir.path().display());
    for args in [&["-l"][..], &["info"], &["-t"]] {
        let out = chesszip().args(args).arg(dir.path()).arg(&archive).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr_of(&out));
        assert_eq!(stderr_of(&out), skipped, "{args:?}");
        if args[0] != "-t" {
            assert!(String::from_utf8(out.stdout).unwrap().contains("games.txt.chz"), "{args:?}");
        }
    }
    // -q silences the warning but keeps the status.
    chesszip().args(["-q", "-l"]).arg(dir.path()).assert().code(2).stderr("");
}

/// Small conventions of the second new-user pass (docs/notes-newuser2.md, finding 6): `info -q`
/// silences its warnings as `-q -l` and `extract -q` do; `-T -1` says what is wrong with the
/// value (it was "a value is required" as if none were given); `--weights` at levels 1-9 is
/// not read (a missing file was an error though nothing uses it), with a note that it is
/// ignored; `expand`'s alias `decompress` is in the help as `x` is.
#[test]
fn info_quiet_negative_threads_unused_weights_and_the_decompress_alias() {
    let (dir, path, text) = workdir();
    chesszip().args(["-1", "-k"]).arg(&path).assert().success();
    let archive = dir.path().join("games.txt.chz");
    let out = chesszip().args(["info", "-q"]).arg(dir.path()).arg(&archive).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert_eq!(stderr_of(&out), "", "info -q silences the directory warning");
    assert!(String::from_utf8(out.stdout).unwrap().contains("games.txt.chz"));

    for args in [&["-T", "-1", "-c"][..], &["-T=-1", "-c"], &["expand", "-T", "-3", "-c"], &["-T", "257", "-c"]] {
        let out = chesszip().args(args).arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: a usage error");
        let err = stderr_of(&out);
        assert!(err.contains("is not in 0..=256 (0 means one thread per core)"), "{args:?}: {err}");
    }

    let missing = dir.path().join("no-such-weights.onnx");
    let out = chesszip().args(["-1", "-c", "--weights"]).arg(&missing).arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("ignored: only level 10 uses transformer weights"), "{}", stderr_of(&out));
    assert_eq!(chesszip::expand_bytes(&out.stdout, &common::expand_opts()).unwrap(), text);
    let out = chesszip().args(["-1", "-c", "-q", "--weights"]).arg(&missing).arg(&path).output().unwrap();
    assert!(out.status.success() && out.stderr.is_empty(), "{}", stderr_of(&out));

    let help = String::from_utf8(chesszip().arg("--help").output().unwrap().stdout).unwrap();
    let line = help.lines().find(|l| l.trim_start().starts_with("expand")).expect("expand in the help");
    assert!(line.contains("decompress") && line.contains('x'), "{line}");
    let help = String::from_utf8(chesszip().args(["extract", "--help"]).output().unwrap().stdout).unwrap();
    assert!(help.split_whitespace().collect::<Vec<_>>().join(" ").contains("lines are counted per member"), "{help}");
}

/// A command word after an option (`chesszip -q info x.chz`) is refused with a message that
/// says to put the command first, whether or not a file of that name exists (before: it was
/// a FILE to compress, and `info` was archived to info.chz where it existed); `./info` or
/// `-- info` names the file.
#[test]
fn a_command_word_after_an_option_is_refused_not_compressed() {
    let (dir, path, _) = workdir();
    chesszip().args(["-q", "-1"]).arg(&path).assert().success();
    for (word, args) in [
        ("info", &["-q", "info", "games.txt.chz"][..]),
        ("extract", &["-v", "extract", "games.txt.chz", "--game", "1"]),
        ("x", &["-T", "2", "x", "games.txt.chz"]),
        ("info", &["-d", "info", "games.txt.chz"]),
    ] {
        for word_is_a_file in [false, true] {
            if word_is_a_file {
                fs::write(dir.path().join(word), first_games(2)).unwrap();
            }
            let out = chesszip().current_dir(dir.path()).args(args).output().unwrap();
            let err = stderr_of(&out);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert!(err.contains("put the command first") && err.contains("write ./"), "{args:?}: {err}");
            assert!(out.stdout.is_empty(), "{args:?}");
            assert_eq!(listing(dir.path()).iter().filter(|n| n.ends_with(".chz")).count(), 1, "{args:?}: nothing compressed");
        }
    }
    // The file itself, named so that it is no command.
    chesszip().current_dir(dir.path()).args(["-q", "./info"]).assert().success();
    fs::remove_file(dir.path().join("info.chz")).unwrap();
    chesszip().current_dir(dir.path()).args(["-q", "--", "info"]).assert().success();
    assert!(dir.path().join("info.chz").exists());
    // The command first, as the message says.
    chesszip().current_dir(dir.path()).args(["info", "-q", "games.txt.chz"]).assert().success();
    chesszip().current_dir(dir.path()).args(["extract", "-T", "2", "games.txt.chz", "--game", "1"]).assert().success();
}

/// Zero bytes after an archive (padding to a tape or disk block) are ignored by -d and -t as
/// `gzip -d` ignores them; with -v, one line says so (as `gzip -v`: "trailing zero bytes
/// ignored"), and nothing without -v or without padding. Block archives, the raw form and a
/// concatenation, from a file and from standard input.
#[test]
fn verbose_says_zero_padding_after_an_archive_was_ignored() {
    let (dir, path, _) = workdir();
    let text = fs::read(&path).unwrap();
    chesszip().args(["-q", "-1", "--block-lines", "2"]).arg(&path).assert().success();
    let blocks = fs::read(dir.path().join("games.txt.chz")).unwrap();
    let prose = fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/COPYING")).unwrap();
    let raw = chesszip().args(["-q", "-1", "-c"]).write_stdin(prose.clone()).output().unwrap().stdout;
    assert!(raw.starts_with(&chesszip::container::raw::RAW_MAGIC), "the raw form");
    let both = [&blocks[..], &raw[..]].concat();
    for (what, archive, want) in
        [("blocks", &blocks, text.clone()), ("raw form", &raw, prose.clone()), ("two members", &both, [&text[..], &prose[..]].concat())]
    {
        for zeros in [0, 1000] {
            let padded = [&archive[..], &vec![0u8; zeros][..]].concat();
            let file = dir.path().join("padded.chz");
            fs::write(&file, &padded).unwrap();
            for args in [&["-d", "-c", "-v"][..], &["-t", "-v"], &["expand", "--format", "movetext", "-c", "-v"], &["-d", "-c"], &["-t"]] {
                for from_stdin in [false, true] {
                    let mut cmd = chesszip();
                    cmd.args(args);
                    let out = if from_stdin { cmd.write_stdin(padded.clone()).output() } else { cmd.arg(&file).output() }.unwrap();
                    let how = format!("{what}, {zeros} zeros, {args:?}, stdin {from_stdin}");
                    let err = stderr_of(&out);
                    assert!(out.status.success() || args.contains(&"movetext"), "{how}: {err}");
                    if args == ["-d", "-c", "-v"] || args == ["-d", "-c"] {
                        assert!(out.stdout == want, "{how}: expands to the text");
                    }
                    let said = err.lines().filter(|l| l.contains("zero byte")).collect::<Vec<_>>();
                    let verbose = args.contains(&"-v");
                    if zeros > 0 && verbose {
                        assert_eq!(said.len(), 1, "{how}: {err}");
                        assert!(said[0].ends_with(&format!("{zeros} zero bytes after the archive ignored (zero padding)")), "{how}: {err}");
                    } else {
                        assert!(said.is_empty(), "{how}: {err}");
                    }
                }
            }
        }
    }
}

/// UTF-16 text is compressed byte for byte (status 0) with a warning that it looks like
/// UTF-16 and is mostly stored raw; `-q` leaves the warning out; UTF-8 text gets none.
#[test]
fn utf16_input_is_kept_with_a_warning() {
    let utf8 = first_games(50);
    let text = String::from_utf8(utf8.clone()).unwrap();
    let mut utf16 = vec![0xff, 0xfe];
    utf16.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    let out = chesszip().args(["-c", "-f"]).write_stdin(utf16.clone()).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let warning = stderr_of(&out);
    assert!(warning.contains("looks like UTF-16LE") && warning.contains("iconv -f UTF-16LE -t UTF-8"), "{warning}");
    chesszip().args(["-d", "-c"]).write_stdin(out.stdout.clone()).assert().success().stdout(utf16.clone());
    let quiet = chesszip().args(["-c", "-f", "-q"]).write_stdin(utf16).output().unwrap();
    assert!(quiet.status.success() && quiet.stderr.is_empty(), "{}", stderr_of(&quiet));
    assert_eq!(quiet.stdout, out.stdout);
    let plain = chesszip().args(["-c", "-f"]).write_stdin(utf8).output().unwrap();
    assert!(plain.status.success() && plain.stderr.is_empty(), "{}", stderr_of(&plain));
}
