//! Game or line selections of `extract`: `N`, `A..B`, `A..`, `..B`, numbered from 1.

use std::fmt;
use std::str::FromStr;

/// An inclusive range of game or line numbers, numbered from 1; `last` is `None` for "to the
/// end".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineSpec {
    /// First game or line, at least 1.
    pub first: u64,
    /// Last game or line (inclusive), or `None` for the end of the input.
    pub last: Option<u64>,
}

impl FromStr for LineSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let number = |t: &str| -> Result<u64, String> {
            let n: u64 = t.trim().parse().map_err(|_| format!("`{t}` is not a number"))?;
            if n == 0 {
                return Err("games and lines are numbered from 1".into());
            }
            Ok(n)
        };
        let spec = match s.split_once("..") {
            None => {
                let n = number(s)?;
                LineSpec { first: n, last: Some(n) }
            }
            Some((a, b)) => {
                let b = b.strip_prefix('=').unwrap_or(b);
                let first = if a.is_empty() { 1 } else { number(a)? };
                let last = if b.is_empty() { None } else { Some(number(b)?) };
                LineSpec { first, last }
            }
        };
        if spec.last.is_some_and(|l| l < spec.first) {
            return Err(format!("`{s}` is an empty range (the end comes before the start)"));
        }
        Ok(spec)
    }
}

impl fmt::Display for LineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.last {
            Some(l) if l == self.first => write!(f, "{l}"),
            Some(l) => write!(f, "{}..{l}", self.first),
            None => write!(f, "{}..", self.first),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse() {
        assert_eq!("7".parse(), Ok(LineSpec { first: 7, last: Some(7) }));
        assert_eq!("5..10".parse(), Ok(LineSpec { first: 5, last: Some(10) }));
        assert_eq!("5..=10".parse(), Ok(LineSpec { first: 5, last: Some(10) }));
        assert_eq!("5..".parse(), Ok(LineSpec { first: 5, last: None }));
        assert_eq!("..3".parse(), Ok(LineSpec { first: 1, last: Some(3) }));
        for bad in ["0", "x", "3..2", "1..0", "", "-1"] {
            assert!(bad.parse::<LineSpec>().is_err(), "{bad}");
        }
    }
}
