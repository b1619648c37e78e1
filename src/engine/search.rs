//! Alpha-beta search with quiescence that scores every legal move of a root position.
//!
//! # What is computed
//!
//! For a root move `m` with incremental value `v(m)` ([`move_value`]), its score is
//! `v(m) - V(child, depth)`, where `V` is the negamax value of the following tree, with every
//! node's value relative to that node's own static evaluation (a child's value is the move's
//! `v` minus the grandchild's value):
//!
//! * `V(p, d)` for `d >= 1`: the maximum over the legal moves `x` of `p` of
//!   `v(x) - V(p after x, d - 1)`; if `p` has no legal move, `-MATE + ply` when in check
//!   (`ply` = plies from the root position, so faster mates score higher) and `0` for stalemate.
//! * `V(p, 0)` with quiescence: `Q_k(p)` where `k` is the number of capture plies allowed
//!   ([`SearchConfig::qdepth`]; `k = ∞` when `qdepth == 0`, unlimited). Let `X(p)` be the
//!   legal captures of `p` (en passant and capture-promotions included) and non-capture
//!   promotions. For `k >= 2` (and `k = ∞`), `Q_k(p)` is the maximum of `0` (stand pat) and,
//!   over `x` in `X(p)`, of `v(x) - Q_{k-1}(p after x)`. At the limit, `k = 1`, the last
//!   capture ply is not searched but estimated statically:
//!   `Q_1(p) = max(0, max over x in X(p) of see(p, x))`, with [`crate::chess::see()`] (static exchange
//!   evaluation, SEE, of the exchange on `x`'s destination square, in centipawns of Sunfish's
//!   material values without piece-square terms; pins and checks ignored). No mate
//!   detection. Without quiescence `V(p, 0) = 0`.
//!
//!   So `qdepth = 1` scores a root move (at depth 0) as its value minus the opponent's best
//!   static exchange after it, `qdepth = 2` searches the opponent's captures and estimates our
//!   best reply capture statically, and so on.
//!
//! Then every score is clamped from below at `max - margin`. Only scores above that floor need
//! to be exact, which is what lets alpha-beta cut.
//!
//! # How
//!
//! The root position is converted once to a compact copy-make bitboard board
//! (`super::board`); moves are generated pseudo-legally with shakmaty's magic attack tables and
//! checked for legality after making them (own king attacked), so the tree is exactly the one
//! shakmaty's legal move generation defines. Move lists live on one stack buffer owned by the
//! [`Searcher`] (no allocation per node once warmed up). A position reached by an illegal
//! move is recognised by the child when it finds the enemy king among its capture targets.
//!
//! The search is fail-soft alpha-beta with principal variation search at nodes two or more
//! plies above the horizon and a killer move per ply. All pruning is sound: a skipped move
//! provably cannot raise its node above `alpha`. In particular, since `Q >= 0`, a move `x`
//! leading to a quiescence node (or to a leaf without quiescence) scores at most `v(x)`, so
//! once moves are visited in decreasing `v` order the first `v(x) <= alpha` ends the node; and
//! at the root with `depth == 0` a move with `v(m) <= best - margin` ends at the floor unsearched.
//! At the `qdepth` limit the node's moves are visited by decreasing upper bound of their SEE
//! (captured material plus promotion gain), and the exchange, computed on the search board
//! with the same algorithm as [`crate::chess::see()`], is only evaluated (and the move only checked for
//! legality) while that bound exceeds both `alpha` and the best exchange found.
//!
//! With `depth == 0` and `qdepth == 1` (a root move's score is its value minus the opponent's
//! best legal static exchange after it) the root loop is specialised
//! (`Searcher::root_exchange`): the root position with the opponent to move (a null move,
//! the "passed" position) is shared by all root moves. A root move changes the contents of
//! at most four squares; an opponent's slider whose attack set (from the passed position)
//! holds none of them attacks the same squares after the move, and an opponent's capture onto
//! a square whose exchange reads none of them (`Board::exchange_reach`: the lines through the
//! square up to the first piece that can never take part, and the knight squares) has the same
//! static exchange as in the passed position, evaluated once per call. Everything else is
//! computed after the move as in the general search, which gives the same integers (tested
//! against it and against the reference implementation). There, the root moves are visited
//! most valuable first, then in the caller's order (sorting them costs more than it saves).
//!
//! Every node's result is on the correct side of its window (`<= alpha`, `>= beta`, or exact in
//! between) whatever the move order, so a root score is exact whenever it is above the floor
//! known when it is searched, and at most that floor otherwise; after clamping, each score is
//! `max(true score, best - margin)`. Hence the scores do not depend on move order, killers,
//! buffer contents or earlier calls: they are a pure function of `(pos, moves, cfg)`, computed
//! with integer arithmetic only. The tests check them against a straightforward
//! reference implementation (the original shakmaty-based searcher, `tests/it/reference.rs`)
//! position by position.

use shakmaty::{Chess, Move};

use crate::chess::movegen::Packed;

use super::board::{Board, CastleInfo, KnownAttacks, LIST_LEN, MoveList, Mv, Scored};
use crate::chess::move_value;

/// What the search does per root move; chosen by the compression level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchConfig {
    /// Full-width plies searched after each root move before quiescence (0 = quiescence only).
    pub depth: u8,
    /// Whether to run a capture quiescence search at the horizon. Without it (and with
    /// `depth == 0`) a root move's score is just its [`move_value`].
    pub quiescence: bool,
    /// Scores below `best - margin` (centipawns) are clamped to `best - margin`: the search only
    /// needs exact scores for moves that are not hopeless, which lets alpha-beta cut more.
    /// Should be `>= 0`; a negative margin clamps every score to `best - margin`.
    pub margin: i32,
    /// Maximum number of capture plies in quiescence (0 = unlimited). The first `qdepth - 1`
    /// are searched; the last is estimated statically, by the best static exchange evaluation
    /// ([`crate::chess::see()`]) of the node's captures (or 0, the stand pat, if none gains). See the
    /// [module documentation](self). Ignored without quiescence.
    pub qdepth: u8,
}

/// Full-width nodes at least this deep use principal variation search (null-window searches of
/// all but the first move). Shallower nodes lose more to re-searches than they gain.
const PVS_DEPTH: u8 = 2;

/// Plies with a killer-move slot.
const MAX_KILLER_PLY: usize = 64;

/// A move that never matches a generated one (empty killer slot).
const NO_MOVE: Mv = Mv(u32::MAX);

/// Score of a checkmated side to move, in centipawns; mates found deeper score closer to zero
/// by one centipawn per ply so that faster mates rank higher.
pub const MATE: i32 = 100_000;

/// Infinity for search windows (above any reachable score).
const INF: i32 = 2 * MATE;

/// An exchange not evaluated yet in [`Searcher::exchanges`] (never a static exchange, which is
/// at most a queen and a promotion gain in size).
const UNKNOWN: i32 = i32::MIN;

/// Returned by a node whose position arose from an illegal move (the mover's king can be
/// captured); never a real score.
const ILLEGAL: i32 = i32::MAX;

/// Reusable search state (move stack and root buffers). Scores do not depend on earlier calls.
#[derive(Default)]
pub struct Searcher {
    /// Nodes visited since construction (every position reached by making a move during a
    /// search counts once), for benchmarks.
    pub nodes: u64,
    /// Move stack shared by all nodes: a node's moves occupy `stack[sp..]` while it runs, its
    /// children's moves come after its own remaining ones.
    stack: Vec<Scored>,
    /// First free entry of `stack`.
    sp: usize,
    /// Per ply, the last move that caused a beta cutoff at a full-width node of this call
    /// (tried first at its siblings; only affects the order moves are searched in).
    killers: Vec<Mv>,
    /// The root moves of the current call, in the caller's order.
    root_moves: Vec<Mv>,
    /// Root move order: values and indices into `root_moves` packed by [`root_key`].
    root: Vec<u64>,
    /// Castling geometry of the current root position.
    castling: CastleInfo,
    /// Whether the current search uses quiescence at the horizon.
    quiescence: bool,
    /// Capture plies allowed below the horizon ([`SearchConfig::qdepth`], `u32::MAX` for
    /// unlimited).
    qdepth: u32,
    /// The root position with the opponent to move ([`Board::passed`]), where
    /// [`Searcher::root_exchange`] evaluates the opponent's exchanges that a root move leaves
    /// alone.
    passed: Board,
    /// The opponent's captures looked at on `passed` during the current call: the move, the
    /// squares its static exchange reads there ([`Board::exchange_reach`]) and the exchange
    /// ([`UNKNOWN`] until evaluated).
    exchanges: Vec<(Mv, u64, i32)>,
    /// The opponent's slider attacks on `passed` (`None` until the first call that needs them).
    known: Option<Box<KnownAttacks>>,
    /// Whether to search `depth == 0, qdepth == 1` like any other configuration, without
    /// [`Searcher::root_exchange`] (for tests: the same scores).
    general: bool,
}

impl Searcher {
    /// A searcher with empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// A searcher that does not take the `depth == 0, qdepth == 1` shortcut
    /// ([`Searcher::root_exchange`]): the general search, for comparison in tests.
    #[cfg(test)]
    pub(crate) fn general() -> Self {
        Searcher { general: true, ..Self::default() }
    }

    /// Scores each of `moves` (legal in `pos`) in centipawns from the side to move's point of
    /// view, written to `scores` (cleared first, same length and order as `moves`).
    ///
    /// A move's score is its [`move_value`] minus the negamax value of the reply position
    /// searched `cfg.depth` plies deep plus quiescence; the position's own static evaluation is
    /// not included (scores are relative). Scores are clamped from below at
    /// `max(scores) - cfg.margin`. See the [module documentation](self) for the exact tree.
    pub fn score_moves(&mut self, pos: &Chess, moves: &[Move], cfg: &SearchConfig, scores: &mut Vec<i32>) {
        scores.clear();
        if moves.is_empty() {
            return;
        }
        if cfg.depth == 0 && !cfg.quiescence {
            scores.extend(moves.iter().map(|m| move_value(pos, m)));
            clamp(scores, cfg.margin);
            return;
        }
        let board = Board::from_chess(pos);
        self.root_moves.clear();
        self.root_moves.extend(moves.iter().map(|m| board.convert(m)));
        self.search_root(pos, &board, cfg, scores);
    }

    /// [`Searcher::score_moves`] of the same moves given packed ([`Packed`], as the model
    /// keeps them): the same scores, without converting the moves to shakmaty's [`Move`].
    pub fn score_packed(&mut self, pos: &Chess, moves: &[Packed], cfg: &SearchConfig, scores: &mut Vec<i32>) {
        scores.clear();
        if moves.is_empty() {
            return;
        }
        if cfg.depth == 0 && !cfg.quiescence {
            scores.extend(moves.iter().map(|p| move_value(pos, &p.to_move())));
            clamp(scores, cfg.margin);
            return;
        }
        let board = Board::from_chess(pos);
        self.root_moves.clear();
        self.root_moves.extend(moves.iter().map(|&p| Mv::from_packed(p)));
        self.search_root(pos, &board, cfg, scores);
    }

    /// Scores [`Searcher::root_moves`] (legal in `pos`, whose search board is `board`) into
    /// `scores` (empty, resized here) with a search (`cfg.depth > 0` or quiescence).
    fn search_root(&mut self, pos: &Chess, board: &Board, cfg: &SearchConfig, scores: &mut Vec<i32>) {
        if cfg.depth > 0 {
            // Killers and castling are only read by full-width nodes.
            self.killers.clear();
            self.killers.resize(MAX_KILLER_PLY, NO_MOVE);
            self.castling = CastleInfo::from_chess(pos);
        }
        self.quiescence = cfg.quiescence;
        self.qdepth = if cfg.qdepth == 0 { u32::MAX } else { cfg.qdepth as u32 };
        scores.resize(self.root_moves.len(), 0);
        // Depth 0 with one capture ply: each root move's reply value is the opponent's best
        // static exchange, which most root moves leave alone.
        let exchange_only = cfg.depth == 0 && cfg.quiescence && cfg.qdepth == 1 && !self.general;
        if exchange_only {
            self.passed = board.passed();
            self.exchanges.clear();
            match &mut self.known {
                Some(known) => known.refill(&self.passed),
                None => self.known = Some(Box::new(KnownAttacks::of(&self.passed))),
            }
        }

        // Visit root moves in decreasing value order (ties by index): the best score is usually
        // found first, which narrows the windows of the others. With one capture ply, sorting
        // costs more than the order saves: the most valuable move first, then the others in
        // the caller's order.
        self.root.clear();
        for (i, &mv) in self.root_moves.iter().enumerate() {
            self.root.push(root_key(board.value(mv), i));
        }
        if exchange_only {
            let first = (0..self.root.len()).min_by_key(|&k| self.root[k]).unwrap_or(0);
            self.root.swap(0, first);
        } else {
            self.root.sort_unstable();
        }

        // Exact scores are only needed above best - margin; a negative margin still needs the
        // exact best.
        let margin = cfg.margin.max(0);
        let mut best = -INF;
        for k in 0..self.root.len() {
            let (value, i) = root_entry(self.root[k]);
            let alpha = best.saturating_sub(margin).max(-INF);
            if cfg.depth == 0 && value <= alpha {
                // The reply's quiescence value is >= 0, so this move scores <= value <= alpha:
                // it ends up at the floor whatever its exact score.
                scores[i] = value;
                continue;
            }
            let mv = self.root_moves[i];
            let mut child = *board;
            child.make(mv);
            self.nodes += 1;
            let r = if exchange_only {
                self.root_exchange(&child, mv.touched(), value - alpha)
            } else {
                self.negamax(&child, cfg.depth, -INF, value - alpha, 1)
            };
            let s = match r {
                // Only for an illegal root move (a caller error): score it hopeless.
                ILLEGAL => -INF,
                r => value - r,
            };
            best = best.max(s);
            scores[i] = s;
        }
        clamp(scores, cfg.margin);
    }

    /// Fail-soft negamax from `b`'s side to move, values relative to `b`'s static value,
    /// `depth` full plies then quiescence (or 0). Returns [`ILLEGAL`] if the move that led to
    /// `b` left the mover's king attacked.
    fn negamax(&mut self, b: &Board, depth: u8, alpha: i32, beta: i32, ply: i32) -> i32 {
        if depth == 0 {
            return if self.quiescence {
                self.quiesce(b, alpha, beta, self.qdepth)
            } else if b.mover_in_check() {
                ILLEGAL
            } else {
                0
            };
        }
        let base = self.sp;
        let mut n = {
            let castling = self.castling;
            let mut list = self.list(base);
            if b.gen_all(&mut list, &castling) {
                return ILLEGAL;
            }
            list.len
        };
        // Children of depth-1 nodes are leaves valued >= 0 (quiescence) or == 0, so a move's
        // score is at most its value.
        let leaf_children = depth == 1;
        let mut best = -INF;
        let mut alpha = alpha;
        let mut found_legal = false;
        // The killer move, if generated here, is searched first; then by decreasing value.
        let killer = self.killers.get(ply as usize).copied().unwrap_or(NO_MOVE);
        let mut killer_at = self.stack[base..base + n].iter().position(|x| x.mv == killer);
        while n > 0 {
            let Scored { value, mv } = match killer_at.take() {
                Some(j) if !(leaf_children && self.stack[base + j].value <= alpha) => {
                    self.stack.swap(base + j, base + n - 1);
                    self.stack[base + n - 1]
                }
                _ => pick_best(&mut self.stack[base..base + n]),
            };
            n -= 1;
            self.sp = base + n;
            if leaf_children && value <= alpha {
                // This and every remaining move score <= value <= alpha. They bound the node
                // from above by `value`, provided the node has a legal move at all.
                if !found_legal {
                    found_legal = is_legal(b, mv) || self.stack[base..base + n].iter().any(|x| is_legal(b, x.mv));
                }
                if found_legal {
                    best = best.max(value);
                }
                break;
            }
            let mut child = *b;
            child.make(mv);
            let pvs = found_legal && depth >= PVS_DEPTH && beta - alpha > 1;
            let mut r = if pvs {
                // Principal variation search: prove with a null window that this move does
                // not beat alpha, and search it properly only if it does.
                self.negamax(&child, depth - 1, value - alpha - 1, value - alpha, ply + 1)
            } else {
                self.negamax(&child, depth - 1, value - beta, value - alpha, ply + 1)
            };
            if r == ILLEGAL {
                continue;
            }
            if pvs && value - r > alpha {
                r = self.negamax(&child, depth - 1, value - beta, value - alpha, ply + 1);
            }
            found_legal = true;
            self.nodes += 1;
            let s = value - r;
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    if alpha >= beta {
                        if let Some(k) = self.killers.get_mut(ply as usize) {
                            *k = mv;
                        }
                        break;
                    }
                }
            }
        }
        self.sp = base;
        if !found_legal {
            return if b.in_check() { -MATE + ply } else { 0 };
        }
        best
    }

    /// Capture quiescence with stand pat at 0 (the static value relative to the node), at most
    /// `left >= 1` more capture plies, the last one estimated by [`Self::exchange_estimate`].
    /// Returns [`ILLEGAL`] if the move that led to `b` left the mover's king attacked.
    fn quiesce(&mut self, b: &Board, alpha: i32, beta: i32, left: u32) -> i32 {
        if left == 1 {
            return self.exchange_estimate(b, alpha, beta);
        }
        let mut best = 0;
        if best >= beta {
            // Not reached from the searches below (children are only searched when they can
            // raise alpha, i.e. beta > 0), but keep the legality contract.
            return if b.mover_in_check() { ILLEGAL } else { best };
        }
        let mut alpha = alpha.max(best);
        let base = self.sp;
        // A move scores at most its value (the reply's quiescence value is >= 0): only moves
        // worth more than alpha can matter.
        let mut n = {
            let mut list = self.list(base);
            if b.gen_captures::<false>(&mut list, alpha) {
                return ILLEGAL;
            }
            list.len
        };
        while n > 0 {
            let Scored { value, mv } = pick_best(&mut self.stack[base..base + n]);
            n -= 1;
            if value <= alpha {
                break;
            }
            self.sp = base + n;
            let mut child = *b;
            child.make(mv);
            let r = self.quiesce(&child, value - beta, value - alpha, left - 1);
            if r == ILLEGAL {
                continue;
            }
            self.nodes += 1;
            let s = value - r;
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.sp = base;
        best
    }

    /// `Q_1(b)`: the maximum of 0 and the static exchange evaluations of `b`'s legal captures
    /// and promotions (exact within the window, on the correct side of it otherwise).
    /// Returns [`ILLEGAL`] if the move that led to `b` left the mover's king attacked.
    fn exchange_estimate(&mut self, b: &Board, alpha: i32, beta: i32) -> i32 {
        let base = self.sp;
        let mut best = 0;
        let mut floor = alpha.max(best);
        // A move's exchange gains at most what it captures plus its promotion gain
        // ([`Board::see_bound`], the values generated): visit the moves by decreasing bound and
        // stop once no bound exceeds what is already known. Moves whose bound does not exceed
        // the initial floor are not even listed.
        let mut n = {
            let mut list = self.list(base);
            if b.gen_captures::<true>(&mut list, floor) {
                return ILLEGAL;
            }
            list.len
        };
        let moves = &mut self.stack[base..base + n];
        debug_assert!(moves.iter().all(|m| m.value == Board::see_bound(m.mv)));
        while n > 0 && best < beta {
            let Scored { value: bound, mv } = pick_best(&mut moves[..n]);
            n -= 1;
            if bound <= floor {
                break;
            }
            let s = b.see(mv);
            if s > floor && is_legal(b, mv) {
                best = s;
                floor = s;
            }
        }
        best
    }

    /// [`Searcher::exchange_estimate`] of `b` (the root position after a root move, which
    /// changed the squares `touched`) with `alpha = -INF`: the same result, with the static
    /// exchanges of the opponent's captures taken from the root position with the opponent to
    /// move ([`Searcher::passed`], evaluated once per call) where the root move changed none of
    /// the squares the exchange reads ([`Board::exchange_reach`] of its square there). The
    /// two positions differ only on `touched` (and in the en-passant square, which only en
    /// passant captures read, never taken from the passed position), so such a capture reads
    /// the same squares in `b`, where it has the same origin, piece and victim.
    fn root_exchange(&mut self, b: &Board, touched: u64, beta: i32) -> i32 {
        let base = self.sp;
        // With alpha = -INF, exchange_estimate's floor is its best.
        let mut best = 0;
        let mut known = self.known.take().expect("set by search_root");
        known.touched = touched;
        let (illegal, mut n) = {
            let mut list = self.list(base);
            (b.gen_captures_known::<true, true>(&mut list, best, &known), list.len)
        };
        self.known = Some(known);
        if illegal {
            return ILLEGAL;
        }
        while n > 0 && best < beta {
            let Scored { value: bound, mv } = pick_best(&mut self.stack[base..base + n]);
            n -= 1;
            if bound <= best {
                break;
            }
            let s = match self.passed_exchange(mv, touched) {
                Some(s) => s,
                None => b.see(mv),
            };
            if s > best && is_legal(b, mv) {
                best = s;
            }
        }
        best
    }

    /// The static exchange of the opponent's capture `mv` (a pseudo-legal move of the position
    /// after a root move that changed the squares `touched`) on the passed position, if it
    /// reads none of `touched` there; `None` otherwise (and for en passant and castling).
    /// Remembered in [`Searcher::exchanges`] for the rest of the call.
    #[inline]
    fn passed_exchange(&mut self, mv: Mv, touched: u64) -> Option<i32> {
        if !mv.is_normal() || touched & 1u64 << mv.to() != 0 {
            // Not remembered: an exchange on a touched square (the moved piece's new square,
            // or a square it left) never reads the same squares.
            return None;
        }
        let k = match self.exchanges.iter().position(|e| e.0 == mv) {
            Some(k) => k,
            None => {
                self.exchanges.push((mv, self.passed.exchange_reach(mv.to()), UNKNOWN));
                self.exchanges.len() - 1
            }
        };
        let (_, reach, see) = self.exchanges[k];
        if reach & touched != 0 {
            return None;
        }
        if see != UNKNOWN {
            return Some(see);
        }
        let see = self.passed.see(mv);
        self.exchanges[k].2 = see;
        Some(see)
    }

    /// The move list of a node whose moves start at `base` on the move stack (grown as needed;
    /// its contents never influence results).
    #[inline]
    fn list(&mut self, base: usize) -> MoveList<'_> {
        if self.stack.len() < base + LIST_LEN {
            self.stack.resize(base + LIST_LEN, Scored { value: 0, mv: Mv(0) });
        }
        MoveList::new(&mut self.stack[base..base + LIST_LEN])
    }
}

/// Sort key of a root move: ascending keys order moves by decreasing `value`, then by
/// increasing index `i`.
#[inline]
fn root_key(value: i32, i: usize) -> u64 {
    // `value as u32 ^ 0x8000_0000` orders like `value`; flipping every bit reverses that.
    ((value as u32 ^ 0x7fff_ffff) as u64) << 32 | i as u64
}

/// The `(value, index)` of a [`root_key`].
#[inline]
fn root_entry(key: u64) -> (i32, usize) {
    (((key >> 32) as u32 ^ 0x7fff_ffff) as i32, key as u32 as usize)
}

/// Whether pseudo-legal `m` does not leave the mover's king attacked.
#[inline]
fn is_legal(b: &Board, m: Mv) -> bool {
    let mut child = *b;
    child.make(m);
    !child.mover_in_check()
}

/// Moves the highest-valued move of `moves` to its end and returns it.
#[inline]
fn pick_best(moves: &mut [Scored]) -> Scored {
    let last = moves.len() - 1;
    let mut bi = last;
    let mut bv = moves[last].value;
    for (j, m) in moves[..last].iter().enumerate() {
        if m.value > bv {
            bv = m.value;
            bi = j;
        }
    }
    moves.swap(bi, last);
    moves[last]
}

/// Clamps `scores` from below at `max(scores) - margin`.
fn clamp(scores: &mut [i32], margin: i32) {
    let best = scores.iter().copied().max().unwrap_or(0);
    let floor = best.saturating_sub(margin);
    for s in scores.iter_mut() {
        *s = (*s).max(floor);
    }
}
