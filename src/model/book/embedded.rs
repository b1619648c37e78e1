//! The prior book embedded in this binary: its text (`models/book.txt`, part of the model id)
//! and its binary form (`models/book.bin`), loaded on first use ([`PRIOR`]).

use std::sync::LazyLock;

use super::prior::PriorBook;
use super::table::Book;

/// Text of the prior book embedded in this binary (`models/book.txt`): the source of truth, and
/// part of the model id ([`crate::model::Model::id`]).
pub const BOOK_TEXT: &str = include_str!("../../../models/book.txt");

/// The prior book embedded in this binary in its binary form (`models/book.bin`, see
/// [`Book::to_bytes`]), generated from [`BOOK_TEXT`] by `tune book-bin`.
pub const BOOK_BIN: &[u8] = include_bytes!("../../../models/book.bin");

/// The prior book embedded in this binary, loaded from [`BOOK_BIN`] on first use.
pub static PRIOR: LazyLock<PriorBook> =
    LazyLock::new(|| PriorBook { book: Book::from_bytes("book.bin", BOOK_BIN).unwrap_or_else(|e| panic!("embedded book: {e}")) });

#[cfg(test)]
mod tests {
    use super::*;

    /// How to fix a stale `models/book.bin`.
    const REGENERATE: &str = "regenerate it with `cargo run --release --bin tune -- book-bin` and commit it";

    #[test]
    fn embedded_binary_matches_text() {
        let text = PriorBook::parse("book.txt", BOOK_TEXT).expect("models/book.txt parses").book;
        let bin = Book::from_bytes("book.bin", BOOK_BIN).unwrap_or_else(|e| panic!("models/book.bin does not load ({e}): {REGENERATE}"));
        assert!(
            text.sorted() == bin.sorted(),
            "models/book.bin does not hold the counts of models/book.txt (or the position hashes changed): {REGENERATE}"
        );
        assert!(text.to_bytes() == BOOK_BIN, "models/book.bin is not in canonical form: {REGENERATE}");
        assert_eq!(PRIOR.book.len(), text.len());
    }
}
