//! `[%clk H:MM:SS]` values: predicted from the same player's previous clock plus the
//! increment of the time control (or the base time for a player's first clock), so only the
//! time spent on the move is coded.

use super::clock_model::{PlyFacts, SpentModel};
use super::stream::Metered;
use crate::entropy::SymbolCoder;
use crate::entropy::binary::{Bit, BitTree, SignedModel};
use crate::error::Error;

/// A clock value and how it is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Milliseconds.
    pub ms: u64,
    /// Digits of the hours (zero-padded), 1..=4.
    pub hour_digits: u8,
    /// Digits of the fraction of a second, 0..=3.
    pub frac_digits: u8,
}

impl Clock {
    /// Parses `H:MM:SS` or `H:MM:SS.f` (1 to 4 digits of hours, 1 to 3 of fraction); `None`
    /// unless [`Clock::write`] gives back exactly `s`.
    pub fn parse(s: &[u8]) -> Option<Clock> {
        let h = s.iter().take_while(|b| b.is_ascii_digit()).count();
        if !(1..=4).contains(&h) {
            return None;
        }
        let rest = &s[h..];
        if rest.len() < 6 || rest[0] != b':' || rest[3] != b':' {
            return None;
        }
        let two = |b: &[u8]| -> Option<u64> {
            (b.len() == 2 && b.iter().all(u8::is_ascii_digit)).then(|| ((b[0] - b'0') * 10 + (b[1] - b'0')) as u64)
        };
        let (mm, ss) = (two(&rest[1..3])?, two(&rest[4..6])?);
        if mm >= 60 || ss >= 60 {
            return None;
        }
        let hours: u64 = std::str::from_utf8(&s[..h]).ok()?.parse().ok()?;
        let frac = &rest[6..];
        let (frac_digits, frac_ms) = match frac {
            [] => (0, 0),
            [b'.', d @ ..] if (1..=3).contains(&d.len()) && d.iter().all(u8::is_ascii_digit) => {
                let v: u64 = std::str::from_utf8(d).ok()?.parse().ok()?;
                (d.len() as u8, v * 10u64.pow(3 - d.len() as u32))
            }
            _ => return None,
        };
        let clock = Clock { ms: ((hours * 60 + mm) * 60 + ss) * 1000 + frac_ms, hour_digits: h as u8, frac_digits };
        let mut out = Vec::new();
        clock.write(&mut out);
        (out == s).then_some(clock)
    }

    /// Appends the clock as written.
    pub fn write(&self, out: &mut Vec<u8>) {
        let secs = self.ms / 1000;
        let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
        out.extend_from_slice(format!("{h:0width$}:{m:02}:{s:02}", width = self.hour_digits as usize).as_bytes());
        if self.frac_digits > 0 {
            let unit = 10u64.pow(3 - self.frac_digits as u32);
            out.extend_from_slice(format!(".{:0width$}", self.ms % 1000 / unit, width = self.frac_digits as usize).as_bytes());
        }
    }

    /// Milliseconds per unit of the last written digit.
    fn unit(&self) -> u64 {
        10u64.pow(3 - self.frac_digits as u32)
    }
}

/// Parses a `TimeControl` value `base+increment` or `base` (seconds, the increment may have
/// a fraction) into milliseconds.
pub fn time_control(v: &[u8]) -> Option<(u64, u64)> {
    let s = std::str::from_utf8(v).ok()?;
    let (base, inc) = s.split_once('+').unwrap_or((s, "0"));
    let base: u64 = base.parse().ok()?;
    let inc: f64 = inc.parse().ok()?;
    if !(0.0..1e6).contains(&inc) || base > 1 << 40 {
        return None;
    }
    Some((base * 1000, (inc * 1000.0).round() as u64))
}

/// Buckets of time controls (by base time) with separate statistics.
fn speed(base_ms: u64) -> usize {
    match base_ms / 1000 {
        0..=119 => 0,
        120..=479 => 1,
        480..=1499 => 2,
        _ => 3,
    }
}

/// Clock model of one block, with the state of the current game.
#[derive(Debug)]
pub struct ClockModel {
    same_format: Bit,
    hour_digits: BitTree,
    frac_digits: BitTree,
    format: Option<(u8, u8)>,
    spent: Vec<SignedModel>,
    /// Per color (0 white, 1 black): last clock in ms and the last time spent, in units.
    last: [Option<(u64, i64)>; 2],
    control: Option<(u64, u64)>,
    /// Coding 3: the mixing model of the time spent ([`SpentModel`]) instead of `spent`.
    mixed: Option<SpentModel>,
    /// What the position says about the move of the next clock (coding 3).
    pub facts: PlyFacts,
    /// Hashes of the game's players' names, white's and black's (coding 3; 0 unknown), set
    /// before [`ClockModel::start_game`].
    pub players: [u32; 2],
}

impl Default for ClockModel {
    fn default() -> Self {
        ClockModel {
            same_format: Bit::default(),
            hour_digits: BitTree::new(2),
            frac_digits: BitTree::new(2),
            format: None,
            spent: (0..4 * 8).map(|_| SignedModel::new()).collect(),
            last: [None; 2],
            control: None,
            mixed: None,
            facts: PlyFacts::default(),
            players: [0; 2],
        }
    }
}

impl ClockModel {
    /// Fresh models.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fresh models of coding 3: the time spent under [`SpentModel`].
    pub fn mixed() -> Self {
        ClockModel { mixed: Some(SpentModel::new()), ..Self::default() }
    }

    /// Fresh models of coding 4: [`SpentModel::with_views`], which also uses the move model's
    /// view of the move ([`PlyFacts::view`]).
    pub fn with_views() -> Self {
        ClockModel { mixed: Some(SpentModel::with_views()), ..Self::default() }
    }

    /// Fresh models of coding 6: [`SpentModel::with_pace`], which also uses the time left per
    /// move still to play and the game's ending ([`PlyFacts::own_left`], [`PlyFacts::ending`]).
    pub fn with_pace() -> Self {
        ClockModel { mixed: Some(SpentModel::with_pace()), ..Self::default() }
    }

    /// Starts a game with the time control of its `TimeControl` tag, if any.
    pub fn start_game(&mut self, control: Option<(u64, u64)>) {
        self.last = [None; 2];
        self.control = control;
        if let Some(m) = &mut self.mixed {
            m.start_game(self.players);
        }
    }

    /// Codes the clock of `color` (0 white, 1 black: the player who just moved).
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub fn code<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, color: usize, clock: &mut Clock) -> Result<(), Error> {
        let format = (clock.hour_digits, clock.frac_digits);
        let same = self.format.is_some() && self.same_format.code_value(c, Some(format) == self.format)?;
        if same {
            (clock.hour_digits, clock.frac_digits) = self.format.expect("checked");
        } else {
            let mut h = clock.hour_digits.saturating_sub(1) as usize;
            self.hour_digits.code(c, &mut h)?;
            let mut f = clock.frac_digits as usize;
            self.frac_digits.code(c, &mut f)?;
            if f > 3 {
                return Err(Error::Corrupt("clock with more than 3 fraction digits".into()));
            }
            (clock.hour_digits, clock.frac_digits) = (h as u8 + 1, f as u8);
        }
        self.format = Some((clock.hour_digits, clock.frac_digits));
        let unit = clock.unit();
        let (base, inc) = self.control.unwrap_or((0, 0));
        let (predicted, ctx) = match self.last[color] {
            Some((ms, spent)) => (ms + inc, 1 + (64 - spent.max(0).unsigned_abs().leading_zeros() as usize).min(6)),
            None => (self.control.map_or_else(|| self.last[1 - color].map_or(0, |l| l.0), |_| base), 0),
        };
        let ctx = speed(base) * 8 + ctx;
        let pred_units = (predicted / unit) as i64;
        let actual = pred_units - (clock.ms / unit) as i64;
        let spent = match &mut self.mixed {
            Some(m) => {
                let left = self.last[color].map(|l| l.0).or(self.control.map(|c| c.0));
                m.code(c, color, unit, left, self.control, self.facts, actual)?
            }
            None => self.spent[ctx].code_value(c, actual)?,
        };
        let units = pred_units.checked_sub(spent).filter(|u| *u >= 0).ok_or_else(|| Error::Corrupt("negative clock".into()))?;
        clock.ms = (units as u64).checked_mul(unit).ok_or_else(|| Error::Corrupt("clock out of range".into()))?;
        self.last[color] = Some((clock.ms, spent));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_parse_only_when_they_round_trip() {
        assert_eq!(Clock::parse(b"0:15:00"), Some(Clock { ms: 900_000, hour_digits: 1, frac_digits: 0 }));
        assert_eq!(Clock::parse(b"01:14:46").unwrap().ms, 4_486_000);
        assert_eq!(Clock::parse(b"0:00:09.5").unwrap().ms, 9_500);
        for s in [&b"0:60:00"[..], b"0:1:00", b"0:00:00.", b"0:00:00.1234", b"12345:00:00", b":00:00", b"0:00:00 "] {
            assert_eq!(Clock::parse(s), None, "{}", String::from_utf8_lossy(s));
        }
        assert_eq!(time_control(b"60+0"), Some((60_000, 0)));
        assert_eq!(time_control(b"10+0.05"), Some((10_000, 50)));
        assert_eq!(time_control(b"-"), None);
    }
}
