//! Splitting input bytes into lines and remembering each line's terminator.

/// How a line ends in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Terminator {
    /// `\n`.
    Lf = 0,
    /// `\r\n`.
    CrLf = 1,
    /// End of input without a newline (only the last line).
    Eof = 2,
}

impl Terminator {
    /// All terminators, indexed by their symbol value.
    pub const ALL: [Terminator; 3] = [Terminator::Lf, Terminator::CrLf, Terminator::Eof];

    /// The bytes of this terminator.
    pub fn bytes(self) -> &'static [u8] {
        match self {
            Terminator::Lf => b"\n",
            Terminator::CrLf => b"\r\n",
            Terminator::Eof => b"",
        }
    }
}

/// One line of input: its content without the terminator, and the terminator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// The line's bytes without `\n` and without a `\r` right before it.
    pub content: &'a [u8],
    /// What followed `content`.
    pub terminator: Terminator,
}

/// Splits `input` into lines. Concatenating `content` and `terminator.bytes()` of all lines
/// gives back `input`. Empty input gives no lines; input ending in `\n` has no empty last line.
pub(crate) fn split_lines(input: &[u8]) -> impl Iterator<Item = Line<'_>> {
    let mut rest = input;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let line = match memchr::memchr(b'\n', rest) {
            Some(i) => {
                let (content, terminator) = match rest[..i].strip_suffix(b"\r") {
                    Some(c) => (c, Terminator::CrLf),
                    None => (&rest[..i], Terminator::Lf),
                };
                rest = &rest[i + 1..];
                Line { content, terminator }
            }
            None => {
                let line = Line { content: rest, terminator: Terminator::Eof };
                rest = &[];
                line
            }
        };
        Some(line)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(input: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for line in split_lines(input) {
            out.extend_from_slice(line.content);
            out.extend_from_slice(line.terminator.bytes());
        }
        out
    }

    #[test]
    fn lines_concatenate_to_input() {
        for input in [&b""[..], b"\n", b"\r\n", b"\r", b"a", b"a\nb", b"a\r\nb\n\n", b"\r\r\n\n\r"] {
            assert_eq!(roundtrip(input), input);
        }
        let lines: Vec<_> = split_lines(b"a\r\nb\n").collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].terminator, Terminator::CrLf);
    }
}
