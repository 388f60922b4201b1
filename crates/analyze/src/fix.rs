//! `--fix`: rewrites channel constructors to `welltempered::channel` (`spsc` where both sides are
//! proved single), adds the `welltempered` dependency (by version, path or git; the manifest is
//! edited with toml_edit, its formatting kept), runs `cargo check` on every target and, when the
//! crate has tests, `cargo test`, and restores every original byte when either fails. Nothing
//! unchecked is left on disk. Where the plain handles do not compile (they are not `Sync`: a
//! handle shared by reference, a holder a bound asks to be `Sync`), the rewrite is tried again
//! with `shared::{unbounded, bounded}`, whose handles are `Sync` and `Clone`, first for the
//! channels not proved single/single, then for every channel.
//!
//! The constructor's path expression is rewritten to a full path, so no `use` line needs to
//! change. Where the crate names its family's handle or error types (`mpsc::Sender<u64>` in a
//! field, `TryRecvError::Empty` in a pattern, `use std::sync::mpsc::TryRecvError::*`), those
//! names are rewritten with it, to welltempered's general types (their generic arguments kept),
//! and every channel of the family goes to the general handles (one name may stand for several
//! channels' handles). It keeps the channel instead when such a name is part of the crate's
//! public API (rewriting it would change the API its users see), may be another family's under
//! another `#[cfg]`, or comes from an import it cannot resolve. A `use` item of a rewritten
//! family that the rewrite left unused (`use std::sync::mpsc;` once its `mpsc::channel()` is
//! gone) is removed with it, so the crate does not gain an unused-import warning (fatal under
//! `-D warnings`); a group that also imports something still used is left as it is.
//!
//! In an edition-2015 package the new paths are absolute (`::welltempered::..`) and each target
//! root that compiles a rewritten file gets `extern crate welltempered;`; a channel made in a
//! file the build script compiles is kept (see `edition.rs`).

mod edition;
mod names;

use crate::verdict::Site;
use crate::{Analysis, Error};
use names::{ANY_FAMILY, NamedType, named_handle_types};
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
    /// Named handle types rewritten with their channels, and their new path.
    pub types: Vec<(Site, String)>,
    /// Whether the crate's tests ran, and passed, after the rewrite.
    pub tested: bool,
}

impl fmt::Display for FixReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let checked = if self.tested {
            "cargo check and the crate's tests passed"
        } else {
            "cargo check passed"
        };
        for (s, to) in &self.rewritten {
            writeln!(f, "remark: channel at {s}: rewritten to {to} ({checked})")?;
        }
        for (s, to) in &self.types {
            writeln!(
                f,
                "remark: handle type at {s}: rewritten to {to} ({checked})"
            )?;
        }
        for (s, why) in &self.skipped {
            writeln!(f, "remark: channel at {s}: not rewritten: {why}")?;
        }
        Ok(())
    }
}

/// How `welltempered` is added to `[dependencies]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dependency {
    /// A version requirement from crates.io (`welltempered = "0.1"`).
    Version(String),
    /// A local checkout (`welltempered = { path = "..." }`).
    Path(PathBuf),
    /// A git repository, at a revision if one is given.
    Git {
        /// The repository's URL.
        url: String,
        /// A commit, tag or branch (`rev = "..."`).
        rev: Option<String>,
    },
}

impl Default for Dependency {
    fn default() -> Self {
        Dependency::Version("0.1".into())
    }
}

/// What `--fix` does besides the rewrite.
#[derive(Debug, Clone, Default)]
pub struct FixOptions {
    /// How the dependency is added (when the manifest has none).
    pub dependency: Dependency,
    /// Passed to cargo as `--target-dir` (so repeated checks reuse one build).
    pub target_dir: Option<PathBuf>,
    /// Whether the crate's own tests run after the rewrite (`cargo test`), which is rolled back
    /// if any fails; `None`: when the crate has tests (a `#[test]`, or a target in `tests/`).
    pub verify_tests: Option<bool>,
}

/// What `--fix` would do to a crate, decided without touching it.
#[derive(Debug, Default)]
pub struct Plan {
    /// Constructors to rewrite: the site, the new path, the byte range of the old path in its
    /// file, and the old family (`std::sync::mpsc`).
    pub rewrites: Vec<Rewrite>,
    /// Constructors left alone, with the reason.
    pub kept: Vec<(Site, String)>,
    /// Handle types named in the crate (privately) to rewrite with their channels.
    pub types: Vec<TypeRewrite>,
}

/// One planned rewrite of a named handle type's path (`mpsc::Sender` in `mpsc::Sender<u64>`)
/// to welltempered's general handle type; its generic arguments stay.
#[derive(Debug, Clone)]
pub struct TypeRewrite {
    /// Where the type is named.
    pub site: Site,
    /// Byte range of the path up to the type's name.
    pub span: (usize, usize),
    /// The family it came from (`std::sync::mpsc`).
    pub family: String,
    /// The name (one of the handle or error types' names).
    pub name: String,
}

impl TypeRewrite {
    /// The new path: the plain handle types, or with `shared` those of the shared handles; an
    /// error type of the same name.
    fn to(&self, shared: bool) -> String {
        let name = match (self.name.as_str(), shared) {
            ("Sender" | "SyncSender", false) => "Sender",
            ("Receiver", false) => "Receiver",
            ("Sender" | "SyncSender", true) => "SharedSender",
            ("Receiver", true) => "SharedReceiver",
            (error, _) => error,
        };
        format!("welltempered::channel::{name}")
    }
}

/// One planned rewrite of a constructor's path.
#[derive(Debug, Clone)]
pub struct Rewrite {
    /// The channel's site.
    pub site: Site,
    /// The new path (`welltempered::channel::spsc::channel`, ...).
    pub to: &'static str,
    /// Byte range of the constructor's path in its file.
    pub span: (usize, usize),
    /// The family the constructor came from (`std::sync::mpsc`).
    pub family: String,
}

impl Plan {
    /// How many rewrites go to a single/single channel (`spsc`).
    pub fn to_spsc(&self) -> usize {
        self.rewrites
            .iter()
            .filter(|r| r.to.contains("::spsc::"))
            .count()
    }
}

impl fmt::Display for Plan {
    /// The summary line's part: `--fix would rewrite 3 (2 to spsc), keep 1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "--fix would rewrite {} ({} to spsc), keep {}",
            self.rewrites.len(),
            self.to_spsc(),
            self.kept.len()
        )
    }
}

/// What `--fix` would do to the analysed crate: each constructor to rewrite and its new path, or
/// why it is kept (already welltempered's, or its family's handle types are named in the
/// crate). Reads the crate's sources again; writes nothing.
pub fn plan(a: &Analysis) -> Result<Plan, Error> {
    let mut plan = Plan::default();
    if a.channels.is_empty() {
        return Ok(plan);
    }
    let named = named_handle_types(&a.root)?;
    for c in &a.channels {
        if c.constructor.starts_with("welltempered::") {
            plan.kept
                .push((c.site.clone(), "already welltempered's".to_string()));
            continue;
        }
        if edition::in_build_script(a, &c.site.file) {
            plan.kept.push((
                c.site.clone(),
                "made in a file the build script compiles, which sees [build-dependencies] only; \
                 --fix adds welltempered to [dependencies]"
                    .to_string(),
            ));
            continue;
        }
        let family = c.constructor.rsplit_once("::").map_or("", |x| x.0);
        let names: Vec<&NamedType> = named
            .iter()
            .filter(|n| n.family == family || n.family == ANY_FAMILY)
            .collect();
        // A name the rewrite cannot follow keeps every channel of its family.
        if let Some(n) = names.iter().find(|n| n.family == ANY_FAMILY || n.public) {
            let why = if n.family == ANY_FAMILY {
                format!(
                    "a handle type of unresolved origin ({}) is named at {}; it would no longer match",
                    n.name, n.site
                )
            } else {
                format!(
                    "the handle type {}::{} is named in the public API at {}; rewriting it would change the crate's API",
                    n.family, n.name, n.site
                )
            };
            plan.kept.push((c.site.clone(), why));
            continue;
        }
        // A name that is another family's in another configuration (`#[cfg]` alternatives of
        // its import) would match only one of them after the rewrite.
        if let Some((n, other)) = names.iter().find_map(|n| {
            named
                .iter()
                .find(|m| m.site.file == n.site.file && m.span == n.span && m.family != n.family)
                .map(|m| (n, m))
        }) {
            plan.kept.push((
                c.site.clone(),
                format!(
                    "the handle type {} is named at {} as {}'s and as {}'s (in different \
                     configurations); it would no longer match in one of them",
                    n.name, n.site, n.family, other.family
                ),
            ));
            continue;
        }
        // With its family's handle types named (privately), every channel of the family gets
        // the general handles, whose types those names become: one name may stand for the
        // handles of several channels, single or not.
        let single = names.is_empty() && c.senders.is_single() && c.receivers.is_single();
        let to = match (single, c.bounded) {
            (true, false) => "welltempered::channel::spsc::channel",
            (true, true) => "welltempered::channel::spsc::bounded",
            (false, false) => "welltempered::channel::unbounded",
            (false, true) => "welltempered::channel::bounded",
        };
        plan.rewrites.push(Rewrite {
            site: c.site.clone(),
            to,
            span: c.func_span,
            family: family.to_string(),
        });
        for n in names {
            if !plan
                .types
                .iter()
                .any(|t| t.site.file == n.site.file && t.span == n.span)
            {
                plan.types.push(TypeRewrite {
                    site: n.site.clone(),
                    span: n.span,
                    family: n.family.clone(),
                    name: n.name.clone(),
                });
            }
        }
    }
    Ok(plan)
}

/// Applies the rewrite to the analysed crate, checks every target with `cargo check` (which
/// may fetch the new dependency), runs the crate's tests when asked (see
/// [`FixOptions::verify_tests`]), and restores the originals byte-for-byte if either fails.
pub fn apply(a: &Analysis, opts: &FixOptions) -> Result<FixReport, Error> {
    let plan = plan(a)?;
    let mut report = FixReport {
        skipped: plan
            .kept
            .into_iter()
            .filter(|(_, why)| !why.starts_with("already"))
            .collect(),
        ..FixReport::default()
    };
    if plan.rewrites.is_empty() {
        return Ok(report);
    }
    let io = |file: &Path, e: std::io::Error| Error::Io {
        file: file.to_path_buf(),
        message: e.to_string(),
    };
    // The files the rewrite touches, as they are now (the lock file may not exist yet).
    let manifest = a.root.join("Cargo.toml");
    let lock = a.root.join("Cargo.lock");
    let mut originals: Vec<(PathBuf, Option<Vec<u8>>)> =
        vec![(lock.clone(), std::fs::read(&lock).ok())];
    let mut files: Vec<&str> = plan
        .rewrites
        .iter()
        .map(|r| r.site.file.as_str())
        .chain(plan.types.iter().map(|t| t.site.file.as_str()))
        .collect();
    files.sort_unstable();
    files.dedup();
    // In edition 2015, the roots that get `extern crate welltempered;`.
    let roots = edition::roots_needing_extern(a, &files);
    files.extend(roots.iter().map(String::as_str));
    files.sort_unstable();
    files.dedup();
    for p in files
        .iter()
        .map(|f| a.root.join(f))
        .chain([manifest.clone()])
    {
        originals.push((p.clone(), Some(std::fs::read(&p).map_err(|e| io(&p, e))?)));
    }
    let restore = || {
        for (p, bytes) in &originals {
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
    // First the plain handles. Where they do not compile (the plain handles are not `Sync`:
    // code that shares one by reference, a holder a bound asks to be `Sync`), once more with
    // shared handles (`Sync` and `Clone`, as crossbeam's) for every channel not proved
    // single/single, then for every channel.
    let paths = |level: usize| -> (Vec<&'static str>, Vec<String>) {
        (
            plan.rewrites
                .iter()
                .map(|r| shared_path(r.to, level))
                .collect(),
            plan.types.iter().map(|t| t.to(level > 0)).collect(),
        )
    };
    let mut level = 0;
    let mut failures: Vec<String> = Vec::new();
    loop {
        let (to, type_to) = paths(level);
        let rewrites: Vec<(&Rewrite, &'static str)> = plan.rewrites.iter().zip(to).collect();
        let types: Vec<(&TypeRewrite, String)> = plan.types.iter().zip(type_to).collect();
        if let Err(e) = write_rewrites(a, opts, &rewrites, &types, &roots, &manifest) {
            restore();
            return Err(e);
        }
        // Every target: a rewritten test or example must compile too.
        match cargo(a, opts, &["check", "--quiet", "--all-targets"]) {
            Ok(()) => {
                report.rewritten = rewrites
                    .iter()
                    .map(|(r, to)| (r.site.clone(), (*to).to_string()))
                    .collect();
                report.types = types
                    .iter()
                    .map(|(t, to)| (t.site.clone(), to.clone()))
                    .collect();
                break;
            }
            Err(e) => {
                restore();
                failures.push(e.first);
                let next = (level + 1..=2).find(|&l| paths(l) != paths(level));
                match next.filter(|_| e.compiler) {
                    Some(l) => level = l,
                    None => {
                        // A crate that does not compile as it is (a bench reading a file its
                        // package leaves out, a nightly feature) says nothing of the rewrite.
                        let as_it_is = e
                            .compiler
                            .then(|| cargo(a, opts, &["check", "--quiet", "--all-targets"]).err())
                            .flatten();
                        // That check may have made a lock file.
                        restore();
                        return Err(Error::Fix(match as_it_is {
                            Some(o) => format!(
                                "cargo check fails on the crate as it is, without the rewrite \
                                 ({}); originals restored",
                                o.first
                            ),
                            None => format!(
                                "cargo check failed after the rewrite ({}); originals restored",
                                failures.join("; with shared handles: ")
                            ),
                        }));
                    }
                }
            }
        }
    }
    let verify = match opts.verify_tests {
        Some(v) => v,
        None => has_tests(a)?,
    };
    if verify {
        if let Err(e) = cargo(a, opts, &["test", "--quiet"]) {
            restore();
            // Tests that fail as the crate is cannot tell whether the rewrite broke one.
            let as_it_is = cargo(a, opts, &["test", "--quiet"]).err();
            restore();
            return Err(Error::Fix(match as_it_is {
                Some(o) => format!(
                    "the crate's tests failed after the rewrite ({}), and fail without it too \
                     ({}), so the rewrite cannot be verified (--no-verify-tests keeps it); \
                     originals restored",
                    e.first, o.first
                ),
                None => format!(
                    "the crate's tests failed after the rewrite ({}); originals restored",
                    e.first
                ),
            }));
        }
        report.tested = true;
    }
    Ok(report)
}

/// The constructor `to` at fallback `level`: at 0 itself; at 1 the shared-handle constructor
/// (handles that are `Sync`, as crossbeam's are: `welltempered::channel::shared::unbounded`)
/// for a rewrite that is not to `spsc`; at 2 for every rewrite.
fn shared_path(to: &'static str, level: usize) -> &'static str {
    match (to, level) {
        (_, 0) => to,
        ("welltempered::channel::unbounded", _) => "welltempered::channel::shared::unbounded",
        ("welltempered::channel::bounded", _) => "welltempered::channel::shared::bounded",
        ("welltempered::channel::spsc::channel", 2..) => "welltempered::channel::shared::unbounded",
        ("welltempered::channel::spsc::bounded", 2..) => "welltempered::channel::shared::bounded",
        (other, _) => other,
    }
}

/// Writes the rewritten sources (each constructor path and named handle type replaced, absolute
/// in edition 2015; imports the rewrite left unused removed), `extern crate welltempered;` in
/// each of `roots`, and the manifest with the dependency added.
fn write_rewrites(
    a: &Analysis,
    opts: &FixOptions,
    rewrites: &[(&Rewrite, &str)],
    types: &[(&TypeRewrite, String)],
    roots: &[String],
    manifest: &Path,
) -> Result<(), Error> {
    let io = |file: &Path, e: std::io::Error| Error::Io {
        file: file.to_path_buf(),
        message: e.to_string(),
    };
    // Per file: the byte range of each constructor path or named type, its new path, and its
    // family.
    let mut edits: BTreeMap<&str, Vec<(usize, usize, String, &str)>> = BTreeMap::new();
    let constructors = rewrites
        .iter()
        .map(|(r, to)| (&r.site, r.span, *to, &r.family));
    let names = types
        .iter()
        .map(|(t, to)| (&t.site, t.span, to.as_str(), &t.family));
    for (site, span, to, family) in constructors.chain(names) {
        edits.entry(site.file.as_str()).or_default().push((
            span.0,
            span.1,
            edition::path_for(a, to),
            family.as_str(),
        ));
    }
    let mut planned: Vec<(PathBuf, String)> = Vec::new();
    for (rel, mut es) in edits {
        let p = a.root.join(rel);
        let mut text = std::fs::read_to_string(&p).map_err(|e| io(&p, e))?;
        es.sort_by_key(|x| std::cmp::Reverse(x.0));
        for (s, e, to, _) in es.iter() {
            text.replace_range(*s..*e, to);
        }
        let families: Vec<&str> = es.iter().map(|x| x.3).collect();
        let text = remove_unused_imports(&text, &families);
        planned.push((p, text));
    }
    for rel in roots {
        let p = a.root.join(rel);
        let text = match planned.iter().position(|(q, _)| *q == p) {
            Some(i) => planned.remove(i).1,
            None => std::fs::read_to_string(&p).map_err(|e| io(&p, e))?,
        };
        let text = edition::with_extern_crate(&text).ok_or_else(|| {
            Error::Fix(format!(
                "{rel} does not parse; `extern crate welltempered;` could not be added"
            ))
        })?;
        planned.push((p, text));
    }
    let mtext = std::fs::read_to_string(manifest).map_err(|e| io(manifest, e))?;
    if let Some(new) = dependency_added(&mtext, &opts.dependency).map_err(|m| Error::Manifest {
        file: manifest.to_path_buf(),
        line: 1,
        message: m,
    })? {
        planned.push((manifest.to_path_buf(), new));
    }
    for (p, text) in &planned {
        std::fs::write(p, text).map_err(|e| io(p, e))?;
    }
    Ok(())
}

/// A cargo command that failed: its first error line, with the error's location, and whether
/// the compiler rejected the crate (not cargo: a dependency it could not get, say).
struct CargoFailure {
    first: String,
    compiler: bool,
}

/// Runs `cargo ARGS` on the analysed crate.
fn cargo(a: &Analysis, opts: &FixOptions, args: &[&str]) -> Result<(), CargoFailure> {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(args)
        .arg("--manifest-path")
        .arg(a.root.join("Cargo.toml"));
    if let Some(t) = &opts.target_dir {
        cmd.arg("--target-dir").arg(t);
    }
    let o = cmd.output().map_err(|e| CargoFailure {
        first: format!("could not run cargo: {e}"),
        compiler: false,
    })?;
    if o.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&o.stderr);
    let out = String::from_utf8_lossy(&o.stdout);
    let mut lines = err.lines().chain(out.lines());
    let first = lines
        .find(|l| l.starts_with("error") || l.contains("panicked at") || l.contains("FAILED"))
        .unwrap_or("failed");
    // A compiler error's location is the ` --> file:line:col` line after it.
    let at = lines
        .next()
        .and_then(|l| l.trim_start().strip_prefix("--> "))
        .map(|l| format!(" at {l}"))
        .unwrap_or_default();
    // Without our dependency there is nothing to check: say how to give one.
    let hint = if first.contains("no matching package named `welltempered`") {
        " (welltempered is not in the registry cargo uses: give --welltempered-path DIR or \
         --welltempered-git URL)"
    } else {
        ""
    };
    Err(CargoFailure {
        first: format!("{}{at}{hint}", first.trim()),
        compiler: err.contains("could not compile"),
    })
}

/// Whether the crate has tests: a `#[test]` in any file of any target, or a target in `tests/`.
fn has_tests(a: &Analysis) -> Result<bool, Error> {
    if a.targets.iter().any(|t| t.starts_with("tests/")) {
        return Ok(true);
    }
    let krate = crate::discover::discover(&a.root)?;
    Ok(krate.files.iter().any(|f| f.text.contains("#[test]")))
}

/// The manifest with `welltempered` added to `[dependencies]` as `dep` asks, formatting and
/// comments kept (toml_edit), or `None` when `[dependencies]` already names it. `Err` when the
/// manifest does not parse.
pub fn dependency_added(manifest: &str, dep: &Dependency) -> Result<Option<String>, String> {
    let mut doc: toml_edit::DocumentMut = manifest.parse().map_err(|e| format!("{e}"))?;
    let deps = doc
        .entry("dependencies")
        .or_insert_with(toml_edit::table)
        .as_table_like_mut()
        .ok_or("[dependencies] is not a table")?;
    if deps.contains_key("welltempered") {
        return Ok(None);
    }
    let value: toml_edit::Value = match dep {
        Dependency::Version(v) => v.as_str().into(),
        Dependency::Path(p) => {
            let mut t = toml_edit::InlineTable::new();
            t.insert("path", p.display().to_string().into());
            t.into()
        }
        Dependency::Git { url, rev } => {
            let mut t = toml_edit::InlineTable::new();
            t.insert("git", url.as_str().into());
            if let Some(r) = rev {
                t.insert("rev", r.as_str().into());
            }
            t.into()
        }
    };
    deps.insert("welltempered", toml_edit::Item::Value(value));
    Ok(Some(doc.to_string()))
}

/// `text` without its `use` items whose every imported name is under one of `families`
/// (`std::sync::mpsc`, ...) and no longer appears in the file outside `use` items. Glob imports
/// and groups with a name still used are kept; so is everything when `text` does not parse
/// (as current Rust, or as edition-2015 code).
fn remove_unused_imports(text: &str, families: &[&str]) -> String {
    let Ok(file) = crate::discover::parse(text) else {
        return text.to_string();
    };
    /// Every `use` item of the file, in modules and blocks too.
    struct Uses<'a>(Vec<&'a syn::ItemUse>);
    impl<'a> Visit<'a> for Uses<'a> {
        fn visit_item_use(&mut self, u: &'a syn::ItemUse) {
            self.0.push(u);
        }
    }
    let mut uses = Uses(Vec::new());
    uses.visit_file(&file);
    // How often each identifier occurs in the whole file, and inside `use` items, where it could
    // name an import: not after `::` or `.` (a later path segment, a field or a method, such as
    // the `channel` of the new `welltempered::channel::unbounded`).
    fn count(ts: proc_macro2::TokenStream, into: &mut BTreeMap<String, usize>) {
        let mut after_path_or_dot = false;
        let mut colon = false;
        for t in ts {
            let (next_after, next_colon) = match &t {
                proc_macro2::TokenTree::Ident(i) => {
                    if !after_path_or_dot {
                        *into.entry(i.to_string()).or_default() += 1;
                    }
                    (false, false)
                }
                proc_macro2::TokenTree::Group(g) => {
                    count(g.stream(), into);
                    (false, false)
                }
                proc_macro2::TokenTree::Punct(p) => match p.as_char() {
                    ':' if colon => (true, false),
                    ':' => (false, p.spacing() == proc_macro2::Spacing::Joint),
                    '.' => (true, false),
                    _ => (false, false),
                },
                proc_macro2::TokenTree::Literal(_) => (false, false),
            };
            after_path_or_dot = next_after;
            colon = next_colon;
        }
    }
    let mut everywhere = BTreeMap::new();
    count(quote::ToTokens::to_token_stream(&file), &mut everywhere);
    let mut in_uses = BTreeMap::new();
    for u in &uses.0 {
        count(quote::ToTokens::to_token_stream(*u), &mut in_uses);
    }
    let used = |name: &str| everywhere.get(name) > in_uses.get(name);
    let mut cut: Vec<(usize, usize)> = Vec::new();
    for u in &uses.0 {
        let mut leaves = Vec::new();
        if !use_leaves(&u.tree, &mut Vec::new(), &mut leaves) || leaves.is_empty() {
            continue;
        }
        let removable = leaves.iter().all(|(path, name)| {
            let full = path.join("::");
            families
                .iter()
                .any(|f| full == *f || full.starts_with(&format!("{f}::")))
                && !used(name)
        });
        if removable {
            let span = syn::spanned::Spanned::span(*u);
            let (start, mut end) = (
                crate::flow::offset(text, span.start()),
                crate::flow::offset(text, span.end()),
            );
            if text[end..].starts_with('\n') {
                end += 1;
            }
            cut.push((start, end));
        }
    }
    let mut out = text.to_string();
    cut.sort_by_key(|c| std::cmp::Reverse(c.0));
    for (s, e) in cut {
        out.replace_range(s..e, "");
    }
    out
}

/// Flattens a use tree into (full path, name it binds) pairs under `prefix`; `false` for a tree
/// with a glob (its names are unknown).
fn use_leaves(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, String)>,
) -> bool {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            let ok = use_leaves(&p.tree, prefix, out);
            prefix.pop();
            ok
        }
        syn::UseTree::Name(n) if n.ident == "self" => match prefix.last() {
            Some(last) => {
                out.push((prefix.clone(), last.clone()));
                true
            }
            None => false,
        },
        syn::UseTree::Name(n) => {
            let mut full = prefix.clone();
            full.push(n.ident.to_string());
            out.push((full, n.ident.to_string()));
            true
        }
        syn::UseTree::Rename(r) => {
            let mut full = prefix.clone();
            full.push(r.ident.to_string());
            out.push((full, r.rename.to_string()));
            true
        }
        syn::UseTree::Glob(_) => false,
        syn::UseTree::Group(g) => g.items.iter().all(|t| use_leaves(t, prefix, out)),
    }
}

#[cfg(test)]
mod tests {
    use super::remove_unused_imports;

    const MPSC: &[&str] = &["std::sync::mpsc"];

    #[test]
    fn an_import_left_unused_goes() {
        let src = "use std::sync::mpsc;\nuse std::thread;\nfn main() { let (t, r) = welltempered::channel::unbounded::<u8>(); thread::spawn(|| ()); }\n";
        let out = remove_unused_imports(src, MPSC);
        assert!(!out.contains("use std::sync::mpsc;"), "{out}");
        assert!(out.starts_with("use std::thread;\n"), "{out}");
    }

    #[test]
    fn a_later_path_segment_or_method_of_the_same_name_is_not_a_use() {
        let src = "use std::sync::mpsc::channel;\nfn main() { let (t, r) = welltempered::channel::unbounded::<u8>(); r.channel(); }\n";
        let out = remove_unused_imports(src, MPSC);
        assert!(!out.contains("use std::sync::mpsc::channel;"), "{out}");
        let src = "use std::sync::mpsc::channel;\nfn main() { let (t, r) = channel::<u8>(); }\n";
        assert_eq!(remove_unused_imports(src, MPSC), src);
    }

    #[test]
    fn an_import_still_used_stays() {
        let src = "use std::sync::mpsc;\nfn f(e: mpsc::RecvError) {}\n";
        assert_eq!(remove_unused_imports(src, MPSC), src);
    }

    #[test]
    fn other_families_globs_and_mixed_groups_stay() {
        for src in [
            "use std::sync::mpsc::*;\nfn main() {}\n",
            "use std::sync::{mpsc, Arc};\nfn main() { let a = Arc::new(1); }\n",
            "use flume;\nfn main() {}\n",
        ] {
            assert_eq!(remove_unused_imports(src, MPSC), src);
        }
    }

    #[test]
    fn names_renames_and_groups_of_the_family_go_when_unused() {
        let src = "use std::sync::mpsc::{channel, sync_channel as sc};\nuse std::sync::mpsc::{self};\nfn main() {}\n";
        assert_eq!(remove_unused_imports(src, MPSC), "fn main() {}\n");
    }
}
