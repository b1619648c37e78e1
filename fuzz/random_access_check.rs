//! The checks of the `random_access` fuzz target, shared with `tests/it/fuzz_cases.rs` (which
//! replays the seeds and the findings with them).
//!
//! The input's first two bytes choose the limits; the rest is the archive. `Games` (read in
//! order, and through `Games::seek`), `extract_games_with`, `count_games_with` and
//! `GameTags` (what `chesszip extract --tags` reads) run on it and must not panic. When
//! `expand_bytes` succeeds, what src/games.rs and docs/robustness.md promise is checked:
//! - the games, concatenated in order, give back the archive's text byte for byte;
//! - `count_games_with` counts them, `extract_games_with(1..=count)` writes the whole text,
//!   `extract_games_with(n..=n)` writes game n and `Games::seek(n - 1)` reaches it;
//! - under limits (bit 0 of the first byte: `max_game_bytes`, bit 1: `memlimit`, their
//!   values from the second byte) a reader fails only with `Error::DecodeLimit`, never
//!   returns or writes a game longer than the ceiling (the smaller of the two), and what it
//!   wrote before failing is the games before the refused one (a prefix of the text);
//! - with the default limits (a 16 MiB game ceiling) nothing fails but such a refusal.

use std::io::Cursor;

use chesszip::{DecodeLimits, Error, ExpandOptions, GameTags, Games};

/// Most games read by `Games` in one run, and games extracted one by one: bounds each run.
const MAX_GAMES: usize = 4096;
const ONE_BY_ONE: u64 = 6;

/// The limits that bits 0-1 of `cfg` choose, with values from `v`: `max_game_bytes`
/// 0..=2040 bytes, `memlimit` 1 B .. 8 MiB.
fn limits(cfg: u8, v: u8) -> DecodeLimits {
    let mut limits = DecodeLimits::default();
    if cfg & 1 != 0 {
        limits.max_game_bytes = Some(v as u64 * 8);
    }
    if cfg & 2 != 0 {
        limits.memlimit = Some(1u64 << (v % 24));
    }
    limits
}

/// The games of `archive` read in order: those returned, and the error that ended the read.
fn read_games(archive: &[u8], opts: &ExpandOptions) -> (Vec<Vec<u8>>, Option<Error>) {
    let mut games = match Games::open_with(Cursor::new(archive), opts) {
        Ok(g) => g,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut out = Vec::new();
    while out.len() < MAX_GAMES {
        match games.next_game() {
            Ok(Some(g)) => out.push(g),
            Ok(None) => break,
            Err(e) => return (out, Some(e)),
        }
    }
    (out, None)
}

/// The tags of `archive`'s games read in order, as `chesszip extract --tags` reads them: the
/// error that ended the read, if any.
fn read_tags(archive: &[u8], opts: &ExpandOptions) -> Option<Error> {
    let mut tags = match GameTags::open_with(Cursor::new(archive), opts) {
        Ok(t) => t,
        Err(e) => return Some(e),
    };
    for _ in 0..MAX_GAMES {
        match tags.next_tags() {
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(e) => return Some(e),
        }
    }
    None
}

/// `extract_games_with(range)`: its result and what it wrote.
fn extract(archive: &[u8], first: u64, last: u64, opts: &ExpandOptions) -> (Result<u64, Error>, Vec<u8>) {
    let mut out = Vec::new();
    let r = chesszip::extract_games_with(Cursor::new(archive), first..=last, &mut out, opts);
    (r, out)
}

/// Panics unless `e` is a refusal under the limits.
fn limit_only(what: &str, e: &Error) {
    assert!(matches!(e, Error::DecodeLimit { .. }), "{what} fails where expand succeeds, with no limit passed: {e}");
}

/// Runs every check on the fuzz input `data`; panics on a failure.
pub fn check(data: &[u8]) {
    let [cfg, v, archive @ ..] = data else {
        return;
    };
    let opts = ExpandOptions { threads: 1, limits: limits(*cfg, *v) };
    let ceiling = [opts.limits.max_game_bytes, opts.limits.memlimit].into_iter().flatten().min().unwrap_or(u64::MAX);

    let (games, games_err) = read_games(archive, &opts);
    let counted = chesszip::count_games_with(Cursor::new(archive), &opts);
    let (whole, whole_out) = extract(archive, 1, u64::MAX, &opts);
    let tags_err = read_tags(archive, &opts);
    for g in &games {
        assert!(g.len() as u64 <= ceiling, "Games returned a game of {} bytes past the ceiling {ceiling}", g.len());
    }

    let Ok(text) = chesszip::expand_bytes(archive, &ExpandOptions { threads: 1, ..Default::default() }) else {
        return;
    };
    // The reference: every game, with no game ceiling.
    let unlimited = ExpandOptions { threads: 1, limits: DecodeLimits { max_game_bytes: None, ..DecodeLimits::default() } };
    let (all, all_err) = read_games(archive, &unlimited);
    if let Some(e) = &all_err {
        panic!("Games fails where expand succeeds, without limits: {e}");
    }
    let complete = all.len() < MAX_GAMES;
    if complete {
        assert!(all.concat() == text, "the games do not concatenate to the text ({} games)", all.len());
    } else {
        assert!(text.starts_with(&all.concat()), "the games are not the start of the text");
    }

    // Under `opts`: the games read are the reference's first ones, up to a refusal.
    assert!(all.starts_with(&games), "Games under limits returned other games");
    match &games_err {
        Some(e) => limit_only("Games", e),
        None if complete => assert_eq!(games.len(), all.len(), "Games under limits stopped early without an error"),
        None => {}
    }
    if let Some(e) = &games_err {
        // Refused at game `games.len()`: that game passes the ceiling, or a block is refused.
        if matches!(e, Error::DecodeLimit { limit: chesszip::Limit::GameBytes, .. }) {
            let next = all.get(games.len()).map_or(0, |g| g.len() as u64);
            assert!(next > ceiling, "Games refused a game of {next} bytes under the ceiling {ceiling}");
        }
    }
    match counted {
        Ok(n) if complete => assert_eq!(n, all.len() as u64, "count_games_with differs from Games"),
        Ok(_) => {}
        Err(e) => limit_only("count_games_with", &e),
    }
    if let Some(e) = &tags_err {
        limit_only("GameTags", e);
    }
    assert!(text.starts_with(&whole_out), "extract_games_with(1..) wrote what is not the start of the text");
    match whole {
        Ok(n) if complete => {
            assert_eq!(n, all.len() as u64, "extract_games_with(1..) wrote another number of games");
            assert!(whole_out == text, "extract_games_with(1..) differs from the text");
        }
        Ok(_) => {}
        Err(e) => limit_only("extract_games_with(1..)", &e),
    }
    for (i, g) in all.iter().enumerate() {
        if g.len() as u64 > ceiling && whole_out.len() > all[..i].concat().len() {
            panic!("extract_games_with(1..) wrote game {} of {} bytes past the ceiling {ceiling}", i + 1, g.len());
        }
    }

    // Games one by one: the first few and the last, by extract and by seek.
    let n = all.len() as u64;
    let picks = (1..=n.min(ONE_BY_ONE)).chain((n > ONE_BY_ONE).then_some(n));
    for k in picks {
        let game = &all[k as usize - 1];
        let (r, out) = extract(archive, k, k, &opts);
        match r {
            Ok(w) => {
                assert_eq!(w, 1, "extract_games_with({k}..={k}) wrote {w} games");
                assert!(out == *game, "extract_games_with({k}..={k}) differs from game {k}");
                assert!(game.len() as u64 <= ceiling, "extract_games_with({k}..={k}) wrote a game past the ceiling");
            }
            Err(e) => {
                limit_only("extract_games_with(k..=k)", &e);
                assert!(out.is_empty(), "extract_games_with({k}..={k}) wrote {} bytes and failed", out.len());
            }
        }
        if let Ok(mut g) = Games::open_with(Cursor::new(archive), &opts) {
            match g.seek(k - 1).and_then(|()| g.next_game()) {
                Ok(got) => assert!(got.as_ref() == Some(game), "Games::seek({}) gives another game", k - 1),
                Err(e) => limit_only("Games::seek", &e),
            }
        }
    }
}
