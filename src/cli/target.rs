//! Where data comes from and goes to: standard streams, or files written through a temporary
//! file in the target directory that is renamed into place only on success.

use std::ffi::OsStr;
use std::fs::{self, File, Permissions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, Result, bail};
use chesszip::compressed::Compression;
use tempfile::NamedTempFile;

use super::cleanup;
use super::labeled::Labeled;

/// The suffix of archives.
pub const SUFFIX: &str = ".chz";

/// An input: standard input or a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Standard input (`-` or no file).
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Source {
    /// The source named by a command-line argument.
    pub fn from_arg(arg: &Path) -> Source {
        if arg.as_os_str() == "-" { Source::Stdin } else { Source::File(arg.to_path_buf()) }
    }

    /// The name used in messages.
    pub fn name(&self) -> String {
        match self {
            Source::Stdin => "(stdin)".into(),
            Source::File(p) => p.display().to_string(),
        }
    }
}

/// An output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sink {
    /// Standard output.
    Stdout,
    /// A file, written through a temporary file.
    File(PathBuf),
    /// An existing character device or FIFO, written in place.
    Device(PathBuf),
    /// Nowhere (testing archives).
    Discard,
}

impl Sink {
    /// The sink named by `-o`.
    pub fn from_arg(arg: &Path) -> Sink {
        if arg.as_os_str() == "-" { Sink::Stdout } else { Sink::File(arg.to_path_buf()) }
    }

    /// The name used in messages.
    pub fn name(&self) -> String {
        match self {
            Sink::Stdout => "(stdout)".into(),
            Sink::File(p) | Sink::Device(p) => p.display().to_string(),
            Sink::Discard => "(nowhere)".into(),
        }
    }
}

/// `FILE.chz` for `FILE`. For a `compression`-compressed input, the archive holds the text
/// inside, and is named for it as that format's own tool names the decompressed file
/// ([`Compression::decompressed_name`]) with `.chz` added: `x.pgn.zst` gives `x.pgn.chz`, which
/// expands to `x.pgn`. A name with another format's suffix (`x.pgn.zst` holding gzip data,
/// recognised by its content) loses that suffix all the same, as `zstd -d` names what it
/// decodes by its content: the archive holds text, whatever the suffix claimed. A name
/// without any of these suffixes just gains `.chz`, and so does every name of an input that
/// is not compressed (`compression` `None`).
pub fn archive_name(path: &Path, compression: Option<Compression>) -> PathBuf {
    let decompressed = compression
        .zip(path.file_name().and_then(|n| n.to_str()))
        .and_then(|(c, n)| c.decompressed_name(n).or_else(|| compression_suffix(n).and_then(|(named, _)| named.decompressed_name(n))));
    let mut name = match decompressed {
        Some(n) => path.with_file_name(n).into_os_string(),
        None => path.as_os_str().to_os_string(),
    };
    name.push(SUFFIX);
    PathBuf::from(name)
}

/// The compressed format whose file-name suffix ([`Compression::suffixes`], in any case) the
/// file name `name` ends in, with that suffix as written there (lowercase): `(Zstd, ".zst")`
/// for `x.pgn.zst`; `None` for other names and for a name that is only a suffix.
pub fn compression_suffix(name: &str) -> Option<(Compression, &'static str)> {
    let lower = name.to_ascii_lowercase();
    Compression::ALL.into_iter().find_map(|c| {
        c.suffixes().iter().find(|(suffix, _)| lower.len() > suffix.len() && lower.ends_with(suffix)).map(|(suffix, _)| (c, *suffix))
    })
}

/// `name` without the ASCII `suffix` (compared without regard to ASCII case when
/// `ignore_case`), for any file name, UTF-8 or not; `None` if it does not end so or is nothing
/// else.
fn strip_suffix_os<'a>(name: &'a OsStr, suffix: &str, ignore_case: bool) -> Option<&'a OsStr> {
    let bytes = name.as_encoded_bytes();
    let cut = bytes.len().checked_sub(suffix.len()).filter(|&c| c > 0)?;
    let tail = &bytes[cut..];
    let matches = if ignore_case { tail.eq_ignore_ascii_case(suffix.as_bytes()) } else { tail == suffix.as_bytes() };
    // SAFETY: the tail is the ASCII `suffix`, so the cut lies just before an ASCII character,
    // where `OsStr::from_encoded_bytes_unchecked` allows a split.
    matches.then(|| unsafe { OsStr::from_encoded_bytes_unchecked(&bytes[..cut]) })
}

/// `FILE` for `FILE.chz`; `None` if `path` does not end in `.chz` or is nothing else. File
/// names need not be UTF-8.
pub fn text_name(path: &Path) -> Option<PathBuf> {
    let stem = strip_suffix_os(path.file_name()?, SUFFIX, false)?;
    Some(path.with_file_name(stem))
}

/// The suffix of movetext written by converting an archive (`expand --format movetext`).
pub const MOVETEXT_SUFFIX: &str = ".txt";

/// The name of the movetext converted from the archive `path`: [`text_name`] with a `.pgn`
/// suffix (any case) replaced by `.txt`, and `.txt` added to other names that lack it:
/// `x.pgn.chz` and `x.chz` give `x.txt`, `x.txt.chz` gives `x.txt`. `None` as for [`text_name`].
pub fn movetext_name(path: &Path) -> Option<PathBuf> {
    let text = text_name(path)?;
    let name = text.file_name()?;
    if name.as_encoded_bytes().to_ascii_lowercase().ends_with(MOVETEXT_SUFFIX.as_bytes()) {
        return Some(text);
    }
    let mut stem = strip_suffix_os(name, ".pgn", true).unwrap_or(name).to_os_string();
    stem.push(MOVETEXT_SUFFIX);
    Some(text.with_file_name(stem))
}

/// Whether `path` names an archive by its suffix.
pub fn has_archive_suffix(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n.as_encoded_bytes().ends_with(SUFFIX.as_bytes()))
}

/// How an allowed target is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    /// A new or regular file: written through a temporary file renamed over it.
    Regular,
    /// An existing character device or FIFO (`/dev/null`, a named pipe): written in place,
    /// never replaced.
    Device,
}

/// Checks that writing `target` is allowed and says how: a regular file must not exist unless
/// `force`, and must never be the input file itself; character devices and FIFOs are written
/// in place; other kinds of files are refused.
pub fn check_target(target: &Path, input: Option<&Path>, force: bool) -> Result<TargetKind> {
    let Ok(meta) = fs::metadata(target) else {
        return Ok(TargetKind::Regular);
    };
    if let Some(input) = input
        && let (Ok(a), Ok(b)) = (fs::canonicalize(input), fs::canonicalize(target))
        && a == b
    {
        bail!("{}: output would overwrite the input", target.display());
    }
    if meta.is_dir() {
        bail!("{}: is a directory", target.display());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let kind = meta.file_type();
        if kind.is_char_device() || kind.is_fifo() {
            return Ok(TargetKind::Device);
        }
    }
    if !meta.is_file() {
        bail!("{}: not a regular file", target.display());
    }
    if !force {
        bail!("{} already exists; use -f to overwrite it", target.display());
    }
    Ok(TargetKind::Regular)
}

/// Opens an existing device or FIFO for writing in place.
pub fn open_device(target: &Path) -> Result<Labeled<BufWriter<File>>> {
    let file = fs::OpenOptions::new().write(true).open(target).with_context(|| format!("cannot open {}", target.display()))?;
    Ok(Labeled::new(BufWriter::with_capacity(1 << 16, file), format!("writing {}", target.display())))
}

/// A file being written: a temporary file beside the target, renamed over it by
/// [`PendingFile::commit`]. Dropping it uncommitted deletes the temporary file, so no partial
/// output ever appears under the target's name; and while it lives the temporary file is
/// registered for removal if the process is told to stop ([`super::cleanup`]).
pub struct PendingFile {
    out: Labeled<BufWriter<NamedTempFile>>,
    target: PathBuf,
    dir: PathBuf,
    force: bool,
    registration: cleanup::Registration,
}

impl PendingFile {
    /// Creates the temporary file in `target`'s directory with `permissions` (those of the
    /// input; the umask applies when there is none).
    ///
    /// The error of a directory where no file can be created names `target`, not the
    /// temporary file (an internal name the user never asked for).
    pub fn create(target: &Path, force: bool, permissions: Option<Permissions>) -> Result<PendingFile> {
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".chesszip-").suffix(".tmp");
        #[cfg(unix)]
        let permissions = permissions.or_else(|| Some(std::os::unix::fs::PermissionsExt::from_mode(0o666)));
        if let Some(p) = permissions {
            builder.permissions(p);
        }
        let temp = builder.tempfile_in(dir).map_err(without_temp_name).with_context(|| format!("cannot create {}", target.display()))?;
        let registration = cleanup::register(temp.path());
        let label = format!("writing {}", target.display());
        Ok(PendingFile {
            out: Labeled::new(BufWriter::with_capacity(1 << 16, temp), label),
            target: target.to_path_buf(),
            dir: dir.to_path_buf(),
            force,
            registration,
        })
    }

    /// The writer of the contents.
    pub fn writer(&mut self) -> &mut impl Write {
        &mut self.out
    }

    /// Flushes the contents, gives the file the modification time `modified` (the input's, as
    /// gzip and zstd do; best effort), syncs it to the disk, and renames the temporary file to
    /// the target (over an existing file only with `force`), then syncs the directory: after a
    /// crash the target holds either its old contents or all the new ones.
    pub fn commit(self, modified: Option<SystemTime>) -> Result<()> {
        let target = self.target;
        let temp =
            self.out.into_inner().into_inner().map_err(|e| e.into_error()).with_context(|| format!("writing {}", target.display()))?;
        if let Some(t) = modified {
            let _ = temp.as_file().set_modified(t);
        }
        temp.as_file().sync_all().with_context(|| format!("syncing {}", target.display()))?;
        let persisted = if self.force { temp.persist(&target) } else { temp.persist_noclobber(&target) };
        persisted.map_err(|e| {
            if e.error.kind() == io::ErrorKind::AlreadyExists {
                anyhow::anyhow!("{} already exists; use -f to overwrite it", target.display())
            } else {
                anyhow::Error::new(e.error).context(format!("cannot rename the output to {}", target.display()))
            }
        })?;
        drop(self.registration);
        // The rename itself is durable once the directory is synced (where directories can be
        // opened and synced; elsewhere this is best effort).
        if let Ok(dir) = File::open(&self.dir) {
            let _ = dir.sync_all();
        }
        Ok(())
    }
}

/// `e` (tempfile's error, which ends with ` at path "TEMPORARY FILE"`) without the temporary
/// file's name, which the user never asked for.
fn without_temp_name(e: io::Error) -> io::Error {
    let text = e.to_string();
    match text.rsplit_once(" at path ") {
        Some((message, _)) => io::Error::new(e.kind(), message.to_string()),
        None => e,
    }
}

/// Whether `meta` is of a device or socket: an input that is no file, refused without -f (as
/// gzip does). FIFOs are read (`chesszip <(zcat games.gz)`, archives fed through a pipe).
pub fn is_device(meta: &fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        t.is_char_device() || t.is_block_device() || t.is_socket()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

/// Opens an input file, refusing directories.
pub fn open_input(path: &Path) -> Result<File> {
    let file = File::open(path).context("cannot open")?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converted_movetext_is_named_for_what_it_holds() {
        let name = |p: &str| movetext_name(Path::new(p)).map(|p| p.display().to_string());
        assert_eq!(name("x.pgn.chz").as_deref(), Some("x.txt"));
        assert_eq!(name("dir/Games.PGN.chz").as_deref(), Some("dir/Games.txt"));
        assert_eq!(name("x.txt.chz").as_deref(), Some("x.txt"));
        assert_eq!(name("x.chz").as_deref(), Some("x.txt"));
        assert_eq!(name("x.data.chz").as_deref(), Some("x.data.txt"));
        assert_eq!(name(".pgn.chz").as_deref(), Some(".pgn.txt"));
        assert_eq!(name("x.pgn"), None);
        assert_eq!(name(".chz"), None);
        assert_eq!(name(".txt.chz").as_deref(), Some(".txt"));
    }

    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8_are_named_too() {
        use std::os::unix::ffi::OsStrExt;
        let path = |b: &[u8]| PathBuf::from(OsStr::from_bytes(b));
        assert_eq!(text_name(&path(b"d/caf\xe9.pgn.chz")), Some(path(b"d/caf\xe9.pgn")));
        assert_eq!(movetext_name(&path(b"caf\xe9.PGN.chz")), Some(path(b"caf\xe9.txt")));
        assert_eq!(archive_name(&path(b"caf\xe9.pgn"), None), path(b"caf\xe9.pgn.chz"));
        assert!(has_archive_suffix(&path(b"\xff.chz")));
        assert_eq!(text_name(&path(b"\xff.chzz")), None);
    }

    #[test]
    fn archives_of_compressed_input_are_named_for_the_text_inside() {
        let name = |p: &str, c| archive_name(Path::new(p), c).display().to_string();
        assert_eq!(name("dir/x.pgn.zst", Some(Compression::Zstd)), "dir/x.pgn.chz");
        assert_eq!(name("x.pgn.gz", Some(Compression::Gzip)), "x.pgn.chz");
        assert_eq!(name("x.pgn.bz2", Some(Compression::Bzip2)), "x.pgn.chz");
        assert_eq!(name("x.pgn.XZ", Some(Compression::Xz)), "x.pgn.chz");
        // A name of another format's suffix loses it too, as zstd -d names what it decodes:
        // the archive holds text, and expands to x.pgn, not to text named x.pgn.gz.
        assert_eq!(name("x.pgn.gz", Some(Compression::Zstd)), "x.pgn.chz");
        assert_eq!(name("x.pgn.ZST", Some(Compression::Gzip)), "x.pgn.chz");
        assert_eq!(name("x.tbz2", Some(Compression::Xz)), "x.tar.chz");
        assert_eq!(compression_suffix("x.pgn.ZST"), Some((Compression::Zstd, ".zst")));
        assert_eq!(compression_suffix("x.tgz"), Some((Compression::Gzip, ".tgz")));
        assert_eq!((compression_suffix(".gz"), compression_suffix("x.pgn")), (None, None));
        assert_eq!(name("x.pgn", Some(Compression::Zstd)), "x.pgn.chz");
        assert_eq!(name(".zst", Some(Compression::Zstd)), ".zst.chz");
        assert_eq!(name("x.pgn.zst", None), "x.pgn.zst.chz");
        assert_eq!(text_name(Path::new(&name("x.pgn.zst", Some(Compression::Zstd)))), Some("x.pgn".into()));
    }
}
