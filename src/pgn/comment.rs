//! Brace comments: a comment is split into a *shape* (its whitespace, with a placeholder for
//! each `[%clk]`, `[%eval]`, other `[%cmd ...]` and run of free text) and the payloads the
//! placeholders stand for. Lichess writes the same few shapes again and again
//! (`{ [%clk 0:01:00] }`, `{ [%eval 0.17] [%clk 1:30:50] }`), so the shape is coded as a rank
//! in a move-to-front list of earlier shapes; clocks go to [`super::clock`], evaluations are
//! coded as the change from the previous evaluation of the game, and free text and other
//! commands' arguments go to the side stream (zstd).

use super::clock::{Clock, ClockModel};
use super::side::Side;
use super::stream::{Metered, Stream};
use crate::entropy::SymbolCoder;
use crate::entropy::binary::{Bit, BitTree, NumberModel, SignedModel, StringModel};
use crate::error::Error;

/// Placeholder of a `[%clk ...]` with a parsed [`Clock`].
const CLK: u8 = 1;
/// Placeholder of a `[%eval ...]` with a parsed [`Eval`].
const EVAL: u8 = 2;
/// Starts `[%name args]` of another command: `CMD name CMD_END`; the args are a payload.
const CMD: u8 = 3;
/// Ends a command name in a shape.
const CMD_END: u8 = 4;
/// Placeholder of a run of free text.
const TEXT: u8 = 5;

/// Most shapes remembered.
const SHAPES: usize = 256;
/// String class of new shapes.
const SHAPE_CLASS: u32 = 1;

/// An engine evaluation as lichess writes it: pawns with up to two decimals, or `#n` for a
/// forced mate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Eval {
    /// Mate in `value` moves (negative: the side to move is mated) instead of centipawns.
    pub mate: bool,
    /// Centipawns (white's view), or the mate distance.
    pub value: i64,
    /// Decimals written (0..=2), centipawns only.
    pub decimals: u8,
}

impl Eval {
    /// Parses an evaluation; `None` unless [`Eval::write`] gives back exactly `s`.
    pub fn parse(s: &[u8]) -> Option<Eval> {
        let (mate, body) = match s.strip_prefix(b"#") {
            Some(b) => (true, b),
            None => (false, s),
        };
        let (neg, digits) = match body.strip_prefix(b"-") {
            Some(d) => (true, d),
            None => (false, body),
        };
        let (int, frac) = match digits.iter().position(|&b| b == b'.') {
            Some(p) if !mate => (&digits[..p], &digits[p + 1..]),
            _ => (digits, &b""[..]),
        };
        if int.is_empty() || int.len() > 9 || !int.iter().chain(frac).all(u8::is_ascii_digit) || frac.len() > 2 {
            return None;
        }
        let int_v: i64 = std::str::from_utf8(int).ok()?.parse().ok()?;
        let frac_v: i64 = if frac.is_empty() { 0 } else { std::str::from_utf8(frac).ok()?.parse().ok()? };
        let magnitude = if mate { int_v } else { int_v * 100 + frac_v * if frac.len() == 1 { 10 } else { 1 } };
        let decimals = if mate {
            0
        } else if digits.contains(&b'.') {
            frac.len() as u8
        } else {
            0
        };
        if digits.ends_with(b".") {
            return None;
        }
        let e = Eval { mate, value: if neg { -magnitude } else { magnitude }, decimals };
        let mut out = Vec::new();
        e.write(&mut out);
        (out == s).then_some(e)
    }

    /// Appends the evaluation as written.
    pub fn write(&self, out: &mut Vec<u8>) {
        if self.mate {
            out.push(b'#');
            out.extend_from_slice(self.value.to_string().as_bytes());
            return;
        }
        if self.value < 0 {
            out.push(b'-');
        }
        let a = self.value.unsigned_abs();
        out.extend_from_slice((a / 100).to_string().as_bytes());
        match self.decimals {
            0 => {}
            1 => out.extend_from_slice(format!(".{}", a % 100 / 10).as_bytes()),
            _ => out.extend_from_slice(format!(".{:02}", a % 100).as_bytes()),
        }
    }

    /// The decimals lichess writes for `value` centipawns: two, or one when the second is 0.
    fn usual_decimals(value: i64) -> u8 {
        if value % 10 == 0 { 1 } else { 2 }
    }
}

/// One payload of a comment.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Payload {
    Clock(Clock),
    Eval(Eval),
    /// Arguments of another command, or free text.
    Bytes(Vec<u8>),
}

/// Splits comment content into its shape and payloads; concatenating them back with
/// [`assemble`] gives exactly `content`.
fn split(content: &[u8]) -> (Vec<u8>, Vec<Payload>) {
    let mut shape = Vec::new();
    let mut payloads = Vec::new();
    let mut i = 0;
    let space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    while i < content.len() {
        let rest = &content[i..];
        if space(rest[0]) {
            shape.push(rest[0]);
            i += 1;
            continue;
        }
        if let Some(len) = command_len(rest) {
            let inner = &rest[2..len - 1];
            let sp = inner.iter().position(|&b| b == b' ').expect("command_len checks the space");
            let (name, args) = (&inner[..sp], &inner[sp + 1..]);
            match (name, Clock::parse(args), Eval::parse(args)) {
                (b"clk", Some(clock), _) => {
                    shape.push(CLK);
                    payloads.push(Payload::Clock(clock));
                }
                (b"eval", _, Some(eval)) => {
                    shape.push(EVAL);
                    payloads.push(Payload::Eval(eval));
                }
                _ => {
                    shape.push(CMD);
                    shape.extend_from_slice(name);
                    shape.push(CMD_END);
                    payloads.push(Payload::Bytes(args.to_vec()));
                }
            }
            i += len;
            continue;
        }
        // Free text up to the next command, without trailing whitespace.
        let mut end = i + 1;
        while end < content.len() && command_len(&content[end..]).is_none() {
            end += 1;
        }
        let mut text_end = end;
        while text_end > i && space(content[text_end - 1]) {
            text_end -= 1;
        }
        shape.push(TEXT);
        payloads.push(Payload::Bytes(content[i..text_end].to_vec()));
        i = text_end;
    }
    (shape, payloads)
}

/// Length of a command `[%name args]` at the start of `s` (name alphanumeric, args without
/// brackets).
fn command_len(s: &[u8]) -> Option<usize> {
    if !s.starts_with(b"[%") {
        return None;
    }
    let name = s[2..].iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
    if name == 0 || s.get(2 + name) != Some(&b' ') {
        return None;
    }
    let args = s[3 + name..].iter().position(|&b| b == b']' || b == b'[')?;
    (s[3 + name + args] == b']').then_some(4 + name + args)
}

/// The items of a shape: whitespace byte, placeholder, or command name.
enum ShapeItem<'a> {
    Space(u8),
    Clock,
    Eval,
    Command(&'a [u8]),
    Text,
}

fn shape_items(shape: &[u8]) -> Result<Vec<ShapeItem<'_>>, Error> {
    let mut items = Vec::new();
    let mut i = 0;
    while i < shape.len() {
        items.push(match shape[i] {
            CLK => ShapeItem::Clock,
            EVAL => ShapeItem::Eval,
            TEXT => ShapeItem::Text,
            CMD => {
                let end = shape[i..].iter().position(|&b| b == CMD_END).ok_or_else(|| Error::Corrupt("bad comment shape".into()))?;
                let name = &shape[i + 1..i + end];
                i += end;
                ShapeItem::Command(name)
            }
            b @ (b' ' | b'\t' | b'\n' | b'\r') => ShapeItem::Space(b),
            _ => return Err(Error::Corrupt("bad comment shape".into())),
        });
        i += 1;
    }
    Ok(items)
}

/// Rebuilds comment content from its shape and payloads.
fn assemble(shape: &[u8], payloads: &[Payload], out: &mut Vec<u8>) -> Result<(), Error> {
    let bad = || Error::Corrupt("comment shape does not match its payloads".into());
    let mut p = payloads.iter();
    for item in shape_items(shape)? {
        if let ShapeItem::Space(b) = item {
            out.push(b);
            continue;
        }
        match (item, p.next().ok_or_else(bad)?) {
            (ShapeItem::Clock, Payload::Clock(c)) => {
                out.extend_from_slice(b"[%clk ");
                c.write(out);
                out.push(b']');
            }
            (ShapeItem::Eval, Payload::Eval(e)) => {
                out.extend_from_slice(b"[%eval ");
                e.write(out);
                out.push(b']');
            }
            (ShapeItem::Command(name), Payload::Bytes(args)) => {
                out.extend_from_slice(b"[%");
                out.extend_from_slice(name);
                out.push(b' ');
                out.extend_from_slice(args);
                out.push(b']');
            }
            (ShapeItem::Text, Payload::Bytes(t)) => out.extend_from_slice(t),
            _ => return Err(bad()),
        }
    }
    if p.next().is_some() {
        return Err(bad());
    }
    Ok(())
}

/// Comment models of one block, with the evaluation state of the current game.
#[derive(Debug)]
pub(crate) struct CommentModel {
    shapes: Vec<Vec<u8>>,
    rank: Vec<NumberModel>,
    last_rank: usize,
    shape_text: StringModel,
    /// The clock model.
    pub clocks: ClockModel,
    eval_mate: [Bit; 2],
    eval_delta: Vec<SignedModel>,
    eval_usual: Bit,
    eval_decimals: BitTree,
    last_eval: Option<Eval>,
    text_len: NumberModel,
}

impl Default for CommentModel {
    fn default() -> Self {
        CommentModel {
            shapes: Vec::new(),
            rank: (0..3).map(|_| NumberModel::new()).collect(),
            last_rank: 0,
            shape_text: StringModel::new(),
            clocks: ClockModel::new(),
            eval_mate: [Bit::default(); 2],
            eval_delta: (0..9).map(|_| SignedModel::new()).collect(),
            eval_usual: Bit::default(),
            eval_decimals: BitTree::new(2),
            last_eval: None,
            text_len: NumberModel::new(),
        }
    }
}

impl CommentModel {
    /// Fresh models.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts a game with the time control of its `TimeControl` tag, if any.
    pub fn start_game(&mut self, control: Option<(u64, u64)>) {
        self.clocks.start_game(control);
        self.last_eval = None;
    }

    /// Codes the content of a brace comment after a move of `color` (0 white, 1 black).
    /// Free text goes through `side`. When decoding, `content` is filled.
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub fn code<C: SymbolCoder>(
        &mut self,
        c: &mut Metered<'_, C>,
        color: usize,
        content: &mut Vec<u8>,
        side: &mut Side<'_>,
    ) -> Result<(), Error> {
        let decoding = c.decoding();
        let (mut shape, mut payloads) = if decoding { (Vec::new(), Vec::new()) } else { split(content) };
        let outer = c.set(Stream::Comments);
        let rank = if decoding { None } else { self.shapes.iter().position(|s| *s == shape) };
        let ctx = self.last_rank.min(2);
        let sym = self.rank[ctx].code_value(c, rank.map_or(0, |r| r as u64 + 1))? as usize;
        if sym == 0 {
            let budget = c.budget();
            self.shape_text.code(c, SHAPE_CLASS, &mut shape, budget)?;
            if decoding {
                c.spend(shape.len())?;
            }
            if self.shapes.len() == SHAPES {
                self.shapes.pop();
            }
        } else {
            let r = sym - 1;
            if r >= self.shapes.len() {
                return Err(Error::Corrupt("comment shape rank out of range".into()));
            }
            shape = self.shapes.remove(r);
            if decoding {
                c.spend(shape.len())?;
            }
        }
        self.last_rank = sym;
        self.shapes.insert(0, shape.clone());
        let items = shape_items(&shape)?;
        let mut n = 0;
        for item in items {
            if let ShapeItem::Space(_) = item {
                continue;
            }
            if decoding {
                payloads.push(Payload::Bytes(Vec::new()));
            }
            let p = payloads.get_mut(n).ok_or_else(|| Error::Corrupt("comment payloads".into()))?;
            n += 1;
            match item {
                ShapeItem::Space(_) => unreachable!("skipped above"),
                ShapeItem::Clock => {
                    c.set(Stream::Clocks);
                    let mut clock = match p {
                        Payload::Clock(k) => *k,
                        _ => Clock { ms: 0, hour_digits: 1, frac_digits: 0 },
                    };
                    self.clocks.code(c, color, &mut clock)?;
                    *p = Payload::Clock(clock);
                }
                ShapeItem::Eval => {
                    c.set(Stream::Evals);
                    let mut eval = match p {
                        Payload::Eval(e) => *e,
                        _ => Eval { mate: false, value: 0, decimals: 0 },
                    };
                    self.code_eval(c, &mut eval)?;
                    *p = Payload::Eval(eval);
                }
                ShapeItem::Command(_) | ShapeItem::Text => {
                    c.set(Stream::Comments);
                    let mut bytes = match p {
                        Payload::Bytes(b) => std::mem::take(b),
                        _ => Vec::new(),
                    };
                    side.code(c, &mut self.text_len, &mut bytes)?;
                    *p = Payload::Bytes(bytes);
                }
            }
        }
        c.set(outer);
        if decoding {
            content.clear();
            assemble(&shape, &payloads, content)?;
        }
        Ok(())
    }

    /// An evaluation: mate or not (in the context of the previous one), then the change from
    /// the previous evaluation, then the decimals if not the usual ones.
    fn code_eval<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, e: &mut Eval) -> Result<(), Error> {
        let last = self.last_eval;
        let was_mate = last.is_some_and(|l| l.mate);
        e.mate = self.eval_mate[was_mate as usize].code_value(c, e.mate)?;
        let (base, ctx) = match last {
            Some(l) if l.mate == e.mate => (l.value, 1 + (64 - l.value.unsigned_abs().leading_zeros() as usize).min(6)),
            _ => (0, 0),
        };
        let ctx = if e.mate { 8 } else { ctx };
        let delta = self.eval_delta[ctx].code_value(c, e.value.wrapping_sub(base))?;
        e.value = base.wrapping_add(delta);
        if !e.mate {
            let usual = Eval::usual_decimals(e.value);
            if !self.eval_usual.code_value(c, e.decimals == usual)? {
                let mut d = e.decimals as usize;
                self.eval_decimals.code(c, &mut d)?;
                e.decimals = d as u8;
            } else {
                e.decimals = usual;
            }
        } else {
            e.decimals = 0;
        }
        self.last_eval = Some(*e);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evals_parse_only_when_they_round_trip() {
        assert_eq!(Eval::parse(b"0.17"), Some(Eval { mate: false, value: 17, decimals: 2 }));
        assert_eq!(Eval::parse(b"-1.05"), Some(Eval { mate: false, value: -105, decimals: 2 }));
        assert_eq!(Eval::parse(b"0.2"), Some(Eval { mate: false, value: 20, decimals: 1 }));
        assert_eq!(Eval::parse(b"-0.3").unwrap().value, -30);
        assert_eq!(Eval::parse(b"#-3"), Some(Eval { mate: true, value: -3, decimals: 0 }));
        assert_eq!(Eval::parse(b"12"), Some(Eval { mate: false, value: 1200, decimals: 0 }));
        for s in [&b"-0.0"[..], b"0.", b".5", b"1.234", b"#1.5", b"+1", b"01.0", b""] {
            assert_eq!(Eval::parse(s), None, "{}", String::from_utf8_lossy(s));
        }
    }

    #[test]
    fn comments_split_into_shapes_and_payloads() {
        for content in [
            &b" [%clk 0:01:00] "[..],
            b" [%eval 0.17] [%clk 1:30:50] ",
            b" Inaccuracy. a3 was best. ",
            b"[%ts 1754850615931][%clk 01:14:46][%emt 00:15:43]",
            b"text [%cal Ge2e4,Gd2d4] more\n text",
            b"[% x] [%clk bad] [%eval 1.234] [unclosed",
            b"",
        ] {
            let (shape, payloads) = split(content);
            let mut out = Vec::new();
            assemble(&shape, &payloads, &mut out).unwrap();
            assert_eq!(out, content, "{}", String::from_utf8_lossy(content));
        }
        assert_eq!(split(b" [%clk 0:01:00] ").0, [b' ', CLK, b' ']);
    }
}
