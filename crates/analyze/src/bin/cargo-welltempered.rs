//! `cargo welltempered check [PATH] [--format text|json] [--fix]`: prints the channel-topology
//! remarks of a crate on stdout, then a summary line on stderr (the crate, its channels by kind
//! of verdict, the lines read), and migrates it with `--fix`; `cargo welltempered reach` prints
//! the reach table. Exit code 0 on success, 1 on error (the message, naming file:line, on
//! stderr). A reader that stops reading early (`| head`) ends the output quietly: not an error.
#![forbid(unsafe_code)]

use clap::{Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "cargo-welltempered",
    about = "Channel topologies of a crate, proved statically"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Cmd {
    /// Analyses the crate at PATH (default: the current directory).
    Check {
        /// The crate (a directory holding Cargo.toml).
        path: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Rewrite the constructors to welltempered::channel (checked with cargo check).
        #[arg(long)]
        fix: bool,
        /// Add welltempered as a path dependency from DIR instead of version "0.1".
        #[arg(long)]
        welltempered_path: Option<PathBuf>,
    },
    /// Fetches the pinned reach corpus (once), runs the analysis over it and prints WTC's table.
    Reach {
        /// Do not fetch; use what is already in the cargo registry.
        #[arg(long)]
        offline: bool,
    },
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("welltempered") {
        args.remove(1);
    }
    let cli = Cli::parse_from(args);
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), welltempered_analyze::Error> {
    match cli.cmd {
        Cmd::Check {
            path,
            format,
            fix,
            welltempered_path,
        } => {
            let path = path.unwrap_or_else(|| PathBuf::from("."));
            let analysis = welltempered_analyze::analyze_crate(&path)?;
            match format {
                Format::Text => emit(&analysis.to_string())?,
                Format::Json => emit(&format!(
                    "{}\n",
                    welltempered_analyze::remark::to_json(&analysis)
                ))?,
            }
            eprintln!(
                "{}: {}; {} lines of Rust",
                analysis.root.display(),
                analysis.summary(),
                analysis.lines
            );
            if fix {
                let report = welltempered_analyze::fix::apply(
                    &analysis,
                    welltempered_path.as_deref(),
                    None,
                )?;
                emit(&report.to_string())?;
            }
            Ok(())
        }
        Cmd::Reach { offline } => {
            let opts = welltempered_analyze::reach::Options::default();
            if !offline {
                welltempered_analyze::reach::fetch(&opts)?;
            }
            let report = welltempered_analyze::reach::run(&opts)?;
            emit(&report.to_text())
        }
    }
}

/// Writes `text` to stdout. A closed pipe (the reader stopped early, as `head` does) ends the
/// output silently; any other failure is an error.
fn emit(text: &str) -> Result<(), welltempered_analyze::Error> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(welltempered_analyze::Error::Io {
            file: PathBuf::from("<stdout>"),
            message: e.to_string(),
        }),
    }
}
