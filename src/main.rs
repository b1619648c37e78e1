//! The `chesszip` binary; see `chesszip --help` and README.md.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
