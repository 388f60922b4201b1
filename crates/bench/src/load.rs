//! Foreign load beside a measurement (the channel section's `--load`): busy processes, or one
//! process that churns short-lived threads.
//!
//! A load level is written `N` or `mixed`:
//!
//! - `N`: N processes, each spinning on one thread (`0`: no load, the quiet machine);
//! - `mixed`: one process that keeps starting a batch of short-lived threads (twice the CPUs it
//!   may use), each computing over a freshly allocated buffer for 20 us to 2 ms, and joining
//!   them, as a parallel build does.
//!
//! The load runs in child processes of the harness: the binary re-executes itself
//! ([`std::env::current_exe`]) as `welltempered __load busy` or `welltempered __load mixed`
//! ([`LOAD_COMMAND`], served by [`serve`]). A [`LoadGuard`] starts them, waits until each says it
//! is running, and kills and reaps them when it is dropped: after the measurement, on an error,
//! or while a panic unwinds. A load process also exits by itself when its standard input, a pipe
//! from the harness, reaches end of file, so it does not outlive a harness that ends without
//! dropping the guard (killed, aborted). Ctrl-C in a terminal sends SIGINT to the whole
//! foreground process group, the load processes included.
//!
//! The load processes are not pinned: they keep the CPU affinity the harness started with, and
//! the scheduler places them.

use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::convert::Infallible;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The hidden subcommand a load process runs: `__load busy` or `__load mixed`.
pub const LOAD_COMMAND: &str = "__load";

/// The line a load process prints once its load runs.
const READY: &str = "ready";

/// The most busy processes one load level may ask for.
pub const MAX_BUSY: usize = 1024;

/// One level of foreign load.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Load {
    /// This many processes spinning, one thread each; 0 is the quiet machine.
    Busy(usize),
    /// One process starting and joining short-lived threads, each doing a little work.
    Mixed,
}

impl Load {
    /// No load.
    pub const QUIET: Load = Load::Busy(0);

    /// Whether this is the quiet level (no load process).
    pub fn is_quiet(self) -> bool {
        self == Self::QUIET
    }

    /// A phrase for titles: "no load", "load: 2 busy processes", "load: mixed (thread churn)".
    pub fn describe(self) -> String {
        match self {
            Self::Busy(0) => "no load".to_string(),
            Self::Busy(1) => "load: 1 busy process".to_string(),
            Self::Busy(n) => format!("load: {n} busy processes"),
            Self::Mixed => "load: mixed (thread churn)".to_string(),
        }
    }
}

impl std::fmt::Display for Load {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Busy(n) => write!(f, "{n}"),
            Self::Mixed => f.write_str("mixed"),
        }
    }
}

impl std::str::FromStr for Load {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        parse_load(s)
    }
}

impl From<Load> for String {
    fn from(l: Load) -> String {
        l.to_string()
    }
}

impl TryFrom<String> for Load {
    type Error = String;

    fn try_from(s: String) -> std::result::Result<Self, String> {
        parse_load(&s)
    }
}

/// Parses one load level: a number of busy processes (`0`, `2`, ...) or `mixed`.
pub fn parse_load(s: &str) -> std::result::Result<Load, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("mixed") {
        return Ok(Load::Mixed);
    }
    match t.parse::<usize>() {
        Ok(n) if n <= MAX_BUSY => Ok(Load::Busy(n)),
        Ok(n) => Err(format!(
            "load {n} is too many busy processes (at most {MAX_BUSY})"
        )),
        Err(_) => Err(format!(
            "invalid load {s:?}: use a number N of busy processes (0 for none, e.g. 2) or \
             `mixed` (one process starting and joining short-lived threads)"
        )),
    }
}

/// The load processes of one load level; dropping it kills and reaps them.
#[derive(Debug)]
#[must_use = "the load stops when the guard is dropped"]
pub struct LoadGuard {
    children: Vec<Child>,
}

impl LoadGuard {
    /// Starts `load` as child processes of this executable and returns once each runs; the
    /// quiet level starts nothing.
    pub fn start(load: Load) -> Result<Self> {
        if load.is_quiet() {
            return Ok(Self {
                children: Vec::new(),
            });
        }
        let exe = std::env::current_exe()
            .map_err(|e| Error::new(format!("cannot find the harness executable: {e}")))?;
        Self::start_exe(&exe, load)
    }

    /// [`LoadGuard::start`] with an explicit executable, which must serve [`LOAD_COMMAND`]
    /// (tests use the built binary).
    pub fn start_exe(exe: &Path, load: Load) -> Result<Self> {
        let (kind, count) = match load {
            Load::Busy(n) => ("busy", n),
            Load::Mixed => ("mixed", 1),
        };
        let mut guard = Self {
            children: Vec::with_capacity(count),
        };
        for _ in 0..count {
            let child = Command::new(exe)
                .arg(LOAD_COMMAND)
                .arg(kind)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| {
                    Error::new(format!(
                        "cannot start a load process {}: {e}",
                        exe.display()
                    ))
                })?;
            // In the guard before anything can fail, so that an error below still kills it and
            // the ones before it.
            guard.children.push(child);
            if guard.children.len() == 1 {
                // Undone by the guard's drop, which sees a child.
                crate::disturbance::deliberate_load(true);
            }
            let child = guard.children.last_mut().expect("just pushed");
            let mut line = String::new();
            if let Some(out) = child.stdout.take() {
                // A load process that fails closes its stdout, which ends the read.
                let _ = BufReader::new(out).read_line(&mut line);
            }
            if line.trim() != READY {
                let _ = child.kill();
                let status = child.wait();
                let mut err = String::new();
                if let Some(mut e) = child.stderr.take() {
                    let _ = e.read_to_string(&mut err);
                }
                return Err(Error::new(format!(
                    "load process `{} {LOAD_COMMAND} {kind}` did not start ({}): {}",
                    exe.display(),
                    status.map_or_else(|e| e.to_string(), |s| s.to_string()),
                    err.trim()
                )));
            }
        }
        Ok(guard)
    }

    /// The process ids of the load processes.
    pub fn pids(&self) -> Vec<u32> {
        self.children.iter().map(Child::id).collect()
    }
}

impl Drop for LoadGuard {
    fn drop(&mut self) {
        if !self.children.is_empty() {
            crate::disturbance::deliberate_load(false);
        }
        // Every process is signalled before any is waited for, so they stop together.
        for c in &mut self.children {
            let _ = c.kill();
        }
        for c in &mut self.children {
            let _ = c.wait();
        }
    }
}

/// The load process's side of [`LOAD_COMMAND`]: runs load of `kind` (`busy` or `mixed`) until
/// standard input reaches end of file, then exits the process; returns only an error.
pub fn serve(kind: &str) -> Result<Infallible> {
    let run: fn() -> ! = match kind {
        "busy" => spin,
        "mixed" => churn,
        other => {
            return Err(Error::new(format!(
                "unknown load process kind {other:?}; valid kinds: busy, mixed"
            )));
        }
    };
    std::thread::Builder::new()
        .name("load-watch".into())
        .spawn(|| {
            let mut stdin = std::io::stdin().lock();
            let mut buf = [0u8; 64];
            loop {
                match stdin.read(&mut buf) {
                    Ok(0) => std::process::exit(0),
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => std::process::exit(0),
                }
            }
        })
        .map_err(|e| Error::new(format!("cannot start the load process's watcher: {e}")))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{READY}")
        .and_then(|()| out.flush())
        .map_err(|e| Error::new(format!("cannot report the load as started: {e}")))?;
    drop(out);
    run()
}

/// One step of xorshift64 (never 0 from a nonzero state).
fn xorshift(mut x: u64) -> u64 {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
}

/// Spins on this thread for ever.
fn spin() -> ! {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    loop {
        for _ in 0..1024 {
            x = xorshift(x);
        }
        std::hint::black_box(x);
    }
}

/// Starts a batch of short-lived threads, joins them, and again, for ever.
fn churn() -> ! {
    let width = std::thread::available_parallelism().map_or(2, |n| n.get()) * 2;
    let mut seed = 0x2545_F491_4F6C_DD1Du64 ^ u64::from(std::process::id());
    loop {
        let batch: Vec<_> = (0..width)
            .filter_map(|_| {
                seed = xorshift(seed);
                let s = seed;
                // A thread that cannot start (a process limit) is skipped.
                std::thread::Builder::new().spawn(move || job(s)).ok()
            })
            .collect();
        if batch.is_empty() {
            std::thread::sleep(Duration::from_millis(1));
        }
        for h in batch {
            let _ = std::hint::black_box(h.join());
        }
    }
}

/// One short job: 20 us to 2 ms of computing over a fresh buffer of 4 to 256 KiB.
fn job(seed: u64) -> u64 {
    let work = Duration::from_micros(20 + seed % 1980);
    let len = 4096 + ((seed >> 20) % (252 * 1024)) as usize;
    let mut buf = vec![0u8; len];
    let t0 = Instant::now();
    let mut x = seed | 1;
    let mut i = 0usize;
    while t0.elapsed() < work {
        for _ in 0..256 {
            x = xorshift(x);
            buf[i] = buf[i].wrapping_add(x as u8);
            i = (i + 4099) % len;
        }
    }
    std::hint::black_box(buf.iter().fold(x, |a, &b| a.rotate_left(5) ^ u64::from(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_print_and_round_trip() {
        assert_eq!(parse_load("0"), Ok(Load::QUIET));
        assert_eq!(parse_load(" 2 "), Ok(Load::Busy(2)));
        assert_eq!(parse_load("mixed"), Ok(Load::Mixed));
        assert_eq!(parse_load("MIXED"), Ok(Load::Mixed));
        for l in [Load::QUIET, Load::Busy(3), Load::Mixed] {
            assert_eq!(l.to_string().parse::<Load>(), Ok(l));
            let json = serde_json::to_value(l).unwrap();
            assert_eq!(json, serde_json::json!(l.to_string()));
            assert_eq!(serde_json::from_value::<Load>(json).unwrap(), l);
        }
        assert!(Load::QUIET.is_quiet() && !Load::Mixed.is_quiet());
        assert_eq!(Load::Busy(1).describe(), "load: 1 busy process");
        assert_eq!(Load::Busy(2).describe(), "load: 2 busy processes");
        assert_eq!(Load::QUIET.describe(), "no load");
    }

    #[test]
    fn bad_levels_name_the_valid_forms() {
        for bad in ["", "lots", "-1", "2.5", "mixed2", "0x2"] {
            let err = parse_load(bad).unwrap_err();
            assert!(
                err.contains("number N of busy processes") && err.contains("`mixed`"),
                "{bad}: {err}"
            );
        }
        assert!(parse_load("5000").unwrap_err().contains("at most 1024"));
        assert!(serde_json::from_value::<Load>(serde_json::json!("x")).is_err());
    }

    #[test]
    fn the_quiet_level_starts_nothing() {
        assert!(LoadGuard::start(Load::QUIET).unwrap().pids().is_empty());
    }

    #[test]
    #[cfg_attr(miri, ignore)] // starts processes
    fn a_load_process_that_does_not_start_is_an_error() {
        // `true` exits at once without the ready line.
        let err = LoadGuard::start_exe(Path::new("true"), Load::Busy(2))
            .unwrap_err()
            .to_string();
        assert!(err.contains("did not start"), "{err}");
        let err = LoadGuard::start_exe(Path::new("/nonexistent/welltempered"), Load::Mixed)
            .unwrap_err()
            .to_string();
        assert!(err.contains("cannot start a load process"), "{err}");
        assert!(
            serve("nosuch")
                .unwrap_err()
                .to_string()
                .contains("busy, mixed")
        );
    }
}
