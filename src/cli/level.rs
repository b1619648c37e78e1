//! The compression level options: `--level N` and the gzip-style `-1` .. `-9`, the last one
//! given winning.

use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches, value_parser};

use chesszip::model::{DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL};

const LEVEL: &str = "level";
/// The heading of the level options in `--help`.
const HEADING: &str = "Compression level (-1 .. -9 or --level N)";
const SHORT_IDS: [&str; 9] = ["level_1", "level_2", "level_3", "level_4", "level_5", "level_6", "level_7", "level_8", "level_9"];

/// The chosen compression level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelArgs {
    /// Level in `MIN_LEVEL..=MAX_LEVEL`.
    pub level: u8,
}

impl FromArgMatches for LevelArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut best: Option<(usize, u8)> = None;
        let mut consider = |index: Option<usize>, level: u8| {
            if let Some(i) = index
                && best.is_none_or(|(j, _)| i > j)
            {
                best = Some((i, level));
            }
        };
        for (n, id) in SHORT_IDS.iter().enumerate() {
            if m.get_flag(id) {
                consider(m.indices_of(id).and_then(|mut i| i.next_back()), n as u8 + 1);
            }
        }
        if let Some(&level) = m.get_one::<u8>(LEVEL) {
            consider(m.indices_of(LEVEL).and_then(|mut i| i.next_back()), level);
        }
        Ok(LevelArgs { level: best.map_or(DEFAULT_LEVEL, |(_, l)| l) })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for LevelArgs {
    fn augment_args(cmd: Command) -> Command {
        let mut cmd = cmd.arg(
            Arg::new(LEVEL)
                .long(LEVEL)
                .value_name("N")
                .value_parser(value_parser!(u8).range(MIN_LEVEL as i64..=MAX_LEVEL as i64))
                .action(ArgAction::Set)
                .help_heading(HEADING)
                .help(format!(
                    "Compression level, {MIN_LEVEL} (fastest) to {MAX_LEVEL} (strongest) [default: {DEFAULT_LEVEL}]; -1 .. -9 are short for it"
                )),
        );
        for (n, id) in SHORT_IDS.iter().enumerate() {
            let level = n as u8 + 1;
            let help = match level {
                MIN_LEVEL => format!("Level {level}: fastest"),
                DEFAULT_LEVEL => format!("Level {level} (the default)"),
                MAX_LEVEL => format!("Level {level}: strongest and slowest"),
                _ => format!("Level {level}"),
            };
            cmd = cmd.arg(Arg::new(*id).short(char::from(b'0' + level)).action(ArgAction::SetTrue).help_heading(HEADING).help(help));
        }
        cmd
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}
