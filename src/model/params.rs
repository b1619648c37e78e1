//! Model parameter files: named integer weight groups, parsed from the text files in `models/`.
//!
//! A file is a list of lines `name v1 v2 ...` (`#` starts a comment). Settings are single
//! values (`search.depth 1`); weight groups are vectors whose length the feature layout fixes
//! ([`super::features`]). Groups of 64 weights (piece-square tables) are written as eight lines
//! `name.1` .. `name.8`, one per rank, a-file first, so that a diff shows which squares moved.
//! Weights are logits in units of 1/[`super::softmax::LOGIT_ONE`] nat.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::error::Error;

/// One named weight group of a layout.
#[derive(Clone, Copy, Debug)]
pub struct Group {
    /// Name in the parameter file.
    pub name: &'static str,
    /// Offset of the group in the flat weight vector.
    pub offset: usize,
    /// Number of weights.
    pub len: usize,
}

/// Declares a feature layout: a module of `usize` offset constants, `LEN` and `GROUPS`.
macro_rules! feature_layout {
    ($(#[$meta:meta])* $vis:vis mod $module:ident { $($(#[$gmeta:meta])* $const_name:ident : $len:expr => $name:literal,)* }) => {
        $(#[$meta])*
        #[allow(missing_docs)]
        $vis mod $module {
            use $crate::model::params::Group;
            $crate::model::params::feature_layout!(@offsets 0usize; $($const_name : $len,)*);
            /// The groups in file order.
            pub const GROUPS: &[Group] = &[$(Group { name: $name, offset: $const_name, len: $len },)*];
            /// Total number of weights.
            pub const LEN: usize = 0 $(+ $len)*;
        }
    };
    (@offsets $at:expr; $const_name:ident : $len:expr, $($rest:tt)*) => {
        pub const $const_name: usize = $at;
        $crate::model::params::feature_layout!(@offsets $at + $len; $($rest)*);
    };
    (@offsets $at:expr;) => {};
}
pub(crate) use feature_layout;

/// Parsed contents of a parameter file: settings and weight groups by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ParamFile {
    /// Every `name value...` line, PST rows merged into their group.
    pub entries: BTreeMap<String, Vec<i64>>,
}

impl ParamFile {
    /// Parses a parameter file; `file_name` is used in error messages.
    ///
    /// # Errors
    /// [`Error::Model`] on a non-integer value or a repeated name.
    pub fn parse(file_name: &str, text: &str) -> Result<ParamFile, Error> {
        let mut entries: BTreeMap<String, Vec<i64>> = BTreeMap::new();
        let err = |line: usize, message: String| Error::Model { name: file_name.to_string(), line, message };
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut parts = line.split_whitespace();
            let name = parts.next().expect("non-empty line has a first word");
            let values = parts
                .map(|v| v.parse::<i64>().map_err(|_| err(i + 1, format!("`{v}` is not an integer"))))
                .collect::<Result<Vec<_>, _>>()?;
            // `group.3` is the third rank of a 64-entry group.
            let (key, rank) = match name.rsplit_once('.') {
                Some((base, r)) if r.len() == 1 && ("1"..="8").contains(&r) => (base.to_string(), Some(r.as_bytes()[0] - b'1')),
                _ => (name.to_string(), None),
            };
            match rank {
                Some(r) => {
                    if values.len() != 8 {
                        return Err(err(i + 1, format!("`{name}` needs 8 values, has {}", values.len())));
                    }
                    let group = entries.entry(key).or_insert_with(|| vec![i64::MIN; 64]);
                    if group.len() != 64 || group[r as usize * 8] != i64::MIN {
                        return Err(err(i + 1, format!("`{name}` is given twice")));
                    }
                    group[r as usize * 8..r as usize * 8 + 8].copy_from_slice(&values);
                }
                None => {
                    if entries.insert(key, values).is_some() {
                        return Err(err(i + 1, format!("`{name}` is given twice")));
                    }
                }
            }
        }
        if let Some((name, _)) = entries.iter().find(|(_, v)| v.contains(&i64::MIN)) {
            return Err(err(0, format!("group `{name}` is missing some of its 8 ranks")));
        }
        Ok(ParamFile { entries })
    }

    /// A single-valued setting, or `default` when absent.
    ///
    /// # Errors
    /// [`Error::Model`] if the entry has more or fewer than one value.
    pub fn setting(&self, file_name: &str, name: &str, default: i64) -> Result<i64, Error> {
        match self.entries.get(name) {
            None => Ok(default),
            Some(v) if v.len() == 1 => Ok(v[0]),
            Some(v) => Err(Error::Model { name: file_name.into(), line: 0, message: format!("`{name}` needs one value, has {}", v.len()) }),
        }
    }

    /// Reads the weights of `groups` (prefixed by `prefix.`) into a flat vector of `len`;
    /// missing groups are zero. With `lenient`, groups of the wrong length are zero too (for
    /// the tuner, after a layout change).
    ///
    /// # Errors
    /// [`Error::Model`] if a group has the wrong length (unless lenient) or a value does not
    /// fit in `i32`.
    pub fn weights(&self, file_name: &str, prefix: &str, groups: &[Group], len: usize, lenient: bool) -> Result<Vec<i32>, Error> {
        let mut w = vec![0i32; len];
        for g in groups {
            let key = format!("{prefix}.{}", g.name);
            if let Some(values) = self.entries.get(&key) {
                if values.len() != g.len && lenient {
                    continue;
                }
                if values.len() != g.len {
                    return Err(Error::Model {
                        name: file_name.into(),
                        line: 0,
                        message: format!("`{key}` needs {} values, has {}", g.len, values.len()),
                    });
                }
                for (dst, &v) in w[g.offset..g.offset + g.len].iter_mut().zip(values) {
                    *dst = i32::try_from(v).map_err(|_| Error::Model {
                        name: file_name.into(),
                        line: 0,
                        message: format!("`{key}` value {v} does not fit in 32 bits"),
                    })?;
                }
            }
        }
        Ok(w)
    }
}

/// Writes `weights` laid out by `groups` as parameter-file lines under `prefix.`; 64-weight
/// groups as eight rank lines.
pub(crate) fn write_weights(out: &mut String, prefix: &str, groups: &[Group], weights: &[i32]) {
    for g in groups {
        let values = &weights[g.offset..g.offset + g.len];
        if g.len == 64 {
            for rank in 0..8 {
                let row: Vec<String> = values[rank * 8..rank * 8 + 8].iter().map(|v| format!("{v:5}")).collect();
                let _ = writeln!(out, "{prefix}.{}.{} {}", g.name, rank + 1, row.join(" "));
            }
        } else {
            let row: Vec<String> = values.iter().map(|v| v.to_string()).collect();
            let _ = writeln!(out, "{prefix}.{} {}", g.name, row.join(" "));
        }
    }
}

/// FNV-1a 64-bit hash, used for model ids (stable across platforms and Rust versions).
pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::model::params::feature_layout! {
        mod demo {
            A: 2 => "a",
            B: 64 => "b",
        }
    }

    #[test]
    fn weights_round_trip_through_text() {
        let mut w: Vec<i32> = (0..demo::LEN as i32).map(|i| i * 3 - 50).collect();
        w[0] = -7;
        let mut text = String::from("# comment\nlevel 3\n");
        write_weights(&mut text, "move", demo::GROUPS, &w);
        let file = ParamFile::parse("demo", &text).unwrap();
        assert_eq!(file.setting("demo", "level", 0).unwrap(), 3);
        assert_eq!(file.weights("demo", "move", demo::GROUPS, demo::LEN, false).unwrap(), w);
        assert_eq!(demo::B, 2);
    }

    #[test]
    fn bad_files_are_reported_with_line_numbers() {
        let e = ParamFile::parse("x", "a 1\nb 2 z\n").unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        assert!(ParamFile::parse("x", "a 1\na 2\n").is_err());
        assert!(ParamFile::parse("x", "p.1 1 2 3 4 5 6 7 8\n").is_err());
    }
}
