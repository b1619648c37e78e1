//! `tune`: fits a level's model parameters on training games (`tune fit`), and traces the
//! embedded model's predictions on a file for plots (`tune trace`).
//!
//! ```text
//! cargo run --release --bin tune -- fit --level 2 \
//!     --train ../shared/data/train/lichess_train.txt \
//!     --heldout ../shared/data/heldout/lichess_heldout.txt
//! cargo run --release --bin tune -- ablate --level 2 --train ... --heldout ...
//! cargo run --release --bin tune -- trace --level 2 FILE --out-dir DIR
//! cargo run --release --bin tune -- outcome --level 2 --train ... --heldout ... [--from FILE --out NEW]
//! cargo run --release --bin tune -- book-bin
//! ```
//! `fit` reads `models/levelN.txt` (or `--from`) for the level's settings (search depth, ...)
//! and as the starting point, fits on `--train`, evaluates on `--heldout`, and writes a new
//! file `--out` (never an existing one: released models do not change). It refuses the benchmark file. With `--book-out FILE` it
//! also writes the prior book's text to FILE and its binary form next to it (`.bin`).
//! `outcome` refits only the end and result weights (the move model, settings and books stay
//! the base's) and prints their training and heldout costs next to the base's.
//! `book-bin` regenerates the embedded binary book (`models/book.bin`) from `models/book.txt`
//! after an edit of the text; rebuild afterwards.

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Parser;

use chesszip::model::Model;
use chesszip::model::book::PriorBook;
use chesszip::model::features::move_layout;
use chesszip::model::transformer::TRANSFORMER_LEVEL;
use chesszip::text::Game;
use chesszip::tune::{TACTICAL_GROUPS, TuneOptions, load_games, tune};

#[derive(Parser)]
#[command(about = "Fit chesszip models on training games and analyse their predictions")]
enum Command {
    /// Fit a level's parameters on training games.
    Fit(Args),
    /// Feature ablation: refit the move model with each feature group left out (nothing
    /// written) and print a Markdown table of train and heldout bits per ply.
    Ablate(AblateArgs),
    /// Code a file with the embedded model of a level and write bits per ply by ply number
    /// and calibration tables (CSV) for plots.
    Trace(TraceArgs),
    /// Regenerate the binary prior book (embedded by the build) from its text.
    BookBin(BookBinArgs),
    /// Write the move decisions of a movetext file as training data for the move network
    /// (`scripts/net/train.py`; format in `src/tune/export.rs`).
    Export(ExportArgs),
    /// Fit only the end and result weights of a level's model (the move model, settings and
    /// books stay) and print their training and heldout costs next to the base's.
    Outcome(OutcomeArgs),
    /// Write a parameter file from a base file and trained linear move weights (what
    /// `scripts/net/export.py` writes next to the network), checking the network file.
    Assemble(AssembleArgs),
}

#[derive(clap::Args)]
struct OutcomeArgs {
    #[command(flatten)]
    data: DataArgs,
    /// Parameter file to start from (default: the level's embedded model).
    #[arg(long)]
    from: Option<PathBuf>,
    /// L-BFGS iterations.
    #[arg(long, default_value_t = 300)]
    iterations: usize,
    /// Line for the written file's header comment (how it was made).
    #[arg(long, default_value = "")]
    note: String,
    /// Where to write the parameters with the refitted end and result weights; must not exist
    /// (a released model is never changed). Nothing is written without it.
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(clap::Args)]
struct AssembleArgs {
    /// Parameter file giving the settings and the end and result weights.
    #[arg(long)]
    base: PathBuf,
    /// Linear move weights (`.linear.i32`, little-endian i32, 1/256 nat).
    #[arg(long)]
    linear: PathBuf,
    /// The network file the parameters go with (parsed as a check).
    #[arg(long)]
    net: PathBuf,
    /// Line for the file's header comment (how it was made).
    #[arg(long, default_value = "")]
    note: String,
    /// Output parameter file; must not exist (a released model is never changed).
    #[arg(long)]
    out: PathBuf,
}

#[derive(clap::Args)]
struct ExportArgs {
    /// Level whose engine settings and hand features to use.
    #[arg(long)]
    level: u8,
    /// Parameter file to use instead of the level's embedded model.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Movetext file (one game per line); never the benchmark.
    input: PathBuf,
    /// Output folder.
    #[arg(long)]
    out: PathBuf,
    /// Ratings of the games, one line per movetext line: `WHITE BLACK TIMECONTROL` as the PGN
    /// tags spell them (`?`, `-` when unknown); each ply then also has its rating inputs (for a
    /// network that reads ratings: docs/notes-ratings.md).
    #[arg(long)]
    ratings: Option<PathBuf>,
}

#[derive(clap::Args)]
struct BookBinArgs {
    /// The prior book's text (the source of truth).
    #[arg(long, default_value = "models/book.txt")]
    text: PathBuf,
    /// Where to write the binary book.
    #[arg(long, default_value = "models/book.bin")]
    out: PathBuf,
}

#[derive(clap::Args)]
struct TraceArgs {
    /// Level of the embedded model to use.
    #[arg(long)]
    level: u8,
    /// Movetext file to code.
    input: PathBuf,
    /// Directory for `<name>.by_ply.csv` and `<name>.calibration.csv`.
    #[arg(long)]
    out_dir: PathBuf,
    /// Name used in the output files (default: the input's file stem).
    #[arg(long)]
    name: Option<String>,
    /// Parameter file to use instead of the level's embedded model.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Move network file (`.net`) to use with `--model`.
    #[arg(long, requires = "model")]
    net: Option<PathBuf>,
    /// Code as if every player's skill class were this one (0: unknown, 1-4: average loss
    /// below 25, 60, 120 centipawns, above) instead of inferring it from the moves so far: an
    /// ablation that measures what the skill inference gains. Canonical SAN input only.
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..5))]
    skill: Option<u8>,
}

/// The level and the games of `fit` and `ablate`.
#[derive(clap::Args)]
struct DataArgs {
    /// Level whose model to fit (1..=9).
    #[arg(long)]
    level: u8,
    /// Training games (movetext, one game per line).
    #[arg(long)]
    train: PathBuf,
    /// Heldout games for validation (movetext).
    #[arg(long)]
    heldout: PathBuf,
    /// Use only this fraction of the training games (learning curves).
    #[arg(long, default_value_t = 1.0)]
    fraction: f64,
}

impl DataArgs {
    /// The training games (the first `fraction` of them) and the heldout games. Refuses the
    /// benchmark file: it is never tuned on.
    fn load(&self) -> anyhow::Result<(Vec<Game>, Vec<Game>)> {
        let read = |p: &PathBuf| -> anyhow::Result<Vec<Game>> {
            if p.file_name().is_some_and(|n| n == "Chess_Games.txt") {
                bail!("{} is the benchmark file: never tune on it", p.display());
            }
            Ok(load_games(&std::fs::read(p).with_context(|| format!("reading {}", p.display()))?))
        };
        let (mut train, heldout) = (read(&self.train)?, read(&self.heldout)?);
        train.truncate(((train.len() as f64) * self.fraction.clamp(0.0, 1.0)).round() as usize);
        eprintln!("level {}: {} training games, {} heldout games", self.level, train.len(), heldout.len());
        Ok((train, heldout))
    }
}

#[derive(clap::Args)]
struct AblateArgs {
    #[command(flatten)]
    data: DataArgs,
    /// A set of groups to leave out together, comma-separated; repeat for more rows
    /// (default: each move-feature group alone, the PSTs as one set, the tactical groups
    /// as one set).
    #[arg(long = "drop")]
    drops: Vec<String>,
    /// L-BFGS iterations per fit.
    #[arg(long, default_value_t = 300)]
    iterations: usize,
}

#[derive(clap::Args)]
struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// Parameter file to start from (default models/levelN.txt).
    #[arg(long)]
    from: Option<PathBuf>,
    /// Where to write the fitted parameters: a new file (a released model is never changed;
    /// add the new file to `RELEASES` in src/model/registry.rs to release it).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Move-feature groups to leave out (ablations), e.g. `--drop check,recapture`.
    #[arg(long, value_delimiter = ',')]
    drop: Vec<String>,
    /// L-BFGS iterations.
    #[arg(long, default_value_t = 300)]
    iterations: usize,
    /// Also write the prior opening book built from the training games here
    /// (models/book.txt; shared by all levels), and its binary form next to it (.bin).
    #[arg(long)]
    book_out: Option<PathBuf>,
    /// Do not write the parameter file (measure only).
    #[arg(long)]
    dry_run: bool,
}

fn main() -> anyhow::Result<()> {
    match Command::parse() {
        Command::Fit(args) => fit(args),
        Command::Ablate(args) => ablate(args),
        Command::Trace(args) => trace(args),
        Command::BookBin(args) => {
            let text = std::fs::read_to_string(&args.text).with_context(|| format!("reading {}", args.text.display()))?;
            write_book_bin(&args.text, &text, &args.out)
        }
        Command::Export(args) => export(args),
        Command::Assemble(args) => assemble(args),
        Command::Outcome(args) => outcome(args),
    }
}

fn outcome(args: OutcomeArgs) -> anyhow::Result<()> {
    if let Some(out) = &args.out {
        if out.exists() {
            bail!("{} exists: a model file is never changed, write a new one", out.display());
        }
        // Checked before the fit, which takes minutes at the deep levels.
        if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty() && !d.is_dir()) {
            bail!("{}: no such folder for --out", dir.display());
        }
    }
    let base = load_model(args.data.level, args.from.as_ref(), None)?;
    let (train, heldout) = args.data.load()?;
    if train.is_empty() || heldout.is_empty() {
        // With no games the fit minimises the penalty alone: every weight 0, a useless model.
        bail!("no games to fit on or to measure: {} training and {} heldout games", train.len(), heldout.len());
    }
    let r = chesszip::tune::tune_outcomes(&base, &train, &heldout, args.iterations, &mut |s| eprintln!("{s}"));
    println!("| model | end bits/ply | result bits/game | end + result, bits/ply |");
    println!("|---|---:|---:|---:|");
    let per_ply = |end: f64, result: f64| end + result * r.heldout_games as f64 / r.heldout_plies.max(1) as f64;
    println!("| base, heldout | {:.4} | {:.4} | {:.4} |", r.end_bits[1], r.result_bits[1], per_ply(r.end_bits[1], r.result_bits[1]));
    println!("| fitted, train | {:.4} | {:.4} | |", r.end_bits[0], r.result_bits[0]);
    println!("| fitted, heldout | {:.4} | {:.4} | {:.4} |", r.end_bits[2], r.result_bits[2], per_ply(r.end_bits[2], r.result_bits[2]));
    if let Some(out) = args.out {
        let source = args.from.map_or_else(|| format!("the embedded level {}", args.data.level), |p| p.display().to_string());
        let header = format!(
            "# chesszip model parameters, level {}: end and result weights refitted on {} by `tune outcome`; the rest from {source}. {}\n",
            r.model.level,
            args.data.train.display(),
            args.note
        );
        std::fs::write(&out, header + &r.model.to_text()).with_context(|| format!("writing {}", out.display()))?;
        eprintln!("wrote {}", out.display());
    }
    Ok(())
}

fn assemble(args: AssembleArgs) -> anyhow::Result<()> {
    if args.out.exists() {
        bail!("{} exists: a model file is never changed, write a new one", args.out.display());
    }
    let text = std::fs::read_to_string(&args.base).with_context(|| format!("reading {}", args.base.display()))?;
    let mut model = Model::parse(&args.base.display().to_string(), &text)?;
    let bytes = std::fs::read(&args.linear).with_context(|| format!("reading {}", args.linear.display()))?;
    let weights: Vec<i32> = bytes.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes"))).collect();
    if bytes.len() % 4 != 0 || weights.len() != move_layout::LEN {
        bail!("{} holds {} bytes, not {} move weights", args.linear.display(), bytes.len(), move_layout::LEN);
    }
    model.move_weights = weights;
    let net_bytes = std::fs::read(&args.net).with_context(|| format!("reading {}", args.net.display()))?;
    let net = chesszip::model::network::Network::parse(&args.net.display().to_string(), &net_bytes)?;
    let header = format!(
        "# chesszip model parameters, level {}: linear move weights trained with the move network {} ({:?}).\n# Settings, end and result weights from {}. {}\n",
        model.level,
        args.net.file_name().unwrap_or_default().to_string_lossy(),
        net.dims(),
        args.base.display(),
        args.note
    );
    std::fs::write(&args.out, header + &model.to_text()).with_context(|| format!("writing {}", args.out.display()))?;
    eprintln!("wrote {}", args.out.display());
    Ok(())
}

/// The embedded model of `level`. Level 10 is refused: its move model is the transformer of
/// weights the user gives, which `tune` does not read, and the embedded level-10 model alone
/// is a linear stand-in that no archive codes with (its bits would be taken for level 10's).
fn builtin(level: u8) -> anyhow::Result<&'static Model> {
    if level == TRANSFORMER_LEVEL {
        bail!(
            "level {TRANSFORMER_LEVEL} codes moves with the transformer of the weights the user gives (`chesszip -{TRANSFORMER_LEVEL} \
             --weights FILE`), which tune does not read: its embedded model alone is a stand-in that no archive codes with; \
             use levels 1-9 (or --from/--model FILE for a parameter file)"
        );
    }
    Ok(Model::builtin(chesszip::model::Level::new(level)?))
}

/// The embedded model of `level` ([`builtin`]), or the parameter file `model` with the network
/// file `net`.
fn load_model(level: u8, model: Option<&PathBuf>, net: Option<&PathBuf>) -> anyhow::Result<Model> {
    let Some(path) = model else { return Ok(builtin(level)?.clone()) };
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut m = Model::parse(&path.display().to_string(), &text)?;
    if let Some(net) = net {
        let bytes = std::fs::read(net).with_context(|| format!("reading {}", net.display()))?;
        m = m.with_network(std::sync::Arc::new(chesszip::model::network::Network::parse(&net.display().to_string(), &bytes)?));
    }
    Ok(m)
}

/// Refuses an ensemble ([`chesszip::model::Member`]) where one model's move weights or features
/// are fitted or exported: the members' logits would be left out.
fn single(model: &Model, what: &str) -> anyhow::Result<()> {
    if let Some(m) = model.members.first() {
        bail!(
            "{what} works on one model, and level {}'s is an ensemble (with {} and others): use its members' levels",
            model.level,
            m.name
        );
    }
    Ok(())
}

fn export(args: ExportArgs) -> anyhow::Result<()> {
    if args.input.file_name().is_some_and(|n| n == "Chess_Games.txt") {
        bail!("{} is the benchmark file: never train on it", args.input.display());
    }
    let model = load_model(args.level, args.model.as_ref(), None)?;
    single(&model, "export")?;
    let text = std::fs::read(&args.input).with_context(|| format!("reading {}", args.input.display()))?;
    let (games, ratings) = match &args.ratings {
        None => (load_games(&text), None),
        Some(path) => {
            let r = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            let (games, ratings) =
                chesszip::tune::export::games_with_ratings(&text, &r).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            (games, Some(ratings))
        }
    };
    let c = chesszip::tune::export::export(&model, &games, ratings.as_deref(), &args.out)
        .with_context(|| format!("writing {}", args.out.display()))?;
    eprintln!(
        "{}: {} games, {} plies, {} moves, {} hand features -> {}",
        args.input.display(),
        c.games,
        c.plies,
        c.moves,
        c.features,
        args.out.display()
    );
    Ok(())
}

/// Parses the prior book text `text` (read from `source`, named in errors) and writes its
/// binary form ([`chesszip::model::book::Book::to_bytes`]) to `out`.
fn write_book_bin(source: &std::path::Path, text: &str, out: &std::path::Path) -> anyhow::Result<()> {
    let book = PriorBook::parse(&source.display().to_string(), text)?.book;
    let bytes = book.to_bytes();
    std::fs::write(out, &bytes).with_context(|| format!("writing {}", out.display()))?;
    eprintln!("wrote {} ({} positions, {} bytes)", out.display(), book.len(), bytes.len());
    Ok(())
}

fn trace(args: TraceArgs) -> anyhow::Result<()> {
    let model = load_model(args.level, args.model.as_ref(), args.net.as_ref())?;
    let text = std::fs::read(&args.input).with_context(|| format!("reading {}", args.input.display()))?;
    let t = chesszip::tune::trace(&model, &text, chesszip::archive::DEFAULT_BLOCK_LINES as usize, args.skill.map(usize::from));
    let name = args.name.unwrap_or_else(|| args.input.file_stem().unwrap_or_default().to_string_lossy().into_owned());
    std::fs::create_dir_all(&args.out_dir)?;
    std::fs::write(args.out_dir.join(format!("{name}.by_ply.csv")), t.by_ply_csv())?;
    std::fs::write(args.out_dir.join(format!("{name}.calibration.csv")), t.calibration_csv())?;
    let (n, bits) = t.by_ply.iter().fold((0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
    let skill = args.skill.map_or(String::new(), |c| format!(" (skill class fixed at {c})"));
    println!("{name}: level {} {n} moves, {:.4} bits per move{skill}", args.level, bits / n.max(1) as f64);
    Ok(())
}

fn ablate(args: AblateArgs) -> anyhow::Result<()> {
    let level = args.data.level;
    let base = builtin(level)?;
    single(base, "ablate")?;
    let drops: Vec<Vec<String>> = if args.drops.is_empty() {
        let names: Vec<&str> = move_layout::GROUPS.iter().map(|g| g.name).collect();
        let pst: Vec<String> = names.iter().filter(|n| n.starts_with("from.") || n.starts_with("to.")).map(|n| n.to_string()).collect();
        let tactical: Vec<String> = TACTICAL_GROUPS.iter().map(|n| n.to_string()).collect();
        let mut d = vec![pst.clone()];
        d.extend(names.iter().filter(|n| !pst.iter().any(|p| p == *n)).map(|n| vec![n.to_string()]));
        if base.tactical {
            d.push(tactical);
        } else {
            d.retain(|g| !tactical.contains(&g[0]));
        }
        d
    } else {
        args.drops.iter().map(|d| d.split(',').map(str::to_string).collect()).collect()
    };
    let (train, heldout) = args.data.load()?;
    let rows = chesszip::tune::ablate(
        base,
        &train,
        &heldout,
        &drops,
        &TuneOptions { max_iter: args.iterations, ..Default::default() },
        &mut |s| eprintln!("  {s}"),
    );
    let full = rows[0].heldout_move_bits;
    println!("| level {level} move model | train bits/ply | heldout bits/ply | heldout change |");
    println!("|---|---:|---:|---:|");
    for r in &rows {
        let name = if r.dropped.is_empty() {
            "all features".to_string()
        } else if r.dropped.len() > 3 {
            format!("without {} .. {} ({} groups)", r.dropped[0], r.dropped[r.dropped.len() - 1], r.dropped.len())
        } else {
            format!("without {}", r.dropped.join(", "))
        };
        println!("| {name} | {:.4} | {:.4} | {:+.4} |", r.train_move_bits, r.heldout_move_bits, r.heldout_move_bits - full);
    }
    Ok(())
}

fn fit(args: Args) -> anyhow::Result<()> {
    if args.book_out.as_ref().is_some_and(|b| b.extension().is_some_and(|e| e == "bin")) {
        bail!("--book-out is the book's text; its binary form goes next to it with the extension .bin");
    }
    for path in args.out.iter().chain(&args.book_out) {
        if path.exists() {
            bail!("{} exists: a released model or book is never changed, write a new file", path.display());
        }
    }
    let from = args.from.clone().unwrap_or_else(|| PathBuf::from(format!("models/level{}.txt", args.data.level)));
    let text = std::fs::read_to_string(&from).with_context(|| format!("reading {}", from.display()))?;
    let base = Model::parse_lenient(&from.display().to_string(), &text)?;
    if base.level != args.data.level {
        bail!("{} is for level {}, not {}", from.display(), base.level, args.data.level);
    }
    single(&base, "fit")?;
    let (train, heldout) = args.data.load()?;
    let opts = TuneOptions { drop_groups: args.drop.clone(), max_iter: args.iterations, ..Default::default() };
    let r = tune(&base, &train, &heldout, &opts, &mut |s| eprintln!("  {s}"));
    let total = r.heldout_move_bits - r.heldout_book_saving + r.heldout_end_bits;
    println!(
        "level {} fraction {} drop [{}]: train moves {:.4} bits/ply, heldout moves {:.4}, book -{:.4}, end {:.4}, result {:.3} bits/game => heldout {:.4} bits/ply",
        args.data.level,
        args.data.fraction,
        args.drop.join(","),
        r.train_move_bits,
        r.heldout_move_bits,
        r.heldout_book_saving,
        r.heldout_end_bits,
        r.heldout_result_bits,
        total
    );
    if !args.dry_run {
        let out = args.out.context("--out is required: a fit writes a new model file (or use --dry-run)")?;
        let header = format!(
            "# chesszip model parameters, level {}.\n# Fitted by `tune` on {} ({} games); heldout {}: {:.4} bits/ply (moves {:.4}, book -{:.4}, end {:.4}).\n# Logits in 1/256 nat; PST rows are ranks 1..8 from the mover's side, files a..h.\n",
            args.data.level,
            args.data.train.file_name().unwrap_or_default().to_string_lossy(),
            train.len(),
            args.data.heldout.file_name().unwrap_or_default().to_string_lossy(),
            total,
            r.heldout_move_bits,
            r.heldout_book_saving,
            r.heldout_end_bits
        );
        std::fs::write(&out, header + &r.model.to_text()).with_context(|| format!("writing {}", out.display()))?;
        eprintln!("wrote {}", out.display());
        if let Some(book) = &args.book_out {
            let header = format!(
                "# chesszip prior opening book: move counts of the positions before ply 20 reached at least\n# twice in {} ({} games). Format: see src/model/book.rs.\n",
                args.data.train.file_name().unwrap_or_default().to_string_lossy(),
                train.len()
            );
            let text = header + &r.book_text;
            std::fs::write(book, &text).with_context(|| format!("writing {}", book.display()))?;
            eprintln!("wrote {}", book.display());
            write_book_bin(book, &text, &book.with_extension("bin"))?;
        }
    }
    Ok(())
}
