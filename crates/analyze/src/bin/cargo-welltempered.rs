//! `cargo welltempered check [PATH] [--format text|json] [--fix ...]`: prints the channel-topology
//! remarks of a crate on stdout, then a summary line on stderr (the crate, its channels by kind
//! of verdict, the lines read), and migrates it with `--fix`; `cargo welltempered reach` prints
//! the reach table. On a workspace root, `check` analyses every member (see the README). Exit
//! code 0 on success, 1 on error (the message, naming file:line, on
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
        /// Rewrite the constructors to welltempered::channel (checked with cargo check on
        /// every target, then the crate's tests; rolled back if either fails).
        #[arg(long)]
        fix: bool,
        /// With --fix: the welltempered version to depend on.
        #[arg(long, default_value = "0.1", value_name = "REQ")]
        welltempered_version: String,
        /// With --fix: depend on welltempered from the checkout at DIR instead of a version.
        #[arg(long, value_name = "DIR", conflicts_with = "welltempered_git")]
        welltempered_path: Option<PathBuf>,
        /// With --fix: depend on welltempered from the git repository at URL.
        #[arg(long, value_name = "URL")]
        welltempered_git: Option<String>,
        /// With --fix and --welltempered-git: the commit, tag or branch.
        #[arg(long, value_name = "REV", requires = "welltempered_git")]
        welltempered_rev: Option<String>,
        /// With --fix: run the crate's tests after the rewrite (the default when it has any).
        #[arg(long, overrides_with = "no_verify_tests")]
        verify_tests: bool,
        /// With --fix: do not run the crate's tests after the rewrite.
        #[arg(long)]
        no_verify_tests: bool,
    },
    /// Fetches the pinned reach corpus (once), runs the analysis over it and prints WTC's table.
    Reach {
        /// Do not fetch; use what is already in the cargo registry.
        #[arg(long)]
        offline: bool,
        /// Which corpus: the crates the rules were tuned on, or the held-out validation set.
        #[arg(long, value_enum, default_value_t = CorpusArg::Tuning)]
        corpus: CorpusArg,
    },
}

/// `reach --corpus`.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum CorpusArg {
    /// reach/: the 15 crates the rules were written against.
    Tuning,
    /// reach/validation/: crates audited before any rule was changed for them.
    Validation,
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
            welltempered_version,
            welltempered_path,
            welltempered_git,
            welltempered_rev,
            verify_tests,
            no_verify_tests,
        } => {
            let path = path.unwrap_or_else(|| PathBuf::from("."));
            use welltempered_analyze::fix::{Dependency, FixOptions};
            let dependency = match (welltempered_path, welltempered_git) {
                // Relative to where the command runs, not to the crate's manifest.
                (Some(p), _) => {
                    let dir = std::path::absolute(&p).unwrap_or(p);
                    if !dir.join("Cargo.toml").is_file() {
                        return Err(welltempered_analyze::Error::NoCrate(dir));
                    }
                    Dependency::Path(dir)
                }
                (None, Some(url)) => Dependency::Git {
                    url,
                    rev: welltempered_rev,
                },
                (None, None) => Dependency::Version(welltempered_version),
            };
            let opts = FixOptions {
                dependency,
                target_dir: None,
                verify_tests: match (verify_tests, no_verify_tests) {
                    (true, _) => Some(true),
                    (_, true) => Some(false),
                    _ => None,
                },
            };
            let fix = fix.then_some(&opts);
            let Some(members) = welltempered_analyze::discover::workspace_members(&path)? else {
                return check_crate(&path, format, fix, false);
            };
            if fix.is_some() {
                return Err(welltempered_analyze::Error::Fix(format!(
                    "--fix rewrites one crate at a time, and {} is a workspace of {} members: \
                     run it on each member's directory",
                    path.display(),
                    members.len()
                )));
            }
            // Every member, even after one fails; the first error is the exit status. JSON is
            // one array of the members' analyses, each with its `crate` directory.
            let mut first_error = None;
            let mut json = Vec::new();
            for m in &members {
                let done = match format {
                    Format::Text => check_crate(m, format, None, true),
                    Format::Json => welltempered_analyze::analyze_crate(m).and_then(|a| {
                        summarise(&a, &welltempered_analyze::fix::plan(&a)?);
                        let mut v = serde_json::to_value(&a).unwrap_or_default();
                        if let Some(o) = v.as_object_mut() {
                            o.insert("crate".into(), m.display().to_string().into());
                        }
                        json.push(v);
                        Ok(())
                    }),
                };
                if let Err(e) = done {
                    eprintln!("{e}");
                    first_error.get_or_insert(e);
                }
            }
            if matches!(format, Format::Json) {
                let text = serde_json::to_string_pretty(&json).unwrap_or_default();
                emit(&format!("{text}\n"))?;
            }
            first_error.map_or(Ok(()), Err)
        }
        Cmd::Reach { offline, corpus } => {
            use welltempered_analyze::reach::{Corpus, Options};
            let opts = Options::for_corpus(match corpus {
                CorpusArg::Tuning => Corpus::Tuning,
                CorpusArg::Validation => Corpus::Validation,
            });
            if !offline {
                welltempered_analyze::reach::fetch(&opts)?;
            }
            let report = welltempered_analyze::reach::run(&opts)?;
            emit(&report.to_text())
        }
    }
}

/// Checks one crate: remarks (or JSON) on stdout, preceded by a `crate: DIR` line when it is a
/// workspace member (`member`); the summary line on stderr; then `--fix`.
fn check_crate(
    path: &std::path::Path,
    format: Format,
    fix: Option<&welltempered_analyze::fix::FixOptions>,
    member: bool,
) -> Result<(), welltempered_analyze::Error> {
    let analysis = welltempered_analyze::analyze_crate(path)?;
    if member && matches!(format, Format::Text) {
        emit(&format!("crate: {}\n", path.display()))?;
    }
    match format {
        Format::Text => emit(&analysis.to_string())?,
        Format::Json => emit(&format!(
            "{}\n",
            welltempered_analyze::remark::to_json(&analysis)
        ))?,
    }
    let plan = welltempered_analyze::fix::plan(&analysis)?;
    summarise(&analysis, &plan);
    if let Some(opts) = fix {
        let report = welltempered_analyze::fix::apply(&analysis, opts)?;
        emit(&report.to_string())?;
    }
    Ok(())
}

/// The summary line of one crate, on stderr, with what `--fix` would change.
fn summarise(analysis: &welltempered_analyze::Analysis, plan: &welltempered_analyze::fix::Plan) {
    let notes = match analysis.notes.len() {
        0 => String::new(),
        1 => "; 1 note (something not read)".to_string(),
        n => format!("; {n} notes (things not read)"),
    };
    let t = analysis.targets.len();
    eprintln!(
        "{}: {}; {plan}; {} lines of Rust in {t} target{}{notes}",
        analysis.root.display(),
        analysis.summary(),
        analysis.lines,
        if t == 1 { "" } else { "s" }
    );
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
