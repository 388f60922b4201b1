//! The registry of report sections. A section is one module implementing [`Suite`] plus one line
//! in [`registry`]: it then gets its subcommand (with its own options), its place in `report`,
//! its child-process entry point, its tables, plots and JSON.

use crate::Result;
use crate::harness::Progress;
use crate::model::{Sample, Section};
use std::path::{Path, PathBuf};
use std::process::Command;

pub mod channel;
pub mod mutex;
pub mod omp_programs;
pub mod par;
pub mod preload;
pub mod programs;
pub mod reach;

/// Repetitions of every paired section unless `--reps` says otherwise, in `--quick` too: with
/// fewer, one disturbed repetition decides a bootstrap interval's end.
pub const REPS: usize = 5;

/// What a run of a section needs from the harness.
#[derive(Debug)]
pub struct Ctx<'a> {
    /// Quick mode: the small configuration that fits the report's time budget.
    pub quick: bool,
    /// The progress bar to announce and count steps on.
    pub progress: &'a Progress,
}

/// A family of workloads with its own subcommand.
pub trait Suite: Sync {
    /// Subcommand and section name (`mutex`).
    fn name(&self) -> &'static str;
    /// One-line help for the subcommand.
    fn about(&self) -> &'static str;
    /// Adds the section's own options to its subcommand.
    fn args(&self, cmd: clap::Command) -> clap::Command;
    /// Runs the section with the parsed options.
    fn run(&self, args: &clap::ArgMatches, ctx: &Ctx<'_>) -> Result<Section>;
    /// Runs one measurement described by `spec` (in a child process) and returns its sample.
    fn run_child(&self, spec: &serde_json::Value) -> Result<Sample>;
    /// The end of the subcommand's `--help`: the names its options accept and how long it
    /// runs. Built only when help is asked for (it may build the plans).
    fn help_after(&self) -> String {
        String::new()
    }
    /// The headlines of a run of this section (its `section` as measured or as read back from
    /// JSON): ours against each anchor in the cells that matter, with the targets the project
    /// set. The report prints them first; a section without headlines prints its tables.
    fn summary(&self, section: &Section) -> Vec<crate::headline::Line> {
        let _ = section;
        Vec::new()
    }
}

/// A `--help` paragraph listing `names` for `what`, wrapped at 100 columns.
pub fn names_paragraph(what: &str, names: &[&str]) -> String {
    let mut out = format!("{what}:");
    let mut line = out.len();
    for (i, n) in names.iter().enumerate() {
        let item = if i + 1 < names.len() {
            format!(" {n},")
        } else {
            format!(" {n}")
        };
        if line + item.len() > 100 {
            out.push_str("\n ");
            line = 1;
        }
        line += item.len();
        out.push_str(&item);
    }
    out
}

/// A `--help` paragraph with the time the measured windows of the default and the `--quick`
/// plans add up to (`None` where a plan cannot be built on this machine).
pub fn run_time_paragraph(
    full: Option<std::time::Duration>,
    quick: Option<std::time::Duration>,
) -> String {
    let show = |d: Option<std::time::Duration>| match d {
        Some(d) => humantime::format_duration(std::time::Duration::from_secs(d.as_secs().max(1)))
            .to_string(),
        None => "unknown here".to_string(),
    };
    format!(
        "Run time: the measured windows add up to {} by default and {} with --quick;\n  \
         starting threads, processes and loads adds to that, and a cell whose intervals stay\n  \
         wide runs up to half as many repetitions again (a disturbed one is run again).",
        show(full),
        show(quick)
    )
}

/// Every section, in report order.
pub fn registry() -> Vec<&'static dyn Suite> {
    vec![
        &mutex::MutexBench,
        &channel::ChannelBench,
        &preload::PreloadBench,
        &par::ParBench,
        &reach::ReachBench,
        &programs::ProgramsBench,
    ]
}

/// The section called `name`.
pub fn find(name: &str) -> Option<&'static dyn Suite> {
    registry().into_iter().find(|s| s.name() == name)
}

/// The shared library `file` of the workspace package `package`, beside this executable, built
/// with `$CARGO` first when this command runs under cargo (so that it is never missing or stale
/// there); elsewhere, the one found beside the executable, or why there is none.
pub fn workspace_library(package: &str, file: &str) -> std::result::Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
    let dir = exe.parent().ok_or("this executable has no directory")?;
    let lib = dir.join(file);
    if let Ok(cargo) = std::env::var("CARGO") {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
        let mut cmd = Command::new(cargo);
        cmd.args(["build", "--quiet", "-p", package, "--manifest-path"])
            .arg(&manifest);
        if dir.ends_with("release") {
            cmd.arg("--release");
        }
        let out = cmd
            .output()
            .map_err(|e| format!("cannot run cargo to build {package}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "building {package} failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    if lib.exists() {
        Ok(lib)
    } else {
        Err(format!(
            "{} is missing: build it with `cargo build --release -p {package}`",
            lib.display()
        ))
    }
}
