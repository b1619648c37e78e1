//! A tuned model: one complete set of parameters (what a release's files parse into), its
//! canonical text and its id.

use std::fmt::Write as _;
use std::sync::Arc;

use super::book;
use super::elo::{ELO_LIMIT, EloRule, SPEEDS};
use super::features::{self, end_layout, move_layout, result_layout};
use super::level::{DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL};
use super::network::Network;
use super::params::{ParamFile, fnv1a64, write_weights};
use crate::engine::SearchConfig;
use crate::error::Error;

/// Finds the embedded model that a parameter file's `member.<release name>` entry names
/// ([`super::registry`] passes one over its releases).
pub type MemberLookup<'a> = &'a dyn Fn(&str) -> Option<&'static Model>;

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
    /// `.net` file; see [`super::network`]). Part of [`Model::id`].
    pub network: Option<Arc<Network>>,
    /// The other members of an ensemble, empty for a single model: released models whose move
    /// logits are mixed with this model's (see [`Member`]). Part of [`Model::id`].
    pub members: Vec<Member>,
    /// Level 10's transformer, whose logits are the move model's, when its weights are loaded
    /// ([`Model::with_weights`]). Not part of [`Model::id`]: an archive
    /// names the weights by their sha256 in its header.
    pub transformer: Option<&'static super::transformer::Weights>,
    /// Level 10: the transformer's dense layers that take 8-bit activations
    /// ([`super::transformer::int::Recipe`] bits; 0, every layer `i16`, is model version 8's
    /// recipe). Part of [`Model::id`] (written only when not 0): the integers are archive format.
    pub transformer_act8: u32,
    /// Level 10: how a PGN game's rating tags give the transformer's Elo inputs (model
    /// version 10 on; the default, off, is 1500 for both sides). Part of [`Model::id`]
    /// (written only when on).
    pub transformer_elo: EloRule,
}

/// A member of an ensemble: another released model, run on the same game with its own search,
/// features and network, whose move logits are mixed into the ensemble's.
///
/// The ensemble's move logits are the weighted mean `(w_0 z_0 + sum_k w_k z_k) >> 8` of its own
/// logits `z_0` and each member's `z_k` (integers in 1/[`super::softmax::LOGIT_ONE`] nat), with
/// `w_0 = 256 - sum_k w_k`: a geometric mixture (log-linear pooling) of their move
/// distributions. The book, the floor and the end and result models are the ensemble's own.
///
/// A parameter file names a member by its release (`member.v6/level9.txt 102`): members are
/// always embedded models, so that an ensemble stays a fixed function of the binary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The member's release name ([`super::registry::Release::name`], e.g. `v6/level9.txt`).
    pub name: String,
    /// Its weight in the mixture, in 1/256 (`1..=255`; the ensemble's own weight is 256 minus
    /// all members' weights).
    pub weight: u32,
    /// The member's model (which has no members of its own).
    pub model: &'static Model,
}

/// Reads the `member.<release name> <weight>` entries of a parameter file (see [`Member`]).
fn parse_members(name: &str, file: &ParamFile, member: MemberLookup<'_>) -> Result<Vec<Member>, Error> {
    let err = |message: String| Error::Model { name: name.into(), line: 0, message };
    let mut members = Vec::new();
    for (key, values) in &file.entries {
        let Some(release) = key.strip_prefix("member.") else { continue };
        let [weight] = values[..] else { return Err(err(format!("`{key}` needs one value, has {}", values.len()))) };
        if !(1..=255).contains(&weight) {
            return Err(err(format!("`{key}` = {weight} is outside 1..=255")));
        }
        // A file cannot name itself (its parse would wait on itself).
        let model = Some(release)
            .filter(|&r| r != name)
            .and_then(member)
            .ok_or_else(|| err(format!("member `{release}` is not an embedded release")))?;
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

/// Reads the `transformer.elo_*` settings of a parameter file (see [`EloRule`]): without
/// `transformer.elo_tags 1` none of the others may be given (so that a model's text names
/// them exactly when they are used).
fn parse_elo_rule(name: &str, file: &ParamFile) -> Result<EloRule, Error> {
    let err = |message: String| Error::Model { name: name.into(), line: 0, message };
    let get = |key: &str, default: i64, lo: i64, hi: i64| -> Result<i32, Error> {
        let v = file.setting(name, key, default)?;
        if v < lo || v > hi {
            return Err(err(format!("`{key}` = {v} is outside {lo}..={hi}")));
        }
        Ok(v as i32)
    };
    let tags = get("transformer.elo_tags", 0, 0, 1)? == 1;
    if !tags {
        if let Some(key) = file.entries.keys().find(|k| k.starts_with("transformer.elo_")) {
            return Err(err(format!("`{key}` is given without `transformer.elo_tags 1`")));
        }
        return Ok(EloRule::default());
    }
    let limit = ELO_LIMIT as i64;
    let default = EloRule::default();
    let (min, max) = (get("transformer.elo_min", default.min.into(), 0, limit)?, get("transformer.elo_max", default.max.into(), 0, limit)?);
    if min > max {
        return Err(err(format!("`transformer.elo_min` {min} is above `transformer.elo_max` {max}")));
    }
    let shrink = get("transformer.elo_shrink", default.shrink.into(), 0, 1024)?;
    let mut offset = default.offset;
    if let Some(values) = file.entries.get("transformer.elo_offset") {
        if values.len() != SPEEDS {
            return Err(err(format!(
                "`transformer.elo_offset` needs {SPEEDS} values (unknown, bullet, blitz, rapid, classical), has {}",
                values.len()
            )));
        }
        for (o, &v) in offset.iter_mut().zip(values) {
            if !(-limit..=limit).contains(&v) {
                return Err(err(format!("`transformer.elo_offset` value {v} is outside -{limit}..={limit}")));
            }
            *o = v as i32;
        }
    }
    Ok(EloRule { tags, min, max, shrink, offset })
}

impl Model {
    /// Parses a parameter file; `lenient` reads weight groups of another length as zeros,
    /// `member` finds the embedded model a `member.` entry names (see [`Member`]).
    pub(super) fn parse_with(name: &str, text: &str, lenient: bool, member: MemberLookup<'_>) -> Result<Model, Error> {
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
            members: parse_members(name, &file, member)?,
            transformer: None,
            transformer_act8: get("transformer.act8", 0, 0, (1 << 11) - 1)? as u32,
            transformer_elo: parse_elo_rule(name, &file)?,
        })
    }

    /// This model with the move network `net`.
    pub fn with_network(mut self, net: Arc<Network>) -> Model {
        self.network = Some(net);
        self
    }

    /// Whether the move network, or an ensemble member's, reads the players' ratings (no
    /// release does yet, docs/notes-ratings.md; [`Network::reads_ratings`]): PGN archives then
    /// give them each game's rating tags.
    pub fn reads_ratings(&self) -> bool {
        self.network.as_deref().is_some_and(Network::reads_ratings) || self.members.iter().any(|m| m.model.reads_ratings())
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
        // Only when set, so that the ids of models without it did not change when it came.
        if self.transformer_act8 != 0 {
            let _ = writeln!(s, "transformer.act8 {}", self.transformer_act8);
        }
        let elo = &self.transformer_elo;
        if elo.tags {
            let _ = writeln!(s, "transformer.elo_tags 1");
            let _ = writeln!(s, "transformer.elo_min {}", elo.min);
            let _ = writeln!(s, "transformer.elo_max {}", elo.max);
            let _ = writeln!(s, "transformer.elo_shrink {}", elo.shrink);
            let offsets: Vec<String> = elo.offset.iter().map(i32::to_string).collect();
            let _ = writeln!(s, "transformer.elo_offset {}", offsets.join(" "));
        }
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
}
