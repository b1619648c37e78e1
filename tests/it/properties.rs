//! Property tests: any bytes round trip, and so do random edits of real game lines (which
//! mostly stay games, or turn into near-games that must be kept raw exactly).

use crate::common;

use chesszip::CompressOptions;
use common::{GAMES, fast, round_trip_with};
use proptest::prelude::*;

fn config() -> ProptestConfig {
    ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() }
}

/// Real game lines (the first 200), without line feeds.
fn real_lines() -> Vec<Vec<u8>> {
    GAMES.split(|&b| b == b'\n').take(200).map(<[u8]>::to_vec).collect()
}

/// Bytes that chess lines are made of, to make edits likely to stay near-valid.
const ALPHABET: &[u8] = b"abcdefgh12345678NBRQKOx=+#-/* \r\n0";

#[derive(Clone, Debug)]
enum Edit {
    /// Replace the byte at a position (modulo length) by one of `ALPHABET` or any byte.
    Set(usize, u8),
    /// Insert a byte.
    Insert(usize, u8),
    /// Delete a byte.
    Delete(usize),
    /// Cut the line short.
    Truncate(usize),
    /// Swap two space-separated tokens.
    SwapTokens(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let byte = prop_oneof![3 => prop::sample::select(ALPHABET), 1 => any::<u8>()];
    prop_oneof![
        (any::<usize>(), byte.clone()).prop_map(|(i, b)| Edit::Set(i, b)),
        (any::<usize>(), byte).prop_map(|(i, b)| Edit::Insert(i, b)),
        any::<usize>().prop_map(Edit::Delete),
        any::<usize>().prop_map(Edit::Truncate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::SwapTokens(a, b)),
    ]
}

fn apply(line: &mut Vec<u8>, e: &Edit) {
    let n = line.len().max(1);
    match *e {
        Edit::Set(i, b) if !line.is_empty() => line[i % n] = b,
        Edit::Insert(i, b) => line.insert(i % (line.len() + 1), b),
        Edit::Delete(i) if !line.is_empty() => {
            line.remove(i % n);
        }
        Edit::Truncate(i) => line.truncate(i % n),
        Edit::SwapTokens(a, b) => {
            let mut tokens: Vec<Vec<u8>> = line.split(|&c| c == b' ').map(<[u8]>::to_vec).collect();
            let t = tokens.len();
            tokens.swap(a % t, b % t);
            *line = tokens.join(&b' ');
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_bytes_round_trip(bytes in prop::collection::vec(any::<u8>(), 0..2000), block_lines in 1u32..5) {
        round_trip_with(&bytes, &CompressOptions { block_lines, ..fast() });
    }

    #[test]
    fn chess_alphabet_round_trips(bytes in prop::collection::vec(prop::sample::select(ALPHABET), 0..2000), block_bytes in 1usize..300) {
        round_trip_with(&bytes, &CompressOptions { block_bytes, ..fast() });
    }

    #[test]
    fn mutated_game_lines_round_trip(
        picks in prop::collection::vec((0usize..200, prop::collection::vec(edit(), 0..4)), 1..6),
        ends in prop::sample::select(vec!["\n", "\r\n", "", "\r", "\n\n"]),
    ) {
        let lines = real_lines();
        let mut text = Vec::new();
        for (pick, edits) in &picks {
            let mut line = lines[*pick].clone();
            for e in edits {
                apply(&mut line, e);
            }
            text.extend_from_slice(&line);
            text.extend_from_slice(ends.as_bytes());
        }
        round_trip_with(&text, &CompressOptions { block_lines: 2, ..fast() });
    }
}
