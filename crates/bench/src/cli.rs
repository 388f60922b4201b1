//! The command line: `report` (the default: `report --quick`), one subcommand per section
//! (`mutex`), `compare`, and the hidden entry points of child processes (measurements, load).

use crate::compare::{Labeled, compare, compare_summary, hosts};
use crate::harness::{CHILD_COMMAND, Progress};
use crate::headline::section_summary;
use crate::host::Host;
use crate::load::LOAD_COMMAND;
use crate::model::{Report, SCHEMA};
use crate::sections::{Ctx, Suite, find, registry};
use crate::summary::{section_detail, skipped};
use crate::{Error, Result, output};
use clap::{Arg, ArgAction, ArgMatches, Command, value_parser};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The full command definition.
pub fn command() -> Command {
    command_with(false)
}

/// The command definition; with `help`, each section's subcommand also ends its help with the
/// names it accepts and its run time ([`Suite::help_after`], which builds plans).
///
/// [`Suite::help_after`]: crate::sections::Suite::help_after
pub fn command_with(help: bool) -> Command {
    let mut cmd = Command::new("welltempered")
        .about(
            "The welltempered evaluation harness: paired, interleaved runs against baselines, \
             with tables on stdout and JSON, Markdown and SVG plots in the output folder. \
             Without a subcommand it runs `report --quick`.",
        )
        .version(env!("CARGO_PKG_VERSION"))
        .arg(
            Arg::new("quick")
                .long("quick")
                .action(ArgAction::SetTrue)
                .global(true)
                .help("Small configuration (the report takes 2 to 4 minutes on 2 cores)"),
        )
        .arg(
            Arg::new("quiet")
                .long("quiet")
                .short('q')
                .action(ArgAction::SetTrue)
                .global(true)
                .help("No progress bar"),
        )
        .arg(
            Arg::new("verbose")
                .long("verbose")
                .short('v')
                .action(ArgAction::SetTrue)
                .global(true)
                .help(
                    "Print every table (each cell's ratios, CPU time, context switches and \
                     counters) after each section's summary; the Markdown report always has them",
                ),
        )
        .arg(
            Arg::new("json")
                .long("json")
                .value_name("PATH")
                .value_parser(value_parser!(PathBuf))
                .global(true)
                .help("Write the JSON report here [default: <out>/<command>.json]"),
        )
        .arg(
            Arg::new("out")
                .long("out")
                .value_name("DIR")
                .value_parser(value_parser!(PathBuf))
                .global(true)
                .help("Folder for plots and the Markdown report [default: beside --json, else results/]"),
        )
        .subcommand(
            Command::new("report")
                .about("Run every section (default subcommand, in quick mode)")
                .arg(
                    Arg::new("only")
                        .long("only")
                        .value_name("SECTIONS")
                        .value_delimiter(',')
                        .help("Run only these sections (comma-separated)"),
                ),
        )
        .subcommand(
            Command::new("compare")
                .about("Merge JSON reports (e.g. from several machines) into one table")
                .arg(
                    Arg::new("reports")
                        .value_name("REPORT.json")
                        .num_args(1..)
                        .required(true)
                        .value_parser(value_parser!(PathBuf)),
                ),
        )
        .subcommand(
            Command::new("show")
                .about(
                    "Print a recorded JSON report as a run prints it (the summary; --verbose for \
                     every table), and with --out write its Markdown report and plots again",
                )
                .arg(
                    Arg::new("report")
                        .value_name("REPORT.json")
                        .required(true)
                        .value_parser(value_parser!(PathBuf)),
                ),
        )
        .subcommand(
            Command::new(CHILD_COMMAND)
                .hide(true)
                .about("Run one measurement and print it as JSON (used by the harness itself)")
                .arg(Arg::new("section").required(true))
                .arg(Arg::new("spec").required(true)),
        )
        .subcommand(
            Command::new(LOAD_COMMAND)
                .hide(true)
                .about(
                    "Be foreign load until standard input closes: busy (spin) or mixed (churn \
                     short-lived threads) (used by the harness itself)",
                )
                .arg(Arg::new("kind").required(true)),
        );
    for s in registry() {
        // The section's description after its options: `augment_args` would put the options
        // struct's doc comment in its place.
        let mut sub = s.args(Command::new(s.name())).about(s.about());
        if help {
            let after = s.help_after();
            if !after.is_empty() {
                sub = sub.after_help(after);
            }
        }
        cmd = cmd.subcommand(sub);
    }
    cmd
}

/// Entry point of the binary: runs the command line of this process, returns the exit code.
pub fn main() -> i32 {
    let argv: Vec<String> = std::env::args().collect();
    let help = argv
        .iter()
        .skip(1)
        .any(|a| a == "-h" || a == "--help" || a == "help");
    let matches = match command_with(help).try_get_matches_from(&argv) {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            return e.exit_code();
        }
    };
    let stdout = std::io::stdout();
    match run(&matches, &argv, &mut stdout.lock()) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            e.exit_code()
        }
    }
}

/// Where the files of a run go: (JSON path, output folder).
pub fn output_paths(json: Option<&Path>, out: Option<&Path>, stem: &str) -> (PathBuf, PathBuf) {
    let dir = match (out, json) {
        (Some(o), _) => o.to_path_buf(),
        (None, Some(j)) => j
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
        (None, None) => PathBuf::from("results"),
    };
    let json = json.map_or_else(|| dir.join(format!("{stem}.json")), Path::to_path_buf);
    (json, dir)
}

/// Runs parsed command-line `matches` (`argv` is recorded in the report), writing tables to `out`.
pub fn run(matches: &ArgMatches, argv: &[String], out: &mut dyn Write) -> Result<()> {
    let quick_flag = matches.get_flag("quick");
    let quiet = matches.get_flag("quiet");
    let verbose = matches.get_flag("verbose");
    let json = matches.get_one::<PathBuf>("json").map(PathBuf::as_path);
    let dir = matches.get_one::<PathBuf>("out").map(PathBuf::as_path);
    let io = |e: std::io::Error| Error::new(format!("cannot write output: {e}"));
    match matches.subcommand() {
        Some((CHILD_COMMAND, m)) => {
            let name = m.get_one::<String>("section").map_or("", String::as_str);
            let spec_text = m.get_one::<String>("spec").map_or("", String::as_str);
            let suite = find(name).ok_or_else(|| Error::new(format!("no section {name:?}")))?;
            let spec: serde_json::Value = serde_json::from_str(spec_text)
                .map_err(|e| Error::new(format!("bad spec JSON: {e}")))?;
            let sample = suite.run_child(&spec)?;
            let line = serde_json::to_string(&sample).map_err(|e| Error::new(e.to_string()))?;
            writeln!(out, "{line}").map_err(io)
        }
        Some((LOAD_COMMAND, m)) => {
            let kind = m.get_one::<String>("kind").map_or("", String::as_str);
            match crate::load::serve(kind)? {}
        }
        Some(("show", m)) => {
            let path = m
                .get_one::<PathBuf>("report")
                .ok_or_else(|| Error::usage("show needs a report"))?;
            let report = Report::load(path)?;
            write_report(&report, verbose, out)?;
            if let Some(d) = dir {
                let stem = path
                    .file_stem()
                    .map_or_else(|| "report".into(), |s| s.to_string_lossy().into_owned());
                let md = output::write_files(&report, d, &stem)?;
                writeln!(out, "\nwrote {}", md.display()).map_err(io)?;
            }
            Ok(())
        }
        Some(("compare", m)) => {
            let paths: Vec<PathBuf> = m
                .get_many::<PathBuf>("reports")
                .map(|v| v.cloned().collect())
                .unwrap_or_default();
            let mut reports = Vec::new();
            for (i, p) in paths.iter().enumerate() {
                let stem = p.file_stem().map_or_else(
                    || format!("report{i}"),
                    |s| s.to_string_lossy().into_owned(),
                );
                let label = if paths
                    .iter()
                    .filter(|q| q.file_stem() == p.file_stem())
                    .count()
                    > 1
                {
                    format!("{stem}#{}", i + 1)
                } else {
                    stem
                };
                reports.push(Labeled {
                    label,
                    report: Report::load(p)?,
                });
            }
            let mut md = String::from("# welltempered: cross-machine comparison\n\n");
            for h in hosts(&reports) {
                writeln!(out, "{h}").map_err(io)?;
                md.push_str(&format!("- {h}\n"));
            }
            let mut summarised = Vec::new();
            for (title, table) in compare_summary(&reports) {
                writeln!(out, "\n== {title}: summary ==\n{}", table.to_text()).map_err(io)?;
                md.push_str(&format!("\n## {title}: summary\n\n{}", table.to_markdown()));
                summarised.push(title);
            }
            for (title, table) in compare(&reports) {
                if table.rows.is_empty() {
                    continue;
                }
                // A section without headlines is shown whole.
                if verbose || !summarised.contains(&title) {
                    writeln!(out, "\n== {title} ==\n{}", table.to_text()).map_err(io)?;
                }
                md.push_str(&format!("\n## {title}\n\n{}", table.to_markdown()));
            }
            if !verbose {
                writeln!(
                    out,
                    "\nevery cell of every variant: --verbose{}",
                    if dir.is_some() { ", or compare.md" } else { "" }
                )
                .map_err(io)?;
            }
            if let Some(d) = dir {
                std::fs::create_dir_all(d).map_err(io)?;
                std::fs::write(d.join("compare.md"), md).map_err(io)?;
            }
            Ok(())
        }
        Some(("report", m)) => {
            let only: Option<Vec<String>> =
                m.get_many::<String>("only").map(|v| v.cloned().collect());
            let mut suites: Vec<&'static dyn Suite> = registry();
            if let Some(only) = &only {
                for n in only {
                    if find(n).is_none() {
                        let valid: Vec<&str> = registry().iter().map(|s| s.name()).collect();
                        return Err(Error::usage(format!(
                            "unknown section {n:?}; valid sections: {}",
                            valid.join(", ")
                        )));
                    }
                }
                suites.retain(|s| only.iter().any(|n| n == s.name()));
            }
            let runs = suites
                .into_iter()
                .map(|s| {
                    let m = s
                        .args(Command::new(s.name()))
                        .try_get_matches_from([s.name()])
                        .map_err(|e| Error::new(e.to_string()))?;
                    Ok((s, m))
                })
                .collect::<Result<Vec<_>>>()?;
            execute(
                "report",
                runs,
                quick_flag,
                (quiet, verbose),
                json,
                dir,
                argv,
                out,
            )
        }
        Some((name, m)) => {
            let suite = find(name).ok_or_else(|| Error::new(format!("no section {name:?}")))?;
            execute(
                name,
                vec![(suite, m.clone())],
                quick_flag,
                (quiet, verbose),
                json,
                dir,
                argv,
                out,
            )
        }
        None => {
            let runs = registry()
                .into_iter()
                .map(|s| {
                    let m = s
                        .args(Command::new(s.name()))
                        .try_get_matches_from([s.name()])
                        .map_err(|e| Error::new(e.to_string()))?;
                    Ok((s, m))
                })
                .collect::<Result<Vec<_>>>()?;
            execute("report", runs, true, (quiet, verbose), json, dir, argv, out)
        }
    }
}

/// Prints `report` as a run prints it: the host line, then [`write_sections`]; returns whether
/// a section's tables were left out for its summary.
pub fn write_report(report: &Report, verbose: bool, out: &mut dyn Write) -> Result<bool> {
    let io = |e: std::io::Error| Error::new(format!("cannot write output: {e}"));
    let h = &report.host;
    writeln!(
        out,
        "host: {} | {} | {} | hardware counters: {}",
        h.label(),
        h.kernel,
        h.rustc,
        if h.pmu {
            "yes"
        } else {
            "none (no PMU: cycles, instructions and cache misses are not counted)"
        }
    )
    .map_err(io)?;
    if !h.optimized {
        writeln!(
            out,
            "note: debug build; use --release for meaningful numbers"
        )
        .map_err(io)?;
    }
    write_sections(report, verbose, out)
}

/// Prints each section of `report`: its heading, why it was skipped, its summary, and its
/// tables when `verbose` or when it has no summary; returns whether some tables were left out.
pub fn write_sections(report: &Report, verbose: bool, out: &mut dyn Write) -> Result<bool> {
    let io = |e: std::io::Error| Error::new(format!("cannot write output: {e}"));
    let mut left_out = false;
    for s in &report.sections {
        writeln!(out, "\n== {} ==", s.title).map_err(io)?;
        if let Some(why) = skipped(s) {
            writeln!(out, "skipped: {why}").map_err(io)?;
        }
        let summary = section_summary(s);
        if let Some(text) = &summary {
            write!(out, "{text}").map_err(io)?;
        }
        if verbose || (summary.is_none() && skipped(s).is_none()) {
            write!(out, "{}", section_detail(s)).map_err(io)?;
        } else if !s.groups.is_empty() {
            left_out = true;
        }
    }
    Ok(left_out)
}

/// Runs the sections, prints their summaries (and tables), writes JSON, plots and Markdown.
#[allow(clippy::too_many_arguments)]
fn execute(
    stem: &str,
    runs: Vec<(&'static dyn Suite, ArgMatches)>,
    quick: bool,
    (quiet, verbose): (bool, bool),
    json: Option<&Path>,
    dir: Option<&Path>,
    argv: &[String],
    out: &mut dyn Write,
) -> Result<()> {
    let io = |e: std::io::Error| Error::new(format!("cannot write output: {e}"));
    let host = Host::collect();
    let progress = Progress::new(!quiet);
    let ctx = Ctx {
        quick,
        progress: &progress,
    };
    let started = std::time::Instant::now();
    let mut sections = Vec::new();
    for (suite, m) in runs {
        let result = suite.run(&m, &ctx);
        match result {
            Ok(s) => sections.push(s),
            Err(e) => {
                progress.finish();
                return Err(e);
            }
        }
    }
    progress.finish();
    let report = Report {
        schema: SCHEMA.to_string(),
        host,
        config: serde_json::json!({
            "command": stem,
            "argv": argv,
            "quick": quick,
            "elapsed_s": started.elapsed().as_secs_f64(),
        }),
        sections,
    };
    // Files first, so a closed stdout cannot lose the measurements.
    let (json_path, dir) = output_paths(json, dir, stem);
    report.save(&json_path)?;
    let md = output::write_files(&report, &dir, stem)?;
    let left_out = write_report(&report, verbose, out)?;
    writeln!(
        out,
        "\nwrote {}, and every table with the plots in {} and {}{}; took {:.1} s",
        json_path.display(),
        md.display(),
        md.with_extension("html").display(),
        if left_out {
            "; --verbose prints them here too"
        } else {
            ""
        },
        started.elapsed().as_secs_f64()
    )
    .map_err(io)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> std::result::Result<ArgMatches, clap::Error> {
        command().try_get_matches_from(std::iter::once("welltempered").chain(args.iter().copied()))
    }

    #[test]
    fn command_is_well_formed() {
        command().debug_assert();
    }

    #[test]
    fn help_lists_the_names_and_the_run_time() {
        let mut cmd = command_with(true);
        let mut help = |name: &str| {
            cmd.find_subcommand_mut(name)
                .unwrap()
                .render_long_help()
                .to_string()
        };
        let mutex = help("mutex");
        assert!(
            mutex.contains("hemlock-park,") && mutex.contains("parking_lot"),
            "{mutex}"
        );
        assert!(
            mutex.contains("Run time: the measured windows add up to"),
            "{mutex}"
        );
        let channel = help("channel");
        assert!(
            channel.contains("crossbeam-array") && channel.contains("Run time"),
            "{channel}"
        );
        assert!(help("par").contains("dynamic-chunk"));
        assert!(help("preload").contains("glibc, hemlock"));
        // Without help asked for, nothing is built for it.
        let mut plain = command();
        let sub = plain.find_subcommand_mut("mutex").unwrap();
        assert!(!sub.render_long_help().to_string().contains("Run time"));
    }

    #[test]
    fn each_section_is_described_by_what_it_measures() {
        let cmd = command();
        for s in registry() {
            let sub = cmd.find_subcommand(s.name()).unwrap();
            assert_eq!(
                sub.get_about().map(|a| a.to_string()),
                Some(s.about().to_string()),
                "{}",
                s.name()
            );
        }
    }

    #[test]
    fn subcommands_and_globals_parse() {
        let m = parse(&[
            "mutex",
            "--quick",
            "--json",
            "x/out.json",
            "--threads",
            "1,2",
        ])
        .unwrap();
        assert!(m.get_flag("quick"));
        assert_eq!(m.subcommand_name(), Some("mutex"));
        assert_eq!(
            m.get_one::<PathBuf>("json").unwrap(),
            &PathBuf::from("x/out.json")
        );
        let m = parse(&[]).unwrap();
        assert_eq!(m.subcommand_name(), None);
        let m = parse(&["report", "--only", "mutex"]).unwrap();
        assert_eq!(m.subcommand_name(), Some("report"));
    }

    #[test]
    fn bad_command_lines_are_errors() {
        assert!(parse(&["nosuch"]).is_err());
        assert!(parse(&["compare"]).is_err());
        assert!(parse(&["mutex", "--threads", "-3"]).is_err());
        assert!(parse(&["mutex", "--cs", "fast"]).is_err());
    }

    #[test]
    fn unknown_report_section_is_an_error() {
        let m = parse(&["report", "--only", "nosuch"]).unwrap();
        let mut sink = Vec::new();
        let err = run(&m, &[], &mut sink).unwrap_err().to_string();
        assert!(err.contains("valid sections: mutex"), "{err}");
    }

    #[test]
    fn output_paths_follow_the_rules() {
        let (j, d) = output_paths(None, None, "report");
        assert_eq!((j, d), ("results/report.json".into(), "results".into()));
        let (j, d) = output_paths(Some(Path::new("a/b.json")), None, "mutex");
        assert_eq!((j, d), ("a/b.json".into(), "a".into()));
        let (j, d) = output_paths(Some(Path::new("b.json")), Some(Path::new("o")), "mutex");
        assert_eq!((j, d), ("b.json".into(), "o".into()));
        let (j, _) = output_paths(Some(Path::new("b.json")), None, "mutex");
        assert_eq!(j, PathBuf::from("b.json"));
    }
}
