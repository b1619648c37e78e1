//! The compression level options: `--level N`, the gzip-style `-1` .. `-9`, `--fast` (level 1)
//! and `--best` (level 9), the last one given winning.

use clap::builder::TypedValueParser;
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches, value_parser};

use chesszip::model::{DEFAULT_LEVEL, Level, MAX_EMBEDDED_LEVEL, MAX_LEVEL, MIN_LEVEL};

const LEVEL: &str = "level";
/// `--fast`: the fastest level, as in gzip and xz.
const FAST: &str = "fast";
/// `--best`: the strongest level, as in gzip and xz.
const BEST: &str = "best";
/// The heading of the level options in `--help`.
const HEADING: &str = "Compression level (-1 .. -9, -10 or --level N)";
const SHORT_IDS: [&str; 9] = ["level_1", "level_2", "level_3", "level_4", "level_5", "level_6", "level_7", "level_8", "level_9"];

/// The chosen compression level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelArgs {
    /// The level.
    pub level: Level,
}

/// `--level N` and `bench -l N`: a level, with clap's message for a number out of range
/// ("11 is not in 1..=10").
pub fn level_parser() -> impl TypedValueParser<Value = Level> {
    value_parser!(u8).range(MIN_LEVEL as i64..=MAX_LEVEL as i64).map(|l| Level::new(l).expect("clap checked the range"))
}

/// Level `n` of the digit options and `--fast`/`--best` (always one).
fn short(n: u8) -> Level {
    Level::new(n).expect("the digit options name levels")
}

impl FromArgMatches for LevelArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut best: Option<(usize, Level)> = None;
        let mut consider = |index: Option<usize>, level: Level| {
            if let Some(i) = index
                && best.is_none_or(|(j, _)| i > j)
            {
                best = Some((i, level));
            }
        };
        for (n, id) in SHORT_IDS.iter().enumerate() {
            if m.get_flag(id) {
                consider(m.indices_of(id).and_then(|mut i| i.next_back()), short(n as u8 + 1));
            }
        }
        for (id, level) in [(FAST, short(MIN_LEVEL)), (BEST, short(MAX_EMBEDDED_LEVEL))] {
            if m.get_flag(id) {
                consider(m.indices_of(id).and_then(|mut i| i.next_back()), level);
            }
        }
        if let Some(&level) = m.get_one::<Level>(LEVEL) {
            consider(m.indices_of(LEVEL).and_then(|mut i| i.next_back()), level);
        }
        Ok(LevelArgs { level: best.map_or(Level::DEFAULT, |(_, l)| l) })
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
                .value_parser(level_parser())
                .action(ArgAction::Set)
                .help_heading(HEADING)
                .help(format!(
                    "Compression level, {MIN_LEVEL} (fastest) to {MAX_LEVEL} (strongest) [default: {DEFAULT_LEVEL}]; -1 .. -9 and -10 are short for it; level 10 needs --weights"
                )),
        );
        for (n, id) in SHORT_IDS.iter().enumerate() {
            let level = n as u8 + 1;
            let help = match level {
                MIN_LEVEL => format!("Level {level}: fastest"),
                DEFAULT_LEVEL => format!("Level {level} (the default)"),
                MAX_EMBEDDED_LEVEL => format!("Level {level}: the strongest without --weights"),
                _ => format!("Level {level}"),
            };
            cmd = cmd.arg(Arg::new(*id).short(char::from(b'0' + level)).action(ArgAction::SetTrue).help_heading(HEADING).help(help));
        }
        cmd.arg(
            Arg::new(FAST)
                .long(FAST)
                .action(ArgAction::SetTrue)
                .help_heading(HEADING)
                .help(format!("Level {MIN_LEVEL}, the fastest (-{MIN_LEVEL})")),
        )
        .arg(
            Arg::new(BEST)
                .long(BEST)
                .action(ArgAction::SetTrue)
                .help_heading(HEADING)
                .help(format!("Level {MAX_EMBEDDED_LEVEL}, the strongest without --weights (-{MAX_EMBEDDED_LEVEL})")),
        )
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

/// The short and long options of `cmd` and its subcommands that take a value (`-T N`,
/// `--output FILE`): in `-T16` the digits are `-T`'s value, not levels.
fn options_with_values(cmd: &Command, shorts: &mut Vec<char>, longs: &mut Vec<String>) {
    for arg in cmd.get_arguments() {
        if arg.get_action().takes_values() && !arg.is_positional() {
            shorts.extend(arg.get_short());
            longs.extend(arg.get_long().map(str::to_string));
        }
    }
    for sub in cmd.get_subcommands() {
        options_with_values(sub, shorts, longs);
    }
}

/// The command line with `-10` (level 10, the only two-digit level) spelled `--level=10`, which
/// clap reads (it would take `-10` apart as `-1 -0`).
pub fn expand_level_10(args: impl IntoIterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut after_dashes = false;
    args.into_iter()
        .map(|a| {
            after_dashes |= a == "--";
            if !after_dashes && a == format!("-{MAX_LEVEL}").as_str() { format!("--level={MAX_LEVEL}").into() } else { a }
        })
        .collect()
}

/// Refuses a level the digit options cannot give, which clap would otherwise take apart:
/// `-19` is `-1 -9` to clap (level 9), but zstd users mean level 19, which does not exist;
/// `-0` is no option at all. Returns the message for the first such argument of `args` (the
/// command line without the program's name): a cluster of short options with two digits in a
/// row, or a `0`, before any option that takes a value.
pub fn check_digit_clusters(args: impl IntoIterator<Item = std::ffi::OsString>, cmd: &Command) -> Result<(), String> {
    let (mut shorts, mut longs) = (Vec::new(), Vec::new());
    options_with_values(cmd, &mut shorts, &mut longs);
    let mut skip_next = false;
    for arg in args {
        if std::mem::take(&mut skip_next) {
            continue;
        }
        let Some(arg) = arg.to_str() else { continue };
        if arg == "--" {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            skip_next = !long.contains('=') && longs.iter().any(|l| l == long);
            continue;
        }
        let Some(cluster) = arg.strip_prefix('-') else { continue };
        let mut previous_digit = false;
        for (i, c) in cluster.char_indices() {
            if shorts.contains(&c) {
                // The rest is the option's value, or the next argument is.
                skip_next = i + c.len_utf8() == cluster.len();
                break;
            }
            if c == '0' {
                return Err(format!(
                    "-{cluster}: there is no level 0; the levels are {MIN_LEVEL} (fastest) to {MAX_LEVEL} (strongest; -{MAX_LEVEL} or --level {MAX_LEVEL})"
                ));
            }
            if c.is_ascii_digit() && previous_digit {
                let digits: String = cluster[i - 1..].chars().take_while(char::is_ascii_digit).collect();
                return Err(format!(
                    "-{cluster}: level {digits} does not exist; the levels are {MIN_LEVEL} (fastest) to {MAX_LEVEL} (strongest): -{MIN_LEVEL} .. -{MAX_EMBEDDED_LEVEL}, -{MAX_LEVEL} or --level N"
                ));
            }
            previous_digit = c.is_ascii_digit();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::check_digit_clusters;
    use crate::cli::args::Cli;

    fn check(line: &str) -> Result<(), String> {
        check_digit_clusters(line.split_whitespace().map(Into::into), &Cli::command())
    }

    #[test]
    fn digits_of_values_are_not_levels() {
        for ok in ["-9 x", "-1 -9 x", "-9v x", "-T16 x", "-T 16 x", "-vT16 x", "-o -19 x", "--output -19 x", "extract -g12 x", "-- -19"] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
    }

    #[test]
    fn two_digit_levels_and_level_0_are_refused() {
        for bad in ["-19 x", "-v19 x", "x -10", "-0 x", "-k0"] {
            assert!(check(bad).is_err(), "{bad}");
        }
        assert!(check("-19").unwrap_err().contains("level 19 does not exist"));
    }
}
