//! The released models, all embedded in the binary: which parameter file and network each
//! release is, and finding the one an archive names.

use std::sync::{Arc, OnceLock};

use super::level::{MAX_LEVEL, MIN_LEVEL};
use super::network::Network;
use super::tuned::Model;
use crate::error::Error;

impl Model {
    /// Parses a parameter file (see [`params`]); `name` appears in errors.
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
/// ([`super::network`]); level 1 stays linear (the fast level). Version 3 (`models/v3/`): levels 2-9,
/// version 2's architecture with networks distilled from a stronger teacher. Version 4
/// (`models/v4/`): levels 2-9, version 3's recipe on more sampled games, and game-end models
/// with five more feature groups ([`super::features::END_GROUPS_V1`]). Version 5 (`models/v5/`):
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
    // level 9 and version 5's level 5 ([`super::tuned::Member`]).
    release!(9, "v7/level9", NET_V6_SEARCH),
];

/// The releases, each parsed when first used (a run needs one or two), with its [`Model::id`]:
/// computing it serialises the whole model (milliseconds), too slow to repeat for every archive
/// opened.
static PARSED: [OnceLock<(Model, u64)>; RELEASES.len()] = [const { OnceLock::new() }; RELEASES.len()];

/// The model of the release named `name` (`v6/level9.txt`), parsed when first used.
fn release_named(name: &str) -> Option<&'static Model> {
    RELEASES.iter().position(|r| r.name == name).map(Model::release)
}

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
    use crate::model::features::{self, end_layout};
    use crate::model::level::{MAX_LEVEL, MIN_LEVEL};

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
