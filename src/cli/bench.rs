//! `chesszip bench`: compress, expand and verify a file at chosen levels, next to `xz -9e` and
//! `zstd -19 --long` run on the same file in the same run, and print a table. A gzip, bzip2, xz
//! or zstd file (`games.pgn.zst`) is decoded first, as `compress` decodes it
//! ([`chesszip::compressed`]): every row then measures the text inside, not the compressed bytes.

use std::fmt::Write as _;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use chesszip::compressed::Compression;
use chesszip::model::Level;
use chesszip::model::transformer::{TRANSFORMER_LEVEL, Weights};
use chesszip::{CompressOptions, ExpandOptions, expand_bytes};

use super::args::BenchArgs;
use super::status::{self, say, say_part};

/// One measured row.
struct Row {
    name: String,
    bytes: u64,
    compress: Duration,
    expand: Duration,
    /// Single-thread times, when measured.
    single: Option<(Duration, Duration)>,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs an external compressor on `data` (stdin to stdout) and times compression and
/// decompression; `None` if it is not installed.
fn peer(name: &str, compress: &[&str], decompress: &[&str], data: &[u8], repeat: usize) -> Result<Option<Row>> {
    let run = |args: &[&str], input: &[u8]| -> Result<Option<(Vec<u8>, Duration)>> {
        let start = Instant::now();
        let mut child =
            match Command::new(args[0]).args(&args[1..]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(e).with_context(|| format!("starting {}", args[0])),
            };
        let mut stdin = child.stdin.take().expect("piped");
        let input = input.to_vec();
        let feeder = std::thread::spawn(move || stdin.write_all(&input));
        let out = child.wait_with_output()?;
        feeder.join().expect("feeder thread").ok();
        if !out.status.success() {
            bail!("{} failed", args.join(" "));
        }
        Ok(Some((out.stdout, start.elapsed())))
    };
    let mut c_times = Vec::new();
    let mut e_times = Vec::new();
    let mut size = 0;
    for _ in 0..repeat {
        let Some((packed, t)) = run(compress, data)? else { return Ok(None) };
        c_times.push(t);
        size = packed.len() as u64;
        let Some((back, t)) = run(decompress, &packed)? else { return Ok(None) };
        e_times.push(t);
        if back != data {
            bail!("{name} did not round-trip");
        }
    }
    Ok(Some(Row { name: name.into(), bytes: size, compress: median(c_times), expand: median(e_times), single: None }))
}

/// Times chesszip at `level` with `threads` threads: median compress and expand times.
fn measure(
    data: &[u8],
    level: Level,
    threads: usize,
    block_lines: u32,
    repeat: usize,
    weights: Option<&'static Weights>,
) -> Result<(u64, Duration, Duration, u64)> {
    let opts = CompressOptions { level, threads, block_lines, weights, ..CompressOptions::default() };
    let mut c_times = Vec::new();
    let mut e_times = Vec::new();
    let mut bytes = 0;
    let mut plies = 0;
    for _ in 0..repeat {
        let start = Instant::now();
        let mut archive = Vec::new();
        let summary = chesszip::compress(data, &mut archive, &opts, &|_| {})?;
        c_times.push(start.elapsed());
        bytes = archive.len() as u64;
        plies = summary.stats.plies;
        let start = Instant::now();
        let back = expand_bytes(&archive, &ExpandOptions { threads, ..Default::default() })?;
        e_times.push(start.elapsed());
        if back != data {
            bail!("level {level}: expand did not give back the input");
        }
    }
    Ok((bytes, median(c_times), median(e_times), plies))
}

/// The benchmark in the source tree this binary was built from.
const BUILT_BENCHMARK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/Chess_Games.txt");

/// The benchmark in a source tree at the current directory.
const LOCAL_BENCHMARK: &str = "data/Chess_Games.txt";

/// The file to measure: `file`, else the benchmark of the source tree chesszip was built from,
/// else that of the current directory.
fn bench_file(file: Option<&Path>) -> Result<PathBuf> {
    if let Some(file) = file {
        return Ok(file.to_path_buf());
    }
    match [BUILT_BENCHMARK, LOCAL_BENCHMARK].into_iter().find(|p| Path::new(p).is_file()) {
        Some(p) => Ok(PathBuf::from(p)),
        None => bail!(
            "no FILE given and the benchmark is not where it was built ({BUILT_BENCHMARK}) nor in ./{LOCAL_BENCHMARK}: \
             name the file to measure, e.g. `chesszip bench path/to/Chess_Games.txt`"
        ),
    }
}

/// The text to measure: the bytes of `file`, or, when they are gzip, bzip2, xz or zstd data,
/// the text they decode to, as `compress` reads it ([`chesszip::compressed::open`]); with the
/// format decoded, if any.
///
/// # Errors
/// From reading `file`, or its compressed data not decoding.
fn read_text(file: &Path) -> Result<(Vec<u8>, Option<Compression>)> {
    let reading = || format!("reading {}", file.display());
    let input = std::fs::File::open(file).with_context(reading)?;
    let (compression, mut reader) = chesszip::compressed::open(BufReader::with_capacity(1 << 16, input)).with_context(reading)?;
    let mut text = Vec::new();
    reader.read_to_end(&mut text).with_context(reading).map_err(|e| match compression {
        Some(c) if chesszip::compressed::is_decode_error(e.as_ref()) => e.context(format!("the {c} data inside does not decode")),
        _ => e,
    })?;
    Ok((text, compression))
}

/// Runs the benchmark and prints the table.
pub fn bench(args: &BenchArgs) -> Result<()> {
    // Level 10's weights, read before anything is measured (expanding finds them by sha256),
    // and found (or missed) before the first level runs, not after the levels before 10. Other
    // levels do not read them, as `compress` does not.
    let weights = if args.levels.iter().any(|l| l.get() == TRANSFORMER_LEVEL) {
        Some(Weights::for_compress(args.weights.as_deref().map(Weights::load).transpose()?)?)
    } else {
        if let Some(path) = &args.weights {
            say!("chesszip: --weights {} ignored: only level {TRANSFORMER_LEVEL} uses transformer weights", path.display());
        }
        None
    };
    let file = bench_file(args.file.as_deref())?;
    let (data, decoded) = read_text(&file)?;
    let threads = if args.threads == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { args.threads };
    // At least 1: the argument's range.
    let repeat = args.repeat;
    let mut rows = Vec::new();
    let mut plies = 0;
    // 0: each level's default block size.
    let block_lines = args.block_lines.unwrap_or(0);
    for &level in &args.levels {
        say_part(format_args!("level {level}..."));
        let (bytes, c, e, p) = measure(&data, level, threads, block_lines, repeat, weights)?;
        plies = p;
        let single = if args.per_core {
            let (_, c1, e1, _) = measure(&data, level, 1, block_lines, repeat, weights)?;
            Some((c1, e1))
        } else {
            None
        };
        say!(" {bytes} bytes, verified");
        rows.push(Row { name: format!("chesszip -{level}"), bytes, compress: c, expand: e, single });
    }
    let mut peers = Vec::new();
    if !args.no_peers {
        for (name, c, d) in [
            ("xz -9e", &["xz", "-9e", "-c"][..], &["xz", "-d", "-c"][..]),
            ("zstd -19 --long", &["zstd", "-19", "--long", "-c", "-q"][..], &["zstd", "-d", "--long", "-c", "-q"][..]),
        ] {
            say_part(format_args!("{name}..."));
            match peer(name, c, d, &data, repeat)? {
                Some(row) => {
                    say!(" {} bytes", row.bytes);
                    peers.push(row);
                }
                None => say!(" not installed, skipped"),
            }
        }
    }
    let xz = peers.iter().find(|r| r.name.starts_with("xz")).map(|r| (r.compress, r.expand));
    let mut table = String::new();
    let shape = Shape { file: &file, decoded, bytes: data.len(), plies, threads, repeat, per_core: args.per_core };
    write_table(&mut table, &shape, &rows, &peers, xz).expect("writing to a string");
    let mut out = status::stdout();
    out.write_all(table.as_bytes()).context("writing (stdout)")?;
    out.flush().context("writing (stdout)")?;
    Ok(())
}

/// What was measured, for the table's first line and notes.
struct Shape<'a> {
    file: &'a Path,
    /// The format `file` was decoded from, if it was compressed.
    decoded: Option<Compression>,
    /// Bytes of the text measured (decoded, for a compressed file).
    bytes: usize,
    plies: u64,
    threads: usize,
    repeat: usize,
    per_core: bool,
}

/// The table of [`bench`].
fn write_table(out: &mut String, shape: &Shape<'_>, rows: &[Row], peers: &[Row], xz: Option<(Duration, Duration)>) -> std::fmt::Result {
    let &Shape { file, decoded, bytes, plies, threads, repeat, per_core } = shape;
    let text = match decoded {
        Some(c) => format!("{c} data decoded to {bytes} bytes of text"),
        None => format!("{bytes} bytes"),
    };
    writeln!(
        out,
        "{}: {text}, {plies} plies; {threads} thread(s), median of {repeat} run(s), every archive expanded and compared",
        file.display(),
    )?;
    // Two header lines: what is measured, then its unit.
    write!(out, "{:<18} {:>10} {:>9} {:>10} {:>10} {:>13} {:>13}", "", "", "", "compress", "expand", "compress", "expand")?;
    if xz.is_some() {
        write!(out, " {:>15} {:>15} {:>15}", "compress time", "expand time", "expand time")?;
    }
    writeln!(out)?;
    write!(
        out,
        "{:<18} {:>10} {:>9} {:>10} {:>10} {:>13} {:>13}",
        "", "bytes", "bits/ply", "time (s)", "time (s)", "plies/s/core", "plies/s/core"
    )?;
    if xz.is_some() {
        write!(out, " {:>15} {:>15} {:>15}", "/ xz compress", "/ xz compress", "/ xz expand")?;
    }
    writeln!(out)?;
    let secs = |d: Duration| d.as_secs_f64();
    for r in rows.iter().chain(peers) {
        let is_chesszip = r.name.starts_with("chesszip");
        // Bits per ply and plies per second mean nothing for a file without a ply.
        let bits = if plies == 0 { "-".to_string() } else { format!("{:.4}", 8.0 * r.bytes as f64 / plies as f64) };
        write!(out, "{:<18} {:>10} {:>9} {:>10.3} {:>10.3}", r.name, r.bytes, bits, secs(r.compress), secs(r.expand))?;
        if is_chesszip && plies > 0 {
            // Per core: single-thread runs when measured, else wall time times threads.
            let (c, e) = match r.single {
                Some((c, e)) => (secs(c), secs(e)),
                None => (secs(r.compress) * threads as f64, secs(r.expand) * threads as f64),
            };
            write!(out, " {:>13.0} {:>13.0}", plies as f64 / c, plies as f64 / e)?;
        } else {
            write!(out, " {:>13} {:>13}", "", "")?;
        }
        if let Some((xc, xe)) = xz {
            // Compressing and expanding over xz -9e's compressing (the product's speed target and
            // the README's ratios), and expanding over xz -d's expanding of the xz -9e archive.
            let (c, e) = (secs(r.compress), secs(r.expand));
            write!(out, " {:>15.2} {:>15.2} {:>15.2}", c / secs(xc), e / secs(xc), e / secs(xe))?;
        }
        writeln!(out)?;
    }
    writeln!(out, "(times: wall-clock seconds, median of the runs)")?;
    if xz.is_some() {
        writeln!(
            out,
            "(/ xz compress: the row's time over xz -9e's compress time, in the same run, as the README's \
             tables give it; / xz expand: the row's expand time over xz -d's of the xz -9e archive)"
        )?;
    }
    if !per_core {
        writeln!(out, "(plies/s/core = plies / (wall time x threads); --per-core measures one thread instead)")?;
    }
    if let Some(c) = decoded {
        writeln!(out, "(the file is {c} data: every row compresses the text it decodes to, as `chesszip compress` does)")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(plies: u64) -> String {
        let shape = Shape { file: Path::new("x.txt"), decoded: None, bytes: 100, plies, threads: 2, repeat: 1, per_core: false };
        let row = |name: &str| Row {
            name: name.into(),
            bytes: 40,
            compress: Duration::from_millis(20),
            expand: Duration::from_millis(10),
            single: None,
        };
        let mut out = String::new();
        write_table(&mut out, &shape, &[row("chesszip -2")], &[row("xz -9e")], Some((Duration::from_millis(10), Duration::from_millis(5))))
            .expect("writes");
        out
    }

    #[test]
    fn a_file_without_plies_has_no_rate_per_ply() {
        let row = |t: &str| t.lines().find(|l| l.starts_with("chesszip -2")).expect("a chesszip row").to_string();
        let with = row(&table(32));
        assert!(with.contains("10.0000") && with.contains("800"), "{with}");
        let without = row(&table(0));
        assert!(!without.contains("0.0000") && !without.contains("inf") && !without.contains("NaN"), "{without}");
        assert_eq!(without.split_whitespace().nth(3), Some("-"), "{without}");
    }
}
