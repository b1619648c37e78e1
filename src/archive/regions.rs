//! Regions of an input: stretches of games and stretches of other text, so that
//! [`super::form`] judges each stretch of a mixed file on its own content (container or raw
//! form) instead of judging the whole file on its start.
//!
//! Each line is classified on its own, cheaply and without the move model ([`classify`]):
//! chess (PGN tag pairs, move numbers, moves in SAN or another notation, results), other text,
//! or neutral (blank lines, comments only). A region is a maximal stretch whose lines are of
//! one kind, but for short interruptions: a stretch of the other kind starts a new region only
//! once it reaches [`MIN_REGION`] bytes, so games with a few odd lines, or prose quoting a few
//! moves, stay one region. Regions end at line ends (or, for a line longer than [`MAX_PIECE`],
//! at a piece boundary), and joined they are the input byte for byte.
//!
//! Games regions are of two sorts that code differently: one-game movetext lines and PGN
//! (tag sections). The format of a region is detected from its start, so PGN games after a
//! long stretch of movetext would be coded as raw lines of the movetext region: a games
//! region that has gone at least [`MIN_REGION`] bytes without a tag line, and whose start is
//! detected as movetext ([`crate::pgn::detect`]), ends where the first PGN tag line (a line
//! `[Name ...`) comes, and that line starts a new games region ([`split`]
//! then says [`Start::Tags`]). A region that starts with or has a tag line in its first
//! [`MIN_REGION`] bytes, or whose start is detected as PGN, is never cut so; movetext after
//! PGN is not cut either (PGN coding takes movetext lines as games). A region that starts at
//! such a cut is judged alike at its next tag line (its own first line aside), so a stray tag
//! line in movetext does not keep the PGN after it in a movetext region.
//!
//! The classification only places the boundaries: each region is then coded as a member of
//! its own (see [`crate::container::members`]) with the form [`super::form`] finds best for
//! it, so a misclassified line costs at most a worse boundary, never a wrong archive.

use std::io::{self, BufRead, Read};
use std::ops::Range;

use crate::container::InputFormat;
use crate::pgn;
use crate::pgn::lexer::is_tag_line;

/// Fewest bytes of lines of the other kind, without a line of the region's own kind among
/// them, that end a region.
pub const MIN_REGION: usize = 64 << 10;

/// Longest piece of a line classified at once (a longer line is classified piece by piece).
pub const MAX_PIECE: usize = 64 << 10;

/// Bytes a region's reader gathers before handing them out.
const READY: usize = 256 << 10;

/// Bytes of a games region's start kept to detect its format (as the command line does).
const SAMPLE: usize = 64 << 10;

/// Why a region starts where it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// At the start of the input, or where the kind of line ([`Kind`]) changes.
    Kind,
    /// At the tag line that ends a long games region of movetext without tags: PGN games
    /// follow, whose format is to be detected anew.
    Tags,
}

/// What a line holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Chess: PGN tags, moves, results.
    Games,
    /// Anything else.
    Text,
}

impl Kind {
    fn other(self) -> Kind {
        match self {
            Kind::Games => Kind::Text,
            Kind::Text => Kind::Games,
        }
    }
}

/// The kind of `line` (with or without its line feed); `None` for a blank line or one of
/// comments only, which joins the stretch around it.
pub fn classify(line: &[u8]) -> Option<Kind> {
    let t = line.trim_ascii();
    if t.is_empty() {
        return None;
    }
    if t[0] == b'[' && t[t.len() - 1] == b']' {
        return Some(Kind::Games);
    }
    let (mut chess, mut other) = (0usize, 0usize);
    let mut depth = 0usize;
    for tok in t.split(|b| b.is_ascii_whitespace()).filter(|s| !s.is_empty()) {
        // `{...}` comments (which may span tokens) and `;` comments count for nothing.
        if depth > 0 || tok[0] == b'{' {
            depth += tok.iter().filter(|&&b| b == b'{').count();
            depth = depth.saturating_sub(tok.iter().filter(|&&b| b == b'}').count());
            continue;
        }
        if tok[0] == b';' {
            break;
        }
        if is_chess_token(tok) {
            chess += tok.len();
        } else {
            other += tok.len();
        }
    }
    match (chess, other) {
        (0, 0) => None,
        (c, o) if c >= 3 * o => Some(Kind::Games),
        _ => Some(Kind::Text),
    }
}

/// Whether `tok` looks like a move number, a move (any notation with a square in it), a
/// castling, a result, a NAG or a variation bracket.
fn is_chess_token(tok: &[u8]) -> bool {
    let tok = tok.strip_prefix(b"(").unwrap_or(tok);
    let tok = tok.strip_suffix(b")").unwrap_or(tok);
    if tok.is_empty() {
        return true;
    }
    if matches!(tok, b"1-0" | b"0-1" | b"1/2-1/2" | b"*" | b"\xc2\xbd-\xc2\xbd") {
        return true;
    }
    if tok[0] == b'$' {
        return tok.len() > 1 && tok[1..].iter().all(u8::is_ascii_digit);
    }
    // A move number, alone or glued to the move.
    let digits = tok.iter().take_while(|b| b.is_ascii_digit()).count();
    let dots = tok[digits..].iter().take_while(|&&b| b == b'.').count();
    let tok = if digits > 0 && dots > 0 { &tok[digits + dots..] } else { tok };
    let tok = tok.strip_prefix("…".as_bytes()).unwrap_or(tok);
    if tok.is_empty() {
        return digits > 0;
    }
    let end = tok.iter().rposition(|b| !b"!?+#".contains(b)).map_or(0, |i| i + 1);
    let tok = &tok[..end];
    if tok.is_empty() || tok.len() > 16 {
        return false;
    }
    if matches!(tok, b"O-O" | b"O-O-O" | b"0-0" | b"0-0-0" | b"o-o" | b"o-o-o" | b"--") {
        return true;
    }
    // Lower-case letters other than files and captures mark words, not moves.
    let letters_ok = tok.iter().all(|&b| !b.is_ascii_lowercase() || (b'a'..=b'h').contains(&b) || b == b'x');
    let square = tok.windows(2).any(|w| (b'a'..=b'h').contains(&w[0]) && (b'1'..=b'8').contains(&w[1]));
    letters_ok && square
}

/// Cuts an input into regions, read one after the other through [`Splitter::region`].
pub struct Splitter<R> {
    input: R,
    kind: Kind,
    /// Bytes of the current region ready to be read, from `at`.
    ready: Vec<u8>,
    at: usize,
    /// Lines of the other kind (and neutral lines among them) not yet placed.
    pending: Vec<u8>,
    /// `pending` reached [`MIN_REGION`]: it starts the next region.
    switch: bool,
    /// `pending` is the tag line that starts the next region (see [`Start::Tags`]).
    cut: bool,
    /// Bytes of the current region so far (placed or pending).
    len: usize,
    /// The first [`SAMPLE`] bytes of the current region.
    sample: Vec<u8>,
    /// A games region that may still be cut at a tag line: no tag line yet, not yet judged.
    untagged: bool,
    eof: bool,
    started: bool,
    line: Vec<u8>,
}

impl<R: BufRead> Splitter<R> {
    /// A splitter reading `input`.
    pub fn new(input: R) -> Self {
        Splitter {
            input,
            kind: Kind::Games,
            ready: Vec::new(),
            at: 0,
            pending: Vec::new(),
            switch: false,
            cut: false,
            len: 0,
            sample: Vec::new(),
            untagged: false,
            eof: false,
            started: false,
            line: Vec::new(),
        }
    }

    /// The kind of the next region, `None` at the end of the input. The previous region must
    /// have been read to its end.
    ///
    /// # Errors
    /// Errors of reading the input.
    pub(crate) fn next_region(&mut self) -> io::Result<Option<(Kind, Start)>> {
        debug_assert!(self.at == self.ready.len(), "a region read to its end");
        let region = self.next_kind()?;
        if let Some((_, start)) = region {
            self.len = self.ready.len();
            self.sample.clear();
            self.sample.extend_from_slice(&self.ready[..self.ready.len().min(SAMPLE)]);
            // A region cut at a tag line is judged at its next tag line: a stray tag line in
            // movetext starts a region that is still movetext, and PGN after it is cut again.
            let skip = usize::from(start == Start::Tags);
            self.untagged = self.kind == Kind::Games && !split_lines(&self.ready).skip(skip).any(is_tag_line);
        }
        Ok(region)
    }

    /// [`Self::next_region`] but for the state kept on the region's content.
    fn next_kind(&mut self) -> io::Result<Option<(Kind, Start)>> {
        if !self.started {
            self.started = true;
            self.ready.clear();
            self.at = 0;
            // Neutral lines first, then the first classified line names the region's kind.
            loop {
                if !self.read_piece()? {
                    self.eof = true;
                    break;
                }
                self.ready.extend_from_slice(&self.line);
                if let Some(k) = classify(&self.line) {
                    self.kind = k;
                    break;
                }
            }
            return Ok((!self.ready.is_empty()).then_some((self.kind, Start::Kind)));
        }
        if self.switch {
            self.switch = false;
            self.kind = self.kind.other();
            self.ready = std::mem::take(&mut self.pending);
            self.at = 0;
            return Ok(Some((self.kind, Start::Kind)));
        }
        if self.cut {
            self.cut = false;
            self.ready = std::mem::take(&mut self.pending);
            self.at = 0;
            return Ok(Some((self.kind, Start::Tags)));
        }
        Ok(None)
    }

    /// A reader of the current region: it ends where the region does.
    pub fn region(&mut self) -> Region<'_, R> {
        Region { splitter: self }
    }

    /// Reads the next line, or piece of a long line, into `self.line`; `false` at the end.
    fn read_piece(&mut self) -> io::Result<bool> {
        self.line.clear();
        while self.line.len() < MAX_PIECE {
            let buf = match self.input.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                break;
            }
            let room = MAX_PIECE - self.line.len();
            let (n, done) = match memchr::memchr(b'\n', &buf[..buf.len().min(room)]) {
                Some(i) => (i + 1, true),
                None => (buf.len().min(room), false),
            };
            self.line.extend_from_slice(&buf[..n]);
            self.input.consume(n);
            if done {
                break;
            }
        }
        Ok(!self.line.is_empty())
    }

    /// Gathers more of the current region into `ready` (consumed), up to [`READY`] bytes or
    /// the region's end.
    fn refill(&mut self) -> io::Result<()> {
        self.ready.clear();
        self.at = 0;
        while !self.switch && !self.cut && !self.eof && self.ready.len() < READY {
            if !self.read_piece()? {
                self.eof = true;
                // A short stretch of the other kind at the end stays in this region.
                self.ready.append(&mut self.pending);
                break;
            }
            if self.sample.len() < SAMPLE {
                let n = self.line.len().min(SAMPLE - self.sample.len());
                self.sample.extend_from_slice(&self.line[..n]);
            }
            self.len += self.line.len();
            if self.untagged && is_tag_line(&self.line) {
                self.untagged = false;
                if self.len - self.line.len() >= MIN_REGION && pgn::detect(&self.sample) == InputFormat::Movetext {
                    // PGN after a long stretch of movetext: the tag line starts a new region.
                    self.ready.append(&mut self.pending);
                    self.pending.extend_from_slice(&self.line);
                    self.cut = true;
                    break;
                }
            }
            match classify(&self.line) {
                None if self.pending.is_empty() => self.ready.extend_from_slice(&self.line),
                None => self.pending.extend_from_slice(&self.line),
                Some(k) if k == self.kind => {
                    self.ready.append(&mut self.pending);
                    self.ready.extend_from_slice(&self.line);
                }
                Some(_) => {
                    self.pending.extend_from_slice(&self.line);
                    self.switch = self.pending.len() >= MIN_REGION;
                }
            }
        }
        Ok(())
    }
}

/// The current region of a [`Splitter`], as a reader.
pub struct Region<'a, R> {
    splitter: &'a mut Splitter<R>,
}

impl<R: BufRead> Read for Region<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let got = self.fill_buf()?;
        let n = got.len().min(buf.len());
        buf[..n].copy_from_slice(&got[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Region<'_, R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let s = &mut *self.splitter;
        while s.at == s.ready.len() && !s.switch && !s.cut && !s.eof {
            s.refill()?;
        }
        Ok(&s.ready[s.at..])
    }

    fn consume(&mut self, n: usize) {
        self.splitter.at += n;
    }
}

/// The lines of `text`, each with its line feed.
fn split_lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split_inclusive(|&b| b == b'\n')
}

/// The regions of `text` in order: their kinds, why they start, and byte ranges (covering
/// `text`).
pub fn split(text: &[u8]) -> Vec<(Kind, Start, Range<usize>)> {
    let mut splitter = Splitter::new(text);
    let mut out = Vec::new();
    let mut at = 0;
    while let Some((kind, start)) = splitter.next_region().expect("reading a slice cannot fail") {
        let n = io::copy(&mut splitter.region(), &mut io::sink()).expect("reading a slice cannot fail") as usize;
        out.push((kind, start, at..at + n));
        at += n;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_classified() {
        assert_eq!(classify(b"1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n"), Some(Kind::Games));
        assert_eq!(classify(b"e4 d5 exd5 Nf6 d3 Qxd5 0-1"), Some(Kind::Games));
        assert_eq!(classify(b"[Event \"Rated Blitz game\"]\n"), Some(Kind::Games));
        assert_eq!(classify(b"1. e4 { [%eval 0.17] [%clk 0:03:00] } 1... c5 { [%clk 0:03:00] }"), Some(Kind::Games));
        assert_eq!(classify(b"1.e2-e4 e7-e5 2.Sg1-f3 Sb8-c6"), Some(Kind::Games));
        assert_eq!(classify(b"The quick brown fox jumps over the lazy dog.\n"), Some(Kind::Text));
        assert_eq!(classify(b"After e4 the game went on for a long while.\n"), Some(Kind::Text));
        assert_eq!(classify(b"   \r\n"), None);
        assert_eq!(classify(b"{ only a comment }"), None);
    }

    fn games(n: usize) -> Vec<u8> {
        b"1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 1/2-1/2\n".repeat(n)
    }

    fn prose(n: usize) -> Vec<u8> {
        b"It was the best of times, it was the worst of times, it was the age of wisdom.\n".repeat(n)
    }

    /// One-game movetext lines without move numbers (detected as movetext).
    fn movetext(n: usize) -> Vec<u8> {
        b"e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7 1/2-1/2\n".repeat(n)
    }

    fn pgn(n: usize) -> Vec<u8> {
        b"[Event \"Rated Blitz game\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n\n".repeat(n)
    }

    #[test]
    fn regions_cover_the_input_and_follow_its_stretches() {
        let mut text = games(20_000);
        text.extend(prose(10)); // a short interruption stays in the games
        text.extend(games(10));
        text.extend(prose(5_000));
        text.extend(games(5));
        let regions = split(&text);
        let kinds: Vec<Kind> = regions.iter().map(|r| r.0).collect();
        assert_eq!(kinds, [Kind::Games, Kind::Text]);
        assert_eq!(regions[0].2, 0..games(20_010).len() + prose(10).len());
        assert_eq!(regions[1].2.end, text.len());
        for w in regions.windows(2) {
            assert_eq!(w[0].2.end, w[1].2.start);
        }
    }

    #[test]
    fn one_kind_is_one_region_and_empty_is_none() {
        assert_eq!(split(&games(3000)), [(Kind::Games, Start::Kind, 0..games(3000).len())]);
        assert_eq!(split(&prose(3000)), [(Kind::Text, Start::Kind, 0..prose(3000).len())]);
        assert!(split(b"").is_empty());
        let long = vec![b'z'; 3 * MAX_PIECE + 5];
        assert_eq!(split(&long), [(Kind::Text, Start::Kind, 0..long.len())]);
    }

    #[test]
    fn pgn_after_long_movetext_starts_a_region() {
        let mut text = movetext(3000);
        let at = text.len();
        text.extend(pgn(1000));
        text.extend(movetext(10));
        assert_eq!(split(&text), [(Kind::Games, Start::Kind, 0..at), (Kind::Games, Start::Tags, at..text.len())]);
        // Blank lines and a short stretch of prose before the tags stay with the movetext.
        let mut text = movetext(3000);
        text.extend(b"\n\n");
        text.extend(prose(3));
        let at = text.len();
        text.extend(pgn(10));
        assert_eq!(split(&text), [(Kind::Games, Start::Kind, 0..at), (Kind::Games, Start::Tags, at..text.len())]);
    }

    #[test]
    fn a_stray_tag_line_in_movetext_does_not_keep_the_pgn_after_it() {
        let mut text = movetext(3000);
        let stray = text.len();
        text.extend(b"[Event \"stray\"]\n");
        text.extend(movetext(3000));
        let at = text.len();
        text.extend(pgn(1000));
        assert_eq!(
            split(&text),
            [(Kind::Games, Start::Kind, 0..stray), (Kind::Games, Start::Tags, stray..at), (Kind::Games, Start::Tags, at..text.len())]
        );
        // PGN after a cut is still not cut again, movetext and more PGN in it or not.
        let mut text = movetext(3000);
        let at = text.len();
        text.extend([pgn(10), movetext(3000), pgn(1000)].concat());
        assert_eq!(split(&text), [(Kind::Games, Start::Kind, 0..at), (Kind::Games, Start::Tags, at..text.len())]);
    }

    #[test]
    fn pgn_and_short_movetext_before_tags_are_not_cut() {
        // PGN then movetext; PGN with movetext lines in it; movetext shorter than a region.
        for parts in [[pgn(1000), movetext(3000)], [pgn(10), [movetext(3000), pgn(1000)].concat()], [movetext(500), pgn(1000)]] {
            let text = parts.concat();
            assert_eq!(split(&text), [(Kind::Games, Start::Kind, 0..text.len())]);
        }
        // Tagless games detected as PGN (move numbers with a dot, wrapped lines) are not cut.
        let wrapped = b"1. e4 e5 2. Nf3 Nc6\n3. Bb5 a6 4. Ba4 Nf6\n5. O-O Be7 1/2-1/2\n\n".repeat(2000);
        let text = [wrapped, pgn(1000)].concat();
        assert_eq!(split(&text), [(Kind::Games, Start::Kind, 0..text.len())]);
    }
}
