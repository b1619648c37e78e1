//! Whether input is text in a wide encoding (UTF-16 or UTF-32), which chesszip keeps byte for
//! byte but cannot code as games: its games and tags are read at bytes (`\n`, `[`, ASCII
//! moves), and in UTF-16 every other byte is a NUL, so nearly all of it is stored raw. The
//! command line warns of such input and the Python `compress` too.

/// Bytes of the input's start that [`wide_encoding`] looks at (at most).
pub const SAMPLE: usize = 4096;

/// The wide encoding that `head` (the first bytes of an input) is written in: `"UTF-16LE"`,
/// `"UTF-16BE"`, `"UTF-32LE"` or `"UTF-32BE"`, from its byte order mark, or without one when
/// at least 90% of the 2-byte (4-byte) units of its first [`SAMPLE`] bytes (at least 16
/// bytes) are ASCII characters other than NUL written in that encoding; `None` for anything
/// else (UTF-8, Latin-1, binary data).
pub fn wide_encoding(head: &[u8]) -> Option<&'static str> {
    let boms: [(&[u8], &str); 4] =
        [(b"\xff\xfe\0\0", "UTF-32LE"), (b"\0\0\xfe\xff", "UTF-32BE"), (b"\xff\xfe", "UTF-16LE"), (b"\xfe\xff", "UTF-16BE")];
    if let Some((_, name)) = boms.iter().find(|(bom, _)| head.starts_with(bom)) {
        return Some(name);
    }
    let head = &head[..head.len().min(SAMPLE)];
    if head.len() < 16 {
        return None;
    }
    let ascii = |b: u8| b != 0 && b < 0x80;
    let share = |width: usize, at: usize| {
        let units = head.chunks_exact(width);
        let n = units.len();
        let hits = units.filter(|u| u.iter().enumerate().all(|(i, &b)| if i == at { ascii(b) } else { b == 0 })).count();
        hits * 10 >= n * 9
    };
    [(4, 0, "UTF-32LE"), (4, 3, "UTF-32BE"), (2, 0, "UTF-16LE"), (2, 1, "UTF-16BE")]
        .into_iter()
        .find(|&(width, at, _)| share(width, at))
        .map(|(_, _, name)| name)
}

#[cfg(test)]
mod tests {
    use super::wide_encoding;

    fn encode(text: &str, name: &str) -> Vec<u8> {
        let units: Vec<u32> = text.chars().map(u32::from).collect();
        match name {
            "UTF-16LE" => units.iter().flat_map(|&u| (u as u16).to_le_bytes()).collect(),
            "UTF-16BE" => units.iter().flat_map(|&u| (u as u16).to_be_bytes()).collect(),
            "UTF-32LE" => units.iter().flat_map(|&u| u.to_le_bytes()).collect(),
            _ => units.iter().flat_map(|&u| u.to_be_bytes()).collect(),
        }
    }

    #[test]
    fn wide_text_is_told_from_its_bom_or_its_nuls() {
        let text = "[Event \"Rated Blitz game\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n";
        for name in ["UTF-16LE", "UTF-16BE", "UTF-32LE", "UTF-32BE"] {
            assert_eq!(wide_encoding(&encode(text, name)), Some(name), "{name} without a BOM");
            assert_eq!(wide_encoding(&encode(&format!("\u{feff}{text}"), name)), Some(name), "{name} with a BOM");
        }
        assert_eq!(wide_encoding(text.as_bytes()), None);
        assert_eq!(wide_encoding(format!("\u{feff}{text}").as_bytes()), None);
        assert_eq!(wide_encoding(&[0; 100]), None);
        assert_eq!(wide_encoding(b"e4"), None);
    }
}
