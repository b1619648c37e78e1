//! Tests of the fast searcher: its board's move generation and SEE against shakmaty and
//! [`crate::chess::see()`], and hand-checked positions. Exact agreement with the reference
//! implementation (the test oracle) is tested in tests/it/search.rs.

use shakmaty::{CastlingMode, Chess, Move, Position, fen::Fen, uci::UciMove};

use super::board::{Board, CastleInfo, KnownAttacks, LIST_LEN, MoveList, Mv, Scored};
use super::search::{MATE, SearchConfig, Searcher};
use crate::chess::{move_value, see};

#[path = "../../tests/support/positions.rs"]
mod positions;
use positions::{CHESS960, legal, position, position960, sample_positions};

fn q(depth: u8, margin: i32) -> SearchConfig {
    SearchConfig { depth, quiescence: true, margin, qdepth: 0 }
}

/// Quiescence limited to `qdepth` capture plies.
fn ql(depth: u8, margin: i32, qdepth: u8) -> SearchConfig {
    SearchConfig { depth, quiescence: true, margin, qdepth }
}

/// Without quiescence.
fn nq(depth: u8, margin: i32) -> SearchConfig {
    SearchConfig { depth, quiescence: false, margin, qdepth: 0 }
}

#[test]
fn qdepth_limits_the_capture_plies() {
    // Qd2xd5 exd5 Rd1xd5, and then Black has no capture.
    let fen = "4k3/8/4p3/3n4/8/8/3Q4/3RK3 w - - 0 1";
    let mut pos = position(fen);
    let mut values = Vec::new();
    let mut sees = Vec::new();
    for uci in ["d2d5", "e6d5", "d1d5"] {
        let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        values.push(move_value(&pos, &m));
        sees.push(see(&pos, &m));
        pos.play_unchecked(m);
    }
    assert!(pos.capture_moves().is_empty());
    let [qxd5, exd5, rxd5] = values[..] else { unreachable!() };
    // exd5 wins the queen for a pawn; Rxd5 then wins a pawn.
    assert_eq!(sees[1..], [929 - 100, 100]);
    let s = |k: u8| {
        let (_, moves, s) = scores(fen, ql(0, 100_000, k));
        score_of(&moves, &s, "d2d5")
    };
    // qdepth 1: Black's best capture after Qxd5 is estimated by its static exchange.
    assert_eq!(s(1), qxd5 - (929 - 100));
    // qdepth 2: exd5 is searched, White's recapture estimated statically.
    assert_eq!(s(2), qxd5 - (exd5 - 100));
    // qdepth 3: Rxd5 is searched too, and Black has no capture left: the full quiescence,
    // like qdepth 0 (unlimited).
    assert_eq!(s(3), qxd5 - (exd5 - rxd5));
    assert_eq!(s(0), s(3));
    assert_eq!(s(255), s(0));
}

#[test]
fn board_see_matches_see() {
    // Every legal move (captures, quiet moves, promotions, castling) of positions sampled from
    // the games of data/Chess_Games.txt and of their children, plus hand-picked positions.
    let mut positions = sample_positions(17, 5, 1500);
    for fen in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1",
        "4r1k1/8/8/4p3/8/8/4R3/4QK2 w - - 0 1",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        "8/8/3k4/8/KPp4r/8/8/8 b - b3 0 1",
        "1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1",
        "3qk3/8/8/3r4/8/3R4/3Q4/3RK3 w - - 0 1",
        "7k/8/8/3q4/4K3/8/8/8 w - - 0 1",
    ] {
        positions.push(position(fen));
    }
    let mut checked = 0;
    for root in &positions {
        let mut todo = vec![root.clone()];
        for m in root.legal_moves() {
            let mut child = root.clone();
            child.play_unchecked(m);
            todo.push(child);
        }
        for pos in todo {
            let board = Board::from_chess(&pos);
            for m in pos.legal_moves() {
                let mv = board.convert(&m);
                let expected = see(&pos, &m);
                assert_eq!(board.see(mv), expected, "{} {m:?}", Fen::from_position(&pos, shakmaty::EnPassantMode::Legal));
                assert!(expected <= Board::see_bound(mv).max(0) || !m.is_capture() && m.promotion().is_none());
                checked += 1;
            }
        }
    }
    assert!(checked > 1_000_000, "{checked}");
}

/// Legal moves of `board` per the fast generator (pseudo-legal + make/check), as UCI strings.
fn fast_legal(board: &Board, castling: &CastleInfo, captures_only: bool) -> Vec<(String, i32)> {
    let mut buf = vec![Scored { value: 0, mv: Mv(0) }; LIST_LEN];
    let mut list = MoveList::new(&mut buf);
    if captures_only {
        assert!(!board.gen_captures::<false>(&mut list, i32::MIN));
    } else {
        assert!(!board.gen_all(&mut list, castling));
    }
    let n = list.len;
    let mut out: Vec<(String, i32)> = buf[..n]
        .iter()
        .filter(|s| {
            let mut child = *board;
            child.make(s.mv);
            !child.mover_in_check()
        })
        .map(|s| (format!("{}{}{}", s.mv.from(), s.mv.to(), s.mv.0 >> 18 & 7), s.value))
        .collect();
    out.sort();
    out
}

fn key(board: &Board, m: &Move) -> String {
    let mv = board.convert(m);
    format!("{}{}{}", mv.from(), mv.to(), mv.0 >> 18 & 7)
}

#[test]
fn move_generation_and_make_match_shakmaty() {
    let mut positions = sample_positions(7, 3, 3000);
    for fen in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "8/8/3k4/8/KPp4r/8/8/8 b - b3 0 1",
        "1r2k2r/8/8/8/8/8/8/R3K2R w KQk - 0 1",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    ] {
        positions.push(position(fen));
    }
    positions.extend(CHESS960.iter().map(|f| position960(f)));
    // Also every child of the sampled positions (covers fresh en-passant squares and castling
    // rights changes).
    let mut checked = 0;
    for root in &positions {
        let castling = CastleInfo::from_chess(root);
        let root_board = Board::from_chess(root);
        let mut todo = vec![(root.clone(), root_board)];
        for m in root.legal_moves() {
            let mut child = root.clone();
            child.play_unchecked(m);
            let mut b = root_board;
            b.make(root_board.convert(&m));
            assert!(b == Board::from_chess(&child), "make {m:?} in {}", Fen::from_position(root, shakmaty::EnPassantMode::Legal));
            todo.push((child, b));
        }
        for (pos, board) in todo {
            let mut expected: Vec<(String, i32)> = pos.legal_moves().iter().map(|m| (key(&board, m), move_value(&pos, m))).collect();
            expected.sort();
            assert_eq!(fast_legal(&board, &castling, false), expected, "{}", Fen::from_position(&pos, shakmaty::EnPassantMode::Legal));
            let mut expected: Vec<(String, i32)> = pos
                .capture_moves()
                .iter()
                .chain(pos.promotion_moves().iter().filter(|m| !m.is_capture()))
                .map(|m| (key(&board, m), move_value(&pos, m)))
                .collect();
            expected.sort();
            assert_eq!(fast_legal(&board, &castling, true), expected, "{}", Fen::from_position(&pos, shakmaty::EnPassantMode::Legal));
            assert_eq!(board.in_check(), pos.is_check());
            checked += 1;
        }
    }
    assert!(checked > 50_000);
}

fn scores(fen: &str, cfg: SearchConfig) -> (Chess, Vec<Move>, Vec<i32>) {
    let pos = position(fen);
    let moves = legal(&pos);
    let mut out = Vec::new();
    Searcher::new().score_moves(&pos, &moves, &cfg, &mut out);
    (pos, moves, out)
}

fn score_of(moves: &[Move], scores: &[i32], uci: &str) -> i32 {
    let i = moves.iter().position(|m| m.to_uci(CastlingMode::Standard).to_string() == uci).unwrap_or_else(|| panic!("no move {uci}"));
    scores[i]
}

#[test]
fn hanging_queen_is_taken() {
    // The black queen on d5 hangs to the rook on d2 (and attacks it).
    let fen = "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1";
    for cfg in [q(0, 300), q(1, 300), q(2, 300), q(0, 10_000), q(2, 10_000)] {
        let (_, moves, s) = scores(fen, cfg);
        let take = score_of(&moves, &s, "d2d5");
        assert!(s.iter().all(|&x| x <= take), "{cfg:?}: {s:?}");
        assert!(take >= 900, "{cfg:?}: {take}");
        // A move that leaves the rook en prise loses it (quiescence sees QxR): below the floor
        // with a 300 margin, about -479 with a wide one.
        let blunder = score_of(&moves, &s, "d2a2");
        if cfg.margin == 300 {
            assert_eq!(blunder, take - 300, "{cfg:?}");
        } else {
            assert!((-600..-400).contains(&blunder), "{cfg:?}: {blunder}");
        }
    }
}

#[test]
fn mate_in_one_is_found() {
    // Back-rank mate Ra8#.
    for cfg in [q(1, 300), q(2, 300), q(1, 10_000), q(2, 10_000), nq(1, 300)] {
        let (_, moves, s) = scores("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", cfg);
        let mate = score_of(&moves, &s, "a1a8");
        assert!(mate >= MATE - 10, "{cfg:?}: {mate}");
        assert!(s.iter().all(|&x| x <= mate));
    }
    // Without a full-width ply the mate is not seen (quiescence has no mate detection).
    let (_, moves, s) = scores("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", q(0, 300));
    assert!(score_of(&moves, &s, "a1a8") < 1000);
}

#[test]
fn allowing_mate_in_one_scores_as_mated() {
    // White to move with a weak back rank: unless the rook guards the first rank, Black mates
    // with Re1#.
    let fen = "4r1k1/5ppp/8/8/8/8/R4PPP/6K1 w - - 0 1";
    let (_, moves, s) = scores(fen, q(2, 3 * MATE));
    // Ra2-a3 leaves e1 unguarded: Re1# follows.
    let blunder = score_of(&moves, &s, "a2a3");
    assert!(blunder <= -MATE + 1000, "{blunder}");
    // Ra2-a1 keeps the rank guarded.
    assert!(score_of(&moves, &s, "a2a1") > -1000);
}

#[test]
fn stalemate_scores_zero() {
    // Qf1-f7 stalemates the king on h8: the reply position is worth exactly 0, so the move
    // scores its own value; at depth 2 likewise (no legal reply).
    let fen = "7k/8/8/8/8/8/8/K4Q2 w - - 0 1";
    let pos = position(fen);
    let stalemate = legal(&pos).into_iter().find(|m| m.to_uci(CastlingMode::Standard).to_string() == "f1f7").unwrap();
    for cfg in [q(1, 10_000), q(2, 10_000), nq(1, 10_000)] {
        let (_, moves, s) = scores(fen, cfg);
        assert_eq!(score_of(&moves, &s, "f1f7"), move_value(&pos, &stalemate), "{cfg:?}");
    }
    // Black to move, stalemated after nothing: a position without legal moves gets no scores.
    let pos = position("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1");
    let mut out = vec![1, 2, 3];
    Searcher::new().score_moves(&pos, &[], &q(2, 300), &mut out);
    assert!(out.is_empty());
}

#[test]
fn scores_do_not_depend_on_history_or_move_order() {
    let positions = sample_positions(13, 7, 200);
    for cfg in [q(0, 300), q(1, 300), q(2, 300), ql(0, 300, 2), ql(1, 600, 1)] {
        // A searcher that has seen every position vs a fresh one per position, and the moves
        // reversed.
        let mut warm = Searcher::new();
        let mut out = Vec::new();
        for pos in &positions {
            warm.score_moves(pos, &legal(pos), &cfg, &mut out);
        }
        for pos in positions.iter().rev() {
            let moves = legal(pos);
            let mut a = Vec::new();
            warm.score_moves(pos, &moves, &cfg, &mut a);
            let mut b = Vec::new();
            Searcher::new().score_moves(pos, &moves, &cfg, &mut b);
            assert_eq!(a, b);
            let reversed: Vec<Move> = moves.iter().rev().copied().collect();
            let mut c = Vec::new();
            Searcher::new().score_moves(pos, &reversed, &cfg, &mut c);
            c.reverse();
            assert_eq!(a, c);
        }
    }
}

#[test]
fn subset_of_moves_is_scored_consistently() {
    // Scoring a single move gives its unclamped score (the floor is relative to that move).
    let pos = position("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10");
    let moves = legal(&pos);
    let cfg = q(2, 100_000);
    let mut all = Vec::new();
    Searcher::new().score_moves(&pos, &moves, &cfg, &mut all);
    for (m, &s) in moves.iter().zip(&all) {
        let mut one = Vec::new();
        Searcher::new().score_moves(&pos, std::slice::from_ref(m), &cfg, &mut one);
        assert_eq!(one, vec![s], "{}", UciMove::from_standard(*m));
    }
}

#[test]
fn packed_moves_convert_like_shakmaty_moves() {
    // Every legal move of sampled positions and of the tricky ones (castling, en passant,
    // promotions), also Chess960 castling.
    let mut positions = sample_positions(29, 3, 1000);
    positions.push(position("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"));
    positions.push(position("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1"));
    positions.push(position("8/8/3k4/8/KPp4r/8/8/8 b - b3 0 1"));
    positions.extend(CHESS960.iter().map(|fen| position960(fen)));
    let mut checked = 0;
    for pos in &positions {
        let board = Board::from_chess(pos);
        for m in legal(pos) {
            assert_eq!(Mv::from_packed(crate::chess::Packed::of(&m)), board.convert(&m), "{m:?}");
            checked += 1;
        }
    }
    assert!(checked > 20_000, "{checked}");
}

#[test]
fn capture_bounds_are_see_bounds() {
    // The exchange bounds generated are Board::see_bound of the same moves that the value
    // generator lists.
    let mut buf = vec![Scored { value: 0, mv: Mv(0) }; 2 * LIST_LEN];
    for pos in sample_positions(7, 2, 3000) {
        let board = Board::from_chess(&pos);
        let (values, bounds) = buf.split_at_mut(LIST_LEN);
        let mut a = MoveList::new(values);
        let mut b = MoveList::new(bounds);
        assert!(!board.gen_captures::<false>(&mut a, i32::MIN));
        assert!(!board.gen_captures::<true>(&mut b, i32::MIN));
        let (na, nb) = (a.len, b.len);
        assert_eq!(na, nb);
        for (x, y) in buf[..na].iter().zip(&buf[LIST_LEN..LIST_LEN + nb]) {
            assert_eq!(x.mv, y.mv);
            assert_eq!(y.value, Board::see_bound(y.mv));
        }
    }
}

#[test]
fn exchanges_outside_the_touched_reach_are_those_of_the_passed_position() {
    // For every legal root move, every capture or promotion of the opponent whose reach on the
    // passed root position misses the squares the root move touched is a move of the passed
    // position with the same static exchange there; and the opponent's captures generated
    // with the slider attacks known from the passed position are the same.
    let mut buf = vec![Scored { value: 0, mv: Mv(0) }; 2 * LIST_LEN];
    let (mut same, mut checked) = (0, 0);
    for pos in sample_positions(11, 6, 1500) {
        let board = Board::from_chess(&pos);
        let passed = board.passed();
        let mut known = KnownAttacks::of(&passed);
        for m in legal(&pos) {
            let mv = board.convert(&m);
            let mut child = board;
            child.make(mv);
            known.touched = mv.touched();
            let (plain, with_known) = buf.split_at_mut(LIST_LEN);
            let mut list = MoveList::new(plain);
            let mut list_known = MoveList::new(with_known);
            assert!(!child.gen_captures::<true>(&mut list, i32::MIN));
            assert!(!child.gen_captures_known::<true, true>(&mut list_known, i32::MIN, &known));
            let n = list.len;
            assert_eq!(n, list_known.len);
            for (x, y) in buf[..n].iter().zip(&buf[LIST_LEN..LIST_LEN + n]) {
                assert_eq!((x.mv, x.value), (y.mv, y.value));
            }
            for x in &buf[..n] {
                checked += 1;
                if x.mv.is_normal() && passed.exchange_reach(x.mv.to()) & mv.touched() == 0 {
                    assert_eq!(passed.exchange_reach(x.mv.to()), child.exchange_reach(x.mv.to()));
                    assert_eq!(passed.see(x.mv), child.see(x.mv), "{m:?} {:?}", x.mv);
                    same += 1;
                }
            }
        }
    }
    assert!(same > 10_000 && checked > 2 * same, "{same} of {checked}");
}

#[test]
fn exchange_shortcut_gives_the_general_scores() {
    // Depth 0 with one capture ply (every released level 3-9 model): the root exchange
    // shortcut against the general search, on positions of real games and tricky ones, with
    // the moves given as shakmaty moves and packed.
    let mut positions = sample_positions(3, 2, 8000);
    positions.push(position("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"));
    positions.push(position("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1"));
    positions.push(position("8/8/3k4/8/KPp4r/8/8/8 b - b3 0 1"));
    positions.extend(CHESS960.iter().map(|fen| position960(fen)));
    let (mut fast, mut general) = (Searcher::new(), Searcher::general());
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    let mut packed = Vec::new();
    for cfg in [ql(0, 300, 1), ql(0, 600, 1), ql(0, 0, 1), ql(0, 100_000, 1)] {
        for pos in &positions {
            let moves = legal(pos);
            let fen = Fen::from_position(pos, shakmaty::EnPassantMode::Legal);
            fast.score_moves(pos, &moves, &cfg, &mut a);
            general.score_moves(pos, &moves, &cfg, &mut b);
            assert_eq!(a, b, "{fen} {cfg:?}");
            packed.clear();
            crate::chess::legal_moves_sorted_into(pos, &mut packed);
            let sorted: Vec<Move> = packed.iter().map(|p| p.to_move()).collect();
            general.score_moves(pos, &sorted, &cfg, &mut b);
            fast.score_packed(pos, &packed, &cfg, &mut c);
            assert_eq!(b, c, "{fen} {cfg:?} packed");
        }
    }
}

/// A xorshift64 generator: the random playouts below are the same on every run.
struct Xorshift(u64);

impl Xorshift {
    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// A random Chess960 start (bishops on both colours, the king between the rooks), as a FEN
/// with Shredder castling letters.
fn random960(rng: &mut Xorshift) -> Chess {
    let mut rank = [' '; 8];
    rank[[1, 3, 5, 7][rng.below(4)]] = 'b';
    rank[[0, 2, 4, 6][rng.below(4)]] = 'b';
    let mut free: Vec<usize> = (0..8).filter(|&i| rank[i] == ' ').collect();
    for piece in ['q', 'n', 'n'] {
        let i = free.remove(rng.below(free.len()));
        rank[i] = piece;
    }
    (rank[free[0]], rank[free[1]], rank[free[2]]) = ('r', 'k', 'r');
    let black: String = rank.iter().collect();
    let (a, h) = ((b'a' + free[0] as u8) as char, (b'a' + free[2] as u8) as char);
    let fen = format!(
        "{black}/pppppppp/8/8/8/8/PPPPPPPP/{} w {}{}{h}{a} - 0 1",
        black.to_uppercase(),
        h.to_ascii_uppercase(),
        a.to_ascii_uppercase()
    );
    position960(&fen)
}

/// Every position of `games` random playouts (captures, promotions, castling and en passant
/// chosen a third of the time when there are any), a third of them from Chess960 starts: the
/// rare cases that game positions seldom reach (an en passant root move whose captured pawn
/// opened a line, castling with the rook and king on unusual squares).
fn random_positions(seed: u64, games: usize) -> Vec<Chess> {
    let mut rng = Xorshift(seed);
    let mut out = Vec::new();
    for g in 0..games {
        let mut pos = if g % 3 == 0 { random960(&mut rng) } else { Chess::default() };
        for _ in 0..200 {
            let moves = legal(&pos);
            if moves.is_empty() || pos.board().occupied().count() <= 6 {
                break;
            }
            out.push(pos.clone());
            let special: Vec<&Move> = moves.iter().filter(|m| m.is_capture() || m.is_promotion() || m.is_castle()).collect();
            let m =
                if !special.is_empty() && rng.below(3) == 0 { *special[rng.below(special.len())] } else { moves[rng.below(moves.len())] };
            pos.play_unchecked(m);
        }
    }
    out
}

#[test]
fn exchange_shortcut_gives_the_general_scores_on_random_playouts() {
    // The root exchange shortcut against the general search where games seldom go. Found by
    // review: without the en passant pawn's square in `Mv::touched`, the shortcut scored
    // d4c3 here 16 instead of -164, and no game position of the other tests showed it.
    let mut positions = random_positions(0x1234_5678_9abc_def1, 1500);
    positions.push(position("5bk1/4r2r/2n1p1p1/pn3p2/2Pp1P1P/4PR1K/1P6/BQ1N1B1R b - c3 0 26"));
    let (mut fast, mut general) = (Searcher::new(), Searcher::general());
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let (mut en_passant, mut castles, mut promotions) = (0, 0, 0);
    for cfg in [ql(0, 300, 1), ql(0, 0, 1), ql(0, -50, 1)] {
        for pos in &positions {
            let moves = legal(pos);
            en_passant += moves.iter().filter(|m| m.is_en_passant()).count();
            castles += moves.iter().filter(|m| m.is_castle()).count();
            promotions += moves.iter().filter(|m| m.is_promotion()).count();
            fast.score_moves(pos, &moves, &cfg, &mut a);
            general.score_moves(pos, &moves, &cfg, &mut b);
            assert_eq!(a, b, "{} {cfg:?}", Fen::from_position(pos, shakmaty::EnPassantMode::Legal));
        }
    }
    assert!(en_passant > 100 && castles > 1000 && promotions > 1000, "{en_passant} en passant, {castles} castles, {promotions} promotions");
}
