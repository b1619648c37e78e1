//! Readers and writers that say which file an I/O error is about.

use std::io::{self, BufRead, Read, Write};

/// Wraps a reader or writer so that its I/O errors read "reading NAME: ..." or
/// "writing NAME: ...", keeping the error kind.
pub struct Labeled<T> {
    inner: T,
    label: String,
}

impl<T> Labeled<T> {
    /// Errors of `inner` will be prefixed with `label` (e.g. "reading games.txt").
    pub fn new(inner: T, label: String) -> Self {
        Labeled { inner, label }
    }

    /// The wrapped reader or writer.
    pub fn into_inner(self) -> T {
        self.inner
    }

    fn wrap(&self, e: io::Error) -> io::Error {
        io::Error::new(e.kind(), format!("{}: {e}", self.label))
    }
}

impl<R: Read> Read for Labeled<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| self.wrap(e))
    }
}

impl<R: BufRead> BufRead for Labeled<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let label = &self.label;
        self.inner.fill_buf().map_err(|e| io::Error::new(e.kind(), format!("{label}: {e}")))
    }

    fn consume(&mut self, amount: usize) {
        self.inner.consume(amount);
    }
}

impl<W: Write> Write for Labeled<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).map_err(|e| self.wrap(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().map_err(|e| self.wrap(e))
    }
}
