//! Golden archives: files in `tests/golden/` made by the `chesszip` binary (see
//! `scripts/golden.sh`), one per input, level and model release. Every one must keep
//! expanding to its input byte for byte, forever: archives written by an earlier release must
//! expand with every later binary. Compressing the input again with the newest release of the
//! level must give the newest golden bytes, so any change to the archive format or to an
//! embedded model shows up here. A new model is a new release with new golden files; old
//! golden files are never regenerated.

use chesszip::{CompressOptions, ExpandOptions, compress_bytes, expand_bytes};

/// `(input, archive, level)` of every golden archive under `tests/golden/`, oldest first.
const GOLDEN: [(&str, &str, u8); 112] = [
    // Version 1: the linear models (commit 1690106).
    ("movetext.txt", "movetext.l1.chz", 1),
    ("movetext.txt", "movetext.l2.chz", 2),
    ("lichess.pgn", "lichess.pgn.l1.chz", 1),
    ("movetext.txt", "movetext.l3.chz", 3),
    ("movetext.txt", "movetext.l4.chz", 4),
    ("movetext.txt", "movetext.l5.chz", 5),
    ("movetext.txt", "movetext.l6.chz", 6),
    ("movetext.txt", "movetext.l7.chz", 7),
    ("movetext.txt", "movetext.l8.chz", 8),
    ("movetext.txt", "movetext.l9.chz", 9),
    // Version 2: the move networks at levels 2-9.
    ("movetext.txt", "movetext.l2.v2.chz", 2),
    ("lichess.pgn", "lichess.pgn.l2.v2.chz", 2),
    ("movetext.txt", "movetext.l3.v2.chz", 3),
    ("movetext.txt", "movetext.l4.v2.chz", 4),
    ("movetext.txt", "movetext.l5.v2.chz", 5),
    ("movetext.txt", "movetext.l6.v2.chz", 6),
    ("movetext.txt", "movetext.l7.v2.chz", 7),
    ("movetext.txt", "movetext.l8.v2.chz", 8),
    ("movetext.txt", "movetext.l9.v2.chz", 9),
    // The whole-input raw form: zstd and LZMA2 (text that is not chess), stored (a tiny file).
    ("notes.txt", "notes.txt.l2.raw.chz", 2),
    ("prose.md", "prose.md.l2.raw.chz", 2),
    ("tiny.txt", "tiny.txt.l2.raw.chz", 2),
    // Coding 1: other move notations coded as moves (header byte 11).
    ("movetext.txt", "movetext.l1.c1.chz", 1),
    ("lichess.pgn", "lichess.pgn.l1.c1.chz", 1),
    ("lichess.pgn", "lichess.pgn.l2.c1.chz", 2),
    ("movetext.txt", "movetext.l2.c1.chz", 2),
    ("movetext.txt", "movetext.l3.c1.chz", 3),
    ("movetext.txt", "movetext.l4.c1.chz", 4),
    ("movetext.txt", "movetext.l5.c1.chz", 5),
    ("movetext.txt", "movetext.l6.c1.chz", 6),
    ("movetext.txt", "movetext.l7.c1.chz", 7),
    ("movetext.txt", "movetext.l8.c1.chz", 8),
    ("movetext.txt", "movetext.l9.c1.chz", 9),
    ("notations.txt", "notations.txt.l2.c1.chz", 2),
    ("notations.pgn", "notations.pgn.l2.c1.chz", 2),
    // Version 3: the networks distilled from the teacher, levels 2-9.
    ("lichess.pgn", "lichess.pgn.l2.v3.chz", 2),
    ("movetext.txt", "movetext.l2.v3.chz", 2),
    ("movetext.txt", "movetext.l3.v3.chz", 3),
    ("movetext.txt", "movetext.l4.v3.chz", 4),
    ("movetext.txt", "movetext.l5.v3.chz", 5),
    ("movetext.txt", "movetext.l6.v3.chz", 6),
    ("movetext.txt", "movetext.l7.v3.chz", 7),
    ("movetext.txt", "movetext.l8.v3.chz", 8),
    ("movetext.txt", "movetext.l9.v3.chz", 9),
    ("notations.txt", "notations.txt.l2.v3.chz", 2),
    ("notations.pgn", "notations.pgn.l2.v3.chz", 2),
    // Version 4: more sampled games, new game-end features.
    ("lichess.pgn", "lichess.pgn.l2.v4.chz", 2),
    ("movetext.txt", "movetext.l2.v4.chz", 2),
    ("movetext.txt", "movetext.l3.v4.chz", 3),
    ("movetext.txt", "movetext.l4.v4.chz", 4),
    ("movetext.txt", "movetext.l5.v4.chz", 5),
    ("movetext.txt", "movetext.l6.v4.chz", 6),
    ("movetext.txt", "movetext.l7.v4.chz", 7),
    ("movetext.txt", "movetext.l8.v4.chz", 8),
    ("movetext.txt", "movetext.l9.v4.chz", 9),
    ("notations.txt", "notations.txt.l2.v4.chz", 2),
    ("notations.pgn", "notations.pgn.l2.v4.chz", 2),
    // Version 5: version 4's networks fine-tuned with more sampled games.
    ("lichess.pgn", "lichess.pgn.l2.v5.chz", 2),
    ("movetext.txt", "movetext.l2.v5.chz", 2),
    ("movetext.txt", "movetext.l3.v5.chz", 3),
    ("movetext.txt", "movetext.l4.v5.chz", 4),
    ("movetext.txt", "movetext.l5.v5.chz", 5),
    ("movetext.txt", "movetext.l6.v5.chz", 6),
    ("movetext.txt", "movetext.l7.v5.chz", 7),
    ("movetext.txt", "movetext.l8.v5.chz", 8),
    ("movetext.txt", "movetext.l9.v5.chz", 9),
    ("notations.txt", "notations.txt.l2.v5.chz", 2),
    ("notations.pgn", "notations.pgn.l2.v5.chz", 2),
    // Version 6: levels 3-9, version 5's network widened.
    ("movetext.txt", "movetext.l3.v6.chz", 3),
    ("movetext.txt", "movetext.l4.v6.chz", 4),
    ("movetext.txt", "movetext.l5.v6.chz", 5),
    ("movetext.txt", "movetext.l6.v6.chz", 6),
    ("movetext.txt", "movetext.l7.v6.chz", 7),
    ("movetext.txt", "movetext.l8.v6.chz", 8),
    ("movetext.txt", "movetext.l9.v6.chz", 9),
    // Version 7: level 9 an ensemble (version 6's levels 5 and 9, version 5's level 5).
    ("movetext.txt", "movetext.l9.v7.chz", 9),
    ("notations.txt", "notations.txt.l9.v7.chz", 9),
    // Coding 2: duplicate lines coded as references to their first occurrence (movetext).
    ("movetext.txt", "movetext.l1.c2.chz", 1),
    ("movetext.txt", "movetext.l2.c2.chz", 2),
    ("movetext.txt", "movetext.l3.c2.chz", 3),
    ("movetext.txt", "movetext.l4.c2.chz", 4),
    ("movetext.txt", "movetext.l5.c2.chz", 5),
    ("movetext.txt", "movetext.l6.c2.chz", 6),
    ("movetext.txt", "movetext.l7.c2.chz", 7),
    ("movetext.txt", "movetext.l8.c2.chz", 8),
    ("movetext.txt", "movetext.l9.c2.chz", 9),
    ("notations.txt", "notations.txt.l2.c2.chz", 2),
    ("notations.txt", "notations.txt.l9.c2.chz", 9),
    ("dups.txt", "dups.txt.l2.c2.chz", 2),
    ("dups.txt", "dups.txt.l9.c2.chz", 9),
    // Version 8: level 10, the transformer, here with the committed random Chessformer of
    // tests/data/level10/ (our own random weights; the archive names them by sha256).
    ("movetext.txt", "movetext.l10.v8.random.chz", 10),
    // Version 9: level 10 with 8-bit activations in the transformer's dense layers.
    ("movetext.txt", "movetext.l10.v9.random.chz", 10),
    // Coding 3: PGN facts (clocks under a mixing model, rating diffs, ECO from the moves).
    ("lichess.pgn", "lichess.pgn.l1.c3.chz", 1),
    ("lichess.pgn", "lichess.pgn.l2.c3.chz", 2),
    ("notations.pgn", "notations.pgn.l2.c3.chz", 2),
    // Coding 4: PGN streams (clocks also from the move model's view of each move).
    ("lichess.pgn", "lichess.pgn.l1.c4.chz", 1),
    ("lichess.pgn", "lichess.pgn.l2.c4.chz", 2),
    ("notations.pgn", "notations.pgn.l2.c4.chz", 2),
    // Coding 5: PGN tags first (every tag value coded before any move, readable alone).
    ("lichess.pgn", "lichess.pgn.l1.c5.chz", 1),
    ("lichess.pgn", "lichess.pgn.l2.c5.chz", 2),
    ("notations.pgn", "notations.pgn.l2.c5.chz", 2),
    // Coding 6: PGN predicted (ECO and Opening after the moves, clocks from the pace left).
    ("lichess.pgn", "lichess.pgn.l1.c6.chz", 1),
    ("lichess.pgn", "lichess.pgn.l2.c6.chz", 2),
    ("notations.pgn", "notations.pgn.l2.c6.chz", 2),
    // Version 10: level 10 with the transformer's Elo inputs from PGN games' rating tags (coding
    // 6), the committed random Chessformer; movetext codes as version 9 under a new model id.
    ("movetext.txt", "movetext.l10.v10.random.chz", 10),
    ("lichess.pgn", "lichess.pgn.l10.v10.random.chz", 10),
    // Coding 7: PGN duplicates (a game equal to an earlier one coded as a reference to its
    // lines); dups.pgn is lichess.pgn's games repeated (scripts/golden_dups_pgn.py).
    ("lichess.pgn", "lichess.pgn.l1.c7.chz", 1),
    ("lichess.pgn", "lichess.pgn.l2.c7.chz", 2),
    ("notations.pgn", "notations.pgn.l2.c7.chz", 2),
    ("dups.pgn", "dups.pgn.l1.c7.chz", 1),
    ("dups.pgn", "dups.pgn.l2.c7.chz", 2),
    ("lichess.pgn", "lichess.pgn.l10.c7.random.chz", 10),
];

/// `(input, level)` that the name of golden archive `name` says:
/// `<input>.l<level>[.<release, coding or weights>...].chz` (see scripts/golden.sh), where
/// `movetext.txt` is named `movetext`.
fn input_and_level(name: &str) -> Option<(String, u8)> {
    let segments: Vec<&str> = name.strip_suffix(".chz")?.split('.').collect();
    let at = segments.iter().position(|s| s.len() > 1 && s.starts_with('l') && s[1..].bytes().all(|b| b.is_ascii_digit()))?;
    let input = segments[..at].join(".");
    let input = if input == "movetext" { "movetext.txt".to_string() } else { input };
    Some((input, segments[at][1..].parse().ok()?))
}

/// The list stays the specification of which archive is the newest of its input and level (its
/// order, oldest first, is not in the names), but it may not drift from the directory: every
/// archive there is listed once, with the input and level its name says.
#[test]
fn the_golden_list_is_the_golden_directory() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/golden/")
        .map(|e| e.expect("a directory entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".chz"))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = GOLDEN.iter().map(|g| g.1.to_string()).collect();
    listed.sort();
    assert_eq!(listed, on_disk, "GOLDEN and the archives in tests/golden/ differ");
    for (input, archive, level) in GOLDEN {
        assert_eq!(input_and_level(archive), Some((input.to_string(), level)), "{archive}: its name says another input or level");
    }
}

/// The committed random Chessformer the level-10 golden archive was made with, loaded.
fn level10_weights() -> &'static chesszip::model::transformer::Weights {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/level10/random.onnx");
    chesszip::model::transformer::Weights::load(std::path::Path::new(path)).expect("the committed random Chessformer loads")
}

/// The golden archives that the current binary makes: the newest of each (input, level).
fn newest() -> Vec<(&'static str, &'static str, u8)> {
    let mut out: Vec<(&str, &str, u8)> = Vec::new();
    for g in GOLDEN {
        out.retain(|o| (o.0, o.2) != (g.0, g.2));
        out.push(g);
    }
    out
}

fn read(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn golden_archives_expand_to_their_inputs() {
    level10_weights();
    for (input, archive, _) in GOLDEN {
        let expanded = expand_bytes(&read(archive), &ExpandOptions { threads: 2, ..Default::default() })
            .unwrap_or_else(|e| panic!("{archive} does not expand: {e}"));
        assert!(expanded == read(input), "{archive} expands to other bytes than {input}");
    }
}

#[test]
fn compressing_again_gives_the_golden_bytes() {
    for (input, archive, level) in newest() {
        // The defaults of the command line, as the golden files were made with it.
        let opts = CompressOptions {
            level: chesszip::Level::new(level).unwrap(),
            threads: 2,
            weights: (level == 10).then(level10_weights),
            ..CompressOptions::default()
        };
        let ours = compress_bytes(&read(input), &opts);
        assert!(
            ours == read(archive),
            "compressing {input} at level {level} no longer gives {archive} ({} vs {} bytes): \
             the format or the level-{level} model changed; if deliberate, run scripts/golden.sh",
            ours.len(),
            read(archive).len()
        );
    }
}

#[test]
fn golden_inputs_cover_the_awkward_cases() {
    // The movetext sample holds real games plus a CRLF line, a move-numbered line with
    // check marks and annotations, a non-UTF-8 line, and a last line without a line feed.
    let text = read("movetext.txt");
    assert!(text.windows(2).any(|w| w == b"\r\n"));
    assert!(text.windows(3).any(|w| w == b"1. "));
    assert!(std::str::from_utf8(&text).is_err());
    assert_ne!(text.last(), Some(&b'\n'));
    let info = chesszip::info(std::io::Cursor::new(read("movetext.l1.chz"))).expect("info");
    assert_eq!(info.lines, 44);
    assert!(info.raw_lines >= 1, "the non-game line is stored raw");
    // The notation samples are coded as moves, every line or game of them.
    for (archive, games) in [("notations.txt.l2.c1.chz", 15), ("notations.pgn.l2.c1.chz", 8)] {
        let info = chesszip::info(std::io::Cursor::new(read(archive))).expect("info");
        assert_eq!((info.games, info.raw_lines), (games, 0), "{archive}");
    }
    // The duplicate-heavy sample is coded mostly as references (coding 2): games that are
    // copies of earlier lines.
    for archive in ["dups.txt.l2.c2.chz", "dups.txt.l9.c2.chz"] {
        let info = chesszip::info(std::io::Cursor::new(read(archive))).expect("info");
        assert_eq!(info.header.coding, chesszip::container::Coding::Duplicates, "{archive}");
        assert!(info.references >= 100 && info.lines == info.games + info.raw_lines, "{archive}: {info:?}");
    }
    // The PGN archives of coding 3 say so in their header, and code every game.
    for archive in ["lichess.pgn.l1.c3.chz", "lichess.pgn.l2.c3.chz", "notations.pgn.l2.c3.chz"] {
        let info = chesszip::info(std::io::Cursor::new(read(archive))).expect("info");
        assert_eq!(info.header.coding, chesszip::container::Coding::PgnFacts, "{archive}");
        assert_eq!(info.raw_lines, 0, "{archive}: {info:?}");
    }
    for archive in ["lichess.pgn.l1.c4.chz", "lichess.pgn.l2.c4.chz", "notations.pgn.l2.c4.chz"] {
        let info = chesszip::info(std::io::Cursor::new(read(archive))).expect("info");
        assert_eq!(info.header.coding, chesszip::container::Coding::PgnStreams, "{archive}");
        assert_eq!(info.raw_lines, 0, "{archive}: {info:?}");
    }
    for archive in ["lichess.pgn.l1.c5.chz", "lichess.pgn.l2.c5.chz", "notations.pgn.l2.c5.chz"] {
        let info = chesszip::info(std::io::Cursor::new(read(archive))).expect("info");
        assert_eq!(info.header.coding, chesszip::container::Coding::PgnTagStream, "{archive}");
        assert_eq!(info.raw_lines, 0, "{archive}: {info:?}");
    }
    for archive in ["lichess.pgn.l1.c6.chz", "lichess.pgn.l2.c6.chz", "notations.pgn.l2.c6.chz"] {
        let info = chesszip::info(std::io::Cursor::new(read(archive))).expect("info");
        assert_eq!(info.header.coding, chesszip::container::Coding::PgnPredicted, "{archive}");
        assert_eq!(info.raw_lines, 0, "{archive}: {info:?}");
    }
    // Level 10's PGN archive: model version 10 (the rating tags as Elo inputs), coding 6.
    let info = chesszip::info(std::io::Cursor::new(read("lichess.pgn.l10.v10.random.chz"))).expect("info");
    assert_eq!(info.header.coding, chesszip::container::Coding::PgnPredicted);
    assert!(chesszip::model::Model::by_id(info.header.model_id).is_some_and(|m| m.transformer_elo.tags), "model version 10");
    assert_eq!(info.raw_lines, 0, "{info:?}");
    // Coding 7: the PGN inputs without duplicates are their coding-6 archives but for header
    // byte 11 (and the header's checksum): no block has references or a side stream.
    for (c6, c7) in [
        ("lichess.pgn.l1.c6.chz", "lichess.pgn.l1.c7.chz"),
        ("lichess.pgn.l2.c6.chz", "lichess.pgn.l2.c7.chz"),
        ("notations.pgn.l2.c6.chz", "notations.pgn.l2.c7.chz"),
        ("lichess.pgn.l10.v10.random.chz", "lichess.pgn.l10.c7.random.chz"),
    ] {
        let (old, new) = (read(c6), read(c7));
        assert_eq!(chesszip::info(std::io::Cursor::new(&new)).expect("info").header.coding, chesszip::container::Coding::PgnDuplicates);
        assert_eq!(old.len(), new.len(), "{c7}");
        let differ: Vec<usize> = (0..old.len()).filter(|&i| old[i] != new[i]).collect();
        assert!(differ.iter().all(|&i| i == 11 || (20..24).contains(&i)), "{c7} differs from {c6} at {differ:?}");
    }
    // The duplicate-heavy PGN: 35 games (8 + 4 + 8 + 6 + 8 + 1), most of them copies, so the
    // archive is little more than lichess.pgn's.
    for (archive, single) in [("dups.pgn.l1.c7.chz", "lichess.pgn.l1.c7.chz"), ("dups.pgn.l2.c7.chz", "lichess.pgn.l2.c7.chz")] {
        let info = chesszip::info(std::io::Cursor::new(read(archive))).expect("info");
        assert_eq!((info.header.coding, info.games, info.raw_lines), (chesszip::container::Coding::PgnDuplicates, 35, 0), "{archive}");
        assert!(read(archive).len() < read(single).len() + 150, "{archive}: {} bytes", read(archive).len());
    }
    // The raw-form archives cover its held codecs.
    use chesszip::container::raw::Codec;
    let raw = [("notes.txt.l2.raw.chz", Codec::Zstd), ("prose.md.l2.raw.chz", Codec::Lzma2), ("tiny.txt.l2.raw.chz", Codec::Stored)];
    for (archive, codec) in raw {
        assert_eq!(chesszip::info(std::io::Cursor::new(read(archive))).expect("info").raw, Some(codec), "{archive}");
    }
}
