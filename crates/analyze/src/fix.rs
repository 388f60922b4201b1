//! `--fix`: rewrites channel constructors to `welltempered::channel` (`spsc` where both sides are
//! proved single), adds the `welltempered` dependency, runs `cargo check`, and restores every
//! original byte when the check fails. Nothing unchecked is left on disk.
//!
//! Only the constructor's path expression is rewritten (to a full path, so no `use` line needs
//! to change). A channel whose family's handle types (`Sender`, `Receiver`, `SyncSender`) are
//! named anywhere in the crate is not rewritten: the types would no longer match.

use crate::resolve::Imports;
use crate::verdict::Site;
use crate::{Analysis, Error};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use syn::visit::Visit;

/// What `--fix` did.
#[derive(Debug, Default)]
pub struct FixReport {
    /// Rewritten constructors and their new path.
    pub rewritten: Vec<(Site, String)>,
    /// Constructors left alone, with the reason.
    pub skipped: Vec<(Site, String)>,
}

impl fmt::Display for FixReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (s, to) in &self.rewritten {
            writeln!(
                f,
                "remark: channel at {s}: rewritten to {to} (cargo check passed)"
            )?;
        }
        for (s, why) in &self.skipped {
            writeln!(f, "remark: channel at {s}: not rewritten: {why}")?;
        }
        Ok(())
    }
}

/// Handle-type names of each family that are named in the crate, with where.
fn named_handle_types(root: &Path) -> Result<Vec<(String, Site)>, Error> {
    let krate = crate::discover::discover(root)?;
    let mut out = Vec::new();
    for f in &krate.files {
        let imp = Imports::of(&f.ast);
        struct V<'i> {
            imp: &'i Imports,
            file: String,
            out: Vec<(String, Site)>,
        }
        impl<'a> Visit<'a> for V<'_> {
            fn visit_type_path(&mut self, t: &'a syn::TypePath) {
                let c = self.imp.canonical(&t.path);
                if c.len() >= 2
                    && matches!(
                        c.last().map(String::as_str),
                        Some("Sender" | "Receiver" | "SyncSender")
                    )
                {
                    let s = syn::spanned::Spanned::span(t).start();
                    self.out.push((
                        c[..c.len() - 1].join("::"),
                        Site {
                            file: self.file.clone(),
                            line: s.line,
                            column: s.column + 1,
                        },
                    ));
                }
                syn::visit::visit_type_path(self, t);
            }
        }
        let mut v = V {
            imp: &imp,
            file: f.rel.clone(),
            out: Vec::new(),
        };
        v.visit_file(&f.ast);
        out.extend(v.out);
    }
    Ok(out)
}

/// Applies the rewrite to the analysed crate, checks it with `cargo check` (which may fetch the new dependency), and
/// restores the originals byte-for-byte if the check fails. `target_dir` is passed to cargo as
/// `--target-dir` (so repeated checks reuse one build).
pub fn apply(
    a: &Analysis,
    welltempered_path: Option<&Path>,
    target_dir: Option<&Path>,
) -> Result<FixReport, Error> {
    let named = named_handle_types(&a.root)?;
    let mut report = FixReport::default();
    let mut edits: BTreeMap<String, Vec<(usize, usize, String)>> = BTreeMap::new();
    for c in &a.channels {
        if c.constructor.starts_with("welltempered::") {
            continue;
        }
        let family = c.constructor.rsplit_once("::").map_or("", |x| x.0);
        if let Some((ty, s)) = named.iter().find(|(fam, _)| fam == family) {
            report.skipped.push((
                c.site.clone(),
                format!("the handle type {ty}::… is named at {s}; it would no longer match"),
            ));
            continue;
        }
        let single = c.senders.is_single() && c.receivers.is_single();
        let to = match (single, c.bounded) {
            (true, false) => "welltempered::channel::spsc::channel",
            (true, true) => "welltempered::channel::spsc::bounded",
            (false, false) => "welltempered::channel::unbounded",
            (false, true) => "welltempered::channel::bounded",
        };
        edits.entry(c.site.file.clone()).or_default().push((
            c.func_span.0,
            c.func_span.1,
            to.to_string(),
        ));
        report.rewritten.push((c.site.clone(), to.to_string()));
    }
    if edits.is_empty() {
        return Ok(report);
    }
    let mut originals: Vec<(PathBuf, Option<Vec<u8>>)> = Vec::new();
    let io = |file: &Path, e: std::io::Error| Error::Io {
        file: file.to_path_buf(),
        message: e.to_string(),
    };
    let mut planned: Vec<(PathBuf, String)> = Vec::new();
    for (rel, mut es) in edits {
        let p = a.root.join(&rel);
        let mut text = std::fs::read_to_string(&p).map_err(|e| io(&p, e))?;
        es.sort_by_key(|x| std::cmp::Reverse(x.0));
        for (s, e, to) in es {
            text.replace_range(s..e, &to);
        }
        planned.push((p, text));
    }
    let manifest = a.root.join("Cargo.toml");
    let mtext = std::fs::read_to_string(&manifest).map_err(|e| io(&manifest, e))?;
    if !mtext
        .lines()
        .any(|l| l.trim_start().starts_with("welltempered"))
    {
        let dep = match welltempered_path {
            Some(d) => format!("welltempered = {{ path = \"{}\" }}", d.display()),
            None => "welltempered = \"0.1\"".to_string(),
        };
        let new = match mtext.find("[dependencies]\n") {
            Some(i) => {
                let at = i + "[dependencies]\n".len();
                format!("{}{dep}\n{}", &mtext[..at], &mtext[at..])
            }
            None => format!("{}\n[dependencies]\n{dep}\n", mtext.trim_end()),
        };
        planned.push((manifest, new));
    }
    let lock = a.root.join("Cargo.lock");
    originals.push((lock.clone(), std::fs::read(&lock).ok()));
    for (p, _) in &planned {
        originals.push((p.clone(), Some(std::fs::read(p).map_err(|e| io(p, e))?)));
    }
    let restore = |originals: &[(PathBuf, Option<Vec<u8>>)]| {
        for (p, bytes) in originals {
            match bytes {
                Some(b) => {
                    let _ = std::fs::write(p, b);
                }
                None => {
                    let _ = std::fs::remove_file(p);
                }
            }
        }
    };
    for (p, text) in &planned {
        if let Err(e) = std::fs::write(p, text) {
            restore(&originals);
            return Err(io(p, e));
        }
    }
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(["check", "--quiet", "--manifest-path"])
        .arg(a.root.join("Cargo.toml"));
    if let Some(t) = target_dir {
        cmd.arg("--target-dir").arg(t);
    }
    let out = cmd.output();
    match out {
        Ok(o) if o.status.success() => Ok(report),
        Ok(o) => {
            restore(&originals);
            let err = String::from_utf8_lossy(&o.stderr);
            let first = err
                .lines()
                .find(|l| l.starts_with("error"))
                .unwrap_or("cargo check failed");
            Err(Error::Fix(format!(
                "cargo check failed after the rewrite ({first}); originals restored"
            )))
        }
        Err(e) => {
            restore(&originals);
            Err(Error::Fix(format!(
                "could not run cargo check: {e}; originals restored"
            )))
        }
    }
}
