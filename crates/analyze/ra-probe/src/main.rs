//! The rust-analyzer front end candidate for the channel analysis, as a probe.
//!
//! Loads one crate (every target, with `cfg(test)`) with rust-analyzer's libraries
//! (<https://github.com/rust-lang/rust-analyzer>, published as the `ra_ap_*` crates) and asks
//! the questions the flow rules answer today by name matching on syn's syntax tree:
//!
//! - which calls are channel constructors (std's `mpsc::channel`/`sync_channel`,
//!   crossbeam-channel's and flume's `unbounded`/`bounded`), by name resolution, also inside
//!   macro expansions, and which constructors are named without being called;
//! - which `clone` calls clone a handle (the receiver's inferred type is a `Sender`,
//!   `SyncSender` or `Receiver` of those crates);
//! - which `spawn` calls are std's;
//! - which field accesses read a handle, which struct holds each such field, and whether that
//!   struct is `Sync` (the trait solver's answer, not the field types' names).
//!
//! It prints one `RESULT` line (times, counts, how many calls and method calls resolved), one
//! `SITE` line per constructor and one `HOLDER` line per struct holding a handle field (its name
//! and the trait solver's `Sync`), mapped back from expansions to the file and line a user reads;
//! `scripts/ra-probe.sh` compares those with the corpora's audited truth and with the syn
//! walker's time. Only the library, binary and `cfg(test)` code of the crate's `src/` is read
//! (its tests/, examples/ and benches/ targets are skipped), as the reach corpora count it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Parser;
use ra_ap_hir::{Adt, Crate, HasCrate, ModuleDef, PathResolution, Semantics, Trait, Variant};
use ra_ap_ide_db::{RootDatabase, famous_defs::FamousDefs};
use ra_ap_load_cargo::{LoadCargoConfig, ProcMacroServerChoice, load_workspace_at};
use ra_ap_project_model::{CargoConfig, CargoFeatures, RustLibSource};
use ra_ap_syntax::{AstNode, SyntaxNode, WalkEvent, ast};

/// Crates whose channels the analysis knows.
const CHANNEL_CRATES: &[&str] = &["std", "crossbeam_channel", "flume"];
/// Their constructors' names.
const CONSTRUCTORS: &[&str] = &["channel", "sync_channel", "unbounded", "bounded"];
/// Their handle types' names.
const HANDLES: &[&str] = &["Sender", "SyncSender", "Receiver"];
/// How deep macro expansions are followed (macros expanding to macro calls).
const MAX_EXPANSION_DEPTH: usize = 8;

#[derive(Parser)]
#[command(about = "Load a crate with rust-analyzer's libraries and resolve its channel sites")]
struct Args {
    /// The crate's directory (its Cargo.toml; `cargo metadata` runs there).
    dir: PathBuf,
    /// Analyse with every feature of the crate enabled (default: its default features).
    #[arg(long)]
    all_features: bool,
    /// Analyse for this target triple's cfg (default: the host's).
    #[arg(long)]
    target: Option<String>,
    /// The standard library's sources (default: the rust-src of the toolchain running it).
    #[arg(long)]
    sysroot_src: Option<PathBuf>,
}

/// What the walk found.
#[derive(Default)]
struct Found {
    files: usize,
    lines: usize,
    constructors: usize,
    constructors_in_macros: usize,
    constructors_by_name: usize,
    calls: usize,
    calls_resolved: usize,
    methods: usize,
    methods_resolved: usize,
    handle_clones: usize,
    std_spawns: usize,
    handle_fields: usize,
    holders: BTreeSet<String>,
    holders_sync: usize,
    /// Each holder's name and whether the trait solver finds it `Sync`.
    holder_verdicts: Vec<(String, bool)>,
    expansions: usize,
    /// Constructor sites in the original files, and whether named without a call.
    sites: Vec<(ra_ap_hir::FileRange, bool)>,
}

/// The name the crate has in paths (`crossbeam_channel`, not `crossbeam-channel`).
fn crate_name(db: &RootDatabase, krate: Crate) -> String {
    krate
        .display_name(db)
        .map(|n| n.to_string())
        .unwrap_or_default()
        .replace('-', "_")
}

/// Whether `f` is a channel constructor of a known crate.
fn is_constructor(db: &RootDatabase, f: ra_ap_hir::Function) -> bool {
    CONSTRUCTORS.contains(&f.name(db).as_str())
        && CHANNEL_CRATES.contains(&crate_name(db, f.krate(db)).as_str())
}

/// Whether `adt` is a channel handle of a known crate.
fn is_handle(db: &RootDatabase, adt: Adt) -> bool {
    HANDLES.contains(&adt.name(db).as_str())
        && CHANNEL_CRATES.contains(&crate_name(db, adt.krate(db)).as_str())
}

/// `core::marker::Sync`, found from `core`'s root module.
fn sync_trait(db: &RootDatabase, core: Option<Crate>) -> Option<Trait> {
    let marker = core?
        .root_module(db)
        .children(db)
        .find(|m| m.name(db).is_some_and(|n| n.as_str() == "marker"))?;
    marker.declarations(db).into_iter().find_map(|d| match d {
        ModuleDef::Trait(t) if t.name(db).as_str() == "Sync" => Some(t),
        _ => None,
    })
}

/// The walk over one syntax tree (a file, or a macro's expansion).
struct Walk<'a, 'db> {
    sema: &'a Semantics<'db, RootDatabase>,
    db: &'db RootDatabase,
    sync: Option<Trait>,
    found: &'a mut Found,
}

impl Walk<'_, '_> {
    fn tree(&mut self, root: &SyntaxNode, depth: usize) {
        let mut events = root.preorder();
        while let Some(event) = events.next() {
            let WalkEvent::Enter(node) = event else {
                continue;
            };
            if let Some(mac) = ast::MacroCall::cast(node.clone()) {
                if depth < MAX_EXPANSION_DEPTH
                    && let Some(expansion) = self.sema.expand_macro_call(&mac)
                {
                    self.found.expansions += 1;
                    self.tree(&expansion.value, depth + 1);
                }
                events.skip_subtree();
            } else if let Some(call) = ast::CallExpr::cast(node.clone()) {
                self.call(&call, depth > 0);
            } else if let Some(path) = ast::PathExpr::cast(node.clone()) {
                self.named(&path);
            } else if let Some(call) = ast::MethodCallExpr::cast(node.clone()) {
                self.method(&call);
            } else if let Some(field) = ast::FieldExpr::cast(node) {
                self.field(&field);
            }
        }
    }

    fn call(&mut self, call: &ast::CallExpr, in_macro: bool) {
        self.found.calls += 1;
        let Some(ast::Expr::PathExpr(callee)) = call.expr() else {
            return;
        };
        let Some(path) = callee.path() else { return };
        let Some(resolution) = self.sema.resolve_path(&path) else {
            return;
        };
        self.found.calls_resolved += 1;
        let PathResolution::Def(ModuleDef::Function(f)) = resolution else {
            return;
        };
        if is_constructor(self.db, f) {
            self.found.constructors += 1;
            self.found.constructors_in_macros += usize::from(in_macro);
            let site = self.sema.original_range(call.syntax());
            self.found.sites.push((site, false));
        }
        if f.name(self.db).as_str() == "spawn" && crate_name(self.db, f.krate(self.db)) == "std" {
            self.found.std_spawns += 1;
        }
    }

    /// A constructor named but not called (`Lazy::new(unbounded)`).
    fn named(&mut self, path_expr: &ast::PathExpr) {
        let called = path_expr
            .syntax()
            .parent()
            .and_then(ast::CallExpr::cast)
            .and_then(|c| c.expr())
            .is_some_and(|callee| callee.syntax() == path_expr.syntax());
        if called {
            return;
        }
        if let Some(path) = path_expr.path()
            && let Some(PathResolution::Def(ModuleDef::Function(f))) = self.sema.resolve_path(&path)
            && is_constructor(self.db, f)
        {
            self.found.constructors_by_name += 1;
            let site = self.sema.original_range(path_expr.syntax());
            self.found.sites.push((site, true));
        }
    }

    fn method(&mut self, call: &ast::MethodCallExpr) {
        self.found.methods += 1;
        let Some(f) = self.sema.resolve_method_call(call) else {
            return;
        };
        self.found.methods_resolved += 1;
        let name = f.name(self.db);
        if name.as_str() == "clone"
            && let Some(receiver) = call.receiver()
            && let Some(ty) = self.sema.type_of_expr(&receiver)
            && ty
                .original()
                .strip_references()
                .as_adt()
                .is_some_and(|a| is_handle(self.db, a))
        {
            self.found.handle_clones += 1;
        }
        if name.as_str() == "spawn" && crate_name(self.db, f.krate(self.db)) == "std" {
            self.found.std_spawns += 1;
        }
    }

    fn field(&mut self, field: &ast::FieldExpr) {
        let expr = ast::Expr::FieldExpr(field.clone());
        let Some(ty) = self.sema.type_of_expr(&expr) else {
            return;
        };
        if !ty
            .original()
            .strip_references()
            .as_adt()
            .is_some_and(|a| is_handle(self.db, a))
        {
            return;
        }
        self.found.handle_fields += 1;
        let Some(either::Either::Left(field)) = self.sema.resolve_field(field) else {
            return;
        };
        let holder = field.parent_def(self.db);
        if !self.found.holders.insert(format!("{holder:?}")) {
            return;
        }
        let (holder_ty, name) = match holder {
            Variant::Struct(s) => (s.ty(self.db), s.name(self.db)),
            Variant::Union(u) => (u.ty(self.db), u.name(self.db)),
            Variant::EnumVariant(v) => {
                let e = v.parent_enum(self.db);
                (e.ty(self.db), e.name(self.db))
            }
        };
        let sync = self
            .sync
            .is_some_and(|sync| holder_ty.impls_trait(self.db, sync, &[]));
        if sync {
            self.found.holders_sync += 1;
        }
        self.found
            .holder_verdicts
            .push((name.as_str().to_string(), sync));
    }
}

/// Walks every file of the crate's local targets but tests/, examples/ and benches/.
fn analyse(db: &RootDatabase, vfs: &ra_ap_vfs::Vfs, root: &str) -> Found {
    let sema = Semantics::new(db);
    let mut found = Found::default();
    let mut seen = BTreeSet::new();
    for krate in Crate::all(db) {
        if !krate.origin(db).is_local() {
            continue;
        }
        let root_file = vfs.file_path(krate.root_file(db)).to_string();
        let rel = relative(&root_file, root);
        if ["tests/", "examples/", "benches/"]
            .iter()
            .any(|d| rel.starts_with(d))
        {
            continue;
        }
        let sync = sync_trait(db, FamousDefs(&sema, krate).core());
        for module in krate.modules(db) {
            let Some(file) = module.definition_source_file_id(db).file_id() else {
                continue;
            };
            if !seen.insert(file) {
                continue;
            }
            let tree = sema.parse(file);
            found.files += 1;
            found.lines += tree.syntax().text().to_string().lines().count();
            Walk {
                sema: &sema,
                db,
                sync,
                found: &mut found,
            }
            .tree(tree.syntax(), 0);
        }
    }
    found
}

/// `path` relative to the crate's directory.
fn relative<'p>(path: &'p str, root: &str) -> &'p str {
    path.strip_prefix(root)
        .unwrap_or(path)
        .trim_start_matches('/')
}

/// The standard library's sources of the toolchain running the probe.
fn default_sysroot_src() -> Option<PathBuf> {
    let out = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .ok()?;
    let sysroot = String::from_utf8(out.stdout).ok()?;
    let src = Path::new(sysroot.trim()).join("lib/rustlib/src/rust/library");
    src.is_dir().then_some(src)
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let root = std::fs::canonicalize(&args.dir)?;
    let root_str = root.to_string_lossy().into_owned();
    let sysroot_src = args
        .sysroot_src
        .or_else(default_sysroot_src)
        .ok_or_else(|| {
            anyhow::anyhow!(
                "no rust-src under `rustc --print sysroot`: pass --sysroot-src, or add the \
                 component (rustup component add rust-src)"
            )
        })?;
    let cargo = CargoConfig {
        all_targets: true,
        set_test: true,
        sysroot: Some(RustLibSource::Discover),
        sysroot_src: Some(ra_ap_paths::AbsPathBuf::assert_utf8(sysroot_src)),
        features: if args.all_features {
            CargoFeatures::All
        } else {
            CargoFeatures::default()
        },
        target: args.target,
        ..Default::default()
    };
    let load = LoadCargoConfig {
        load_out_dirs_from_check: false,
        with_proc_macro_server: ProcMacroServerChoice::None,
        prefill_caches: false,
        num_worker_threads: 1,
        proc_macro_processes: 0,
    };
    let started = Instant::now();
    let (db, vfs, _) = load_workspace_at(&root, &cargo, &load, &|_| {})?;
    let loaded = started.elapsed();
    let started = Instant::now();
    // The type queries run with the database attached to the thread, as rust-analyzer's own
    // batch commands do.
    let found = ra_ap_hir::attach_db(&db, || analyse(&db, &vfs, &root_str));
    let analysed = started.elapsed();
    report(&db, &vfs, &root_str, &found, loaded, analysed);
    Ok(())
}

fn report(
    db: &RootDatabase,
    vfs: &ra_ap_vfs::Vfs,
    root: &str,
    found: &Found,
    loaded: Duration,
    analysed: Duration,
) {
    let mut sites = BTreeSet::new();
    for (range, by_name) in &found.sites {
        let path = vfs.file_path(range.file_id.file_id(db)).to_string();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let offset = (u32::from(range.range.start()) as usize).min(text.len());
        let line = text.as_bytes()[..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        let how = if *by_name { "named" } else { "called" };
        sites.insert(format!("{}:{line}\t{how}", relative(&path, root)));
    }
    println!(
        "RESULT\tload_s={:.3}\tanalysis_s={:.3}\tfiles={}\tlines={}\tconstructors={}\t\
         in_macros={}\tby_name={}\tcalls={}/{}\tmethods={}/{}\thandle_clones={}\tstd_spawns={}\t\
         handle_fields={}\tholders={}\tholders_sync={}\texpansions={}",
        loaded.as_secs_f64(),
        analysed.as_secs_f64(),
        found.files,
        found.lines,
        found.constructors,
        found.constructors_in_macros,
        found.constructors_by_name,
        found.calls_resolved,
        found.calls,
        found.methods_resolved,
        found.methods,
        found.handle_clones,
        found.std_spawns,
        found.handle_fields,
        found.holders.len(),
        found.holders_sync,
        found.expansions,
    );
    for site in sites {
        println!("SITE\t{site}");
    }
    for (name, sync) in &found.holder_verdicts {
        println!(
            "HOLDER\t{name}\t{}",
            if *sync { "sync" } else { "not-sync" }
        );
    }
}
