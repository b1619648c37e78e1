//! Decoding limits for untrusted archives (`DecodeLimits`, `--max-plies` and the other
//! flags): a repeated game that compresses to a few plies per bit is refused before its
//! blocks are decoded when the caller set a limit, and expands without one; long lines and
//! large raw forms are refused past their ceilings by every reader, with a message naming
//! the limit and the flag that raises it.

use std::io::Cursor;

use chesszip::convert::convert;
use chesszip::{
    CompressOptions, DecodeLimits, Error, ExpandOptions, Games, Limit, compress_bytes, expand_bytes, expand_salvage, extract_games_with,
    extract_lines_with,
};

use crate::common::chesszip;

/// The first game of the golden movetext sample, with its line feed.
fn one_game() -> Vec<u8> {
    let text = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/movetext.txt")).expect("golden sample");
    let line = text.split_inclusive(|&b| b == b'\n').next().expect("a line");
    line.to_vec()
}

fn with(limits: DecodeLimits) -> ExpandOptions {
    ExpandOptions { threads: 2, limits }
}

fn limit_of(e: &Error) -> Option<Limit> {
    match e {
        Error::DecodeLimit { limit, .. } => Some(*limit),
        _ => None,
    }
}

/// 1,000 copies of one game at level 1 in the block container, coding 1, and its plies.
///
/// Written by commit 52cef0d (before coding 2, which codes a repeated game as a reference and so
/// no longer makes such an archive): `tests/data/limits/repeated-1000.l1.c1.chz`, 5,424 bytes,
/// 92,000 plies. Archives of every earlier coding must still expand, so they are what a hostile
/// sender would use.
fn repeated() -> (Vec<u8>, Vec<u8>, u64) {
    let text = one_game().repeat(1000);
    let archive = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/limits/repeated-1000.l1.c1.chz")).expect("fixture");
    let plies = chesszip::info(Cursor::new(&archive)).expect("info").plies;
    (text, archive, plies)
}

/// Coding 2 codes the copies as references: the same 1,000 copies cost no model work at all.
#[test]
fn repeated_games_are_references_in_new_archives() {
    let text = one_game().repeat(1000);
    let archive =
        compress_bytes(&text, &CompressOptions { level: chesszip::Level::MIN, threads: 2, raw_form: false, ..CompressOptions::default() });
    let plies = chesszip::info(Cursor::new(&archive)).expect("info").plies;
    assert_eq!(plies, 92, "only the first copy is coded as moves");
    let low = DecodeLimits { max_plies: Some(1_000), ..DecodeLimits::default() };
    assert_eq!(expand_bytes(&archive, &with(low)).unwrap(), text);
}

#[test]
fn a_repeated_game_is_refused_by_the_limits_and_expands_without() {
    let (text, archive, plies) = repeated();
    // Nothing crafted: repeated games compress to many plies per byte.
    assert!(plies > 70_000, "{plies} plies");
    let per_byte = plies / archive.len() as u64;
    assert!(per_byte >= 10, "{plies} plies in {} bytes", archive.len());

    let err = expand_bytes(&archive, &with(DecodeLimits { max_plies: Some(10_000), ..DecodeLimits::default() })).unwrap_err();
    assert_eq!(limit_of(&err), Some(Limit::Plies), "{err}");
    let message = err.to_string();
    assert!(message.contains("--max-plies") && message.contains("10000") && message.contains("max_plies="), "{message}");
    let err = expand_bytes(&archive, &with(DecodeLimits { max_plies_per_byte: Some(5), ..DecodeLimits::default() })).unwrap_err();
    assert_eq!(limit_of(&err), Some(Limit::Work), "{err}");
    assert!(err.to_string().contains("--max-work"), "{err}");

    assert_eq!(expand_bytes(&archive, &with(DecodeLimits::default())).unwrap(), text);
    assert_eq!(expand_bytes(&archive, &with(DecodeLimits::unlimited())).unwrap(), text);
    assert_eq!(
        expand_bytes(&archive, &with(DecodeLimits { max_plies_per_byte: Some(2 * per_byte + 1), ..DecodeLimits::default() })).unwrap(),
        text
    );

    // Every reader takes the same limits.
    let low = with(DecodeLimits { max_plies: Some(plies - 1), ..DecodeLimits::default() });
    let mut out = Vec::new();
    let err = expand_salvage(Cursor::new(&archive), &mut out, &low, &|_| {}).unwrap_err();
    assert_eq!(limit_of(&err), Some(Limit::Plies), "{err}");
    let err = convert(&archive[..], std::io::sink(), &low, &|_| {}).unwrap_err();
    assert_eq!(limit_of(&err), Some(Limit::Plies), "{err}");
    let err = extract_games_with(Cursor::new(&archive), 1..=u64::MAX, std::io::sink(), &low).unwrap_err();
    assert_eq!(limit_of(&err), Some(Limit::Plies), "{err}");
    let err = Games::open_with(Cursor::new(&archive), &low).unwrap().find_map(Result::err).expect("a limit error");
    assert_eq!(limit_of(&err), Some(Limit::Plies), "{err}");
}

#[test]
fn the_command_line_names_the_limit() {
    let (_, archive, plies) = repeated();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.txt.chz");
    std::fs::write(&path, &archive).unwrap();
    let limit = (plies / 2).to_string();
    for args in [
        &["-t", "--max-plies", &limit][..],
        &["expand", "-c", "--max-plies", &limit],
        &["expand", "-c", "--format", "movetext", "--max-plies", &limit],
        &["extract", "--game", "1..", "--max-plies", &limit],
    ] {
        let out = chesszip().args(args).arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("--max-plies") && stderr.contains(&limit), "{args:?}: {stderr}");
    }
    chesszip()
        .args(["-t", "--max-output", "1K"])
        .arg(&path)
        .output()
        .map(|o| {
            assert_eq!(o.status.code(), Some(1));
            assert!(String::from_utf8_lossy(&o.stderr).contains("--max-output"));
        })
        .unwrap();
    chesszip().args(["-t", "--max-plies", &limit, "--no-limits"]).arg(&path).assert().failure();
    chesszip().args(["-t", "--no-limits"]).arg(&path).assert().success();
    chesszip().args(["-t", "--max-plies", &plies.to_string(), "--memlimit", "64M"]).arg(&path).assert().success();
    chesszip().args(["-t", "--memlimit", "12Q"]).arg(&path).assert().failure();
}

/// One long line of legal moves (knights out and back), `len` bytes or a little more.
fn long_line(len: usize) -> Vec<u8> {
    let mut line = b"Nf3 Nf6 Ng1 Ng8 ".repeat(len / 16 + 1);
    line.extend_from_slice(b"*\n");
    line
}

#[test]
fn a_game_longer_than_the_ceiling_is_refused_by_the_readers_that_hold_it() {
    let mut text = b"e4 e5 1-0\n".to_vec();
    text.extend(long_line(300_000));
    text.extend_from_slice(b"d4 d5 0-1\n");
    let archive = compress_bytes(
        &text,
        &CompressOptions { level: chesszip::Level::MIN, threads: 2, block_lines: 1, raw_form: false, ..CompressOptions::default() },
    );
    let small = with(DecodeLimits { max_game_bytes: Some(100_000), ..DecodeLimits::default() });

    let mut games = Games::open_with(Cursor::new(&archive), &small).unwrap();
    assert_eq!(games.next_game().unwrap().unwrap(), b"e4 e5 1-0\n");
    let err = games.next_game().unwrap_err();
    assert_eq!(limit_of(&err), Some(Limit::GameBytes), "{err}");
    assert!(err.to_string().contains("--max-game-bytes"), "{err}");
    let err = convert(&archive[..], std::io::sink(), &small, &|_| {}).unwrap_err();
    assert_eq!(limit_of(&err), Some(Limit::GameBytes), "{err}");
    let memory = with(DecodeLimits { memlimit: Some(50_000), ..DecodeLimits::unlimited() });
    let err = convert(&archive[..], std::io::sink(), &memory, &|_| {}).unwrap_err();
    assert_eq!(limit_of(&err), Some(Limit::Memory), "{err}");
    // `expand` streams the line: no game ceiling applies.
    assert_eq!(expand_bytes(&archive, &small).unwrap(), text);
    // Within the ceiling, all readers work as before.
    let games: Vec<Vec<u8>> =
        Games::open_with(Cursor::new(&archive), &with(DecodeLimits::default())).unwrap().map(Result::unwrap).collect();
    assert_eq!(games.concat(), text);
    let mut out = Vec::new();
    let c = convert(&archive[..], &mut out, &with(DecodeLimits::default()), &|_| {}).unwrap();
    assert_eq!(c.games, 3);
}

#[test]
fn a_pgn_game_across_many_blocks_is_extracted_without_holding_the_run() {
    // A PGN game of 600 KB (one long comment) between short games, two games a block: the
    // longest block runs into the next (a run of blocks), whose games are cut as they come.
    let mut pgn = Vec::new();
    for i in 0..5 {
        pgn.extend_from_slice(format!("[Event \"g{i}\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n").as_bytes());
    }
    pgn.extend_from_slice(b"[Event \"long\"]\n\n1. e4 {");
    for _ in 0..40_000 {
        pgn.extend_from_slice(b"a comment line\n");
    }
    pgn.extend_from_slice(b"} e5 1-0\n\n[Event \"last\"]\n\n1. d4 d5 0-1\n");
    let opts = CompressOptions { level: chesszip::Level::MIN, threads: 2, block_lines: 2, raw_form: false, ..CompressOptions::default() };
    let archive = compress_bytes(&pgn, &opts);
    let all = |limits| {
        let mut out = Vec::new();
        extract_games_with(Cursor::new(&archive), 1..=u64::MAX, &mut out, &with(limits)).map(|n| (n, out))
    };
    let (n, out) = all(DecodeLimits::default()).unwrap();
    assert_eq!((n, out), (7, pgn.clone()));
    let err = all(DecodeLimits { max_game_bytes: Some(100_000), ..DecodeLimits::default() }).unwrap_err();
    assert_eq!(limit_of(&err), Some(Limit::GameBytes), "{err}");
    // The games before and after the long one are still found on their own.
    let mut last = Vec::new();
    let small = with(DecodeLimits { max_game_bytes: Some(100_000), ..DecodeLimits::default() });
    assert_eq!(extract_games_with(Cursor::new(&archive), 7..=7, &mut last, &small).unwrap(), 1);
    assert_eq!(last, b"[Event \"last\"]\n\n1. d4 d5 0-1\n", "the long game before it is read past, not bounded");
    // Read past, the long game is still held: the memory ceiling bounds it.
    let memory = with(DecodeLimits { memlimit: Some(100_000), ..DecodeLimits::unlimited() });
    let err = extract_games_with(Cursor::new(&archive), 7..=7, std::io::sink(), &memory).unwrap_err();
    assert_eq!(limit_of(&err), Some(Limit::Memory), "{err}");
    let mut second = Vec::new();
    extract_games_with(Cursor::new(&archive), 2..=2, &mut second, &small).unwrap();
    assert_eq!(second, b"[Event \"g1\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n");
}

#[test]
fn a_pgn_game_cut_across_blocks_is_bounded_before_any_of_it_is_written() {
    // Blocks of 1,024 bytes (cut inside lines): a game of some 3 KB (a long comment) starts in
    // one block and ends inside a later one, so that what it holds before its last block is
    // under the ceiling and only the whole game is over it.
    let short = |i: usize| format!("[Event \"g{i}\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n").into_bytes();
    let mut long = b"[Event \"long\"]\n\n1. e4 {".to_vec();
    for _ in 0..200 {
        long.extend_from_slice(b"a comment line\n");
    }
    long.extend_from_slice(b"} e5 1-0\n\n");
    let before: Vec<u8> = (0..5).flat_map(short).collect();
    let last = b"[Event \"last\"]\n\n1. d4 d5 0-1\n".to_vec();
    let pgn = [&before[..], &long, &last].concat();
    const BLOCK: usize = 1024;
    let opts = CompressOptions {
        level: chesszip::Level::MIN,
        threads: 2,
        block_lines: 100,
        block_bytes: BLOCK,
        raw_form: false,
        ..CompressOptions::default()
    };
    let archive = compress_bytes(&pgn, &opts);
    let (start, end) = (before.len(), before.len() + long.len());
    let held_before_its_last_block = end / BLOCK * BLOCK - start;
    let ceiling = long.len() as u64 - 1;
    assert!(start / BLOCK < end / BLOCK && end % BLOCK != 0, "the game must end inside a later block");
    assert!((held_before_its_last_block as u64) < ceiling, "the game must pass the ceiling only in its last block");

    let extract = |range, max: u64| {
        let mut out = Vec::new();
        let limits = DecodeLimits { max_game_bytes: Some(max), ..DecodeLimits::default() };
        (extract_games_with(Cursor::new(&archive), range, &mut out, &with(limits)), out)
    };
    // At the ceiling: written whole, as in the input.
    let (n, out) = extract(6..=6, long.len() as u64);
    assert_eq!((n.unwrap(), &out), (1, &long));
    let (n, out) = extract(1..=u64::MAX, long.len() as u64);
    assert_eq!((n.unwrap(), &out), (7, &pgn));
    // One byte over: refused as a game over the ceiling within a block is, nothing of it written.
    let (n, out) = extract(6..=6, ceiling);
    let err = n.unwrap_err();
    assert_eq!(limit_of(&err), Some(Limit::GameBytes), "{err}");
    assert!(out.is_empty(), "{} bytes written", out.len());
    let (n, out) = extract(1..=u64::MAX, ceiling);
    assert_eq!(limit_of(&n.unwrap_err()), Some(Limit::GameBytes));
    assert!(out == before, "only the games before the long one are written");
    // `Games` (and Python's readers, which go through it) holds the same bound.
    let small = with(DecodeLimits { max_game_bytes: Some(ceiling), ..DecodeLimits::default() });
    let mut games = Games::open_with(Cursor::new(&archive), &small).unwrap();
    games.seek(5).unwrap();
    assert_eq!(limit_of(&games.next_game().unwrap_err()), Some(Limit::GameBytes));
    let mut games = Games::open_with(Cursor::new(&archive), &with(DecodeLimits::default())).unwrap();
    games.seek(5).unwrap();
    assert_eq!(games.next_game().unwrap().unwrap(), long);

    // The command line: exit status 1 with the limit's message, and nothing on standard output.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.pgn.chz");
    std::fs::write(&path, &archive).unwrap();
    let o = chesszip().arg("extract").arg(&path).args(["--game", "6", "--max-game-bytes", &ceiling.to_string()]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty(), "{} bytes written", o.stdout.len());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--max-game-bytes"), "{}", String::from_utf8_lossy(&o.stderr));
    let max = long.len().to_string();
    chesszip().arg("extract").arg(&path).args(["--game", "6", "--max-game-bytes", &max]).assert().success().stdout(long);
}

#[test]
fn raw_forms_are_capped_before_and_while_expanding() {
    let text = b"the same log line, over and over again\n".repeat(20_000);
    let archive = compress_bytes(&text, &CompressOptions { level: chesszip::Level::MIN, threads: 2, ..CompressOptions::default() });
    assert!(archive.len() * 100 < text.len(), "a raw form of {} bytes", archive.len());
    let err = expand_bytes(&archive, &with(DecodeLimits { max_output: Some(100_000), ..DecodeLimits::default() })).unwrap_err();
    assert_eq!(limit_of(&err), Some(Limit::Output), "{err}");
    let err = expand_bytes(&archive, &with(DecodeLimits { memlimit: Some(4096), ..DecodeLimits::default() })).unwrap_err();
    assert_eq!(limit_of(&err), Some(Limit::Memory), "{err}");
    let err = Games::open_with(Cursor::new(&archive), &with(DecodeLimits { max_output: Some(100_000), ..DecodeLimits::default() }))
        .err()
        .expect("refused");
    assert_eq!(limit_of(&err), Some(Limit::Output), "{err}");
    let err = extract_lines_with(
        Cursor::new(&archive),
        1..=1,
        std::io::sink(),
        &with(DecodeLimits { max_output: Some(100_000), ..DecodeLimits::default() }),
    )
    .unwrap_err();
    assert_eq!(limit_of(&err), Some(Limit::Output), "{err}");
    assert_eq!(
        expand_bytes(&archive, &with(DecodeLimits { max_output: Some(text.len() as u64), ..DecodeLimits::default() })).unwrap(),
        text
    );
}

#[test]
fn memlimit_shrinks_rounds_and_refuses_a_block_that_does_not_fit() {
    let text = crate::common::first_games(400);
    let archive = compress_bytes(
        &text,
        &CompressOptions { level: chesszip::Level::MIN, threads: 2, block_lines: 100, raw_form: false, ..CompressOptions::default() },
    );
    // A round of one block at a time still expands.
    let one_block = 2 * text.len() as u64 / 4 + 50_000;
    assert_eq!(expand_bytes(&archive, &with(DecodeLimits { memlimit: Some(one_block), ..DecodeLimits::default() })).unwrap(), text);
    let err = expand_bytes(&archive, &with(DecodeLimits { memlimit: Some(10_000), ..DecodeLimits::default() })).unwrap_err();
    assert_eq!(limit_of(&err), Some(Limit::Memory), "{err}");
    assert!(err.to_string().contains("--memlimit"), "{err}");
}

/// The ceilings hold for the whole of a concatenated archive, not for each member: three
/// copies of an archive (block container, then a raw form of prose) expand to three times its
/// text, and a `max_output` or `max_plies` between one and three times is refused.
#[test]
fn limits_count_every_member_of_a_concatenation() {
    let games = crate::common::first_games(40);
    let prose: Vec<u8> = b"Not a chess game: a line of plain prose, repeated.\n".repeat(2000);
    for (what, text) in [("games", &games), ("prose", &prose)] {
        let one = compress_bytes(text, &crate::common::fast());
        let three = [one.as_slice(), &one, &one].concat();
        let expanded = expand_bytes(&three, &with(DecodeLimits::default())).expect("three members expand");
        assert_eq!(expanded, [text.as_slice(), text, text].concat(), "{what}");
        let len = text.len() as u64;
        let refused = expand_bytes(&three, &with(DecodeLimits { max_output: Some(2 * len + len / 2), ..DecodeLimits::default() }));
        assert_eq!(refused.as_ref().err().and_then(limit_of), Some(Limit::Output), "{what}: {refused:?}");
        let fits = expand_bytes(&three, &with(DecodeLimits { max_output: Some(3 * len), ..DecodeLimits::default() }));
        assert_eq!(fits.expect("the whole text fits"), expanded, "{what}");
    }
    let plies = crate::common::info_of(&compress_bytes(&games, &crate::common::fast())).plies;
    assert!(plies > 1000, "40 games have {plies} plies");
    let one = compress_bytes(&games, &crate::common::fast());
    let three = [one.as_slice(), &one, &one].concat();
    let refused = expand_bytes(&three, &with(DecodeLimits { max_plies: Some(2 * plies + 1), ..DecodeLimits::default() }));
    assert_eq!(refused.as_ref().err().and_then(limit_of), Some(Limit::Plies), "{refused:?}");
}

/// The first `n` games of a lichess export (tags, clocks in comments), as the input has them.
fn lichess_games(n: usize) -> Vec<u8> {
    let text = std::fs::read(crate::common::shared_data("pgn/lichess/2017-05.pgn")).expect("lichess sample");
    let starts: Vec<usize> =
        (0..text.len()).filter(|&i| text[i..].starts_with(b"[Site ") && (i == 0 || text[..i].ends_with(b"\n\n"))).take(n + 1).collect();
    assert_eq!(starts.len(), n + 1, "the sample holds more than {n} games");
    text[..starts[n]].to_vec()
}

/// `--max-game-bytes` bounds the games asked for and no other: for every game N of real
/// games of different lengths, in the raw form (whose text is read in one piece) and in
/// containers whose small blocks cut games (at lines, and inside lines), game N alone is
/// written under a ceiling of its own length L and refused, nothing of it written, under L - 1,
/// whatever the length of the games before it, after it, or sharing its blocks. `Games` (and so
/// Python) bounds the games it returns the same way, not those it reads past to seek.
#[test]
fn the_game_ceiling_bounds_the_games_asked_for_and_no_other() {
    // Three annotated games of 12-16 KB whose moves the model does not code: the raw form.
    let wcc = std::fs::read(crate::common::shared_data("pgn/edge-cases/dartchess/wcc_2023.pgn")).expect("sample");
    let raw = compress_bytes(&wcc, &CompressOptions { level: chesszip::Level::MIN, threads: 2, ..CompressOptions::default() });
    assert!(raw.starts_with(&chesszip::container::raw::RAW_MAGIC), "these games take the raw form");
    let pgn = lichess_games(8);
    let small_blocks = |block_lines, block_bytes| {
        let opts = CompressOptions {
            level: chesszip::Level::MIN,
            threads: 2,
            block_lines,
            block_bytes,
            raw_form: false,
            ..CompressOptions::default()
        };
        compress_bytes(&pgn, &opts)
    };
    for (form, text, archive) in
        [("raw", &wcc, raw), ("3 lines a block", &pgn, small_blocks(3, 1 << 20)), ("700 bytes a block", &pgn, small_blocks(1000, 700))]
    {
        let extract = |range: std::ops::RangeInclusive<u64>, limits: DecodeLimits| {
            let mut out = Vec::new();
            (extract_games_with(Cursor::new(&archive), range, &mut out, &with(limits)), out)
        };
        let games: Vec<Vec<u8>> = (1..)
            .map(|n| extract(n..=n, DecodeLimits::unlimited()))
            .map_while(|(w, out)| (w.expect("extract") == 1).then_some(out))
            .collect();
        assert!(games.len() >= 3, "{form}: {} games", games.len());
        assert!(games.concat() == *text, "{form}: the games are those of the input");
        let lengths: Vec<u64> = games.iter().map(|g| g.len() as u64).collect();
        assert!(lengths.iter().any(|&l| l != lengths[0]), "games of different lengths");
        for (i, game) in games.iter().enumerate() {
            let (n, len) = (i as u64 + 1, game.len() as u64);
            let at = |max| DecodeLimits { max_game_bytes: Some(max), ..DecodeLimits::default() };
            let (w, out) = extract(n..=n, at(len));
            assert_eq!((w.unwrap_or_else(|e| panic!("{form}: game {n} of {len} bytes: {e}")), &out), (1, game), "{form}: game {n}");
            let (w, out) = extract(n..=n, at(len - 1));
            assert_eq!(limit_of(&w.expect_err("over the ceiling")), Some(Limit::GameBytes), "{form}: game {n}");
            assert!(out.is_empty(), "{form}: game {n}: {} bytes written", out.len());
            // Two games: the ceiling is the longer one's length.
            if i + 1 < games.len() {
                let pair = len.max(lengths[i + 1]);
                let (w, out) = extract(n..=n + 1, at(pair));
                assert_eq!((w.unwrap(), out), (2, [&game[..], &games[i + 1]].concat()), "{form}: games {n}-{}", n + 1);
                assert!(extract(n..=n + 1, at(pair - 1)).0.is_err(), "{form}: games {n}-{}", n + 1);
            }
            // `Games` seeks past the games before it and returns it under its own length.
            let mut g = Games::open_with(Cursor::new(&archive), &with(at(len))).unwrap();
            g.seek(i as u64).unwrap_or_else(|e| panic!("{form}: seek to game {n}: {e}"));
            assert_eq!(&g.next_game().unwrap().unwrap(), game, "{form}: Games, game {n}");
            let mut g = Games::open_with(Cursor::new(&archive), &with(at(len - 1))).unwrap();
            g.seek(i as u64).unwrap();
            assert_eq!(limit_of(&g.next_game().unwrap_err()), Some(Limit::GameBytes), "{form}: Games, game {n}");
        }
        // The command line: the shortest game under its own length, whatever the longer ones.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.chz");
        std::fs::write(&path, &archive).unwrap();
        let i = (0..games.len()).min_by_key(|&i| lengths[i]).expect("games");
        let (n, len) = ((i + 1).to_string(), lengths[i]);
        assert!(lengths.iter().any(|&l| l > len), "{form}: a longer game");
        let cli =
            |max: u64| chesszip().arg("extract").arg(&path).args(["--game", &n, "--max-game-bytes", &max.to_string()]).output().unwrap();
        let o = cli(len);
        assert_eq!((o.status.code(), &o.stdout), (Some(0), &games[i]), "{form}: {}", String::from_utf8_lossy(&o.stderr));
        let o = cli(len - 1);
        assert_eq!(o.status.code(), Some(1));
        assert!(o.stdout.is_empty());
        assert!(String::from_utf8_lossy(&o.stderr).contains("--max-game-bytes"), "{}", String::from_utf8_lossy(&o.stderr));
    }
}

/// A raw member after the first is walked (decoded) to find where it ends: under `--memlimit`
/// only where its decoder's window fits, as its own readers decode it. Before, the walk took
/// the window whatever the limit (up to 128 MiB for a streamed member), so that `extract` of
/// the first member's games under a small limit held it all the same.
#[test]
fn a_raw_member_past_the_memlimit_is_not_walked() {
    let games = crate::common::first_games(2);
    let container =
        compress_bytes(&games, &CompressOptions { level: chesszip::Level::MIN, threads: 2, raw_form: false, ..CompressOptions::default() });
    // A raw member whose decoder needs a window of 1 MiB (its text's length, rounded up).
    let log = b"the same log line, over and over again\n".repeat(20_000);
    let raw = compress_bytes(&log, &CompressOptions { level: chesszip::Level::MIN, threads: 2, ..CompressOptions::default() });
    assert!(raw.starts_with(&chesszip::container::raw::RAW_MAGIC), "the log takes the raw form");
    let both = [&container[..], &raw[..]].concat();
    let limits = with(DecodeLimits { memlimit: Some(512 << 10), ..DecodeLimits::default() });
    // The first member alone decodes under the limit.
    assert_eq!(extract_lines_with(Cursor::new(&container), 1..=1, std::io::sink(), &limits).unwrap(), 1);
    assert_eq!(extract_games_with(Cursor::new(&container), 1..=1, std::io::sink(), &limits).unwrap(), 1);
    let refused = |e: Error| {
        assert_eq!(limit_of(&e), Some(Limit::Memory), "{e}");
        assert!(e.to_string().contains("window of 1048576 bytes"), "{e}");
    };
    refused(extract_lines_with(Cursor::new(&both), 1..=1, std::io::sink(), &limits).unwrap_err());
    refused(extract_games_with(Cursor::new(&both), 1..=1, std::io::sink(), &limits).unwrap_err());
    refused(Games::open_with(Cursor::new(&both), &limits).err().expect("refused"));
    refused(chesszip::inspect::info_within(Cursor::new(&both), Some(512 << 10)).unwrap_err());
    // Without a limit (and within one the window fits), the concatenation reads as before.
    let roomy = with(DecodeLimits { memlimit: Some(16 << 20), ..DecodeLimits::default() });
    assert_eq!(extract_lines_with(Cursor::new(&both), 1..=1, std::io::sink(), &roomy).unwrap(), 1);
    assert_eq!(chesszip::info(Cursor::new(&both)).unwrap().members, 2);
}
