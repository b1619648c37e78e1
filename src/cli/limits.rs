//! The decoding limits on the command line (`--max-plies`, `--memlimit`, ...): one argument
//! group shared by every command that decodes archives.

use chesszip::DecodeLimits;
use clap::Args;

/// Ceilings for decoding archives one did not write (see docs/robustness.md, "Limits").
#[derive(Clone, Debug, Default, Args)]
#[command(next_help_heading = "Decoding limits (for archives from elsewhere)")]
pub struct LimitArgs {
    /// Refuse an archive of more than N plies in all (the model's work), before decoding them.
    #[arg(long, value_name = "N")]
    pub max_plies: Option<u64>,
    /// Refuse an archive that holds more than N plies per archive byte (at least 65,536 plies
    /// always allowed); real archives hold 2-3 plies a byte, 1,000 copies of one game ~80.
    #[arg(long, value_name = "N")]
    pub max_work: Option<u64>,
    /// Most bytes of one game (or line) that `extract --game` and `--format movetext` gather
    /// across blocks [default: 16M]: a longer one is refused before any of it is written. A
    /// game inside one block is already bounded by the block (at most 16 MiB of text) and
    /// printed whole whatever this says (but for a block's last game, still open at its end).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_game_bytes: Option<u64>,
    /// Refuse an archive that expands to more than SIZE bytes, before decoding past it.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_output: Option<u64>,
    /// Hold at most about SIZE bytes of text and decoder state at once (rounds of blocks shrink
    /// to fit; a block or raw window that does not fit is refused; `extract` of an archive with
    /// duplicates keeps decoded blocks to copy from in half of it). The model (10-30 MB) comes
    /// on top.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, visible_alias = "memory")]
    pub memlimit: Option<u64>,
    /// Lift every limit above, the default 16M game size included.
    #[arg(long, conflicts_with_all = ["max_plies", "max_work", "max_game_bytes", "max_output", "memlimit"])]
    pub no_limits: bool,
}

impl LimitArgs {
    /// The library's limits: the defaults, with those given replaced.
    pub fn limits(&self) -> DecodeLimits {
        if self.no_limits {
            return DecodeLimits::unlimited();
        }
        let d = DecodeLimits::default();
        DecodeLimits {
            max_plies: self.max_plies.or(d.max_plies),
            max_plies_per_byte: self.max_work.or(d.max_plies_per_byte),
            max_game_bytes: self.max_game_bytes.or(d.max_game_bytes),
            max_output: self.max_output.or(d.max_output),
            memlimit: self.memlimit.or(d.memlimit),
        }
    }
}

/// A size in bytes: a number, with a decimal fraction if a suffix follows, and an optional
/// suffix K, M, G or T (powers of 1024, as xz's `--memlimit`; `KiB`, `MB` and `MiB` read the
/// same). `1.5M` is 1,572,864 bytes; a fraction of a byte is dropped.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let not_a_size = || format!("{s:?} is not a size (a number, optionally with K, M, G or T)");
    let end = t.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(t.len());
    let (num, suffix) = t.split_at(end);
    let (whole, fraction) = num.split_once('.').unwrap_or((num, ""));
    if whole.is_empty() || fraction.contains('.') || (num.contains('.') && fraction.is_empty()) {
        return Err(not_a_size());
    }
    let shift = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(format!("{s:?}: unknown size suffix (use K, M, G or T)")),
    };
    let too_large = || format!("{s:?} is too large");
    let n: u64 = whole.parse().map_err(|_| too_large())?;
    let bytes = n.checked_mul(1 << shift).ok_or_else(too_large)?;
    // The fraction, exactly: digits / 10^len of the unit, rounded down (19 digits at most).
    let digits = &fraction[..fraction.len().min(19)];
    let part = match digits.parse::<u128>() {
        Ok(f) => ((f << shift) / 10u128.pow(digits.len() as u32)) as u64,
        Err(_) => 0,
    };
    bytes.checked_add(part).ok_or_else(too_large)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_binary_suffixes() {
        assert_eq!(parse_size("123"), Ok(123));
        assert_eq!(parse_size("4K"), Ok(4096));
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("1t"), Ok(1 << 40));
        assert!(parse_size("12X").is_err());
        assert!(parse_size("M").is_err());
        assert!(parse_size("99999999999T").is_err());
        assert_eq!(parse_size("1.5M"), Ok(3 << 19));
        assert_eq!(parse_size("0.5k"), Ok(512));
        assert_eq!(parse_size("2.25G"), Ok(9 << 28));
        assert_eq!(parse_size("1.0001"), Ok(1), "a fraction of a byte is dropped");
        for bad in ["1.", ".5M", "1.2.3M", "1,5M", "-1M"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
