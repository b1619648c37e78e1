//! The models' view of a PGN game's rating tags: level 10's Elo inputs (model version 10 on,
//! [`EloRule`]) and the level-2 network's rating inputs ([`Ratings`]; no release has them yet, docs/notes-ratings.md).
//!
//! The transformer takes the mover's and the opponent's Elo (`self_elo`, `oppo_elo`, clamped
//! to `0..=5000` by the model itself). Without anything known, both are [`DEFAULT_ELO`]. In a
//! PGN archive whose coding decodes every game's tags before its moves (coding 5 and later), a
//! model whose [`EloRule::tags`] is set takes each side's Elo from its `WhiteElo` / `BlackElo`
//! tag through the release's rule ([`EloRule::elo`]): the rating clamped to
//! `min..=max`, shrunk toward [`DEFAULT_ELO`] by `shrink / 256`, plus an offset for the game's
//! time-control class ([`Speed`]). A missing or non-numeric tag gives [`DEFAULT_ELO`]. Every
//! value is an integer: encoder and decoder compute the same inputs from the same tags.

/// The Elo given to the transformer for a side whose rating is unknown (and for both sides in
/// movetext, and in every archive of model versions 8 and 9).
pub const DEFAULT_ELO: i32 = 1500;

/// Time-control classes, by lichess's estimated game duration `base + 40 * increment`
/// (seconds): the rating pools of lichess are per class, and a bullet rating is not the
/// transformer's Elo.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Speed {
    /// No `TimeControl` tag, or one that does not parse (`-`: correspondence, `?`).
    #[default]
    Unknown = 0,
    /// Below 180 s (lichess's UltraBullet and Bullet).
    Bullet = 1,
    /// 180 s to 479 s.
    Blitz = 2,
    /// 480 s to 1,499 s.
    Rapid = 3,
    /// 1,500 s and more.
    Classical = 4,
}

/// Number of [`Speed`] classes.
pub const SPEEDS: usize = 5;

impl Speed {
    /// The class of a time control of `base_ms` plus `inc_ms` per move (milliseconds, as
    /// `pgn::clock::time_control` reads the tag); `None` is [`Speed::Unknown`].
    pub fn of(control: Option<(u64, u64)>) -> Speed {
        let Some((base_ms, inc_ms)) = control else { return Speed::Unknown };
        let seconds = base_ms.saturating_add(inc_ms.saturating_mul(40)) / 1000;
        match seconds {
            0..180 => Speed::Bullet,
            180..480 => Speed::Blitz,
            480..1500 => Speed::Rapid,
            _ => Speed::Classical,
        }
    }
}

/// How a release turns a game's rating tags into the transformer's Elo inputs (see the module
/// documentation). [`EloRule::default`], `tags` off, is versions 8 and 9: [`DEFAULT_ELO`]
/// for every game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EloRule {
    /// Whether PGN games' `WhiteElo` / `BlackElo` tags give the Elo inputs (PGN coding 5 and
    /// later; movetext and older codings always use [`DEFAULT_ELO`]).
    pub tags: bool,
    /// A tag's rating is first clamped to `min..=max` (Elo points).
    pub min: i32,
    /// See [`EloRule::min`].
    pub max: i32,
    /// Weight of the rating's distance from [`DEFAULT_ELO`], in 1/256 (256: the rating as it
    /// is, 0: always [`DEFAULT_ELO`]).
    pub shrink: i32,
    /// Elo points added per [`Speed`] class (indexed by `Speed as usize`).
    pub offset: [i32; SPEEDS],
}

impl Default for EloRule {
    fn default() -> Self {
        EloRule { tags: false, min: 0, max: 5000, shrink: 256, offset: [0; SPEEDS] }
    }
}

/// Largest rating a tag may give (five digits are read at most; the model clamps to 5000).
pub const ELO_LIMIT: i32 = 5000;

impl EloRule {
    /// The Elo input of a side whose rating tag is `tag` (`None`: no tag) in a game of class
    /// `speed`: [`DEFAULT_ELO`] when the rule is off or the tag is not a plain number
    /// (ASCII digits only, at most 5), else
    /// `DEFAULT_ELO + round(shrink * (clamp(tag, min, max) - DEFAULT_ELO) / 256) + offset[speed]`
    /// (halves rounded up), in `0..=`[`ELO_LIMIT`].
    pub fn elo(&self, tag: Option<&[u8]>, speed: Speed) -> i32 {
        self.elo_of(tag.and_then(parse_rating), speed)
    }

    /// [`EloRule::elo`] of a rating already read from its tag (`None`: no plain number).
    fn elo_of(&self, rating: Option<i32>, speed: Speed) -> i32 {
        let Some(rating) = rating.filter(|_| self.tags) else { return DEFAULT_ELO };
        let d = (rating.clamp(self.min, self.max) - DEFAULT_ELO) as i64 * self.shrink as i64;
        let shrunk = (d + 128).div_euclid(256) as i32;
        (DEFAULT_ELO + shrunk + self.offset[speed as usize]).clamp(0, ELO_LIMIT)
    }

    /// `[White, Black]` Elo inputs from a game's `WhiteElo` and `BlackElo` tag values and its
    /// time control (see [`EloRule::elo`]).
    pub fn elos(&self, white: Option<&[u8]>, black: Option<&[u8]>, control: Option<(u64, u64)>) -> [i32; 2] {
        self.elos_of(&Ratings::from_tags(white, black, control))
    }

    /// [`EloRule::elos`] of a game's [`Ratings`].
    pub fn elos_of(&self, ratings: &Ratings) -> [i32; 2] {
        [self.elo_of(ratings.white, ratings.speed), self.elo_of(ratings.black, ratings.speed)]
    }
}

/// A game's ratings as its tags give them (`WhiteElo`, `BlackElo`, `TimeControl`): what the
/// level-2 network's rating inputs see (PGN coding 5 on;
/// [`crate::model::network::rating_inputs`]). A side whose tag is missing or not a plain
/// number is `None`; movetext has no ratings at all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ratings {
    /// White's rating (Elo points, `0..=99999`), if its tag is a plain number.
    pub white: Option<i32>,
    /// Black's rating, likewise.
    pub black: Option<i32>,
    /// The game's time-control class.
    pub speed: Speed,
}

impl Ratings {
    /// The ratings of a game whose `WhiteElo`, `BlackElo` tag values are `white`, `black` and
    /// whose time control is `control` (milliseconds, as `pgn::clock::time_control` reads it).
    pub fn from_tags(white: Option<&[u8]>, black: Option<&[u8]>, control: Option<(u64, u64)>) -> Ratings {
        Ratings { white: white.and_then(parse_rating), black: black.and_then(parse_rating), speed: Speed::of(control) }
    }

    /// Whether either side's rating is known.
    pub fn any(&self) -> bool {
        self.white.is_some() || self.black.is_some()
    }
}

/// A rating tag's value: 1 to 5 ASCII digits, nothing else (lichess writes `?` for an unknown
/// rating).
fn parse_rating(v: &[u8]) -> Option<i32> {
    if v.is_empty() || v.len() > 5 || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(v.iter().fold(0i32, |n, &b| n * 10 + (b - b'0') as i32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speed_classes_follow_lichess() {
        let s = |base: u64, inc: u64| Speed::of(Some((base * 1000, inc * 1000)));
        assert_eq!((s(15, 0), s(60, 0), s(120, 2), s(179, 0)), (Speed::Bullet, Speed::Bullet, Speed::Blitz, Speed::Bullet));
        assert_eq!((s(180, 0), s(180, 2), s(300, 3), s(420, 10)), (Speed::Blitz, Speed::Blitz, Speed::Blitz, Speed::Rapid));
        assert_eq!(
            (s(900, 0), s(900, 20), s(1800, 0), Speed::of(None)),
            (Speed::Rapid, Speed::Classical, Speed::Classical, Speed::Unknown)
        );
        assert_eq!(Speed::of(Some((u64::MAX, u64::MAX))), Speed::Classical, "no overflow");
    }

    #[test]
    fn the_rule_clamps_shrinks_and_offsets_numeric_tags_only() {
        let off = EloRule::default();
        assert_eq!(off.elo(Some(b"2400"), Speed::Bullet), DEFAULT_ELO, "versions 8 and 9: always 1500");
        let plain = EloRule { tags: true, ..EloRule::default() };
        assert_eq!(plain.elos(Some(b"2400"), Some(b"1100"), None), [2400, 1100]);
        for bad in [&b""[..], b"?", b"-", b"15OO", b"+1500", b"-200", b" 1500", b"1500.5", b"123456"] {
            assert_eq!(plain.elo(Some(bad), Speed::Blitz), DEFAULT_ELO, "{:?}", std::str::from_utf8(bad));
        }
        assert_eq!(plain.elo(None, Speed::Blitz), DEFAULT_ELO);
        assert_eq!(plain.elo(Some(b"99999"), Speed::Blitz), ELO_LIMIT);
        assert_eq!(plain.elo(Some(b"0"), Speed::Blitz), 0);
        let rule = EloRule { tags: true, min: 800, max: 3000, shrink: 128, offset: [0, -100, 0, 50, 0] };
        // 1500 + (2400 - 1500) / 2, and the bullet offset.
        assert_eq!(rule.elo(Some(b"2400"), Speed::Bullet), 1850);
        assert_eq!(rule.elo(Some(b"2400"), Speed::Rapid), 2000);
        // Clamped to 800..=3000 first: (800 - 1500) / 2 = -350; (3000 - 1500) / 2 = 750.
        assert_eq!(rule.elo(Some(b"500"), Speed::Blitz), 1150);
        assert_eq!(rule.elo(Some(b"3300"), Speed::Unknown), 2250);
        // Halves round up: 1501 -> 1500.5 -> 1501; 1499 -> 1499.5 -> 1500.
        assert_eq!((rule.elo(Some(b"1501"), Speed::Blitz), rule.elo(Some(b"1499"), Speed::Blitz)), (1501, 1500));
        // A missing tag is 1500, without the class's offset.
        assert_eq!(rule.elos(None, Some(b"?"), Some((60_000, 0))), [DEFAULT_ELO, DEFAULT_ELO]);
    }

    #[test]
    fn ratings_keep_numeric_tags_and_the_speed() {
        let r = Ratings::from_tags(Some(b"2038"), Some(b"?"), Some((60_000, 0)));
        assert_eq!(r, Ratings { white: Some(2038), black: None, speed: Speed::Bullet });
        assert!(r.any());
        let none = Ratings::from_tags(None, Some(b"15OO"), None);
        assert_eq!(none, Ratings::default());
        assert!(!none.any());
    }
}
