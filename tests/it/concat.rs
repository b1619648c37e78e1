//! Concatenated archives (`cat a.chz b.chz > ab.chz`): every reader reads every member, in
//! order, of either form and format; damage names the member and the block; data after a
//! member that starts no archive is an error.

use crate::common;

use std::io::Cursor;

use chesszip::container::IndexedReader;
use chesszip::inspect::info_members;
use chesszip::{CompressOptions, Error, Games, count_games, expand_bytes, expand_salvage, extract_games, extract_lines, info};
use common::{expand_opts, fast, first_games};

fn golden(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"))).expect("golden input")
}

/// The first `n` games of the golden PGN sample.
fn pgn_games(n: usize) -> Vec<u8> {
    let text = golden("lichess.pgn");
    let games = chesszip::pgn::lexer::split_games(&text);
    games.into_iter().take(n).flat_map(|g| g.to_vec()).collect()
}

/// Four members: PGN in blocks, a tiny movetext text in the raw form, movetext in blocks,
/// PGN in the raw form; their archives and texts.
fn members() -> Vec<(Vec<u8>, Vec<u8>)> {
    let pgn = pgn_games(12);
    let movetext = first_games(120);
    let tiny = b"e4 e5 Nf3 1-0\nnot a game".to_vec();
    let small_pgn = pgn_games(1);
    let block = CompressOptions { block_lines: 5, ..fast() };
    let raw = CompressOptions { level: chesszip::Level::MIN, threads: 2, ..CompressOptions::default() };
    let out = vec![
        (chesszip::compress_bytes(&pgn, &block), pgn),
        (chesszip::compress_bytes(&tiny, &raw), tiny),
        (chesszip::compress_bytes(&movetext, &CompressOptions { block_lines: 50, ..fast() }), movetext),
        (chesszip::compress_bytes(&small_pgn, &raw), small_pgn),
    ];
    assert!(out[1].0.starts_with(b"\x89CHR") && out[3].0.starts_with(b"\x89CHR"), "raw members");
    assert!(out[0].0.starts_with(b"\x89CHZ") && out[2].0.starts_with(b"\x89CHZ"), "block members");
    out
}

fn joined(parts: &[(Vec<u8>, Vec<u8>)]) -> (Vec<u8>, Vec<u8>) {
    (parts.iter().flat_map(|p| p.0.clone()).collect(), parts.iter().flat_map(|p| p.1.clone()).collect())
}

/// Each member's games (as [`Games`] cuts a single archive), one after the other.
fn games_of(parts: &[(Vec<u8>, Vec<u8>)]) -> Vec<Vec<u8>> {
    parts.iter().flat_map(|(a, _)| Games::open(Cursor::new(a), 1).unwrap().map(Result::unwrap).collect::<Vec<_>>()).collect()
}

#[test]
fn concatenation_expands_to_the_texts_in_order() {
    let parts = members();
    let (archive, text) = joined(&parts);
    assert_eq!(expand_bytes(&archive, &expand_opts()).unwrap(), text);
    // Every pair and order, and a member twice.
    for (i, j) in [(0, 1), (1, 0), (2, 3), (3, 2), (0, 0), (1, 1)] {
        let (a, t) = joined(&[parts[i].clone(), parts[j].clone()]);
        assert_eq!(expand_bytes(&a, &expand_opts()).unwrap(), t, "{i} then {j}");
    }
    // Blocks in order across members.
    let blocks: Vec<u8> = chesszip::Blocks::open(Cursor::new(&archive), 2).unwrap().flat_map(Result::unwrap).collect();
    assert_eq!(blocks, text);
    // Salvage of a sound concatenation is complete.
    let mut out = Vec::new();
    let s = expand_salvage(Cursor::new(&archive), &mut out, &expand_opts(), &|_| {}).unwrap();
    assert!(s.is_complete(), "{:?}", s.damaged);
    assert_eq!(out, text);
}

#[test]
fn info_sums_the_members() {
    let parts = members();
    let (archive, text) = joined(&parts);
    let each = info_members(Cursor::new(&archive)).unwrap();
    assert_eq!(each.len(), 4);
    for ((a, _), i) in parts.iter().zip(&each) {
        assert_eq!(*i, info(Cursor::new(a)).unwrap());
    }
    let total = info(Cursor::new(&archive)).unwrap();
    assert_eq!(total.members, 4);
    assert_eq!(total.text_bytes, text.len() as u64);
    assert_eq!(total.archive_bytes, archive.len() as u64);
    assert_eq!(total.games, each.iter().map(|i| i.games).sum::<u64>());
    assert_eq!(total.blocks, each.iter().map(|i| i.blocks).sum::<u64>());
    // A single archive is one member, as before.
    assert_eq!(info(Cursor::new(&parts[0].0)).unwrap().members, 1);
}

#[test]
fn games_and_extract_count_across_members() {
    let parts = members();
    let (archive, text) = joined(&parts);
    let expected = games_of(&parts);
    let got: Vec<Vec<u8>> = Games::open(Cursor::new(&archive), 2).unwrap().map(Result::unwrap).collect();
    assert_eq!(got, expected);
    assert_eq!(got.concat(), text);
    assert_eq!(count_games(Cursor::new(&archive), 2).unwrap(), expected.len() as u64);
    // Random access across members, backwards and forwards.
    let mut games = Games::open(Cursor::new(&archive), 2).unwrap();
    let n = expected.len() as u64;
    for g in [n - 1, 0, 13, 12, 14, 3, n - 2, 11] {
        games.seek(g).unwrap();
        assert_eq!(games.next_game().unwrap().as_deref(), Some(&expected[g as usize][..]), "game {g}");
    }
    // extract --game: game N is numbered across members (from 1).
    for (a, b) in [(1, 1), (12, 14), (13, 13), (10, 140), (1, u64::MAX), (n, n)] {
        let mut out = Vec::new();
        let written = extract_games(Cursor::new(&archive), a..=b, &mut out, 2).unwrap();
        let want: Vec<u8> = expected.iter().skip(a as usize - 1).take((b - a + 1).min(n) as usize).flatten().copied().collect();
        assert_eq!((written, out), (b.min(n) - a + 1, want), "games {a}..={b}");
    }
    // extract --line: lines of each member, one after the other (a member's last line ends
    // with it).
    let lines: Vec<Vec<u8>> =
        parts.iter().flat_map(|p| p.1.split_inclusive(|&c| c == b'\n').map(<[u8]>::to_vec).collect::<Vec<_>>()).collect();
    for (a, b) in [(1u64, 3u64), (100, 110), (104, 106), (1, u64::MAX)] {
        let mut out = Vec::new();
        let written = extract_lines(Cursor::new(&archive), a..=b, &mut out, 2).unwrap();
        let want: Vec<Vec<u8>> = lines.iter().skip(a as usize - 1).take((b - a + 1).min(lines.len() as u64) as usize).cloned().collect();
        assert_eq!((written, out), (want.len() as u64, want.concat()), "lines {a}..={b}");
    }
}

#[test]
fn garbage_after_a_member_is_an_error() {
    // Text that is no archive at all is not a member: every reader says what it is.
    let text = b"e4 e5 Nf3 1-0\n".repeat(20);
    let e = Games::open(Cursor::new(&text), 1).err().expect("not an archive").to_string();
    assert!(e.contains("not a chesszip archive"), "{e}");
    assert!(count_games(Cursor::new(&text), 1).unwrap_err().to_string().contains("not a chesszip archive"));
    let parts = members();
    for (a, _) in &parts {
        // Zero bytes alone are padding (`zero_padding_after_the_last_member_is_ignored`); any
        // other byte, after zeros too, is not.
        for extra in [&b"\0\0\0\x01"[..], b"\n", b"garbage", b"\x89CH", b"\x89CHZ\r\n\x1a\n"] {
            let bad = [&a[..], extra].concat();
            let e = expand_bytes(&bad, &expand_opts()).unwrap_err();
            assert!(matches!(e, Error::Corrupt(_)), "{e}");
            assert!(info(Cursor::new(&bad)).is_err());
            assert!(Games::open(Cursor::new(&bad), 1).is_err());
            let mut out = Vec::new();
            assert!(extract_lines(Cursor::new(&bad), 1..=u64::MAX, &mut out, 1).is_err());
        }
        let e = expand_bytes(&[&a[..], b"garbage"].concat(), &expand_opts()).unwrap_err().to_string();
        assert!(e.contains("unexpected data after the end of the archive"), "{e}");
    }
}

/// Zero bytes after the last member, to the end (a file padded to a tape or disk block), are
/// padding: every reader ignores them, as `gzip -d` ignores zeros after its data and `xz -d`
/// stream padding, for a single archive of either form and for a concatenation. Zeros before
/// another member, or followed by any other byte, are still an error (salvage reports them as
/// a part left out); salvage ignores padding as the others do, from a file and from a stream.
#[test]
fn zero_padding_after_the_last_member_is_ignored() {
    let parts = members();
    let (all, all_text) = joined(&parts);
    let mut cases: Vec<(Vec<u8>, Vec<u8>)> = parts.clone();
    cases.push((all, all_text));
    for (i, (archive, text)) in cases.iter().enumerate() {
        for pad in [1usize, 3, 512, 70_000] {
            let padded = [&archive[..], &vec![0u8; pad]].concat();
            let what = format!("case {i}, {pad} zeros");
            assert_eq!(expand_bytes(&padded, &expand_opts()).expect(&what), *text, "{what}");
            let mut out = Vec::new();
            extract_lines(Cursor::new(&padded), 1..=u64::MAX, &mut out, 1).expect(&what);
            assert_eq!(out, *text, "{what}");
            let games: Vec<Vec<u8>> = Games::open(Cursor::new(&padded), 1).expect(&what).map(Result::unwrap).collect();
            assert_eq!(games.concat(), *text, "{what}");
            assert_eq!(count_games(Cursor::new(&padded), 1).expect(&what), count_games(Cursor::new(archive), 1).unwrap(), "{what}");
            let (a, b) = (info(Cursor::new(&padded)).expect(&what), info(Cursor::new(archive)).unwrap());
            assert_eq!((a.text_bytes, a.lines, a.games), (b.text_bytes, b.lines, b.games), "{what}");
            let mut out = Vec::new();
            let s = expand_salvage(Cursor::new(&padded), &mut out, &expand_opts(), &|_| {}).unwrap();
            assert_eq!(out, *text, "{what}: salvage");
            assert!(s.is_complete(), "{what}: salvage: {:?}", s.damaged);
            let mut out = Vec::new();
            let s = chesszip::expand_salvage_stream(&padded[..], &mut out, &expand_opts(), &|_| {}).unwrap();
            assert_eq!(out, *text, "{what}: stream salvage");
            assert!(s.is_complete(), "{what}: stream salvage: {:?}", s.damaged);
        }
        // Zeros, then another byte: salvage reports them, from a file and a stream alike.
        let tail = [&archive[..], &[0u8; 100], b"x"].concat();
        let mut out = Vec::new();
        let file = expand_salvage(Cursor::new(&tail), &mut out, &expand_opts(), &|_| {}).unwrap();
        let stream = chesszip::expand_salvage_stream(&tail[..], &mut Vec::new(), &expand_opts(), &|_| {}).unwrap();
        assert_eq!((file.damaged.len(), stream.damaged.len()), (1, 1), "case {i}: {:?} {:?}", file.damaged, stream.damaged);
        assert_eq!(out, *text, "case {i}");
        // Zeros, then a member: not padding.
        let between = [&archive[..], &[0u8; 8], &parts[0].0].concat();
        let e = expand_bytes(&between, &expand_opts()).unwrap_err().to_string();
        assert!(e.contains("unexpected data after the end of the archive"), "case {i}: {e}");
        assert!(info(Cursor::new(&between)).is_err(), "case {i}");
    }
}

#[test]
fn damage_in_one_member_names_it_and_salvage_keeps_the_others() {
    let parts = members();
    let (archive, text) = joined(&parts);
    // A byte in the middle of block 1 of member 2 (movetext in blocks of 50 lines).
    let start = parts[0].0.len() + parts[1].0.len();
    let member = &parts[2].0;
    let reader = IndexedReader::open(Cursor::new(member)).unwrap();
    let block = reader.block_range(1);
    let mut bad = archive.clone();
    let at = start + ((block.start + block.end) / 2) as usize;
    bad[at] ^= 0x55;
    let e = expand_bytes(&bad, &expand_opts()).unwrap_err().to_string();
    assert!(e.contains("member 2: block 1"), "{e}");
    let e = Games::open(Cursor::new(&bad), 2).unwrap().map(|g| g.err()).find_map(|e| e).expect("an error").to_string();
    assert!(e.contains("member 2: block 1"), "{e}");
    // Salvage leaves out that block alone, and says where it was.
    let mut out = Vec::new();
    let s = expand_salvage(Cursor::new(&bad), &mut out, &expand_opts(), &|_| {}).unwrap();
    assert_eq!(s.damaged.len(), 1, "{:?}", s.damaged);
    let d = &s.damaged[0];
    assert_eq!((d.member, d.block, d.lines, d.to_end), (2, 1, Some(50), false));
    assert_eq!(d.archive_range, block.start + start as u64..block.end + start as u64);
    let lines_before = parts[0].1.split_inclusive(|&c| c == b'\n').count() + 2 + 50;
    assert_eq!(d.first_line, Some(lines_before as u64));
    let movetext = &parts[2].1;
    let kept: Vec<u8> = movetext
        .split_inclusive(|&c| c == b'\n')
        .enumerate()
        .filter(|(i, _)| !(50..100).contains(i))
        .flat_map(|(_, l)| l.to_vec())
        .collect();
    let want = [&parts[0].1[..], &parts[1].1, &kept, &parts[3].1].concat();
    assert_eq!(out, want);
    assert!(out.len() < text.len());
    // Damage to the first member's block structure: the members after it are still found.
    let mut bad = archive.clone();
    let first = IndexedReader::open(Cursor::new(&parts[0].0)).unwrap().block_range(0);
    bad[first.start as usize + 6] ^= 0x01;
    let mut out = Vec::new();
    let s = expand_salvage(Cursor::new(&bad), &mut out, &expand_opts(), &|_| {}).unwrap();
    assert!(s.damaged.iter().all(|d| d.member == 0), "{:?}", s.damaged);
    assert!(out.ends_with(&[&parts[1].1[..], &parts[2].1, &parts[3].1].concat()));
}

#[test]
fn the_command_line_reads_concatenations() {
    let parts = members();
    let (archive, text) = joined(&parts);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ab.chz");
    std::fs::write(&path, &archive).unwrap();
    let out = common::chesszip().args(["-d", "-c"]).arg(&path).output().unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, text);
    let out = common::chesszip().arg("-t").arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = common::chesszip().arg("info").arg(&path).output().unwrap();
    let info = String::from_utf8(out.stdout).unwrap();
    assert!(info.contains("members:        4") && info.contains("member 3:"), "{info}");
    let out = common::chesszip().args(["extract", "-g", "13"]).arg(&path).output().unwrap();
    assert_eq!(out.stdout, games_of(&parts)[12]);
}

/// An archive padded with zeros (`dd conv=sync`, a tape block): `-d`, `-t` and `--salvage` from
/// a file and from standard input, `info`, `-l` and `extract` read it as the archive alone, status 0 and
/// nothing on standard error, as `gzip -d` reads a padded `.gz`.
#[test]
fn the_command_line_ignores_zero_padding_after_an_archive() {
    let parts = members();
    let (archive, text) = joined(&parts);
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes, text) in [("one.chz", &parts[0].0, &parts[0].1), ("all.chz", &archive, &text)] {
        let padded = [&bytes[..], &vec![0u8; 10_240 - bytes.len() % 10_240]].concat();
        let path = dir.path().join(name);
        std::fs::write(&path, &padded).unwrap();
        let ok = |out: std::process::Output, what: &str| {
            assert!(out.status.success() && out.stderr.is_empty(), "{name} {what}: {}", common::stderr_of(&out));
            out.stdout
        };
        assert_eq!(ok(common::chesszip().args(["-d", "-c"]).arg(&path).output().unwrap(), "-d"), *text);
        assert_eq!(ok(common::chesszip().args(["-d", "-c"]).write_stdin(padded.clone()).output().unwrap(), "-d stdin"), *text);
        ok(common::chesszip().arg("-t").arg(&path).output().unwrap(), "-t");
        ok(common::chesszip().arg("-t").write_stdin(padded.clone()).output().unwrap(), "-t stdin");
        ok(common::chesszip().arg("info").arg(&path).output().unwrap(), "info");
        ok(common::chesszip().arg("-l").arg(&path).output().unwrap(), "-l");
        assert_eq!(ok(common::chesszip().args(["extract", "--line", "1.."]).arg(&path).output().unwrap(), "extract"), *text);
        assert_eq!(ok(common::chesszip().args(["-d", "-c", "--salvage"]).arg(&path).output().unwrap(), "--salvage"), *text);
        let out = common::chesszip().args(["-d", "-c", "--salvage"]).write_stdin(padded.clone()).output().unwrap();
        assert_eq!(ok(out, "--salvage stdin"), *text);
    }
}

/// A coding-2 member (a movetext text that repeats its games, so later blocks hold references
/// to earlier lines) with a PGN member, in both orders: references resolve inside their own
/// member whichever member they are in, through every reader.
#[test]
fn references_resolve_inside_their_member() {
    let once = first_games(40);
    let repeated = [once.clone(), once.clone(), first_games(3)].concat();
    let dups = chesszip::compress_bytes(&repeated, &CompressOptions { block_lines: 10, ..fast() });
    let dups_info = info(Cursor::new(&dups)).unwrap();
    assert_eq!(dups_info.header.coding, chesszip::container::Coding::Duplicates);
    assert!(dups_info.references >= 40, "{dups_info:?}");
    let pgn = pgn_games(5);
    let pgn_archive = chesszip::compress_bytes(&pgn, &CompressOptions { block_lines: 30, ..fast() });
    let dups_part = (dups.clone(), repeated.clone());
    let pgn_part = (pgn_archive, pgn.clone());
    for parts in [vec![dups_part.clone(), pgn_part.clone()], vec![pgn_part.clone(), dups_part.clone()]] {
        let (archive, text) = joined(&parts);
        assert_eq!(expand_bytes(&archive, &expand_opts()).unwrap(), text);
        let i = info(Cursor::new(&archive)).unwrap();
        assert_eq!((i.members, i.references), (2, dups_info.references));
        // Games, all and after a seek into the copies of the coding-2 member.
        let games: Vec<Vec<u8>> = Games::open(Cursor::new(&archive), 2).unwrap().map(Result::unwrap).collect();
        assert_eq!(games, games_of(&parts));
        assert_eq!(count_games(Cursor::new(&archive), 2).unwrap(), games.len() as u64);
        let copy = games.iter().position(|g| *g == first_games(1)).unwrap() as u64 + 45;
        let mut g = Games::open(Cursor::new(&archive), 2).unwrap();
        g.seek(copy).unwrap();
        assert_eq!(g.next_game().unwrap().unwrap(), games[copy as usize]);
        // Lines of the copies (references) through the index, one and a range.
        let text_lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
        let before = if parts[0].1 == pgn { pgn.split_inclusive(|&b| b == b'\n').count() as u64 } else { 0 };
        for line in [before + 41, before + 63, before + 83] {
            let mut out = Vec::new();
            extract_lines(Cursor::new(&archive), line..=line, &mut out, 2).unwrap();
            assert_eq!(out, text_lines[line as usize - 1], "line {line}");
        }
        let mut out = Vec::new();
        extract_lines(Cursor::new(&archive), 1..=text_lines.len() as u64, &mut out, 2).unwrap();
        assert_eq!(out, text);
        // Salvage of the whole, and with a limit each member is read under.
        let mut back = Vec::new();
        assert!(expand_salvage(Cursor::new(&archive), &mut back, &expand_opts(), &|_| {}).unwrap().is_complete());
        assert_eq!(back, text);
        let tight = chesszip::ExpandOptions {
            limits: chesszip::DecodeLimits { max_output: Some(text.len() as u64 / 4), ..Default::default() },
            ..expand_opts()
        };
        assert!(matches!(expand_bytes(&archive, &tight), Err(Error::DecodeLimit { .. })));
    }
}

/// As `gzip -c a b`: several inputs compressed to standard output make one concatenated
/// archive, which expands to the inputs one after the other.
#[test]
fn several_inputs_to_standard_output_make_one_concatenated_archive() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (a, b) = (first_games(30), pgn_games(20));
    std::fs::write(dir.path().join("a.txt"), &a).unwrap();
    std::fs::write(dir.path().join("b.pgn"), &b).unwrap();
    let out = common::chesszip().current_dir(dir.path()).args(["-q", "-1", "-c", "a.txt", "b.pgn"]).output().unwrap();
    assert!(out.status.success(), "{}", common::stderr_of(&out));
    assert_eq!(info(Cursor::new(&out.stdout)).unwrap().members, 2);
    assert_eq!(expand_bytes(&out.stdout, &expand_opts()).unwrap(), [a, b].concat());
}

/// `expand --format movetext` of a concatenation reads each member in its own format, and a
/// member's last line ends with it: the conversion of the whole is that of each member, one
/// after the other. Before, every member was read in the first member's format, so PGN after
/// movetext was cut into lines that are no games, and its games were left out with a warning.
#[test]
fn conversion_to_movetext_reads_each_member_in_its_own_format() {
    let parts = members();
    let convert = |archive: &[u8]| {
        let mut out = Vec::new();
        let s = chesszip::convert::convert(archive, &mut out, &expand_opts(), &|_| {}).expect("converts");
        (out, s.games, s.skipped)
    };
    // 0: PGN in blocks, 1: movetext in the raw form, 2: movetext in blocks, 3: PGN in the raw form.
    for order in [&[2, 0][..], &[1, 3], &[0, 2], &[2, 0, 1, 3], &[1, 0, 2, 3]] {
        let archive: Vec<u8> = order.iter().flat_map(|&i| parts[i].0.clone()).collect();
        let (mut out, mut games, mut skipped) = (Vec::new(), 0, 0);
        for &i in order {
            let (o, g, s) = convert(&parts[i].0);
            out.extend(o);
            games += g;
            skipped += s;
        }
        assert!(games >= order.len() as u64, "{order:?}: each member holds a game");
        assert_eq!(convert(&archive), (out.clone(), games, skipped), "members {order:?}");
        // The command line, from standard input: the same games, and no warning where no
        // member has a line that is not a game.
        let cli = common::chesszip().args(["expand", "--format", "movetext", "-c"]).write_stdin(archive).output().unwrap();
        assert_eq!(cli.stdout, out, "members {order:?}: {}", common::stderr_of(&cli));
        assert_eq!(cli.status.code(), Some(if skipped == 0 { 0 } else { 2 }), "members {order:?}: {}", common::stderr_of(&cli));
    }
}

/// `info` of a concatenation whose members differ in form, level or model: its level, model
/// and coding lines say so, and a member that cannot be expanded (level 10 without its weights)
/// says why on its own line. Before, they were the first member's header: `level: 0` and model
/// `0000000000000000` for a raw first member, and the first member's level-1 model "NOT
/// included in this build: cannot expand" when a later member needed level 10's weights.
#[test]
fn info_of_mixed_members_names_no_header_of_one_member_alone() {
    let parts = members();
    let dir = tempfile::tempdir().unwrap();
    let info = |archive: &[u8], weights: Option<&std::path::Path>| {
        let path = dir.path().join("mixed.chz");
        std::fs::write(&path, archive).unwrap();
        let mut cmd = common::chesszip();
        cmd.env_remove("CHESSZIP_WEIGHTS").arg("info").arg(&path);
        if let Some(w) = weights {
            cmd.arg("--weights").arg(w);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", common::stderr_of(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    // A raw member first, then block containers of levels 1 and 2.
    let level2 = chesszip::compress_bytes(&first_games(30), &CompressOptions { level: chesszip::Level::DEFAULT, ..fast() });
    let text = info(&[parts[1].0.clone(), parts[2].0.clone(), level2].concat(), None);
    assert!(text.contains("level:          mixed: raw, 1, 2 (see the members)"), "{text}");
    assert!(!text.contains("level:          0") && !text.contains("0000000000000000"), "{text}");
    // Level 1, then level 10 made with the committed random weights.
    let (archive, _, weights, digest) = level_1_then_level_10();
    let text = info(&archive, None);
    assert!(!text.contains("NOT included"), "{text}");
    assert!(text.contains("level:          mixed: 1, 10 (see the members)"), "{text}");
    let member1 = text.lines().find(|l| l.starts_with("member 1:")).expect("a line for member 1");
    assert!(member1.contains(&format!("needs the transformer weights of sha256 {digest}")), "{text}");
    // With the weights, nothing is missing.
    let text = info(&archive, Some(&weights));
    assert!(text.contains("(all included in this build or given)") && !text.contains("needs"), "{text}");
}

/// A concatenation of a level-1 member and a level-10 one made with the committed random
/// weights; its text, the weights file and their digest.
fn level_1_then_level_10() -> (Vec<u8>, Vec<u8>, std::path::PathBuf, String) {
    let weights = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/level10/random.onnx"));
    let w = chesszip::model::transformer::Weights::load(&weights).unwrap();
    let level10 = CompressOptions { level: chesszip::Level::new(10).unwrap(), weights: Some(w), ..fast() };
    let (one, ten) = (first_games(120), first_games(3));
    let archive = [chesszip::compress_bytes(&one, &fast()), chesszip::compress_bytes(&ten, &level10)].concat();
    (archive, [one, ten].concat(), weights, chesszip::model::transformer::pinned::hex(&w.sha256))
}

/// `--salvage` of a concatenation whose level-10 member needs weights that were not given is
/// an error naming them (exit 1), as `-d` and a salvage of that member alone say, from a file
/// and from standard input: the member is not damaged. Before, it was left out and reported as
/// "member 1, block 0 damaged", and the salvage ended with status 2 as if it had done its work.
#[test]
fn salvage_without_level_10s_weights_is_an_error_not_damage() {
    let (archive, text, weights, digest) = level_1_then_level_10();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mixed.chz");
    std::fs::write(&path, &archive).unwrap();
    for stdin in [false, true] {
        let mut cmd = common::chesszip();
        cmd.env_remove("CHESSZIP_WEIGHTS").args(["-d", "-c", "--salvage"]);
        if stdin {
            cmd.write_stdin(archive.clone());
        } else {
            cmd.arg(&path);
        }
        let out = cmd.output().unwrap();
        let e = common::stderr_of(&out);
        assert_eq!(out.status.code(), Some(1), "stdin {stdin}: {e}");
        assert!(e.contains(&format!("weights of sha256 {digest}")) && !e.contains("damaged"), "stdin {stdin}: {e}");
    }
    let out = common::chesszip().args(["-d", "-c", "--salvage", "--weights"]).arg(&weights).arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", common::stderr_of(&out));
    assert_eq!(out.stdout, text);
}
