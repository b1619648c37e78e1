//! Opening books: move counts per position, mixed into the move model.
//!
//! Lichess games repeat openings; a move seen from the same position before is much more likely
//! than the engine alone thinks. Two sources of counts are combined:
//! - the prior book ([`PriorBook`], `models/book.txt`): counts from the training games, fitted
//!   data embedded in the binary;
//! - the online book ([`Book`]): counts of the moves of the games already coded in the same
//!   block. The encoder and decoder both fill it as they go, so it costs nothing to transmit.
//!
//! `models/book.txt` is the source of truth, but parsing it (legal moves, SAN, hashes) takes
//! about 20 ms, too much for every start-up. The binary embeds instead `models/book.bin`, the
//! same counts already keyed by position hash ([`Book::to_bytes`]), derived from the text by
//! `cargo run --release --bin tune -- book-bin` (also written by `tune fit --book-out`). A unit
//! test checks that the two agree.
//!
//! One concern per file, bottom to top: the hash table of counts (`table.rs`), the spare
//! tables reused from block to block (`spare.rs`), the binary form (`binary.rs`), the prior
//! book and its text (`prior.rs`), the embedded book (`embedded.rs`).

mod binary;
mod embedded;
mod prior;
mod spare;
mod table;

pub use binary::{BIN_MAGIC, BIN_VERSION};
pub use embedded::{BOOK_BIN, BOOK_TEXT, PRIOR};
pub use prior::PriorBook;
pub use table::{Book, BookMoves};
