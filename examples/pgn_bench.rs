//! Measures the PGN format on files: archive size, round trip, times, size by stream, and the
//! move cost against the movetext format on the same games.
//!
//! `cargo run --release --example pgn_bench -- [--level N] [--games N] [--threads N] [--coding N] FILE...`
//!
//! `--coding N` gives the breakdown by stream in PGN coding N (1 or later) instead of the newest.

use std::time::Instant;

use chesszip::container::{Coding, InputFormat};
use chesszip::model::Model;
use chesszip::pgn::{self, BlockReader, PgnStats, Stream};
use chesszip::{CompressOptions, ExpandOptions, compress_bytes, expand_bytes};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut take = |flag: &str, default: u32| -> u32 {
        match args.iter().position(|a| a == flag) {
            Some(i) => {
                let v = args[i + 1].parse().expect("number");
                args.drain(i..i + 2);
                v
            }
            None => default,
        }
    };
    let level = take("--level", 1) as u8;
    let level_arg = chesszip::Level::new(level).expect("--level: a level");
    let games = take("--games", 1000);
    let threads = take("--threads", 0) as usize;
    // The PGN coding of the breakdown by stream (0: the newest); the archive is always the newest.
    let coding = take("--coding", 0) as u8;
    for path in &args {
        let data = std::fs::read(path).expect("read input");
        let opts = CompressOptions {
            level: level_arg,
            block_lines: games,
            threads,
            format: Some(InputFormat::Pgn),
            block_bytes: chesszip::container::MAX_BLOCK_TEXT,
            raw_form: false,
            verify: true,
            weights: None,
        };
        let t = Instant::now();
        let archive = compress_bytes(&data, &opts);
        let t_compress = t.elapsed();
        let t = Instant::now();
        let back = expand_bytes(&archive, &ExpandOptions { threads, ..Default::default() }).expect("expand");
        let t_expand = t.elapsed();
        assert!(back == data, "{path}: round trip differs");

        // Breakdown by stream, block by block as compress cuts them.
        let model = Model::builtin(level_arg);
        let mut reader = BlockReader::new();
        let mut input = &data[..];
        let mut total = PgnStats::default();
        let mut plies = 0;
        loop {
            let mut block = Vec::new();
            reader.read_block(&mut input, games, chesszip::container::MAX_BLOCK_TEXT, &mut block).unwrap();
            if block.is_empty() {
                break;
            }
            let (_, stats, p) = match coding {
                0 => pgn::encode_block_detailed(model, &block),
                n => pgn::encode_block_in(model, pgn_coding(n), &block),
            };
            plies += stats.plies;
            total += p;
        }
        // The same games in the movetext format.
        let mut mt = Vec::new();
        chesszip::convert::to_movetext(InputFormat::Pgn, &data, &mut mt);
        let mt_opts = CompressOptions {
            level: level_arg,
            block_lines: games,
            threads: 0,
            format: Some(InputFormat::Movetext),
            block_bytes: chesszip::container::MAX_BLOCK_TEXT,
            raw_form: false,
            verify: true,
            weights: None,
        };
        let mut mt_archive = Vec::new();
        let mt_summary = chesszip::compress(&mt[..], &mut mt_archive, &mt_opts, &|_| {}).unwrap();

        println!(
            "{path} (level {level}, {games} games/block, {} threads)",
            if threads == 0 { "all".to_string() } else { threads.to_string() }
        );
        println!(
            "  input {} bytes, archive {} bytes ({:.4} of input), compress {:.2?}, expand {:.2?}",
            data.len(),
            archive.len(),
            archive.len() as f64 / data.len() as f64,
            t_compress,
            t_expand
        );
        println!("  games {} structured, {} raw ({} raw bytes); plies {plies}", total.games, total.raw_games, total.raw_bytes);
        for (i, name) in Stream::NAMES.iter().enumerate() {
            println!("  {name:>9}: {:>9.0} bytes", total.bits[i] / 8.0);
        }
        let mut tags = total.tag_bits.clone();
        tags.sort_by(|a, b| b.1.total_cmp(&a.1));
        let list: Vec<String> = tags.iter().take(40).map(|(n, b)| format!("{} {:.0}", String::from_utf8_lossy(n), b / 8.0)).collect();
        println!("  tag values (bytes): {}", list.join(", "));
        println!(
            "  range-coded {} bytes; side stream {} bytes (from {} text + {} raw)",
            total.range_bytes, total.side_bytes, total.text_bytes, total.raw_bytes
        );
        println!(
            "  moves: {:.4} bits/ply of move choices ({:.4} with ends, results, spellings) vs {:.4} bits/ply as movetext ({} plies, movetext archive {} bytes)",
            total.move_choice_bits / plies.max(1) as f64,
            total.bits[Stream::Moves as usize] / plies.max(1) as f64,
            mt_summary.stats.move_bits / mt_summary.stats.plies.max(1) as f64,
            mt_summary.stats.plies,
            mt_archive.len()
        );
    }
}

/// The PGN coding numbered `n` (1 to the newest).
fn pgn_coding(n: u8) -> Coding {
    match n {
        1 | 2 => Coding::Notations,
        3 => Coding::PgnFacts,
        4 => Coding::PgnStreams,
        5 => Coding::PgnTagStream,
        6 => Coding::PgnPredicted,
        _ => panic!("--coding: 1 to 6"),
    }
}
