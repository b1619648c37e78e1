//! The released models, all embedded in the binary: which parameter file and network each
//! release is, and finding the one an archive names.

use std::sync::{Arc, Mutex, OnceLock};

use super::level::Level;
use super::network::Network;
use super::transformer::{TRANSFORMER_LEVEL, Weights};
use super::tuned::Model;
use crate::error::Error;

impl Model {
    /// Parses a parameter file (see [`super::params`]); `name` appears in errors.
    ///
    /// # Errors
    /// [`Error::Model`] on syntax errors, wrong group lengths or out-of-range settings.
    pub fn parse(name: &str, text: &str) -> Result<Model, Error> {
        Model::parse_with(name, text, false, &|member| release_named(member))
    }

    /// Like [`Model::parse`], but weight groups whose length does not match the current
    /// layout are read as zeros: the tuner's starting point after features changed.
    ///
    /// # Errors
    /// As [`Model::parse`], except for group lengths.
    pub fn parse_lenient(name: &str, text: &str) -> Result<Model, Error> {
        Model::parse_with(name, text, true, &|member| release_named(member))
    }

    /// The newest model embedded in this binary for `level`: what compressing at that level
    /// uses.
    ///
    /// # Panics
    /// If an embedded file does not parse (caught by the tests).
    pub fn builtin(level: Level) -> &'static Model {
        Model::release(newest_release(level))
    }

    /// Level 10's model with the user's transformer `weights`: the embedded level-10 release
    /// `base` (search, books, end and result models, the transformer's integer recipe) with
    /// `weights` as its move model; made once per release and weights file and kept to the end
    /// of the process.
    pub fn with_weights(base: &'static Model, weights: &'static Weights) -> &'static Model {
        static MADE: Mutex<Vec<(&'static Model, &'static Weights, &'static Model)>> = Mutex::new(Vec::new());
        assert_eq!(base.level, TRANSFORMER_LEVEL, "the transformer's weights go with a level-{TRANSFORMER_LEVEL} model");
        let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, _, m)) = made.iter().find(|(b, w, _)| std::ptr::eq(*b, base) && *w == weights) {
            return m;
        }
        let m: &'static Model = Box::leak(Box::new(Model { transformer: Some(weights), ..base.clone() }));
        made.push((base, weights, m));
        m
    }

    /// [`Model::id`] of [`Model::builtin`]`(level)`, from the registry (nothing is parsed).
    pub fn builtin_id(level: Level) -> u64 {
        RELEASES[newest_release(level)].id
    }

    /// The model of [`RELEASES`]`[index]`, parsed when first used.
    fn release(index: usize) -> &'static Model {
        parsed(index)
    }

    /// The embedded model with id `id`, of any release, if any.
    pub fn by_id(id: u64) -> Option<&'static Model> {
        RELEASES.iter().position(|r| r.id == id).map(Model::release)
    }

    /// The embedded model of `level` with id `id`, of any release, if any: what expanding an
    /// archive uses (its header names both). Parses only that release (and an ensemble's members).
    pub fn released(level: Level, id: u64) -> Option<&'static Model> {
        RELEASES.iter().position(|r| r.level == level.get() && r.id == id).map(Model::release)
    }
}

/// One released model, embedded in the binary. Releases are never changed or removed: an
/// archive names its model by [`Model::id`], and every archive written by a released binary
/// must keep expanding. A new model for a level is a new release (a new file), and compressing
/// uses the newest release of the level.
#[derive(Clone, Copy, Debug)]
pub struct Release {
    /// The model version (1 for `models/levelN.txt`, N for `models/vN/`).
    pub version: u8,
    /// The compression level.
    pub level: u8,
    /// The parameter file's path below `models/`.
    pub name: &'static str,
    /// The parameter file's text.
    pub text: &'static str,
    /// The move network file's bytes, if the model has one.
    pub network: Option<&'static [u8]>,
    /// The model's [`Model::id`], stored so that finding an archive's model parses no other
    /// (checked against the files by a test, and when the release is parsed).
    pub id: u64,
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

/// One row of [`RELEASES`]: `release!(version, level, "path", [network,] id)` embeds
/// `models/<path>.txt` (and the network's bytes, if given) with the model's [`Model::id`],
/// which a test recomputes from the files.
macro_rules! release {
    ($version:literal, $level:literal, $path:literal, $id:literal) => {
        Release {
            version: $version,
            level: $level,
            name: concat!($path, ".txt"),
            text: include_str!(concat!("../../models/", $path, ".txt")),
            network: None,
            id: $id,
        }
    };
    ($version:literal, $level:literal, $path:literal, $net:expr, $id:literal) => {
        Release {
            version: $version,
            level: $level,
            name: concat!($path, ".txt"),
            text: include_str!(concat!("../../models/", $path, ".txt")),
            network: Some($net),
            id: $id,
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
/// ([`super::network`]); level 1 stays linear (the fast level). Version 3 (`models/v3/`): levels 2-9,
/// version 2's architecture with networks distilled from a stronger teacher. Version 4
/// (`models/v4/`): levels 2-9, version 3's recipe on more sampled games, and game-end models
/// with five more feature groups ([`super::features::END_GROUPS_V1`]). Version 5 (`models/v5/`):
/// levels 2-9, version 4's networks fine-tuned with twice the sampled games, version 4's end
/// and result weights. Version 6 (`models/v6/`): levels 3-9, version 5's network widened
/// 4x/4x/2x and fine-tuned (level 3 on its own features, levels 4-9 on level 5's), version 5's
/// end and result weights; level 2 stays version 5's.
pub const RELEASES: &[Release] = &[
    release!(1, 1, "level1", 0xad90f0bec2cef515),
    release!(1, 2, "level2", 0x68fe5f14893a9c92),
    release!(1, 3, "level3", 0xc6d192d8b240125d),
    release!(1, 4, "level4", 0xa2fa8d6b271df34b),
    release!(1, 5, "level5", 0xffab25ecf9638a87),
    release!(1, 6, "level6", 0xb3f091b1ecdc976b),
    release!(1, 7, "level7", 0x089f631694bffcf3),
    release!(1, 8, "level8", 0xc8186855978f1b69),
    release!(1, 9, "level9", 0xdfb4b9d8808eb941),
    // Version 2: the move networks (scripts/net/build.sh).
    release!(2, 2, "v2/level2", NET_V2_LEVEL2, 0xd458794e756e0df5),
    release!(2, 3, "v2/level3", NET_V2_SEARCH, 0xde81803db364bf07),
    release!(2, 4, "v2/level4", NET_V2_SEARCH, 0xe15ed8e16553a5ee),
    release!(2, 5, "v2/level5", NET_V2_SEARCH, 0xd931475f763647d6),
    release!(2, 6, "v2/level6", NET_V2_SEARCH, 0xd4904499914be261),
    release!(2, 7, "v2/level7", NET_V2_SEARCH, 0x7c2fb37f055da54d),
    release!(2, 8, "v2/level8", NET_V2_SEARCH, 0x9b29a87ea5854680),
    release!(2, 9, "v2/level9", NET_V2_SEARCH, 0xc9f8fbc356f4235b),
    // Version 3: the networks distilled from the teacher (scripts/teacher/distil.sh).
    release!(3, 2, "v3/level2", NET_V3_LEVEL2, 0x692f4e66694f4407),
    release!(3, 3, "v3/level3", NET_V3_SEARCH, 0xa2536838638eeccc),
    release!(3, 4, "v3/level4", NET_V3_SEARCH, 0xa0231cf7b067673d),
    release!(3, 5, "v3/level5", NET_V3_SEARCH, 0xc2847b4dde0166a1),
    release!(3, 6, "v3/level6", NET_V3_SEARCH, 0x340ca63802904e72),
    release!(3, 7, "v3/level7", NET_V3_SEARCH, 0x2b02d3e7a60ebbf2),
    release!(3, 8, "v3/level8", NET_V3_SEARCH, 0xae81fa94f86d7db7),
    release!(3, 9, "v3/level9", NET_V3_SEARCH, 0xc807fdaae96d84b0),
    // Version 4: more sampled games; end weights refitted with new features (scripts/teacher/build-v4.sh).
    release!(4, 2, "v4/level2", NET_V4_LEVEL2, 0xaf4435ad92bda97c),
    release!(4, 3, "v4/level3", NET_V4_SEARCH, 0x40f29755ddd7172b),
    release!(4, 4, "v4/level4", NET_V4_SEARCH, 0xa14dc4a5b3708d74),
    release!(4, 5, "v4/level5", NET_V4_SEARCH, 0xb29e71631fcbb444),
    release!(4, 6, "v4/level6", NET_V4_SEARCH, 0xaf72a12ba2acfa54),
    release!(4, 7, "v4/level7", NET_V4_SEARCH, 0xabb96e941a3a8588),
    release!(4, 8, "v4/level8", NET_V4_SEARCH, 0x4fc9725e8a976818),
    release!(4, 9, "v4/level9", NET_V4_SEARCH, 0xdf36c28f1f447586),
    // Version 5: version 4 fine-tuned with 18,000 more sampled games (scripts/teacher/build-v5.sh).
    release!(5, 2, "v5/level2", NET_V5_LEVEL2, 0x733f8673a756b262),
    release!(5, 3, "v5/level3", NET_V5_SEARCH, 0x91cba12ca4477ebe),
    release!(5, 4, "v5/level4", NET_V5_SEARCH, 0xdeeaaa7ba6db2fbd),
    release!(5, 5, "v5/level5", NET_V5_SEARCH, 0xd6de27f083398df9),
    release!(5, 6, "v5/level6", NET_V5_SEARCH, 0x4f4028b09aff1549),
    release!(5, 7, "v5/level7", NET_V5_SEARCH, 0x5f2e6d2c70e79755),
    release!(5, 8, "v5/level8", NET_V5_SEARCH, 0xf9d4b584ada1f875),
    release!(5, 9, "v5/level9", NET_V5_SEARCH, 0xdb761d3a2fbe9627),
    // Version 6: levels 3-9, version 5's network widened (scripts/teacher/build-v6.sh).
    release!(6, 3, "v6/level3", NET_V6_LEVEL3, 0xbf44b65a89ee0926),
    release!(6, 4, "v6/level4", NET_V6_SEARCH, 0xa9f7ed11f5bdf376),
    release!(6, 5, "v6/level5", NET_V6_SEARCH, 0x1a3a20980a6cc106),
    release!(6, 6, "v6/level6", NET_V6_SEARCH, 0xaaef1da976230274),
    release!(6, 7, "v6/level7", NET_V6_SEARCH, 0xaa20377f0278cdc4),
    release!(6, 8, "v6/level8", NET_V6_SEARCH, 0xf973af58ab61e89a),
    release!(6, 9, "v6/level9", NET_V6_SEARCH, 0x64037a8f5564b9c8),
    // Version 7: level 9 is an ensemble of version 6's level 5 (its own model), version 6's
    // level 9 and version 5's level 5 ([`super::tuned::Member`]).
    release!(7, 9, "v7/level9", NET_V6_SEARCH, 0x4e1de0bee3dda1fa),
    // Version 8: level 10, whose moves are the user's transformer (src/model/transformer/).
    release!(8, 10, "v8/level10", 0xc9c0561480ec23bd),
    // Version 9: level 10 with 8-bit activations in the transformer's dense layers
    // (`transformer.act8`; version 8's archives keep version 8's integers).
    release!(9, 10, "v9/level10", 0xc8e344cd79bc654d),
    // Version 10: level 10 with the transformer's Elo inputs from PGN games' rating tags
    // (`transformer.elo_*`, [`super::elo::EloRule`]; version 9's integers).
    release!(10, 10, "v10/level10", 0xd00eec82ac55106e),
];

/// The releases, each parsed when first used (a run needs one, or an ensemble and its members).
static PARSED: [OnceLock<Model>; RELEASES.len()] = [const { OnceLock::new() }; RELEASES.len()];

/// The model of the release named `name` (`v6/level9.txt`), parsed when first used.
fn release_named(name: &str) -> Option<&'static Model> {
    RELEASES.iter().position(|r| r.name == name).map(Model::release)
}

/// [`RELEASES`]`[index]` parsed.
///
/// # Panics
/// If the embedded files do not parse or do not give the row's id (caught by the tests).
fn parsed(index: usize) -> &'static Model {
    PARSED[index].get_or_init(|| {
        let release = &RELEASES[index];
        let model = release.parse().unwrap_or_else(|e| panic!("embedded model {}: {e}", release.name));
        // Serialising the model costs milliseconds, once per release a run uses: an id that
        // does not match its files would write archives that no binary expands.
        assert_eq!(model.id(), release.id, "embedded model {}: the id of its files is not the row's", release.name);
        model
    })
}

/// Index in [`RELEASES`] of the newest release of `level`.
fn newest_release(level: Level) -> usize {
    RELEASES.iter().rposition(|r| r.level == level.get()).expect("every level has a release")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::features::{self, end_layout};

    #[test]
    fn embedded_models_parse_and_are_distinct() {
        for level in Level::all() {
            let m = Model::builtin(level);
            assert_eq!(m.level, level.get());
            // The text holds everything but the network, which is a file of its own.
            let again = Model::parse("again", &m.to_text()).unwrap();
            assert_eq!(again, Model { network: None, ..m.clone() });
            assert_eq!(Model::by_id(m.id()).unwrap().level, level.get());
        }
    }

    #[test]
    fn every_release_parses_and_is_found_by_its_id() {
        let mut ids = std::collections::HashSet::new();
        for (i, release) in RELEASES.iter().enumerate() {
            let m = release.parse().unwrap_or_else(|e| panic!("{}: {e}", release.name));
            assert_eq!(m.level, release.level);
            assert_eq!(m.network.is_some(), release.network.is_some());
            // The row's stored id is the one its files give.
            assert_eq!(m.id(), release.id, "{}: the row's id is not its files' (recomputed: {:#018x})", release.name, m.id());
            let version = release.name.split_once('/').map_or(1, |(v, _)| v[1..].parse().expect("a vN/ folder"));
            assert_eq!(release.version, version, "{}", release.name);
            assert!(ids.insert(m.id()), "{} has the id of an earlier release", release.name);
            assert_eq!(Model::by_id(m.id()), Some(Model::release(i)));
        }
        // Compressing uses the newest release of each level.
        for level in Level::all() {
            let newest = RELEASES.iter().rfind(|r| r.level == level.get()).expect("a release");
            assert_eq!(Model::builtin(level).id(), newest.parse().unwrap().id());
        }
    }

    #[test]
    fn level10_versions_differ_only_by_the_transformer_recipe() {
        let v8 = RELEASES.iter().find(|r| r.name == "v8/level10.txt").unwrap().parse().unwrap();
        let v9 = RELEASES.iter().find(|r| r.name == "v9/level10.txt").unwrap().parse().unwrap();
        assert_eq!((v8.transformer_act8, v9.transformer_act8), (0, 2047));
        assert!(!v8.to_text().contains("transformer.act8"), "version 8's text (and id) as before");
        assert_eq!(Model { transformer_act8: 0, ..v9.clone() }, v8);
        assert_eq!(Model::parse("again", &v9.to_text()).unwrap(), v9);
        assert_ne!(v8.id(), v9.id());
        assert!(Model::parse("too many", &v9.to_text().replace("act8 2047", "act8 2048")).is_err());
    }

    #[test]
    fn level10_version_10_is_version_9_with_the_elo_rule() {
        use crate::model::elo::EloRule;
        let v9 = RELEASES.iter().find(|r| r.name == "v9/level10.txt").unwrap().parse().unwrap();
        let v10 = RELEASES.iter().find(|r| r.name == "v10/level10.txt").unwrap().parse().unwrap();
        assert_eq!(v9.transformer_elo, EloRule::default());
        assert!(v10.transformer_elo.tags);
        assert!(!v9.to_text().contains("transformer.elo"), "version 9's text (and id) as before");
        assert_eq!(Model { transformer_elo: EloRule::default(), ..v10.clone() }, v9);
        assert_eq!(Model::parse("again", &v10.to_text()).unwrap(), v10);
        assert_ne!(v9.id(), v10.id());
        assert_eq!(Model::builtin(Level::new(10).unwrap()).id(), v10.id(), "new level-10 archives use version 10");
        // The rule is part of the id, and its settings are checked.
        let text = v10.to_text();
        let mut changed = v10.clone();
        changed.transformer_elo.max -= 1;
        assert_ne!(changed.id(), v10.id());
        let bad = |from: &str, to: &str| Model::parse("bad", &text.replace(from, to)).unwrap_err().to_string();
        assert!(bad("transformer.elo_tags 1", "transformer.elo_tags 0").contains("without `transformer.elo_tags 1`"));
        assert!(bad("transformer.elo_tags 1", "transformer.elo_tags 2").contains("outside 0..=1"));
        assert!(bad("transformer.elo_offset ", "transformer.elo_offset 1 ").contains("needs 5 values"));
        assert!(bad("transformer.elo_shrink ", "transformer.elo_shrink 9").contains("outside 0..=1024"));
        let swapped =
            text.replace("transformer.elo_min ", "transformer.elo_min 4999#").replace("transformer.elo_max ", "transformer.elo_max 1#");
        assert!(Model::parse("bad", &swapped).unwrap_err().to_string().contains("is above"));
    }

    #[test]
    fn search_qdepth_round_trips_and_is_omitted_when_unlimited() {
        // Without its network: the text is what this test is about.
        let base = &Model { network: None, ..Model::builtin(Level::new(4).unwrap()).clone() };
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
        assert!(!Model::builtin(Level::new(5).unwrap()).to_text().contains("member."));
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
