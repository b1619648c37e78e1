//! Models of tag names and values.
//!
//! Names: the list of the previous game predicts the next (lichess writes the same tags in the
//! same order every time), so a name usually costs a fraction of a bit.
//!
//! Values: `FEN`, `SetUp` and `Variant` are coded with the names, before the moves (they set
//! up the position); all others after the moves, so that what the moves say is known:
//! - `Result` and `PlyCount`: "equal to what the moves say".
//! - `WhiteElo`/`BlackElo`: the difference from the same player's rating in an earlier game of
//!   the block, in the context of this game's result for the player (a rating moves with
//!   results), else from the opponent's rating.
//! - everything else (player names, which share one list between `White` and `Black`, dates,
//!   time controls, openings, sites): the rank in a move-to-front list of earlier values of
//!   the tag (0 = same as last time), else a new value: an integer as a difference from the
//!   tag's last integer, or a string as the length of the prefix it shares with the tag's last
//!   value plus the rest byte by byte with the context-mixing [`crate::entropy::text::TextModel`].

use std::collections::HashMap;

use super::clock::time_control;
use super::game::Tag;
use super::rating::{DiffContext, DiffModel, parse_diff, write_diff};
use super::stream::{Metered, Stream};
use crate::chess::GameResult;
use crate::entropy::SymbolCoder;
use crate::entropy::binary::{Bit, NumberModel, SignedModel, StringModel};
use crate::error::Error;

/// Most values remembered per move-to-front list.
const HISTORY: usize = 4096;
/// String class of tag names (tag ids are the other classes).
const NAME_CLASS: u32 = 1 << 20;
/// String class of player names (`White` and `Black` share it).
const PLAYER_CLASS: u32 = NAME_CLASS + 1;

/// How a tag's value is modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Generic,
    /// `White` or `Black`: values share the players' list.
    Player,
    /// `WhiteElo` (0) or `BlackElo` (1).
    Elo(usize),
    /// Coded after the moves.
    PlyCount,
    /// Coded after the moves.
    Result,
    /// `FEN`, `SetUp`, `Variant`: coded before the moves.
    Setup,
    /// Coding 3: `WhiteRatingDiff` (0) or `BlackRatingDiff` (1), see [`super::rating`].
    Diff(usize),
    /// Coding 3: `ECO` or `Opening`, predicted from the opening moves.
    Opening,
    /// Coding 3: `UTCTime`, as a change from the block's last one.
    UtcTime,
}

/// What the moves say about a game, for coding its tags.
#[derive(Clone, Debug)]
pub struct GameInfo {
    /// Plies of the main line.
    pub plies: usize,
    /// The game's result.
    pub result: GameResult,
    /// Hashes of the positions after the first plies of the main line (coding 3), first ply
    /// first.
    pub openings: Vec<u64>,
}

fn kind_of(name: &[u8], facts: bool) -> Kind {
    match name {
        b"WhiteRatingDiff" if facts => Kind::Diff(0),
        b"BlackRatingDiff" if facts => Kind::Diff(1),
        b"ECO" | b"Opening" if facts => Kind::Opening,
        b"UTCTime" if facts => Kind::UtcTime,
        b"White" | b"Black" => Kind::Player,
        b"WhiteElo" => Kind::Elo(0),
        b"BlackElo" => Kind::Elo(1),
        b"PlyCount" => Kind::PlyCount,
        b"Result" => Kind::Result,
        b"FEN" | b"SetUp" | b"Variant" => Kind::Setup,
        _ => Kind::Generic,
    }
}

/// A canonical decimal integer (optional `-`, no leading zeros, at most 18 digits).
pub(crate) fn canonical_int(v: &[u8]) -> Option<i64> {
    let digits = v.strip_prefix(b"-").unwrap_or(v);
    if digits.is_empty()
        || digits.len() > 18
        || !digits.iter().all(u8::is_ascii_digit)
        || (digits.len() > 1 && digits[0] == b'0')
        || v == b"-0"
    {
        return None;
    }
    std::str::from_utf8(v).ok()?.parse().ok()
}

/// A move-to-front list of values.
#[derive(Debug, Default)]
struct Mtf {
    items: Vec<Vec<u8>>,
}

impl Mtf {
    fn rank(&self, v: &[u8]) -> Option<usize> {
        self.items.iter().position(|x| x == v)
    }

    /// Moves `v` (at `rank`, or new) to the front.
    fn touch(&mut self, v: &[u8], rank: Option<usize>) {
        let item = match rank {
            Some(r) => self.items.remove(r),
            None => {
                if self.items.len() == HISTORY {
                    self.items.pop();
                }
                v.to_vec()
            }
        };
        self.items.insert(0, item);
    }
}

/// The models of a tag name's values (shared by the names beyond [`MAX_TAG_STATES`] in
/// coding 1).
#[derive(Debug, Default)]
struct TagState {
    history: Mtf,
    rank: NumberModel,
    numeric: Bit,
    delta: SignedModel,
    last_numeric: Option<i64>,
    prefix: NumberModel,
    hit: Bit,
}

/// Most tag names of a block with value models of their own in coding 1
/// ([`crate::container::Coding::Notations`]); the others share the last. Real files have a few
/// dozen names; a crafted block with hundreds of thousands needs only their names' bytes.
pub const MAX_TAG_STATES: usize = 256;

/// The tag models of one block.
#[derive(Debug)]
pub struct TagModel {
    ids: HashMap<Vec<u8>, usize>,
    names: Vec<Vec<u8>>,
    /// Per name id: what its values are.
    kinds: Vec<Kind>,
    /// Value models: one per name id below `max_states`, the last shared by the rest.
    states: Vec<TagState>,
    max_states: usize,
    prev_names: Vec<usize>,
    more: [Bit; 3],
    name_hit: Bit,
    name_id: NumberModel,
    players: Mtf,
    elo: HashMap<Vec<u8>, i64>,
    elo_delta: [SignedModel; 6],
    last_elo: Option<i64>,
    strings: StringModel,
    /// Coding 3: what the game says ([`Facts`]).
    facts: Option<Box<Facts>>,
    /// Coding 5: every value is coded with the names, without the moves
    /// ([`TagModel::code_header_values`]).
    stream: bool,
    /// Coding 6: as coding 5, except `ECO` and `Opening`, coded after the main line
    /// ([`TagModel::code_openings`]).
    openings_after: bool,
    /// Bits coded per tag id (values) and, last, for names and the tag count (encoder only).
    costs: Vec<f64>,
}

impl TagModel {
    /// Fresh models; value models for at most [`MAX_TAG_STATES`] names if `bounded` (coding
    /// 1), else one per name (coding 0).
    pub fn new(bounded: bool) -> Self {
        TagModel {
            ids: HashMap::new(),
            names: Vec::new(),
            kinds: Vec::new(),
            states: Vec::new(),
            max_states: if bounded { MAX_TAG_STATES } else { usize::MAX },
            prev_names: Vec::new(),
            more: Default::default(),
            name_hit: Bit::default(),
            name_id: NumberModel::new(),
            players: Mtf::default(),
            elo: HashMap::new(),
            elo_delta: Default::default(),
            last_elo: None,
            strings: StringModel::new(),
            facts: None,
            stream: false,
            openings_after: false,
            costs: Vec::new(),
        }
    }

    /// Fresh models of coding 3 ([`crate::container::Coding::PgnFacts`]): value models for at
    /// most [`MAX_TAG_STATES`] names, and the models of what the game says (`Facts`).
    pub(crate) fn with_facts() -> Self {
        TagModel { facts: Some(Box::default()), ..Self::new(true) }
    }

    /// Fresh models of coding 5 ([`crate::container::Coding::PgnTagStream`]): those of coding
    /// 3, with every value coded before the moves ([`TagModel::code_header_values`]).
    pub(crate) fn with_tag_stream() -> Self {
        TagModel { stream: true, ..Self::with_facts() }
    }

    /// Fresh models of coding 6 ([`crate::container::Coding::PgnPredicted`]): those of coding
    /// 5, with `ECO` and `Opening` left out of the head and coded after the main line
    /// ([`TagModel::code_openings`]).
    pub(crate) fn with_openings_after() -> Self {
        TagModel { openings_after: true, ..Self::with_tag_stream() }
    }

    /// Whether a tag of this name is coded after the moves, not with the head (coding 6:
    /// `ECO`, `Opening`, `UTCTime`).
    pub fn after_moves(&self, name: &[u8]) -> bool {
        self.openings_after && matches!(kind_of(name, true), Kind::Opening | Kind::UtcTime)
    }

    /// Coding 6: codes the values of the tags [`TagModel::after_moves`] names, knowing the
    /// main line's `plies` and `openings`, the hashes of the positions after its first plies
    /// (first ply first). `ECO` and `Opening`: the values last seen with the game's earlier
    /// opening tag (`Opening` given `ECO`, as coding 5), then those last seen with the deepest
    /// positions this game shares with earlier games of the block (as coding 4), a hit bit
    /// each; a miss of an ECO code as a change from the nearest such value; else the generic
    /// model. `UTCTime`: as a change from the block's last one, less the games' durations
    /// ([`game_duration`]).
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub fn code_openings<C: SymbolCoder>(
        &mut self,
        c: &mut Metered<'_, C>,
        tags: &mut [Tag],
        openings: &[u64],
        plies: usize,
    ) -> Result<(), Error> {
        let control = tags.iter().find(|t| t.name == b"TimeControl").and_then(|t| time_control(&t.value));
        let duration = game_duration(control, plies);
        for i in 0..tags.len() {
            if !self.after_moves(&tags[i].name) {
                continue;
            }
            let id = self.id(&tags[i].name);
            let before = c.bits[Stream::Tags as usize];
            if self.kinds[id] == Kind::UtcTime {
                let mut v = std::mem::take(&mut tags[i].value);
                self.code_utc_time_after(c, id, &mut v, duration)?;
                tags[i].value = v;
            } else {
                self.code_opening_after(c, id, i, tags, openings)?;
            }
            self.costs[id] += c.bits[Stream::Tags as usize] - before;
        }
        if let Some(f) = &mut self.facts {
            f.last_duration = duration;
        }
        Ok(())
    }

    /// Coding 6: `UTCTime` written `HH:MM:SS`, the game's `duration` (seconds, estimated)
    /// known: the change from the block's last one is predicted as minus this game's duration
    /// when the block's last change went back in time (a player's export, newest first), else
    /// as the last game's duration (games in time order), and the rest is coded; another
    /// spelling goes through the generic model.
    fn code_utc_time_after<C: SymbolCoder>(
        &mut self,
        c: &mut Metered<'_, C>,
        id: usize,
        v: &mut Vec<u8>,
        duration: i64,
    ) -> Result<(), Error> {
        let decoding = c.decoding();
        let t = if decoding { None } else { parse_time(v) };
        let f = self.facts.as_mut().expect("coding 3");
        if !f.time_form.code_value(c, t.is_some())? {
            return self.code_value(c, id, v);
        }
        let base = f.last_time.unwrap_or(0);
        let backwards = f.last_delta.is_some_and(|d| d < 0);
        let predicted = match f.last_delta {
            None => 0,
            Some(_) if backwards => -duration,
            Some(_) => f.last_duration,
        };
        let mut delta = (t.unwrap_or(0) - base).rem_euclid(DAY);
        if delta > DAY / 2 {
            delta -= DAY;
        }
        let rest = f.time_rest[backwards as usize].code_value(c, delta.wrapping_sub(predicted))?;
        let delta = predicted.wrapping_add(rest);
        let t = base.wrapping_add(delta).rem_euclid(DAY);
        if decoding {
            *v = format!("{:02}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60).into_bytes();
            c.spend(v.len())?;
        }
        f.last_time = Some(t);
        f.last_delta = Some(delta);
        Ok(())
    }

    /// Coding 6: one `ECO` or `Opening` value (see [`TagModel::code_openings`]).
    fn code_opening_after<C: SymbolCoder>(
        &mut self,
        c: &mut Metered<'_, C>,
        id: usize,
        i: usize,
        tags: &mut [Tag],
        openings: &[u64],
    ) -> Result<(), Error> {
        let decoding = c.decoding();
        let key = tags[..i].iter().rev().find(|t| self.after_moves(&t.name)).map(|t| pool_key(&t.name, Some(&t.value)));
        let f = self.facts.as_mut().expect("coding 3");
        // Candidates with their hit contexts: keyed ones by rank, then positions by depth.
        let mut found: Vec<(usize, Vec<u8>)> = Vec::new();
        if let Some(k) = &key {
            for (r, v) in f.keyed.get(&(id, k.clone())).into_iter().flatten().enumerate() {
                found.push((r, v.clone()));
            }
        }
        for (ply, h) in openings.iter().enumerate().rev() {
            if found.len() >= AFTER_CANDIDATES {
                break;
            }
            if let Some(value) = f.openings.get(&(id, *h))
                && !found.iter().any(|(_, x)| x == value)
            {
                let depth = (64 - (ply as u64 + 1).leading_zeros() as usize).min(OPENING_CONTEXTS - 1);
                found.push((OPENING_CANDIDATES + depth, value.clone()));
            }
        }
        // The value nearest this game's opening: the deepest shared position's, else the last.
        let slot = self.slot(id);
        let near = found.iter().find(|(ctx, _)| *ctx >= OPENING_CANDIDATES).map(|(_, v)| v.clone());
        let near = near.or_else(|| self.states[slot].history.items.first().cloned());
        let f = self.facts.as_mut().expect("coding 3");
        let mut v = std::mem::take(&mut tags[i].value);
        let mut hit = false;
        for (r, (ctx, candidate)) in found.into_iter().enumerate() {
            let r = r.min(AFTER_CANDIDATES - 1);
            hit = f.after_hit[r][ctx].code_value(c, v == candidate)?;
            if hit {
                if decoding {
                    c.spend(candidate.len())?;
                }
                v = candidate;
                break;
            }
        }
        // A miss: an ECO code near the nearest value's, else the generic model.
        let eco = (!hit && self.names[id] == b"ECO").then(|| near.as_deref().and_then(parse_eco)).flatten();
        let shaped = match eco {
            Some(_) => self.facts.as_mut().expect("coding 3").eco_form.code_value(c, decoding || parse_eco(&v).is_some())?,
            None => false,
        };
        if let (true, Some((near_letter, near_number))) = (shaped, eco) {
            let f = self.facts.as_mut().expect("coding 3");
            let (letter, number) = if decoding { (0, 0) } else { parse_eco(&v).expect("checked") };
            let same = f.eco_same_letter.code_value(c, letter == near_letter)?;
            let (letter, number) = if same {
                let d = f.eco_delta.code_value(c, number as i64 - near_number as i64)?;
                (near_letter, u8::try_from(near_number as i64 + d).ok().filter(|n| *n < 100))
            } else {
                let l = f.eco_letter.code_value(c, letter as u64)?;
                let n = f.eco_number.code_value(c, number as u64)?;
                (u8::try_from(l).ok().filter(|l| *l < 5 && *l != near_letter).unwrap_or(u8::MAX), u8::try_from(n).ok().filter(|n| *n < 100))
            };
            let number = number.filter(|_| letter < 5).ok_or_else(|| Error::Corrupt("ECO code out of range".into()))?;
            if decoding {
                v = format!("{}{number:02}", (b'A' + letter) as char).into_bytes();
                c.spend(3)?;
            }
        }
        if hit || shaped {
            let history = &mut self.states[slot].history;
            let rank = history.rank(&v);
            history.touch(&v, rank);
        } else {
            self.code_value(c, id, &mut v)?;
        }
        let f = self.facts.as_mut().expect("coding 3");
        for h in openings {
            f.openings.insert((id, *h), v.clone());
        }
        if let Some(k) = key {
            let list = f.keyed.entry((id, k)).or_default();
            list.retain(|x| *x != v);
            list.insert(0, v.clone());
            list.truncate(OPENING_CANDIDATES);
        }
        tags[i].value = v;
        Ok(())
    }

    /// Coding 5: codes the values that [`TagModel::code_tags`] left out, without the moves:
    /// `Result` first (so that ratings and rating changes have the result as context), then the
    /// others in order; `PlyCount` as a generic value, `ECO` and `Opening` from the values last
    /// seen with the game's other opening tag. Returns the result the first `Result` tag says
    /// ([`GameResult::Unknown`] without one, or for another spelling).
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub fn code_header_values<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, tags: &mut [Tag]) -> Result<GameResult, Error> {
        debug_assert!(self.stream, "coding 5 only");
        let mut result = None;
        for tag in tags.iter_mut() {
            let id = self.id(&tag.name);
            if self.kinds[id] != Kind::Result {
                continue;
            }
            let before = c.bits[Stream::Tags as usize];
            // One of the four tokens, else any value.
            let known = GameResult::ALL.iter().position(|r| r.token() == tag.value).unwrap_or(GameResult::ALL.len());
            let f = self.facts.as_mut().expect("coding 3");
            let sym = f.result.code_value(c, known as u64)? as usize;
            match GameResult::ALL.get(sym) {
                Some(r) if c.decoding() => {
                    c.spend(r.token().len())?;
                    tag.value = r.token().to_vec();
                }
                Some(_) => {}
                None if sym == GameResult::ALL.len() => self.code_value(c, id, &mut tag.value)?,
                None => return Err(Error::Corrupt("unknown Result tag symbol".into())),
            }
            self.costs[id] += c.bits[Stream::Tags as usize] - before;
            result.get_or_insert_with(|| GameResult::from_token(&tag.value).unwrap_or(GameResult::Unknown));
        }
        let result = result.unwrap_or(GameResult::Unknown);
        self.code_values(c, tags, &GameInfo { plies: 0, result, openings: Vec::new() })?;
        Ok(result)
    }

    /// Coding 5: `ECO` or `Opening` from the values last seen with the value of the game's
    /// opening tag before it (`Opening` given `ECO`): a hit bit per candidate, most recent
    /// first, else the generic model.
    fn code_opening_keyed<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, id: usize, i: usize, tags: &mut [Tag]) -> Result<(), Error> {
        let decoding = c.decoding();
        let key = tags[..i]
            .iter()
            .rev()
            .find(|t| self.ids.get(&t.name).is_some_and(|&j| self.kinds[j] == Kind::Opening))
            .map(|t| pool_key(&t.name, Some(&t.value)));
        let mut v = std::mem::take(&mut tags[i].value);
        let mut hit = false;
        if let Some(k) = &key {
            let f = self.facts.as_mut().expect("coding 3");
            let list = f.keyed.get(&(id, k.clone())).cloned().unwrap_or_default();
            for (r, candidate) in list.into_iter().enumerate() {
                hit = f.keyed_hit[r].code_value(c, v == candidate)?;
                if hit {
                    if decoding {
                        c.spend(candidate.len())?;
                    }
                    v = candidate;
                    break;
                }
            }
        }
        if hit {
            let history = &mut self.states[id.min(self.max_states - 1)].history;
            let rank = history.rank(&v);
            history.touch(&v, rank);
        } else {
            self.code_value(c, id, &mut v)?;
        }
        if let Some(k) = key {
            let f = self.facts.as_mut().expect("coding 3");
            let list = f.keyed.entry((id, k)).or_default();
            list.retain(|x| *x != v);
            list.insert(0, v.clone());
            list.truncate(OPENING_CANDIDATES);
        }
        tags[i].value = v;
        Ok(())
    }

    /// Coding 5: `PlyCount` as a number (in the context of the game's result), else the
    /// generic model.
    fn code_plies<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, id: usize, v: &mut Vec<u8>, result: GameResult) -> Result<(), Error> {
        let n = if c.decoding() { None } else { canonical_int(v).and_then(|n| u32::try_from(n).ok()) };
        let f = self.facts.as_mut().expect("coding 3");
        // 0: another value; else the number plus one.
        let sym = f.plies[result as usize].code_value(c, n.map_or(0, |n| n as u64 + 1))?;
        if sym == 0 {
            return self.code_value(c, id, v);
        }
        if sym > u32::MAX as u64 + 1 {
            return Err(Error::Corrupt("PlyCount out of range".into()));
        }
        if c.decoding() {
            *v = (sym - 1).to_string().into_bytes();
            c.spend(v.len())?;
        }
        Ok(())
    }

    fn id(&mut self, name: &[u8]) -> usize {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len();
        self.ids.insert(name.to_vec(), id);
        self.names.push(name.to_vec());
        self.kinds.push(kind_of(name, self.facts.is_some()));
        if self.states.len() < self.max_states {
            self.states.push(TagState::default());
        }
        self.costs.push(0.0);
        id
    }

    /// The value models of name `id`.
    fn slot(&self, id: usize) -> usize {
        id.min(self.max_states - 1)
    }

    /// Bits spent on each tag's values so far (encoder only), by tag name.
    pub fn costs(&self) -> impl Iterator<Item = (&[u8], f64)> {
        self.names.iter().map(|n| &n[..]).zip(self.costs.iter().copied())
    }

    /// Codes the tag names and the values of the tags that set up the position (the others:
    /// [`TagModel::code_values`]). When decoding, `tags` is filled (other values empty).
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub fn code_tags<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, tags: &mut Vec<Tag>) -> Result<(), Error> {
        let decoding = c.decoding();
        let mut names = Vec::new();
        for i in 0.. {
            let ctx = (i >= self.prev_names.len()) as usize + (i > self.prev_names.len()) as usize;
            if !self.more[ctx].code_value(c, i < tags.len())? {
                break;
            }
            if decoding {
                c.spend(5)?;
                tags.push(Tag::default());
            }
            let predicted = self.prev_names.get(i).copied();
            let known = if decoding { None } else { self.ids.get(&tags[i].name).copied() };
            let hit = match predicted {
                Some(p) => self.name_hit.code_value(c, known == Some(p))?,
                None => false,
            };
            let id = if hit {
                predicted.expect("hit implies a prediction")
            } else {
                let sym = self.name_id.code_value(c, known.map_or(0, |k| k as u64 + 1))?;
                if sym == 0 {
                    let mut name = std::mem::take(&mut tags[i].name);
                    let budget = c.budget();
                    self.strings.code(c, NAME_CLASS, &mut name, budget)?;
                    if decoding {
                        c.spend(name.len())?;
                    }
                    if decoding && self.ids.contains_key(&name) {
                        return Err(Error::Corrupt("known tag name coded as new".into()));
                    }
                    tags[i].name = name;
                    self.id(&tags[i].name.clone())
                } else {
                    let id = (sym - 1) as usize;
                    if id >= self.names.len() {
                        return Err(Error::Corrupt("unknown tag name id".into()));
                    }
                    id
                }
            };
            if decoding {
                tags[i].name = self.names[id].clone();
            }
            names.push(id);
            if self.kinds[id] == Kind::Setup {
                let before = c.bits[Stream::Tags as usize];
                let mut v = std::mem::take(&mut tags[i].value);
                self.code_value(c, id, &mut v)?;
                tags[i].value = v;
                self.costs[id] += c.bits[Stream::Tags as usize] - before;
            }
        }
        self.prev_names = names;
        Ok(())
    }

    /// Codes the values [`TagModel::code_tags`] left out, knowing what the moves say.
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub fn code_values<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, tags: &mut [Tag], info: &GameInfo) -> Result<(), Error> {
        if let Some(f) = &mut self.facts {
            f.game = GameFacts::default();
        }
        for i in 0..tags.len() {
            let id = self.id(&tags[i].name);
            let before = c.bits[Stream::Tags as usize];
            let kind = self.kinds[id];
            let predicted: Vec<u8> = match kind {
                // Coding 5 codes `PlyCount` without the moves.
                Kind::PlyCount if self.stream => {
                    self.code_plies(c, id, &mut tags[i].value, info.result)?;
                    self.costs[id] += c.bits[Stream::Tags as usize] - before;
                    continue;
                }
                Kind::Setup => continue,
                // Coding 5: `Result` came first, the rest without the moves.
                Kind::Result if self.stream => continue,
                // Coding 6: after the moves ([`TagModel::code_openings`]).
                Kind::Opening if self.openings_after => continue,
                Kind::Opening if self.stream => {
                    self.code_opening_keyed(c, id, i, tags)?;
                    self.costs[id] += c.bits[Stream::Tags as usize] - before;
                    continue;
                }
                Kind::Diff(color) => {
                    self.code_diff(c, id, color, i, tags, info.result)?;
                    self.costs[id] += c.bits[Stream::Tags as usize] - before;
                    continue;
                }
                // Coding 6: after the moves ([`TagModel::code_openings`]).
                Kind::UtcTime if self.openings_after => continue,
                Kind::UtcTime => {
                    self.code_utc_time(c, id, &mut tags[i].value)?;
                    self.costs[id] += c.bits[Stream::Tags as usize] - before;
                    continue;
                }
                Kind::Opening => {
                    self.code_opening(c, id, &mut tags[i].value, &info.openings)?;
                    self.costs[id] += c.bits[Stream::Tags as usize] - before;
                    continue;
                }
                Kind::Elo(color) => {
                    self.code_elo(c, id, color, i, tags, info.result)?;
                    self.costs[id] += c.bits[Stream::Tags as usize] - before;
                    continue;
                }
                Kind::Player | Kind::Generic => {
                    let mut v = std::mem::take(&mut tags[i].value);
                    self.code_value(c, id, &mut v)?;
                    tags[i].value = v;
                    self.costs[id] += c.bits[Stream::Tags as usize] - before;
                    continue;
                }
                Kind::PlyCount => info.plies.to_string().into_bytes(),
                Kind::Result => info.result.token().to_vec(),
            };
            let slot = self.slot(id);
            let hit = self.states[slot].hit.code_value(c, tags[i].value == predicted)?;
            if hit {
                tags[i].value = predicted;
            } else {
                let mut v = std::mem::take(&mut tags[i].value);
                self.code_value(c, id, &mut v)?;
                tags[i].value = v;
            }
            self.costs[id] += c.bits[Stream::Tags as usize] - before;
        }
        Ok(())
    }

    /// The generic value model (see the module documentation).
    fn code_value<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, id: usize, v: &mut Vec<u8>) -> Result<(), Error> {
        let decoding = c.decoding();
        let shared = self.kinds[id] == Kind::Player;
        let slot = self.slot(id);
        let class = if shared { PLAYER_CLASS } else { slot as u32 };
        let history = if shared { &mut self.players } else { &mut self.states[slot].history };
        let rank = if decoding { None } else { history.rank(v) };
        let st = &mut self.states[slot];
        let sym = st.rank.code_value(c, rank.map_or(0, |r| r as u64 + 1))?;
        let history = if shared { &mut self.players } else { &mut st.history };
        if sym > 0 {
            let r = (sym - 1) as usize;
            let item = history.items.get(r).ok_or_else(|| Error::Corrupt("tag value rank out of range".into()))?;
            if decoding {
                c.spend(item.len())?;
                *v = item.clone();
            }
            history.touch(v, Some(r));
            return Ok(());
        }
        let int = if decoding { None } else { canonical_int(v) };
        if st.numeric.code_value(c, int.is_some())? {
            let base = st.last_numeric.unwrap_or(0);
            let delta = st.delta.code_value(c, int.unwrap_or(0).wrapping_sub(base))?;
            let n = base.wrapping_add(delta);
            if decoding {
                *v = n.to_string().into_bytes();
            }
            st.last_numeric = Some(n);
        } else {
            let last: &[u8] = history.items.first().map_or(&[], |x| &x[..]);
            let common = if decoding { 0 } else { v.iter().zip(last).take_while(|(a, b)| a == b).count() };
            let common = st.prefix.code_value(c, common as u64)? as usize;
            if common > last.len() {
                return Err(Error::Corrupt("tag value prefix too long".into()));
            }
            let prefix = last[..common].to_vec();
            let mut rest = if decoding { Vec::new() } else { v[common..].to_vec() };
            let budget = c.budget();
            self.strings.code(c, class, &mut rest, budget)?;
            if decoding {
                c.spend(prefix.len() + rest.len())?;
                *v = prefix;
                v.extend_from_slice(&rest);
            }
        }
        let history = if shared { &mut self.players } else { &mut self.states[slot].history };
        let rank = if decoding { history.rank(v) } else { None };
        history.touch(v, rank);
        Ok(())
    }

    /// A rating: the difference from the player's last rating in the block (in the context of
    /// the player's result), else from the opponent's rating in this game, else from the last
    /// rating seen; a value that is not a plain integer goes through the generic model.
    fn code_elo<C: SymbolCoder>(
        &mut self,
        c: &mut Metered<'_, C>,
        id: usize,
        color: usize,
        i: usize,
        tags: &mut [Tag],
        result: GameResult,
    ) -> Result<(), Error> {
        let decoding = c.decoding();
        let find = |name: &[u8]| tags[..i].iter().find(|t| t.name == name).map(|t| t.value.clone());
        let player = find([&b"White"[..], b"Black"][color]);
        let opponent = find([&b"BlackElo"[..], b"WhiteElo"][color]).and_then(|v| canonical_int(&v));
        let int = if decoding { None } else { canonical_int(&tags[i].value) };
        let slot = self.slot(id);
        if !self.states[slot].numeric.code_value(c, int.is_some())? {
            let mut v = std::mem::take(&mut tags[i].value);
            self.code_value(c, id, &mut v)?;
            tags[i].value = v;
            return Ok(());
        }
        // The player's result: 0 win, 1 loss, 2 draw, 3 unknown.
        let outcome = match (result, color) {
            (GameResult::WhiteWins, 0) | (GameResult::BlackWins, 1) => 0,
            (GameResult::WhiteWins, _) | (GameResult::BlackWins, _) => 1,
            (GameResult::Draw, _) => 2,
            (GameResult::Unknown, _) => 3,
        };
        // Coding 3: ratings per player and pool (the `Event`), and "the last rating plus its
        // change" (games in time order) checked first.
        let player = match (&self.facts, player) {
            (Some(_), Some(p)) => Some(pool_key(&p, tags[..i].iter().find(|t| t.name == b"Event").map(|t| &t.value[..]))),
            (_, p) => p,
        };
        let known = player.as_ref().and_then(|p| self.elo.get(p).copied());
        if let Some(f) = &mut self.facts {
            f.game.before[color] = known;
            f.game.keys[color] = player.clone();
            let forward = known.zip(player.as_ref().and_then(|p| f.last_diff.get(p).copied())).map(|(e, d)| e.wrapping_add(d));
            if let Some(fw) = forward
                && f.elo_forward.code_value(c, int == Some(fw))?
            {
                if decoding {
                    tags[i].value = fw.to_string().into_bytes();
                }
                f.game.elos[color] = Some(fw);
                if let Some(p) = player {
                    self.elo.insert(p, fw);
                }
                self.last_elo = Some(fw);
                return Ok(());
            }
        }
        let (base, ctx) = match (known, opponent, self.last_elo) {
            (Some(e), _, _) => (e, outcome),
            (None, Some(o), _) => (o, 4),
            (None, None, l) => (l.unwrap_or(1500), 5),
        };
        let delta = self.elo_delta[ctx].code_value(c, int.unwrap_or(0).wrapping_sub(base))?;
        let elo = base.wrapping_add(delta);
        if decoding {
            tags[i].value = elo.to_string().into_bytes();
        }
        if let Some(f) = &mut self.facts {
            f.game.elos[color] = Some(elo);
        }
        if let Some(p) = player {
            self.elo.insert(p, elo);
        }
        self.last_elo = Some(elo);
        Ok(())
    }

    /// Coding 3: a rating change ([`super::rating`]); a value not as lichess writes it goes
    /// through the generic model.
    fn code_diff<C: SymbolCoder>(
        &mut self,
        c: &mut Metered<'_, C>,
        id: usize,
        color: usize,
        i: usize,
        tags: &mut [Tag],
        result: GameResult,
    ) -> Result<(), Error> {
        let decoding = c.decoding();
        let value = if decoding { None } else { parse_diff(&tags[i].value) };
        let f = self.facts.as_mut().expect("coding 3");
        if !f.diff_form.code_value(c, value.is_some())? {
            let mut v = std::mem::take(&mut tags[i].value);
            self.code_value(c, id, &mut v)?;
            tags[i].value = v;
            return Ok(());
        }
        let g = &f.game;
        let x = DiffContext {
            player: g.keys[color].clone(),
            ratings: g.elos[color].zip(g.elos[1 - color]),
            before: g.before[color],
            opponent_diff: g.diffs[1 - color],
            result,
            color,
        };
        let d = f.diffs.code(c, &x, value.unwrap_or(0))?;
        if decoding {
            tags[i].value = write_diff(d);
        }
        f.game.diffs[color] = Some(d);
        if let Some(p) = x.player {
            f.last_diff.insert(p, d);
        }
        Ok(())
    }

    /// Coding 3: `UTCTime` written `HH:MM:SS`: the change in seconds from the block's last one
    /// (the nearer way round the day); another spelling goes through the generic model.
    fn code_utc_time<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, id: usize, v: &mut Vec<u8>) -> Result<(), Error> {
        let decoding = c.decoding();
        let t = if decoding { None } else { parse_time(v) };
        let f = self.facts.as_mut().expect("coding 3");
        if !f.time_form.code_value(c, t.is_some())? {
            return self.code_value(c, id, v);
        }
        let base = f.last_time.unwrap_or(0);
        let mut delta = (t.unwrap_or(0) - base).rem_euclid(DAY);
        if delta > DAY / 2 {
            delta -= DAY;
        }
        let delta = f.time_delta.code_value(c, delta)?;
        let t = base.wrapping_add(delta).rem_euclid(DAY);
        if decoding {
            *v = format!("{:02}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60).into_bytes();
        }
        f.last_time = Some(t);
        Ok(())
    }

    /// Coding 3: `ECO` or `Opening`: the values last seen with the deepest opening positions
    /// this game shares with earlier games of the block, deepest first (a hit bit each, in the
    /// context of its rank and depth), else the generic model.
    fn code_opening<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, id: usize, v: &mut Vec<u8>, openings: &[u64]) -> Result<(), Error> {
        let f = self.facts.as_mut().expect("coding 3");
        // Distinct values of the shared positions, deepest first.
        let mut found: Vec<(usize, &Vec<u8>)> = Vec::new();
        for (ply, h) in openings.iter().enumerate().rev() {
            if let Some(value) = f.openings.get(&(id, *h))
                && found.len() < OPENING_CANDIDATES
                && !found.iter().any(|(_, x)| *x == value)
            {
                found.push((ply, value));
            }
        }
        let mut hit = false;
        for (r, (ply, value)) in found.into_iter().enumerate() {
            let ctx = (64 - (ply as u64 + 1).leading_zeros() as usize).min(OPENING_CONTEXTS - 1);
            hit = f.opening_hit[r * OPENING_CONTEXTS + ctx].code_value(c, *v == *value)?;
            if hit {
                *v = value.clone();
                break;
            }
        }
        if !hit {
            self.code_value(c, id, v)?;
        } else {
            let slot = self.slot(id);
            let history = &mut self.states[slot].history;
            let rank = history.rank(v);
            history.touch(v, rank);
        }
        let f = self.facts.as_mut().expect("coding 3");
        for h in openings {
            f.openings.insert((id, *h), v.clone());
        }
        Ok(())
    }
}

/// Seconds of the day of a time written `HH:MM:SS`.
fn parse_time(v: &[u8]) -> Option<i64> {
    let two = |b: &[u8]| (b.len() == 2 && b.iter().all(u8::is_ascii_digit)).then(|| ((b[0] - b'0') * 10 + (b[1] - b'0')) as i64);
    if v.len() != 8 || v[2] != b':' || v[5] != b':' {
        return None;
    }
    let (h, m, s) = (two(&v[..2])?, two(&v[3..5])?, two(&v[6..])?);
    (h < 24 && m < 60 && s < 60).then_some((h * 60 + m) * 60 + s)
}

/// Seconds in a day.
const DAY: i64 = 86_400;

/// Contexts of the opening hit bit: the depth of the match, by bit length.
const OPENING_CONTEXTS: usize = 7;
/// Candidates of an opening value tried in turn: the distinct values of the deepest shared
/// positions.
const OPENING_CANDIDATES: usize = 3;

/// Coding 6: an estimate of a game's duration in seconds from its time control (base and
/// increment in ms, [`time_control`]) and its main line's `plies`: each player uses at most the
/// base time plus the increments, and about a sixtieth of the base plus the increment per move
/// (0 without a time control).
pub fn game_duration(control: Option<(u64, u64)>, plies: usize) -> i64 {
    let Some((base, inc)) = control else { return 0 };
    let plies = plies as u64;
    let most = base.saturating_mul(2).saturating_add(inc.saturating_mul(plies));
    let usual = plies.saturating_mul(base / 60 + inc);
    (most.min(usual) / 1000).min(DAY as u64) as i64
}

/// An ECO code `A00` to `E99` as its letter (0 to 4) and number.
fn parse_eco(v: &[u8]) -> Option<(u8, u8)> {
    match v {
        &[l @ b'A'..=b'E', t @ b'0'..=b'9', u @ b'0'..=b'9'] => Some((l - b'A', (t - b'0') * 10 + (u - b'0'))),
        _ => None,
    }
}

/// Candidates of an opening value tried in turn in coding 6.
const AFTER_CANDIDATES: usize = 4;

/// The key of a player's ratings in coding 3: the name and the rating pool (`Event`).
fn pool_key(player: &[u8], event: Option<&[u8]>) -> Vec<u8> {
    let mut k = player.to_vec();
    k.push(0);
    k.extend_from_slice(event.unwrap_or_default());
    k
}

/// What coding 3 knows of the current game's ratings.
#[derive(Debug, Default)]
struct GameFacts {
    /// Per color: the rating pool key.
    keys: [Option<Vec<u8>>; 2],
    /// Per color: this game's rating.
    elos: [Option<i64>; 2],
    /// Per color: the player's rating in the game before in the block.
    before: [Option<i64>; 2],
    /// Per color: this game's rating change.
    diffs: [Option<i64>; 2],
}

/// The models of coding 3 for tags that the game's moves and ratings predict.
#[derive(Debug, Default)]
struct Facts {
    game: GameFacts,
    diffs: DiffModel,
    diff_form: Bit,
    /// Per player key: the rating change of the player's last game.
    last_diff: HashMap<Vec<u8>, i64>,
    elo_forward: Bit,
    /// (tag id, position hash) to the tag's value last seen with that position.
    openings: HashMap<(usize, u64), Vec<u8>>,
    opening_hit: [Bit; OPENING_CONTEXTS * OPENING_CANDIDATES],
    time_form: Bit,
    time_delta: SignedModel,
    /// Coding 5: (tag id, the game's other opening tag's name and value) to the values last
    /// seen with it, most recent first.
    keyed: HashMap<(usize, Vec<u8>), Vec<Vec<u8>>>,
    keyed_hit: [Bit; OPENING_CANDIDATES],
    /// Coding 6: hit bits of the candidates of `ECO` and `Opening` after the moves, per rank
    /// and context (a keyed candidate's rank, or [`OPENING_CANDIDATES`] plus a position's depth).
    after_hit: [[Bit; OPENING_CANDIDATES + OPENING_CONTEXTS]; AFTER_CANDIDATES],
    /// Coding 6: the block's last `UTCTime` change and the last game's estimated duration
    /// (seconds), and the `UTCTime` change less its prediction, after a change forward (0)
    /// or back (1).
    last_delta: Option<i64>,
    last_duration: i64,
    time_rest: [SignedModel; 2],
    /// Coding 6: a missed `ECO` value is an ECO code (when the nearest value is one).
    eco_form: Bit,
    /// Coding 6: a missed ECO code has the nearest one's letter.
    eco_same_letter: Bit,
    /// Coding 6: a missed ECO code's number minus the nearest one's (same letter).
    eco_delta: SignedModel,
    /// Coding 6: a missed ECO code's letter (0 to 4) and number, another letter.
    eco_letter: NumberModel,
    eco_number: NumberModel,
    /// Coding 5: a `Result` tag's value, as its index in [`GameResult::ALL`] (4: another value).
    result: NumberModel,
    /// Coding 5: `PlyCount` plus one (0: not a number), per [`GameResult`] of the game.
    plies: [NumberModel; 4],
    /// The block's last `UTCTime`, in seconds of the day.
    last_time: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_canonical_only() {
        assert_eq!(canonical_int(b"1500"), Some(1500));
        assert_eq!(canonical_int(b"-7"), Some(-7));
        assert_eq!(canonical_int(b"0"), Some(0));
        for s in [&b""[..], b"-", b"-0", b"01", b"+5", b"1.5", b"?", b"1234567890123456789"] {
            assert_eq!(canonical_int(s), None);
        }
    }
}
