//! Compressed downloads (`.pgn.zst`, `.gz`, `.bz2`, `.xz`): the archive holds the PGN inside,
//! is named for it, and expands to it byte for byte; concatenated streams are decoded whole;
//! damaged or truncated input fails and leaves no archive behind. The inputs are real lichess
//! files of the shared data, compressed here with the same crates the decoders come from.

use crate::common;

use std::fs;
use std::io::Write;

use chesszip::compressed::Compression;
use common::{chesszip, listing, stderr_of};

fn lichess(name: &str) -> Vec<u8> {
    fs::read(common::shared_data(&format!("pgn/lichess/{name}"))).expect("lichess PGN readable")
}

/// `data` compressed in `format` as its command-line tool does by default (zstd with its
/// checksum, as `zstd` writes it).
fn encode(format: Compression, data: &[u8]) -> Vec<u8> {
    match format {
        Compression::Gzip => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Compression::Bzip2 => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(9));
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Compression::Xz => {
            let mut e = liblzma::write::XzEncoder::new(Vec::new(), 6);
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Compression::Zstd => {
            let mut e = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
            e.include_checksum(true).unwrap();
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
    }
}

fn suffix(format: Compression) -> &'static str {
    format.suffixes()[0].0
}

/// `data` as `zstd -19 --long` compresses it (level 19, long-distance matching, 128 MiB window).
fn zstd_19_long(data: &[u8]) -> Vec<u8> {
    let mut e = zstd::stream::Encoder::new(Vec::new(), 19).unwrap();
    e.long_distance_matching(true).unwrap();
    e.window_log(27).unwrap();
    e.include_checksum(true).unwrap();
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// The first `n` games of a PGN file: the text before the `n+1`-th game's first tag line (a
/// line starting with `[` after a line that is not a tag), all of it if it has no more games.
fn first_pgn_games(pgn: &[u8], n: usize) -> Vec<u8> {
    let (mut seen, mut at, mut in_tags) = (0, 0, false);
    for line in pgn.split_inclusive(|&b| b == b'\n') {
        let tag = line.starts_with(b"[");
        if tag && !in_tags {
            seen += 1;
            if seen > n {
                return pgn[..at].to_vec();
            }
        }
        in_tags = tag;
        at += line.len();
    }
    pgn.to_vec()
}

/// The value of `key:` in `info`'s output.
fn info_field(info: &str, key: &str) -> String {
    info.lines().find_map(|l| l.strip_prefix(&format!("{key}:"))).unwrap_or_else(|| panic!("info has no {key}: {info}")).trim().to_string()
}

#[test]
fn each_format_of_a_real_lichess_file_is_archived_as_the_pgn_inside() {
    // The first 600 games (~290 KB) of a real month: every format's decoder and the naming
    // are what is tested here, and a fifth of the file keeps the test short.
    let pgn = first_pgn_games(&lichess("2016-05.pgn"), 600);
    let games = pgn.split(|&b| b == b'\n').filter(|l| l.starts_with(b"[Site ")).count();
    assert_eq!(games, 600, "the lichess sample holds {games} games");
    let dir = tempfile::tempdir().unwrap();
    // The archive of the PGN itself, to compare with.
    fs::write(dir.path().join("plain.pgn"), &pgn).unwrap();
    chesszip().args(["compress", "-q"]).arg(dir.path().join("plain.pgn")).assert().success();
    let plain = fs::read(dir.path().join("plain.pgn.chz")).unwrap();
    let zstd_size = zstd_19_long(&pgn).len();
    for format in Compression::ALL {
        let input = dir.path().join(format!("lichess.pgn{}", suffix(format)));
        fs::write(&input, encode(format, &pgn)).unwrap();
        let out = chesszip().args(["compress", "-v"]).arg(&input).output().unwrap();
        assert!(out.status.success(), "{format}: {}", stderr_of(&out));
        // Named for the PGN inside, and saying so with -v (one line, before -v's report).
        let archive = dir.path().join("lichess.pgn.chz");
        let note = stderr_of(&out);
        let first = note.lines().next().unwrap_or_default();
        assert!(first.contains(&format!("{format}-compressed input")) && first.contains("expands to"), "{format}: {note}");
        assert_eq!(note.matches("-compressed input").count(), 1, "{format}: one line of note: {note}");
        let bytes = fs::read(&archive).unwrap_or_else(|e| panic!("{format}: no {}: {e}", archive.display()));
        assert_eq!(bytes, plain, "{format}: the archive is that of the PGN");
        assert!(
            bytes.len() * 10 <= zstd_size * 4,
            "{format}: archive {} bytes, more than 0.4x the {zstd_size} bytes of zstd -19 --long",
            bytes.len()
        );
        let back = chesszip().args(["expand", "-c"]).arg(&archive).output().unwrap();
        assert!(back.status.success(), "{format}: {}", stderr_of(&back));
        assert!(back.stdout == pgn, "{format}: the archive does not expand to the PGN");
        let info = chesszip().arg("info").arg(&archive).output().unwrap();
        let info = String::from_utf8(info.stdout).unwrap();
        assert_eq!(info_field(&info, "text bytes"), pgn.len().to_string(), "{format}: {info}");
        assert_eq!(info_field(&info, "games"), games.to_string(), "{format}: {info}");
        fs::remove_file(&archive).unwrap();
        fs::remove_file(&input).unwrap();
    }
    assert_eq!(listing(dir.path()), ["plain.pgn", "plain.pgn.chz"]);
}

#[test]
fn concatenated_streams_on_standard_input_are_decoded_whole() {
    let pgn = lichess("2017-05.pgn");
    // Cut inside a game, so that neither part is whole on its own.
    let (a, b) = pgn.split_at(pgn.len() / 3 + 7);
    for format in Compression::ALL {
        let joined = [encode(format, a), encode(format, b)].concat();
        let out = chesszip().args(["compress", "-1", "-c", "-v"]).write_stdin(joined).output().unwrap();
        assert!(out.status.success(), "{format}: {}", stderr_of(&out));
        assert!(stderr_of(&out).contains(&format!("(stdin): {format}-compressed input")), "{format}: {}", stderr_of(&out));
        let back = chesszip::expand_bytes(&out.stdout, &common::expand_opts()).expect("archive expands");
        assert!(back == pgn, "{format}: expands to {} bytes, not the {} of the PGN", back.len(), pgn.len());
        // No note without -v (as zstd and xz, which say nothing of what they read), to a file
        // or to standard output, and none with -q.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("x.chz");
        for args in [&["-1", "-c"][..], &["-1", "-o", "-"], &["-1", "-o", file.to_str().unwrap()]] {
            let out = chesszip().args(args).write_stdin(encode(format, b"1. e4 e5 1-0\n")).output().unwrap();
            assert!(out.status.success() && out.stderr.is_empty(), "{format} {args:?}: {}", stderr_of(&out));
        }
        assert!(file.exists(), "{format}");
        let out = chesszip().args(["-1", "-c", "-q"]).write_stdin(encode(format, b"1. e4 e5 1-0\n")).output().unwrap();
        assert!(out.status.success() && out.stderr.is_empty(), "{format}: {}", stderr_of(&out));
    }
}

#[test]
fn damaged_or_truncated_input_fails_and_leaves_no_archive() {
    let pgn = lichess("2017-05.pgn");
    for format in Compression::ALL {
        let good = encode(format, &pgn);
        let mut flipped = good.clone();
        let middle = flipped.len() / 2;
        for byte in &mut flipped[middle..middle + 16] {
            *byte ^= 0x55;
        }
        let truncated = &good[..good.len() / 2];
        for (what, bytes) in [("truncated", truncated), ("damaged", &flipped[..])] {
            let dir = tempfile::tempdir().unwrap();
            let input = dir.path().join(format!("x.pgn{}", suffix(format)));
            fs::write(&input, bytes).unwrap();
            let out = chesszip().args(["compress", "-1"]).arg(&input).output().unwrap();
            assert_eq!(out.status.code(), Some(1), "{what} {format}: {}", stderr_of(&out));
            let err = stderr_of(&out);
            assert!(err.contains(&format!("damaged or truncated {format} input")), "{what} {format}: {err}");
            assert_eq!(listing(dir.path()), [format!("x.pgn{}", suffix(format))], "{what} {format}: files left");
        }
    }
}

#[test]
fn help_says_the_archive_holds_the_text_inside() {
    let out = chesszip().args(["compress", "--help"]).output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains("the archive holds the text") && help.contains("games.pgn.zst"), "{help}");
}

/// Two inputs of one run named to the same archive (`s.pgn` and `s.pgn.gz` both give
/// `s.pgn.chz`): the second is refused, even with `-f`, and the first archive is kept.
#[test]
fn two_inputs_for_one_archive_do_not_overwrite_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let plain = common::first_games(3);
    let other = common::first_games(5);
    fs::write(dir.path().join("s.pgn"), &plain).unwrap();
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    e.write_all(&other).unwrap();
    fs::write(dir.path().join("s.pgn.gz"), e.finish().unwrap()).unwrap();
    let out = chesszip().current_dir(dir.path()).args(["-f", "-q", "s.pgn", "./s.pgn.gz"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("written from another input of this run"), "{}", stderr_of(&out));
    let archive = fs::read(dir.path().join("s.pgn.chz")).unwrap();
    assert_eq!(chesszip::expand_bytes(&archive, &common::expand_opts()).unwrap(), plain);
}

/// Input that does not decode (text that only starts like bzip2, a damaged download) is an
/// error that names `--no-decompress`, which archives such a file, or any compressed one, as
/// its bytes; the archive expands to them byte for byte.
#[test]
fn no_decompress_archives_what_does_not_decode_as_its_bytes() {
    let pgn = lichess("2017-05.pgn");
    let dir = tempfile::tempdir().unwrap();
    let mut text = b"BZh91AY&SY is how this note begins, and then games follow\n".to_vec();
    text.extend_from_slice(&pgn);
    let gz = encode(Compression::Gzip, &pgn);
    for (name, bytes) in [("looks-like-bzip2.pgn", &text[..]), ("cut.pgn.gz", &gz[..gz.len() / 2]), ("whole.pgn.gz", &gz[..])] {
        let input = dir.path().join(name);
        fs::write(&input, bytes).unwrap();
        if name != "whole.pgn.gz" {
            let out = chesszip().arg("compress").arg(&input).output().unwrap();
            assert_eq!(out.status.code(), Some(1), "{name}: {}", stderr_of(&out));
            assert!(stderr_of(&out).contains("does not decode (--no-decompress"), "{name}: {}", stderr_of(&out));
        }
        let out = chesszip().args(["compress", "-f", "--no-decompress"]).arg(&input).output().unwrap();
        assert!(out.status.success(), "{name}: {}", stderr_of(&out));
        let back = chesszip().arg("expand").arg("-c").arg(dir.path().join(format!("{name}.chz"))).output().unwrap();
        assert!(back.status.success(), "{name}: {}", stderr_of(&back));
        assert!(back.stdout == bytes, "{name}: expands to the bytes given");
    }
}

/// Zero bytes after the last member (a `.gz` padded to a tape or disk block) are accepted as
/// each format's own tool accepts them: `gzip -d` and `bzip2 -d` ignore zeros after the data,
/// `xz -d` accepts stream padding (a multiple of 4 zero bytes); `zstd -d` refuses them, and so
/// does chesszip. The archive holds the text, which expands byte for byte; the padding, like
/// the compressed bytes, is not kept. Other bytes after the data, or a member after zeros,
/// stay an error naming `--no-decompress`, from a file and from standard input.
#[test]
fn zero_padding_after_compressed_input_is_accepted_as_its_tool_accepts_it() {
    let text = common::first_games(40);
    let dir = tempfile::tempdir().unwrap();
    for format in Compression::ALL {
        let packed = encode(format, &text);
        let padded = [&packed[..], &[0u8; 1024][..]].concat();
        let two_then_zeros = [&packed[..], &packed[..], &[0u8; 4096][..]].concat();
        for (what, bytes) in [("padded", &padded), ("two members then zeros", &two_then_zeros)] {
            let input = dir.path().join(format!("x.pgn{}", suffix(format)));
            fs::write(&input, bytes).unwrap();
            let from_file = chesszip().args(["-q", "-1", "-c"]).arg(&input).output().unwrap();
            let from_stdin = chesszip().args(["-q", "-1", "-c"]).write_stdin(bytes.clone()).output().unwrap();
            for (how, out) in [("file", from_file), ("stdin", from_stdin)] {
                if format == Compression::Zstd {
                    assert_eq!(out.status.code(), Some(1), "{format} {what} {how}: zstd -d refuses zeros: {}", stderr_of(&out));
                    assert!(stderr_of(&out).contains("--no-decompress"), "{format} {what} {how}: {}", stderr_of(&out));
                    continue;
                }
                assert!(out.status.success() && out.stderr.is_empty(), "{format} {what} {how}: {}", stderr_of(&out));
                let back = chesszip::expand_bytes(&out.stdout, &common::expand_opts()).expect("archive expands");
                let want = if what == "padded" { text.clone() } else { [&text[..], &text[..]].concat() };
                assert!(back == want, "{format} {what} {how}: expands to {} bytes, not {}", back.len(), want.len());
            }
        }
        if format == Compression::Zstd || format == Compression::Xz {
            continue; // as their tools: an error already (xz: padding not a multiple of 4)
        }
        let garbage = [&packed[..], b"trailing notes\n"].concat();
        let member_after_zeros = [&packed[..], &[0u8; 8][..], &packed[..]].concat();
        for (what, bytes) in [("garbage", garbage), ("a member after zeros", member_after_zeros)] {
            let out = chesszip().args(["-q", "-1", "-c"]).write_stdin(bytes).output().unwrap();
            assert_eq!(out.status.code(), Some(1), "{format} {what}: {}", stderr_of(&out));
            let err = stderr_of(&out);
            assert!(
                err.contains("other data after") && err.contains(&format!("after the {format} data")) && err.contains("--no-decompress"),
                "{format} {what}: {err}"
            );
        }
    }
}

/// With -v, zero padding dropped after gzip or bzip2 data is said in one line (as `gzip -v`
/// says "trailing zero bytes ignored"); nothing without -v, and nothing for input without
/// padding. From a file and from standard input.
#[test]
fn verbose_says_zero_padding_after_compressed_input_was_ignored() {
    let text = common::first_games(40);
    let dir = tempfile::tempdir().unwrap();
    for format in [Compression::Gzip, Compression::Bzip2] {
        let packed = encode(format, &text);
        for zeros in [0, 1024] {
            let bytes = [&packed[..], &vec![0u8; zeros][..]].concat();
            let input = dir.path().join(format!("x.pgn{}", suffix(format)));
            fs::write(&input, &bytes).unwrap();
            for verbose in [true, false] {
                let flags = if verbose { ["-v", "-1", "-c"] } else { ["-q", "-1", "-c"] };
                let from_file = chesszip().args(flags).arg(&input).output().unwrap();
                let from_stdin = chesszip().args(flags).write_stdin(bytes.clone()).output().unwrap();
                for (how, out) in [("file", from_file), ("stdin", from_stdin)] {
                    let err = stderr_of(&out);
                    assert!(out.status.success(), "{format} {zeros} {how}: {err}");
                    let said: Vec<&str> = err.lines().filter(|l| l.contains("zero byte")).collect();
                    if verbose && zeros > 0 {
                        assert_eq!(said.len(), 1, "{format} {zeros} {how}: {err}");
                        assert!(said[0].ends_with(&format!("1024 zero bytes after the {format} data ignored (zero padding)")), "{err}");
                    } else {
                        assert!(said.is_empty(), "{format} {zeros} {how} verbose {verbose}: {err}");
                    }
                }
            }
        }
    }
}

/// A file whose suffix names another format than its content (`x.pgn.zst` holding gzip data,
/// recognised by its content) is decoded by its content and loses the suffix all the same, as
/// `zstd -d` names what it decodes: the archive, which holds the text, is x.pgn.chz and
/// expands to x.pgn (before: x.pgn.zst.chz, expanding to plain text named x.pgn.zst). With -v
/// the note says what the name claimed.
#[test]
fn a_suffix_of_another_format_is_dropped_and_said() {
    let pgn = first_pgn_games(&lichess("2017-05.pgn"), 20);
    let dir = tempfile::tempdir().unwrap();
    for (content, named) in
        [(Compression::Gzip, Compression::Zstd), (Compression::Zstd, Compression::Gzip), (Compression::Xz, Compression::Bzip2)]
    {
        let input = dir.path().join(format!("x.pgn{}", suffix(named)));
        fs::write(&input, encode(content, &pgn)).unwrap();
        let out = chesszip().args(["-v", "-1"]).arg(&input).output().unwrap();
        let err = stderr_of(&out);
        assert!(out.status.success(), "{content} named {named}: {err}");
        let mut want = [format!("x.pgn{}", suffix(named)), "x.pgn.chz".to_string()];
        want.sort();
        assert_eq!(listing(dir.path()), want, "{content} named {named}: {err}");
        let note = err.lines().find(|l| l.contains("-compressed input")).unwrap_or_default();
        assert!(note.contains(&format!("{content}-compressed input (named {}, for {named})", suffix(named))), "{note}");
        assert!(note.contains("x.pgn.chz expands to") && note.ends_with("x.pgn"), "{note}");
        fs::remove_file(&input).unwrap();
        chesszip().args(["-q", "-d"]).arg(dir.path().join("x.pgn.chz")).assert().success();
        assert!(fs::read(dir.path().join("x.pgn")).unwrap() == pgn, "{content} named {named}: expands to the PGN, named x.pgn");
        fs::remove_file(dir.path().join("x.pgn")).unwrap();
        fs::remove_file(dir.path().join("x.pgn.chz")).unwrap();
    }
}
