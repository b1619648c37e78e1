//! Compressed input: text that arrives as gzip, bzip2, xz or zstd (`games.pgn.gz`, the lichess
//! database's `.pgn.zst`) is recognised by its magic bytes, whatever its name, and decoded on
//! the fly, so that the archive holds the text inside rather than the compressed bytes.
//!
//! [`open`] peeks at the first bytes of an input and returns a reader of its decoded text: a
//! stream with bounded memory (a decoder's window and a few buffers of 64 KiB, whatever the
//! input's size), which the block pipeline ([`crate::archive::compress`]) reads like any other
//! input. Every member of a multi-member gzip or bzip2 file and every frame or stream of a
//! concatenated zstd or xz file is decoded. Zero bytes after the data (a file padded to a
//! tape or disk block) are accepted as each format's own tool accepts them: any number after
//! the last gzip member or bzip2 stream, xz's stream padding, none after zstd; other bytes
//! after the data are an error. A damaged or truncated input is an
//! [`io::ErrorKind::InvalidData`] or [`io::ErrorKind::UnexpectedEof`] error naming the format,
//! never text cut short in silence. The decoders are the well-kept crates `flate2` (pure Rust),
//! `bzip2` (pure Rust), `liblzma` and `zstd`.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The compressed formats recognised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Compression {
    /// gzip (RFC 1952), e.g. `.pgn.gz`.
    Gzip,
    /// bzip2, e.g. `.pgn.bz2`.
    Bzip2,
    /// xz (LZMA2), e.g. `.pgn.xz`.
    Xz,
    /// zstd (RFC 8878), e.g. the lichess database's `.pgn.zst`.
    Zstd,
}

/// Bytes [`Compression::detect`] looks at.
pub const MAGIC_LEN: usize = 10;

// The magic bytes of each format: the one source of [`Compression::detect`] and of
// [`Members`]' test for another member.
/// gzip (RFC 1952): `ID1 ID2` and the deflate method.
const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];
/// bzip2: `BZh`, then the block size `1`..`9` and one of the two 48-bit magics below.
const BZIP2_MAGIC: [u8; 3] = *b"BZh";
/// bzip2's block magic (the digits of pi).
const BZIP2_BLOCK: [u8; 6] = [0x31, 0x41, 0x59, 0x26, 0x53, 0x59];
/// bzip2's end-of-stream magic (the digits of the square root of pi), first in an empty stream.
const BZIP2_END: [u8; 6] = [0x17, 0x72, 0x45, 0x38, 0x50, 0x90];
/// xz's stream header magic.
const XZ_MAGIC: [u8; 6] = [0xfd, b'7', b'z', b'X', b'Z', 0x00];
/// A zstd frame's magic number (0xFD2FB528, little-endian).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
/// A zstd skippable frame's magic after its first byte (`50`..`5f`): 0x184D2A5?, little-endian.
const ZSTD_SKIPPABLE_TAIL: [u8; 3] = [0x2a, 0x4d, 0x18];

/// Largest zstd window accepted, as a power of two: 2 GiB, the most `zstd --long=31` writes.
/// The decoder holds one window; most files (`zstd -19 --long` included) use 128 MiB or less.
const ZSTD_WINDOW_LOG_MAX: u32 = 31;

/// Buffer of the decoded text, in bytes.
const BUFFER: usize = 1 << 16;

impl Compression {
    /// All formats, in the order of their names.
    pub const ALL: [Compression; 4] = [Compression::Bzip2, Compression::Gzip, Compression::Xz, Compression::Zstd];

    /// The format whose magic bytes `head` (the first up to [`MAGIC_LEN`] bytes of an input)
    /// starts with, or `None` for anything else. The signatures are long enough that no text
    /// matches them: gzip `1f 8b 08` (deflate), bzip2 `BZh1`..`BZh9` followed by the 48-bit
    /// block or end-of-stream magic, xz `fd 37 7a 58 5a 00`, zstd `28 b5 2f fd` or a skippable
    /// frame (`50`..`5f 2a 4d 18`).
    pub fn detect(head: &[u8]) -> Option<Compression> {
        match head {
            _ if head.starts_with(&GZIP_MAGIC) => Some(Compression::Gzip),
            _ if head.starts_with(&BZIP2_MAGIC)
                && matches!(head.get(3), Some(b'1'..=b'9'))
                && (head[4..].starts_with(&BZIP2_BLOCK) || head[4..].starts_with(&BZIP2_END)) =>
            {
                Some(Compression::Bzip2)
            }
            _ if head.starts_with(&XZ_MAGIC) => Some(Compression::Xz),
            _ if head.starts_with(&ZSTD_MAGIC) => Some(Compression::Zstd),
            [0x50..=0x5f, rest @ ..] if rest.starts_with(&ZSTD_SKIPPABLE_TAIL) => Some(Compression::Zstd),
            _ => None,
        }
    }

    /// The bytes that start another member of a multi-member input of this format, as
    /// [`Members`] tells one from other data after a member: gzip's `ID1 ID2` (`1f 8b`, the
    /// first two bytes of [`GZIP_MAGIC`]), bzip2's `BZh`; `None` for xz and zstd, whose
    /// decoders read concatenated streams and frames themselves.
    fn member_start(self) -> Option<&'static [u8]> {
        match self {
            Compression::Gzip => Some(&GZIP_MAGIC[..2]),
            Compression::Bzip2 => Some(&BZIP2_MAGIC),
            Compression::Xz | Compression::Zstd => None,
        }
    }

    /// The format's usual name: `gzip`, `bzip2`, `xz`, `zstd`.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
            Compression::Zstd => "zstd",
        }
    }

    /// The file-name suffixes of the format and what each stands for, as its own tool
    /// (`gzip -d`, `bzip2 -d`, `xz -d`, `zstd -d`) renames them on decompression: `.gz` for
    /// nothing, `.tgz` for `.tar`. Lowercase; compare without regard to case.
    pub fn suffixes(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Compression::Gzip => &[(".gz", ""), (".tgz", ".tar")],
            Compression::Bzip2 => &[(".bz2", ""), (".bz", ""), (".tbz2", ".tar"), (".tbz", ".tar")],
            Compression::Xz => &[(".xz", ""), (".txz", ".tar")],
            Compression::Zstd => &[(".zst", ""), (".tzst", ".tar")],
        }
    }

    /// The name `name` has once decompressed: a suffix of this format ([`Self::suffixes`],
    /// in any case) replaced by what it stands for, so `games.pgn.zst` gives `games.pgn` and
    /// `GAMES.PGN.GZ` gives `GAMES.PGN`. `None` if `name` has no such suffix, or nothing before it.
    pub fn decompressed_name(self, name: &str) -> Option<String> {
        let lower = name.to_ascii_lowercase();
        self.suffixes().iter().find_map(|(suffix, replacement)| {
            let stem = lower.strip_suffix(suffix)?;
            (!stem.is_empty()).then(|| format!("{}{replacement}", &name[..stem.len()]))
        })
    }

    /// A reader of the text `input` decodes to, streaming with bounded memory. Decodes every
    /// member, frame or stream of a concatenated input; see the module documentation for
    /// errors.
    ///
    /// # Errors
    /// From setting up the zstd decoder (out of memory).
    pub fn decoder<'a, R: BufRead + 'a>(self, input: R) -> io::Result<Box<dyn BufRead + 'a>> {
        self.decoder_with(input, Padding::default())
    }

    /// [`Self::decoder`], counting into `padding` the zero bytes after a gzip or bzip2 input's
    /// data.
    fn decoder_with<'a, R: BufRead + 'a>(self, input: R, padding: Padding) -> io::Result<Box<dyn BufRead + 'a>> {
        let input = Marked(input);
        let decoded: Box<dyn Read + 'a> = match self {
            Compression::Gzip => {
                Box::new(Members::new(input, flate2::bufread::GzDecoder::new, flate2::bufread::GzDecoder::into_inner, self, padding))
            }
            Compression::Bzip2 => {
                Box::new(Members::new(input, bzip2::bufread::BzDecoder::new, bzip2::bufread::BzDecoder::into_inner, self, padding))
            }
            Compression::Xz => {
                let stream =
                    liblzma::stream::Stream::new_stream_decoder(u64::MAX, liblzma::stream::CONCATENATED).map_err(io::Error::other)?;
                Box::new(liblzma::bufread::XzDecoder::new_stream(input, stream))
            }
            Compression::Zstd => {
                let mut decoder = zstd::stream::read::Decoder::with_buffer(input)?;
                decoder.window_log_max(ZSTD_WINDOW_LOG_MAX)?;
                Box::new(decoder)
            }
        };
        Ok(Box::new(BufReader::with_capacity(BUFFER, Named { inner: decoded, format: self })))
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Detects the compression of `input` from its first bytes and returns it with a reader of
/// the text: the decoded text for compressed input, else the input's bytes unchanged (those
/// read to detect included). Data whose magic bytes name a format but that does not decode as
/// it is an error of the reader, which [`is_decode_error`] tells from an error of the input
/// itself: a caller can then archive the bytes as they are (the command line's
/// `--no-decompress`).
///
/// # Errors
/// From reading the first bytes of `input`, or from [`Compression::decoder`].
pub fn open<'a, R: BufRead + 'a>(input: R) -> io::Result<(Option<Compression>, Box<dyn BufRead + 'a>)> {
    open_with_padding(input).map(|(compression, reader, _)| (compression, reader))
}

/// Zero bytes found after the data of a gzip or bzip2 input and ignored as padding (a file
/// padded to a tape or disk block; see the module documentation), counted by the reader
/// [`open_with_padding`] returns as it reaches them. xz's stream padding, which the xz
/// decoder reads itself, is not counted.
#[derive(Clone, Debug, Default)]
pub struct Padding(Arc<AtomicU64>);

impl Padding {
    /// Zero bytes ignored after the data so far: all of them once the text has been read to
    /// its end.
    pub fn bytes(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// [`open`], also returning a [`Padding`] that counts the zero bytes after a gzip or bzip2
/// input's data, which the reader drops (`gzip -v` says "trailing zero bytes ignored").
///
/// # Errors
/// As [`open`].
pub fn open_with_padding<'a, R: BufRead + 'a>(mut input: R) -> io::Result<(Option<Compression>, Box<dyn BufRead + 'a>, Padding)> {
    // Read the magic bytes whole even if they arrive in pieces (a pipe), then put them back.
    let mut head = Vec::with_capacity(MAGIC_LEN);
    (&mut input).take(MAGIC_LEN as u64).read_to_end(&mut head)?;
    let whole = io::Cursor::new(head).chain(input);
    let compression = Compression::detect(whole.get_ref().0.get_ref());
    let padding = Padding::default();
    let reader = match compression {
        Some(c) => c.decoder_with(whole, padding.clone())?,
        None => Box::new(whole),
    };
    Ok((compression, reader, padding))
}

/// Whether `error` or one of its sources is an error of the data a [`Compression::decoder`]
/// decodes (damaged, truncated, other data after it), not of the input under it.
pub fn is_decode_error(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(error);
    while let Some(e) = next {
        if e.downcast_ref::<io::Error>().and_then(|io| io.get_ref()).is_some_and(|inner| inner.is::<DecodeError>()) {
            return true;
        }
        next = e.source();
    }
    false
}

/// The message of a decoder's own error, marked so that [`is_decode_error`] can tell it.
#[derive(Debug)]
struct DecodeError(String);

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DecodeError {}

/// A decoder whose errors name its format ("damaged or truncated zstd input, or other data after it: ..."), except
/// those of the input it reads, which pass unchanged.
struct Named<R> {
    inner: R,
    format: Compression,
}

impl<R: Read> Read for Named<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            if e.get_ref().is_some_and(|inner| inner.is::<SourceError>()) {
                let source = e.into_inner().expect("checked").downcast::<SourceError>().expect("checked");
                return source.0;
            }
            let kind = if e.kind() == io::ErrorKind::UnexpectedEof { e.kind() } else { io::ErrorKind::InvalidData };
            io::Error::new(kind, DecodeError(format!("damaged or truncated {} input, or other data after it: {e}", self.format)))
        })
    }
}

/// The members of a gzip file or the streams of a bzip2 file, decoded one after the other
/// until the input ends or only zero bytes are left: `gzip -d` and `bzip2 -d` accept zeros
/// after the last member (a file padded to a tape or disk block), as the xz format accepts
/// its stream padding and `xz -d` does. Any other byte after a member that does not start a
/// member is an error (`gzip -d` and `bzip2 -d` warn of "trailing garbage" and drop it; an
/// archive would lose it for good), as is a member after zeros.
struct Members<R, D> {
    /// The decoder of the member being read.
    member: Option<D>,
    /// The input between two members.
    between: Option<R>,
    /// A decoder of the member starting where its input is.
    start: fn(R) -> D,
    /// The input of a decoder whose member has ended, just after its last byte.
    end: fn(D) -> R,
    format: Compression,
    /// The zero bytes found after the last member.
    padding: Padding,
}

impl<R: BufRead, D: Read> Members<R, D> {
    fn new(input: R, start: fn(R) -> D, end: fn(D) -> R, format: Compression, padding: Padding) -> Self {
        Members { member: Some(start(input)), between: None, start, end, format, padding }
    }
}

impl<R: BufRead, D: Read> Read for Members<R, D> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if let Some(member) = &mut self.member {
                let n = member.read(buf)?;
                if n > 0 {
                    return Ok(n);
                }
                self.between = self.member.take().map(self.end);
            }
            let Some(input) = &mut self.between else { return Ok(0) };
            let next = input.fill_buf()?;
            if next.is_empty() {
                return Ok(0);
            }
            if next[0] != 0 {
                let magic = self.format.member_start().expect("only gzip and bzip2 inputs are read by members");
                let n = next.len().min(magic.len());
                if next[..n] != magic[..n] {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("other data after the {} data (neither another member nor zero bytes)", self.format),
                    ));
                }
                let input = self.between.take().expect("checked");
                self.member = Some((self.start)(input));
                continue;
            }
            // Zeros: padding if nothing else follows them.
            if let Some(zeros) = zeros_to_end(input)? {
                self.padding.0.fetch_add(zeros, Ordering::Relaxed);
                return Ok(0);
            }
            return Err(io::Error::new(io::ErrorKind::InvalidData, format!("other data after zero bytes after the {} data", self.format)));
        }
    }
}

/// Whether `input` holds only zero bytes from where it is to its end (padding after the data,
/// a file written to a tape or disk block), reading up to the first byte that is not zero (or
/// the end). Used after a gzip or bzip2 input's last member and after an archive's last member
/// ([`crate::container::members`]).
///
/// # Errors
/// [`io::Error`] from reading `input`.
pub(crate) fn rest_is_zeros<R: BufRead>(input: &mut R) -> io::Result<bool> {
    Ok(zeros_to_end(input)?.is_some())
}

/// [`rest_is_zeros`], with the number of zero bytes up to the end when they are all there is.
///
/// # Errors
/// [`io::Error`] from reading `input`.
fn zeros_to_end<R: BufRead>(input: &mut R) -> io::Result<Option<u64>> {
    let mut count = 0u64;
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(Some(count));
        }
        let zeros = buf.iter().take_while(|&&b| b == 0).count();
        if zeros < buf.len() {
            return Ok(None);
        }
        input.consume(zeros);
        count += zeros as u64;
    }
}

/// An error of the input under a decoder, marked so that [`Named`] can tell it from the
/// decoder's own.
#[derive(Debug)]
struct SourceError(io::Error);

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for SourceError {}

/// The input under a decoder, marking its errors as [`SourceError`]s.
struct Marked<R>(R);

impl<R> Marked<R> {
    fn mark(e: io::Error) -> io::Error {
        if e.kind() == io::ErrorKind::Interrupted {
            return e;
        }
        io::Error::new(e.kind(), SourceError(e))
    }
}

impl<R: Read> Read for Marked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf).map_err(Self::mark)
    }
}

impl<R: BufRead> BufRead for Marked<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.0.fill_buf().map_err(Self::mark)
    }

    fn consume(&mut self, amount: usize) {
        self.0.consume(amount);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_not_compressed() {
        for text in [&b"[Event \"Rated\"]\n"[..], b"e4 e5 Nf3 1-0\n", b"BZh9 is text", b"BZh91AY&S", b"", b"\x1f\x8b"] {
            assert_eq!(Compression::detect(text), None, "{:?}", String::from_utf8_lossy(text));
        }
    }

    #[test]
    fn names_drop_the_suffix_of_their_format_only() {
        assert_eq!(Compression::Zstd.decompressed_name("x.pgn.zst").as_deref(), Some("x.pgn"));
        assert_eq!(Compression::Gzip.decompressed_name("X.PGN.GZ").as_deref(), Some("X.PGN"));
        assert_eq!(Compression::Gzip.decompressed_name("games.tgz").as_deref(), Some("games.tar"));
        assert_eq!(Compression::Bzip2.decompressed_name("a.pgn.bz2").as_deref(), Some("a.pgn"));
        assert_eq!(Compression::Xz.decompressed_name("a.pgn.xz").as_deref(), Some("a.pgn"));
        assert_eq!(Compression::Xz.decompressed_name("a.pgn.gz"), None);
        assert_eq!(Compression::Zstd.decompressed_name(".zst"), None);
        assert_eq!(Compression::Zstd.decompressed_name("a.pgn"), None);
    }

    /// Reads `input` through [`open`] in pieces of at most 3 bytes (as from a slow pipe).
    fn open_in_pieces(input: &[u8]) -> (Option<Compression>, Vec<u8>) {
        struct Pieces<'a>(&'a [u8]);
        impl Read for Pieces<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = buf.len().min(3).min(self.0.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let (c, mut reader) = open(BufReader::with_capacity(3, Pieces(input))).expect("opens");
        let mut out = Vec::new();
        reader.read_to_end(&mut out).expect("decodes");
        (c, out)
    }

    #[test]
    fn magic_arriving_in_pieces_is_detected_and_plain_text_passes_unchanged() {
        let text = b"1. e4 e5 2. Nf3 Nc6 1-0\n".repeat(20);
        let zst = zstd::encode_all(&text[..], 3).expect("zstd");
        assert_eq!(open_in_pieces(&zst), (Some(Compression::Zstd), text.clone()));
        assert_eq!(open_in_pieces(&text), (None, text.clone()));
        assert_eq!(open_in_pieces(b"e4"), (None, b"e4".to_vec()));
    }

    #[test]
    fn truncated_zstd_is_an_error_naming_the_format() {
        let text = b"1. e4 e5 2. Nf3 Nc6 1-0\n".repeat(200);
        let zst = zstd::encode_all(&text[..], 3).expect("zstd");
        let (detected, mut reader) = open(&zst[..zst.len() - 5]).expect("opens");
        assert_eq!(detected, Some(Compression::Zstd));
        let err = reader.read_to_end(&mut Vec::new()).expect_err("truncated input fails");
        assert!(err.to_string().contains("zstd"), "{err}");
        assert!(is_decode_error(&err), "{err:?}");
        assert!(!is_decode_error(&io::Error::other("disk")), "an error of the input under the decoder is not the decoder's");
    }
}
