//! The probability model: for each ply, a frequency table over the legal moves; for each game,
//! when it ends and its result.
//!
//! A [`Model`] is one set of tuned parameters (one file in `models/`, one per level); a
//! [`Predictor`] applies it to the games of one block, with per-block state (the online book).

pub mod book;
pub mod features;
pub mod game;
pub mod network;
pub mod params;
pub mod predictor;
pub mod softmax;
pub mod trace;
pub mod transformer;

use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

pub use game::GameState;
pub use predictor::Predictor;

use crate::engine::SearchConfig;
use crate::error::Error;
use features::{end_layout, move_layout, result_layout};
use network::Network;
use params::{ParamFile, fnv1a64, write_weights};

/// Compression levels: 1 (fastest) ..= [`MAX_LEVEL`] (strongest).
pub const MIN_LEVEL: u8 = 1;
/// The strongest level.
pub const MAX_LEVEL: u8 = 9;
/// The level used when none is given: the smallest archive that still compresses and
/// expands the benchmark (`data/Chess_Games.txt`) in no more time than `xz -9e` compresses it
/// on two cores (measured with `chesszip bench`; see README.md and docs/performance.md).
pub const DEFAULT_LEVEL: u8 = 2;

/// One complete set of model parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model {
    /// Compression level this model is for.
    pub level: u8,
    /// How the engine scores moves.
    pub search: SearchConfig,
    /// Whether the tactical move features (attack maps) are computed; without them the level
    /// is faster and those weights must be zero.
    pub tactical: bool,
    /// Uniform floor mixed into the move distribution, in 1/65536.
    pub move_floor: u64,
    /// Weight of the model's distribution against the online book's counts, in 1/256 games.
    pub book_alpha: u64,
    /// The book is consulted and filled only for plies below this.
    pub book_max_ply: u32,
    /// Weight of one play in the prior book ([`book::PRIOR`]), in 1/256 games (0 = unused).
    pub book_prior_weight: u64,
    /// Move-model weights, laid out by [`features::move_layout`].
    pub move_weights: Vec<i32>,
    /// Game-end weights, laid out by [`features::end_layout`].
    pub end_weights: Vec<i32>,
    /// Result weights, laid out by [`features::result_layout`].
    pub result_weights: Vec<i32>,
    /// The move network whose logits are added to the linear model's, if any (a separate
    /// `.net` file; see [`network`]). Part of [`Model::id`].
    pub network: Option<Arc<Network>>,
    /// The other members of an ensemble, empty for a single model: released models whose move
    /// logits are mixed with this model's (see [`Member`]). Part of [`Model::id`].
    pub members: Vec<Member>,
}

/// A member of an ensemble: another released model, run on the same game with its own search,
/// features and network, whose move logits are mixed into the ensemble's.
///
/// The ensemble's move logits are the weighted mean `(w_0 z_0 + sum_k w_k z_k) >> 8` of its own
/// logits `z_0` and each member's `z_k` (integers in 1/[`softmax::LOGIT_ONE`] nat), with
/// `w_0 = 256 - sum_k w_k`: a geometric mixture (log-linear pooling) of their move
/// distributions. The book, the floor and the end and result models are the ensemble's own.
///
/// A parameter file names a member by its release (`member.v6/level9.txt 102`): members are
/// always embedded models, so that an ensemble stays a fixed function of the binary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The member's release name ([`Release::name`], e.g. `v6/level9.txt`).
    pub name: String,
    /// Its weight in the mixture, in 1/256 (`1..=255`; the ensemble's own weight is 256 minus
    /// all members' weights).
    pub weight: u32,
    /// The member's model (which has no members of its own).
    pub model: &'static Model,
}

/// Reads the `member.<release name> <weight>` entries of a parameter file (see [`Member`]).
fn parse_members(name: &str, file: &ParamFile) -> Result<Vec<Member>, Error> {
    let err = |message: String| Error::Model { name: name.into(), line: 0, message };
    let mut members = Vec::new();
    for (key, values) in &file.entries {
        let Some(release) = key.strip_prefix("member.") else { continue };
        let [weight] = values[..] else { return Err(err(format!("`{key}` needs one value, has {}", values.len()))) };
        if !(1..=255).contains(&weight) {
            return Err(err(format!("`{key}` = {weight} is outside 1..=255")));
        }
        // A file cannot name itself (its parse would wait on itself).
        let index = RELEASES
            .iter()
            .position(|r| r.name == release && r.name != name)
            .ok_or_else(|| err(format!("member `{release}` is not an embedded release")))?;
        let model = Model::release(index);
        if !model.members.is_empty() {
            return Err(err(format!("member `{release}` is an ensemble itself")));
        }
        members.push(Member { name: release.to_string(), weight: weight as u32, model });
    }
    if members.iter().map(|m| m.weight).sum::<u32>() >= 256 {
        return Err(err("the members' weights leave the model itself no weight (their sum must be below 256)".into()));
    }
    Ok(members)
}

impl Model {
    /// Parses a parameter file (see [`params`]); `name` appears in errors.
    ///
    /// # Errors
    /// [`Error::Model`] on syntax errors, wrong group lengths or out-of-range settings.
    pub fn parse(name: &str, text: &str) -> Result<Model, Error> {
        Self::parse_with(name, text, false)
    }

    /// Like [`Model::parse`], but weight groups whose length does not match the current
    /// layout are read as zeros: the tuner's starting point after features changed.
    ///
    /// # Errors
    /// As [`Model::parse`], except for group lengths.
    pub fn parse_lenient(name: &str, text: &str) -> Result<Model, Error> {
        Self::parse_with(name, text, true)
    }

    fn parse_with(name: &str, text: &str, lenient: bool) -> Result<Model, Error> {
        let file = ParamFile::parse(name, text)?;
        let get = |key: &str, default: i64, lo: i64, hi: i64| -> Result<i64, Error> {
            let v = file.setting(name, key, default)?;
            if v < lo || v > hi {
                return Err(Error::Model { name: name.into(), line: 0, message: format!("`{key}` = {v} is outside {lo}..={hi}") });
            }
            Ok(v)
        };
        Ok(Model {
            level: get("level", DEFAULT_LEVEL as i64, MIN_LEVEL as i64, MAX_LEVEL as i64)? as u8,
            search: SearchConfig {
                depth: get("search.depth", 0, 0, 8)? as u8,
                quiescence: get("search.quiescence", 0, 0, 1)? == 1,
                margin: get("search.margin", 600, 0, 100_000)? as i32,
                qdepth: get("search.qdepth", 0, 0, 255)? as u8,
            },
            tactical: get("features.tactical", 1, 0, 1)? == 1,
            move_floor: get("move.floor", 64, 1, 65536)? as u64,
            book_alpha: get("book.alpha", 1024, 1, 1 << 30)? as u64,
            book_max_ply: get("book.max_ply", 0, 0, 1000)? as u32,
            book_prior_weight: get("book.prior_weight", 0, 0, 1 << 16)? as u64,
            move_weights: file.weights(name, "move", move_layout::GROUPS, move_layout::LEN, lenient)?,
            end_weights: file.weights(name, "end", end_layout::GROUPS, end_layout::LEN, lenient)?,
            result_weights: file.weights(name, "result", result_layout::GROUPS, result_layout::LEN, lenient)?,
            network: None,
            members: parse_members(name, &file)?,
        })
    }

    /// This model with the move network `net`.
    pub fn with_network(mut self, net: Arc<Network>) -> Model {
        self.network = Some(net);
        self
    }

    /// The canonical text of this model: what [`Model::parse`] reads, and what [`Model::id`]
    /// hashes.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "level {}", self.level);
        let _ = writeln!(s, "search.depth {}", self.search.depth);
        let _ = writeln!(s, "search.quiescence {}", self.search.quiescence as u8);
        let _ = writeln!(s, "search.margin {}", self.search.margin);
        // Only when set, so that the ids of models without it did not change when it came.
        if self.search.qdepth != 0 {
            let _ = writeln!(s, "search.qdepth {}", self.search.qdepth);
        }
        let _ = writeln!(s, "features.tactical {}", self.tactical as u8);
        let _ = writeln!(s, "move.floor {}", self.move_floor);
        let _ = writeln!(s, "book.alpha {}", self.book_alpha);
        let _ = writeln!(s, "book.max_ply {}", self.book_max_ply);
        let _ = writeln!(s, "book.prior_weight {}", self.book_prior_weight);
        for m in &self.members {
            let _ = writeln!(s, "member.{} {}", m.name, m.weight);
        }
        write_weights(&mut s, "move", move_layout::GROUPS, &self.move_weights);
        let (v1, later) = end_layout::GROUPS.split_at(features::END_GROUPS_V1);
        write_weights(&mut s, "end", v1, &self.end_weights);
        // Only when set, so that the ids of models without them did not change when they came.
        let set: Vec<_> = later.iter().filter(|g| self.end_weights[g.offset..g.offset + g.len].iter().any(|&w| w != 0)).copied().collect();
        write_weights(&mut s, "end", &set, &self.end_weights);
        write_weights(&mut s, "result", result_layout::GROUPS, &self.result_weights);
        s
    }

    /// 64-bit id of the parameters (FNV-1a of [`Model::to_text`] and, when used, of the prior
    /// book, of the network's hash and of the members' ids), stored in archives so that an archive is only ever
    /// expanded with the model that made it.
    pub fn id(&self) -> u64 {
        let mut bytes = self.to_text().into_bytes();
        if self.book_prior_weight > 0 {
            bytes.extend_from_slice(book::BOOK_TEXT.as_bytes());
        }
        if let Some(net) = &self.network {
            bytes.extend_from_slice(b"network ");
            bytes.extend_from_slice(&net.hash().to_le_bytes());
        }
        for m in &self.members {
            bytes.extend_from_slice(b"member ");
            bytes.extend_from_slice(&m.model.id().to_le_bytes());
        }
        fnv1a64(&bytes)
    }

    /// The newest model embedded in this binary for `level` (`MIN_LEVEL..=MAX_LEVEL`): what
    /// compressing at that level uses.
    ///
    /// # Panics
    /// If `level` is out of range (a bug in the caller) or an embedded file does not parse
    /// (caught by the tests).
    pub fn builtin(level: u8) -> &'static Model {
        Model::release(newest_release(level))
    }

    /// [`Model::id`] of [`Model::builtin`]`(level)`, computed once.
    pub fn builtin_id(level: u8) -> u64 {
        release_id(newest_release(level))
    }

    /// The model of [`RELEASES`]`[index]`, parsed when first used.
    fn release(index: usize) -> &'static Model {
        &parsed(index).0
    }

    /// The embedded model with id `id`, of any release, if any.
    pub fn by_id(id: u64) -> Option<&'static Model> {
        (0..RELEASES.len()).find(|&i| release_id(i) == id).map(Model::release)
    }

    /// The embedded model of `level` with id `id`, of any release, if any: what expanding an
    /// archive uses (its header names both). Parses only that level's releases.
    pub fn released(level: u8, id: u64) -> Option<&'static Model> {
        (0..RELEASES.len()).filter(|&i| RELEASES[i].level == level).find(|&i| release_id(i) == id).map(Model::release)
    }
}

/// One released model, embedded in the binary. Releases are never changed or removed: an
/// archive names its model by [`Model::id`], and every archive written by a released binary
/// must keep expanding. A new model for a level is a new release (a new file), and compressing
/// uses the newest release of the level.
#[derive(Clone, Copy, Debug)]
pub struct Release {
    /// The compression level.
    pub level: u8,
    /// The parameter file's path below `models/`.
    pub name: &'static str,
    /// The parameter file's text.
    pub text: &'static str,
    /// The move network file's bytes, if the model has one.
    pub network: Option<&'static [u8]>,
}

impl Release {
    /// Parses the release's parameter file and network.
    ///
    /// # Errors
    /// [`Error::Model`] if either does not parse or the level does not match.
    pub fn parse(&self) -> Result<Model, Error> {
        let mut m = Model::parse(self.name, self.text)?;
        if m.level != self.level {
            return Err(Error::Model {
                name: self.name.into(),
                line: 0,
                message: format!("level {} in a release of level {}", m.level, self.level),
            });
        }
        if let Some(bytes) = self.network {
            m = m.with_network(Arc::new(Network::parse(self.name, bytes)?));
        }
        Ok(m)
    }
}

/// Embeds `models/<path>.txt` as a [`Release`] of `level`, with the network `net` (the bytes of
/// a `.net` file) if given.
macro_rules! release {
    ($level:literal, $path:literal) => {
        Release { level: $level, name: concat!($path, ".txt"), text: include_str!(concat!("../../models/", $path, ".txt")), network: None }
    };
    ($level:literal, $path:literal, $net:expr) => {
        Release {
            level: $level,
            name: concat!($path, ".txt"),
            text: include_str!(concat!("../../models/", $path, ".txt")),
            network: Some($net),
        }
    };
}

/// The move network of version 2's level 2 (`models/v2/level2.net`).
const NET_V2_LEVEL2: &[u8] = include_bytes!("../../models/v2/level2.net");

/// The move network of version 2's levels 3-9 (`models/v2/search.net`): level 2's network
/// fine-tuned on the features of level 3's search.
const NET_V2_SEARCH: &[u8] = include_bytes!("../../models/v2/search.net");

/// The move network of version 3's level 2 (`models/v3/level2.net`): version 2's architecture,
/// trained on the training games with the Maia3-5M teacher's move distributions as soft targets
/// (distillation, `scripts/teacher/`).
const NET_V3_LEVEL2: &[u8] = include_bytes!("../../models/v3/level2.net");

/// The move network of version 3's levels 3-9 (`models/v3/search.net`): version 3's level-2
/// network fine-tuned on the features of level 3's search, with the same soft targets.
const NET_V3_SEARCH: &[u8] = include_bytes!("../../models/v3/search.net");

/// The move network of version 4's level 2 (`models/v4/level2.net`): version 3's recipe on
/// 2.4x the games sampled from the teacher (15,000 games, 783,251 plies).
const NET_V4_LEVEL2: &[u8] = include_bytes!("../../models/v4/level2.net");

/// The move network of version 4's levels 3-9 (`models/v4/search.net`): version 4's level-2
/// network fine-tuned on the features of level 3's search, with the same soft targets.
const NET_V4_SEARCH: &[u8] = include_bytes!("../../models/v4/search.net");

/// The move network of version 5's level 2 (`models/v5/level2.net`): version 4's network
/// fine-tuned 3 epochs with 18,000 more games sampled from the teacher (33,000 games, 1,725,282
/// plies).
const NET_V5_LEVEL2: &[u8] = include_bytes!("../../models/v5/level2.net");

/// The move network of version 5's levels 3-9 (`models/v5/search.net`): version 4's levels-3-9
/// network fine-tuned as version 5's level 2, on the features of level 3's search.
const NET_V5_SEARCH: &[u8] = include_bytes!("../../models/v5/search.net");

/// The move network of version 6's level 3 (`models/v6/level3.net`): version 5's levels-3-9
/// network widened (first layer 256 to 1024, second 64 to 256, move tower 64 to 128; new units
/// starting silent) and fine-tuned on version 5's training plies and level 3's features.
const NET_V6_LEVEL3: &[u8] = include_bytes!("../../models/v6/level3.net");

/// The move network of version 6's levels 4-9 (`models/v6/search.net`): version 6's level-3
/// network fine-tuned on level 5's features (the strongest level's search: full capture
/// quiescence).
const NET_V6_SEARCH: &[u8] = include_bytes!("../../models/v6/search.net");

/// Every released model, oldest first. Version 1 (`models/levelN.txt`): the linear models of
/// levels 1-9. Version 2 (`models/v2/`): levels 2-9, linear models plus a move network
/// ([`network`]); level 1 stays linear (the fast level). Version 3 (`models/v3/`): levels 2-9,
/// version 2's architecture with networks distilled from a stronger teacher. Version 4
/// (`models/v4/`): levels 2-9, version 3's recipe on more sampled games, and game-end models
/// with five more feature groups ([`features::END_GROUPS_V1`]). Version 5 (`models/v5/`):
/// levels 2-9, version 4's networks fine-tuned with twice the sampled games, version 4's end
/// and result weights. Version 6 (`models/v6/`): levels 3-9, version 5's network widened
/// 4x/4x/2x and fine-tuned (level 3 on its own features, levels 4-9 on level 5's), version 5's
/// end and result weights; level 2 stays version 5's.
pub const RELEASES: &[Release] = &[
    release!(1, "level1"),
    release!(2, "level2"),
    release!(3, "level3"),
    release!(4, "level4"),
    release!(5, "level5"),
    release!(6, "level6"),
    release!(7, "level7"),
    release!(8, "level8"),
    release!(9, "level9"),
    // Version 2: the move networks (scripts/net/build.sh).
    release!(2, "v2/level2", NET_V2_LEVEL2),
    release!(3, "v2/level3", NET_V2_SEARCH),
    release!(4, "v2/level4", NET_V2_SEARCH),
    release!(5, "v2/level5", NET_V2_SEARCH),
    release!(6, "v2/level6", NET_V2_SEARCH),
    release!(7, "v2/level7", NET_V2_SEARCH),
    release!(8, "v2/level8", NET_V2_SEARCH),
    release!(9, "v2/level9", NET_V2_SEARCH),
    // Version 3: the networks distilled from the teacher (scripts/teacher/distil.sh).
    release!(2, "v3/level2", NET_V3_LEVEL2),
    release!(3, "v3/level3", NET_V3_SEARCH),
    release!(4, "v3/level4", NET_V3_SEARCH),
    release!(5, "v3/level5", NET_V3_SEARCH),
    release!(6, "v3/level6", NET_V3_SEARCH),
    release!(7, "v3/level7", NET_V3_SEARCH),
    release!(8, "v3/level8", NET_V3_SEARCH),
    release!(9, "v3/level9", NET_V3_SEARCH),
    // Version 4: more sampled games; end weights refitted with new features (scripts/teacher/build-v4.sh).
    release!(2, "v4/level2", NET_V4_LEVEL2),
    release!(3, "v4/level3", NET_V4_SEARCH),
    release!(4, "v4/level4", NET_V4_SEARCH),
    release!(5, "v4/level5", NET_V4_SEARCH),
    release!(6, "v4/level6", NET_V4_SEARCH),
    release!(7, "v4/level7", NET_V4_SEARCH),
    release!(8, "v4/level8", NET_V4_SEARCH),
    release!(9, "v4/level9", NET_V4_SEARCH),
    // Version 5: version 4 fine-tuned with 18,000 more sampled games (scripts/teacher/build-v5.sh).
    release!(2, "v5/level2", NET_V5_LEVEL2),
    release!(3, "v5/level3", NET_V5_SEARCH),
    release!(4, "v5/level4", NET_V5_SEARCH),
    release!(5, "v5/level5", NET_V5_SEARCH),
    release!(6, "v5/level6", NET_V5_SEARCH),
    release!(7, "v5/level7", NET_V5_SEARCH),
    release!(8, "v5/level8", NET_V5_SEARCH),
    release!(9, "v5/level9", NET_V5_SEARCH),
    // Version 6: levels 3-9, version 5's network widened (scripts/teacher/build-v6.sh).
    release!(3, "v6/level3", NET_V6_LEVEL3),
    release!(4, "v6/level4", NET_V6_SEARCH),
    release!(5, "v6/level5", NET_V6_SEARCH),
    release!(6, "v6/level6", NET_V6_SEARCH),
    release!(7, "v6/level7", NET_V6_SEARCH),
    release!(8, "v6/level8", NET_V6_SEARCH),
    release!(9, "v6/level9", NET_V6_SEARCH),
    // Version 7: level 9 is an ensemble of version 6's level 5 (its own model), version 6's
    // level 9 and version 5's level 5 ([`Member`]).
    release!(9, "v7/level9", NET_V6_SEARCH),
];

/// The releases, each parsed when first used (a run needs one or two), with its [`Model::id`]:
/// computing it serialises the whole model (milliseconds), too slow to repeat for every archive
/// opened.
static PARSED: [OnceLock<(Model, u64)>; RELEASES.len()] = [const { OnceLock::new() }; RELEASES.len()];

/// [`RELEASES`]`[index]` parsed, and its id.
fn parsed(index: usize) -> &'static (Model, u64) {
    PARSED[index].get_or_init(|| {
        let model = RELEASES[index].parse().unwrap_or_else(|e| panic!("embedded model {}: {e}", RELEASES[index].name));
        let id = model.id();
        (model, id)
    })
}

fn release_id(index: usize) -> u64 {
    parsed(index).1
}

/// Index in [`RELEASES`] of the newest release of `level`: the one place a level is
/// range-checked inside the library.
///
/// # Panics
/// If `level` is outside [`MIN_LEVEL`]`..=`[`MAX_LEVEL`] (a bug in the caller).
fn newest_release(level: u8) -> usize {
    assert!((MIN_LEVEL..=MAX_LEVEL).contains(&level), "level {level} out of range");
    RELEASES.iter().rposition(|r| r.level == level).expect("every level has a release")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_models_parse_and_are_distinct() {
        for level in MIN_LEVEL..=MAX_LEVEL {
            let m = Model::builtin(level);
            assert_eq!(m.level, level);
            // The text holds everything but the network, which is a file of its own.
            let again = Model::parse("again", &m.to_text()).unwrap();
            assert_eq!(again, Model { network: None, ..m.clone() });
            assert_eq!(Model::by_id(m.id()).unwrap().level, level);
        }
    }

    #[test]
    fn every_release_parses_and_is_found_by_its_id() {
        let mut ids = std::collections::HashSet::new();
        for (i, release) in RELEASES.iter().enumerate() {
            let m = release.parse().unwrap_or_else(|e| panic!("{}: {e}", release.name));
            assert_eq!(m.level, release.level);
            assert_eq!(m.network.is_some(), release.network.is_some());
            assert!(ids.insert(m.id()), "{} has the id of an earlier release", release.name);
            assert_eq!(Model::by_id(m.id()), Some(Model::release(i)));
        }
        // Compressing uses the newest release of each level.
        for level in MIN_LEVEL..=MAX_LEVEL {
            let newest = RELEASES.iter().rfind(|r| r.level == level).expect("a release");
            assert_eq!(Model::builtin(level).id(), newest.parse().unwrap().id());
        }
    }

    #[test]
    fn search_qdepth_round_trips_and_is_omitted_when_unlimited() {
        // Without its network: the text is what this test is about.
        let base = &Model { network: None, ..Model::builtin(4).clone() };
        let text = base.to_text();
        assert!(!text.contains("search.qdepth"));
        let explicit = text.replace("search.margin", "search.qdepth 0\nsearch.margin");
        assert_eq!(Model::parse("explicit zero", &explicit).unwrap(), *base);
        let mut limited = base.clone();
        limited.search.qdepth = 2;
        let text = limited.to_text();
        assert!(text.contains("\nsearch.qdepth 2\n"));
        let parsed = Model::parse("limited", &text).unwrap();
        assert_eq!(parsed, limited);
        assert_ne!(parsed.id(), base.id());
        assert!(Model::parse("too deep", &text.replace("search.qdepth 2", "search.qdepth 256")).is_err());
    }

    #[test]
    fn ensemble_members_round_trip_and_are_checked() {
        let v7 = RELEASES.iter().find(|r| r.name == "v7/level9.txt").unwrap().parse().unwrap();
        let names: Vec<(&str, u32)> = v7.members.iter().map(|m| (m.name.as_str(), m.weight)).collect();
        assert_eq!(names, [("v5/level5.txt", 52), ("v6/level9.txt", 102)]);
        for m in &v7.members {
            assert!(std::ptr::eq(m.model, Model::by_id(m.model.id()).unwrap()), "{} is the embedded release", m.name);
        }
        let text = v7.to_text();
        assert!(text.contains("\nmember.v6/level9.txt 102\n"));
        assert_eq!(Model::parse("again", &text).unwrap(), Model { network: None, ..v7.clone() });
        // The members' weights are part of the id, and so is each member's own id.
        let reweighted = Model::parse("again", &text.replace("member.v6/level9.txt 102", "member.v6/level9.txt 101")).unwrap();
        assert_ne!(reweighted.id(), Model { network: None, ..v7.clone() }.id());
        // Without members, the text names none (every earlier model's id is unchanged).
        assert!(!Model::builtin(5).to_text().contains("member."));
        let bad = |from: &str, to: &str| Model::parse("v7/level9.txt", &text.replace(from, to)).unwrap_err().to_string();
        assert!(bad("member.v6/level9.txt 102", "member.v6/level10.txt 102").contains("not an embedded release"));
        assert!(bad("member.v6/level9.txt 102", "member.v6/level9.txt 0").contains("outside 1..=255"));
        assert!(bad("member.v6/level9.txt 102", "member.v6/level9.txt 204").contains("sum must be below 256"));
        assert!(bad("member.v6/level9.txt 102", "member.v6/level9.txt 1 2").contains("needs one value"));
        assert!(
            bad("member.v6/level9.txt 102", "member.v7/level9.txt 102").contains("not an embedded release"),
            "a file cannot name itself"
        );
        let nested = Model::parse("nested", &text.replace("member.v6/level9.txt 102", "member.v7/level9.txt 102")).unwrap_err().to_string();
        assert!(nested.contains("is an ensemble itself"), "{nested}");
    }

    #[test]
    fn later_end_groups_round_trip_and_are_omitted_when_zero() {
        // Version 3's level 2 has none of them: its text (and so its id) names none.
        let v3 = RELEASES.iter().find(|r| r.name == "v3/level2.txt").unwrap().parse().unwrap();
        let later = &end_layout::GROUPS[features::END_GROUPS_V1..];
        assert!(!later.is_empty());
        let text = v3.to_text();
        for g in later {
            assert!(!text.contains(&format!("end.{} ", g.name)), "{} written while zero", g.name);
        }
        let mut set = Model { network: None, ..v3 };
        let g = later[1];
        set.end_weights[g.offset + 2] = -77;
        let text = set.to_text();
        assert!(text.contains(&format!("end.{} ", g.name)));
        assert!(!text.contains(&format!("end.{} ", later[0].name)));
        assert_eq!(Model::parse("set", &text).unwrap(), set);
    }
}
