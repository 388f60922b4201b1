//! Crate discovery: the manifest, its targets (`src/lib.rs`, `src/main.rs`, `src/bin/*.rs`,
//! `[[bin]]`/`[lib]` `path`s), and every file reached through `mod` declarations (with
//! `#[path]`, and every `#[cfg_attr(.., path = ..)]` of every configuration) and item-level
//! `include!("file")`, parsed with syn. What cannot be read (an `include!` whose path is
//! computed at build time, a `mod` whose file is missing) is kept as a note, never dropped
//! silently.

use crate::Error;
use std::path::{Path, PathBuf};

/// One parsed source file.
pub struct SourceFile {
    /// Path relative to the crate root, with `/` separators.
    pub rel: String,
    /// Absolute path.
    pub abs: PathBuf,
    /// The text.
    pub text: String,
    /// The syntax tree.
    pub ast: syn::File,
    /// For a file read through an item-level `include!`: the including file (an index into
    /// [`Crate::files`]) and the line of the `include!`, whose `use` declarations it sees.
    pub included: Option<(usize, usize)>,
    /// Whether its items are reachable by path from outside the crate: the target's root, or a
    /// module declared `pub mod` in such a file (an `include!`d file shares its includer's).
    pub public: bool,
}

/// Something of the crate's sources that the analysis could not read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Note {
    /// Where it is written.
    pub site: crate::Site,
    /// What was not read, and why.
    pub text: String,
}

/// A crate's parsed sources.
pub struct Crate {
    /// The directory holding `Cargo.toml`.
    pub root: PathBuf,
    /// Every file reached from the targets.
    pub files: Vec<SourceFile>,
    /// What could not be read.
    pub notes: Vec<Note>,
    /// Whether these are a library target's sources (whose public items other crates call),
    /// not a binary's, a test's, or several targets' pooled.
    pub lib: bool,
    /// Whether these are the build script's sources (which see `[build-dependencies]` only).
    pub build: bool,
    /// The package's edition (`2015`, ..., `2024`; `2021` when inherited from a workspace).
    pub edition: String,
}

/// The member crates (their directories, sorted) of the workspace whose manifest is at `path`
/// (a directory holding `Cargo.toml`, or the manifest), or `None` when `path` is one crate: a
/// manifest with a `[package]` and no `members` of a `[workspace]`. The members come from
/// `cargo metadata --no-deps`, so globs, `exclude` and nested paths mean what they mean to
/// cargo.
pub fn workspace_members(path: &Path) -> Result<Option<Vec<PathBuf>>, Error> {
    let root = if path.is_file() {
        path.parent().unwrap_or(Path::new(".")).to_path_buf()
    } else {
        path.to_path_buf()
    };
    let manifest = root.join("Cargo.toml");
    let Ok(text) = std::fs::read_to_string(&manifest) else {
        // `discover` reports the missing or unreadable manifest.
        return Ok(None);
    };
    // `discover` reports a manifest that does not parse.
    let Ok(doc) = text.parse::<toml::Table>() else {
        return Ok(None);
    };
    let package = doc.contains_key("package");
    let Some(workspace) = doc.get("workspace").and_then(|w| w.as_table()) else {
        return Ok(None);
    };
    if package && !workspace.contains_key("members") {
        return Ok(None);
    }
    let meta = cargo_metadata::MetadataCommand::new()
        .manifest_path(&manifest)
        .no_deps()
        .exec()
        .map_err(|e| Error::Io {
            file: manifest.clone(),
            message: format!("cargo metadata: {e}"),
        })?;
    let mut dirs: Vec<PathBuf> = meta
        .workspace_packages()
        .iter()
        .filter_map(|p| {
            p.manifest_path
                .parent()
                .map(|d| d.as_std_path().to_path_buf())
        })
        .collect();
    dirs.sort();
    Ok(Some(dirs))
}

/// Which of a crate's targets are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Targets {
    /// Every target cargo builds: the library, the binaries, the examples, the integration
    /// tests, the benchmarks and the build script.
    All,
    /// The library and the binaries only.
    LibAndBins,
}

/// Finds the crate at `path` and parses the sources of every target, as one set of files.
pub fn discover(path: &Path) -> Result<Crate, Error> {
    let (root, targets, edition) = target_roots(path, Targets::All)?;
    let mut krate = Crate {
        root,
        files: Vec::new(),
        notes: Vec::new(),
        lib: false,
        build: false,
        edition,
    };
    for t in targets {
        load(&mut krate, &t.path, true, None, true)?;
    }
    Ok(krate)
}

/// Finds the crate at `path` and parses the sources of the targets `which` selects, one
/// [`Crate`] per target: each target is a crate of its own to the compiler (a test or a binary
/// reaches the library only through its public items), so each is analysed on its own.
pub fn discover_each(path: &Path, which: Targets) -> Result<Vec<Crate>, Error> {
    let (root, targets, edition) = target_roots(path, which)?;
    let mut out = Vec::new();
    for t in targets {
        let mut krate = Crate {
            root: root.clone(),
            files: Vec::new(),
            notes: Vec::new(),
            lib: t.lib,
            build: t.build,
            edition: edition.clone(),
        };
        load(&mut krate, &t.path, true, None, true)?;
        out.push(krate);
    }
    Ok(out)
}

/// The root file of a target.
struct TargetRoot {
    path: PathBuf,
    /// The library's.
    lib: bool,
    /// The build script's.
    build: bool,
}

/// The crate root, the root file of each target that exists, and the package's edition.
fn target_roots(path: &Path, which: Targets) -> Result<(PathBuf, Vec<TargetRoot>, String), Error> {
    if !path.exists() {
        return Err(Error::NoSuchPath(path.to_path_buf()));
    }
    let root = if path.is_file() {
        path.parent().unwrap_or(Path::new(".")).to_path_buf()
    } else {
        path.to_path_buf()
    };
    let manifest = root.join("Cargo.toml");
    if !manifest.is_file() {
        return Err(Error::NoCrate(root));
    }
    let text = std::fs::read_to_string(&manifest).map_err(|e| Error::Io {
        file: manifest.clone(),
        message: e.to_string(),
    })?;
    let (targets, build, edition) = target_files(&root, &manifest, &text, which)?;
    // `target_files` puts the library's root first.
    let mut targets: Vec<TargetRoot> = targets
        .into_iter()
        .enumerate()
        .map(|(i, path)| TargetRoot {
            lib: i == 0,
            build: false,
            path,
        })
        .chain(build.map(|path| TargetRoot {
            path,
            lib: false,
            build: true,
        }))
        .collect();
    targets.retain(|t| t.path.is_file());
    let mut seen = std::collections::HashSet::new();
    targets.retain(|t| seen.insert(t.path.canonicalize().unwrap_or_else(|_| t.path.clone())));
    Ok((root, targets, edition))
}

/// The root files of the crate's targets, as cargo finds them: the `[lib]`, `[[bin]]`,
/// `[[example]]`, `[[test]]` and `[[bench]]` tables (by `path`, or by `name` in the default
/// directory), the automatic ones (`src/lib.rs`, `src/main.rs`, `src/bin/*.rs`,
/// `src/bin/*/main.rs`, and the same in `examples/`, `tests/`, `benches/`) unless `autobins`,
/// `autoexamples`, `autotests` or `autobenches` is false (or, in edition 2015, targets of that
/// kind are declared); then the build script's (`build.rs`, or `package.build`) and the
/// package's edition.
fn target_files(
    root: &Path,
    manifest: &Path,
    text: &str,
    which: Targets,
) -> Result<(Vec<PathBuf>, Option<PathBuf>, String), Error> {
    let doc: toml::Table = text.parse().map_err(|e: toml::de::Error| Error::Manifest {
        file: manifest.to_path_buf(),
        line: e.span().map_or(1, |s| {
            text[..s.start.min(text.len())].lines().count().max(1)
        }),
        message: e.message().to_string(),
    })?;
    let package = doc.get("package").and_then(|p| p.as_table());
    // Inherited from a workspace (`edition.workspace = true`): not 2015's rules, at least.
    let edition = match package.and_then(|p| p.get("edition")) {
        Some(toml::Value::String(e)) => e.as_str(),
        Some(_) => "2021",
        None => "2015",
    };
    if !matches!(edition, "2015" | "2018" | "2021" | "2024") {
        let line = text
            .lines()
            .position(|l| key_value(l.trim(), "edition").is_some())
            .map_or(1, |i| i + 1);
        return Err(Error::Edition {
            file: manifest.to_path_buf(),
            line,
            edition: edition.to_string(),
        });
    }
    let declared = |kind: &str| -> Vec<&toml::Table> {
        doc.get(kind)
            .and_then(|v| v.as_array())
            .map(|a| a.iter().filter_map(|t| t.as_table()).collect())
            .unwrap_or_default()
    };
    let auto = |key: &str, kind: &str| -> bool {
        match package.and_then(|p| p.get(key)).and_then(|v| v.as_bool()) {
            Some(b) => b,
            None => edition != "2015" || declared(kind).is_empty(),
        }
    };
    // `dir/NAME.rs`, else `dir/NAME/main.rs`.
    let by_name = |dir: &Path, name: &str| -> PathBuf {
        let flat = dir.join(format!("{name}.rs"));
        if flat.is_file() {
            flat
        } else {
            dir.join(name).join("main.rs")
        }
    };
    // Every `dir/*.rs` and `dir/*/main.rs`, sorted.
    let scan = |dir: &Path| -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|rd| {
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter_map(|p| {
                        if p.extension().is_some_and(|x| x == "rs") && p.is_file() {
                            Some(p)
                        } else if p.join("main.rs").is_file() {
                            Some(p.join("main.rs"))
                        } else {
                            None
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        found.sort();
        found
    };
    let mut out = Vec::new();
    let lib = doc.get("lib").and_then(|l| l.as_table());
    match lib.and_then(|l| l.get("path")).and_then(|p| p.as_str()) {
        Some(p) => out.push(root.join(p)),
        None => out.push(root.join("src/lib.rs")),
    }
    let mut kinds = vec![("bin", "autobins", "src/bin")];
    if which == Targets::All {
        kinds.extend([
            ("example", "autoexamples", "examples"),
            ("test", "autotests", "tests"),
            ("bench", "autobenches", "benches"),
        ]);
    }
    for (kind, auto_key, dir) in kinds {
        let dir = root.join(dir);
        for t in declared(kind) {
            if let Some(p) = t.get("path").and_then(|p| p.as_str()) {
                out.push(root.join(p));
            } else if let Some(name) = t.get("name").and_then(|n| n.as_str()) {
                out.push(by_name(&dir, name));
            }
        }
        if auto(auto_key, kind) {
            if kind == "bin" {
                out.push(root.join("src/main.rs"));
            }
            out.extend(scan(&dir));
        }
    }
    let build = match package.and_then(|p| p.get("build")) {
        _ if which != Targets::All => None,
        Some(toml::Value::String(p)) => Some(root.join(p)),
        Some(toml::Value::Boolean(false)) => None,
        _ => Some(root.join("build.rs")),
    };
    Ok((out, build, edition.to_string()))
}

fn key_value(line: &str, key: &str) -> Option<String> {
    let rest = line.strip_prefix(key)?.trim_start();
    let rest = rest.strip_prefix('=')?.trim();
    let rest = rest.strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_string())
}

/// A file a source file leads to.
struct Next {
    path: PathBuf,
    /// Whether its own `mod x;` declarations are looked up beside it (`mod.rs`, a `#[path]`
    /// target) rather than in a directory named after it.
    mod_root: bool,
    /// The line of the `include!` that reads it, `None` for a module.
    included_at: Option<usize>,
    /// For a module: whether it is only one configuration's file among several (`cfg_attr`
    /// paths), so that a missing one is no loss; for an `include!`, always false.
    optional: bool,
    /// The line and column of the declaration, for a note when the file is missing.
    at: (usize, usize),
    /// What to call it in that note: `mod name` or `include!("file")`.
    what: String,
    /// Another file it was looked for in first (`name.rs` before `name/mod.rs`).
    also: Option<PathBuf>,
    /// Whether it is reachable from outside the crate (see [`SourceFile::public`]).
    public: bool,
}

fn load(
    krate: &mut Crate,
    file: &Path,
    mod_root: bool,
    included: Option<(usize, usize)>,
    public: bool,
) -> Result<(), Error> {
    let abs = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
    if krate.files.iter().any(|f| f.abs == abs) {
        return Ok(());
    }
    let text = std::fs::read_to_string(&abs).map_err(|e| Error::Io {
        file: abs.clone(),
        message: e.to_string(),
    })?;
    let ast = parse(&text).map_err(|e| {
        let s = e.span().start();
        Error::Parse {
            file: rel_path(&krate.root, &abs).into(),
            line: s.line,
            column: s.column + 1,
            message: e.to_string(),
        }
    })?;
    let rel = rel_path(&krate.root, &abs);
    let dir = abs.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mod_dir = if mod_root {
        dir.clone()
    } else {
        dir.join(abs.file_stem().unwrap_or_default())
    };
    let mut next = Vec::new();
    let mut notes = Vec::new();
    collect_mods(&ast.items, &dir, &mod_dir, public, &mut next, &mut notes);
    let index = krate.files.len();
    for (at, text) in notes {
        krate.notes.push(Note {
            site: crate::Site {
                file: rel.clone(),
                line: at.0,
                column: at.1,
            },
            text,
        });
    }
    krate.files.push(SourceFile {
        rel: rel.clone(),
        abs,
        text,
        ast,
        included,
        public,
    });
    for n in next {
        if n.path.is_file() {
            load(
                krate,
                &n.path,
                n.mod_root,
                n.included_at.map(|l| (index, l)),
                n.public,
            )?;
        } else if !n.optional {
            krate.notes.push(Note {
                site: crate::Site {
                    file: rel.clone(),
                    line: n.at.0,
                    column: n.at.1,
                },
                text: format!(
                    "{}: {} (compiled out, or not shipped); channels made there are not reported",
                    n.what,
                    match &n.also {
                        Some(a) => format!(
                            "neither {} nor {} exists",
                            rel_path(&krate.root, a),
                            rel_path(&krate.root, &n.path)
                        ),
                        None => format!("{} does not exist", rel_path(&krate.root, &n.path)),
                    }
                ),
            });
        }
    }
    Ok(())
}

/// Parses a source file. What does not parse as current Rust is tried again as edition-2015
/// code, where `async`, `await` and `try` are plain identifiers (`mod async;`, `try!(..)`):
/// they are read as raw identifiers, with their spans, so positions stay those of the file. The
/// first error is the one reported if neither parses. (A crate that is not 2015 but fails to
/// parse gains nothing from the retry, and loses nothing: it fails as before.)
pub(crate) fn parse(text: &str) -> syn::Result<syn::File> {
    let first = match syn::parse_file(text) {
        Ok(f) => return Ok(f),
        Err(e) => e,
    };
    let Ok(tokens) = text.parse::<proc_macro2::TokenStream>() else {
        return Err(first);
    };
    syn::parse2::<syn::File>(as_2015(tokens)).map_err(|_| first)
}

/// Whether index `i` of `tokens` is where a type starts: after `<`, `&`, `&mut`, `&'a`,
/// `&'a mut` or a type alias's `=`.
fn starts_type(tokens: &[proc_macro2::TokenTree], i: usize) -> bool {
    use proc_macro2::TokenTree;
    let punct = |j: Option<usize>, c: char| matches!(j.and_then(|j| tokens.get(j)), Some(TokenTree::Punct(p)) if p.as_char() == c);
    let ident = |j: Option<usize>| match j.and_then(|j| tokens.get(j)) {
        Some(TokenTree::Ident(id)) => Some(id.to_string()),
        _ => None,
    };
    let Some(mut j) = i.checked_sub(1) else {
        return false;
    };
    if ident(Some(j)).as_deref() == Some("mut") {
        let Some(k) = j.checked_sub(1) else {
            return false;
        };
        j = k;
    }
    // A lifetime is a joint `'` and an identifier: `&'a`.
    if ident(Some(j)).is_some() && punct(j.checked_sub(1), '\'') {
        return punct(j.checked_sub(2), '&');
    }
    // `type F = Fn(u8) + Send;`: the `=` of a type alias (a `type` since the last `;`).
    if punct(Some(j), '=') {
        return tokens[..j]
            .iter()
            .rev()
            .take_while(|t| !matches!(t, TokenTree::Punct(p) if p.as_char() == ';'))
            .any(|t| matches!(t, TokenTree::Ident(id) if id == "type"));
    }
    punct(Some(j), '<') || punct(Some(j), '&')
}

/// `tokens` read as edition-2015 code: every `async`, `await` and `try` identifier made raw,
/// and `dyn` written before a bare closure-trait object (`Box<FnMut() + Send>`,
/// `&mut FnMut(u8)`, `&'a Fn()`: `Fn`, `FnMut` or `FnOnce` with its parenthesised arguments,
/// right after `<`, `&`, `&mut`, `&'a` or a type alias's `=`; before the parentheses of
/// `Box<(FnMut() -> ()) + 'a>`), which current Rust requires.
fn as_2015(tokens: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    use proc_macro2::{Delimiter, Group, Ident, TokenTree};
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(tokens.len());
    for (i, t) in tokens.iter().enumerate() {
        match t {
            TokenTree::Ident(id) => {
                let name = id.to_string();
                if matches!(name.as_str(), "async" | "await" | "try") {
                    out.push(TokenTree::Ident(Ident::new_raw(&name, id.span())));
                    continue;
                }
                let bare_fn_trait = matches!(name.as_str(), "Fn" | "FnMut" | "FnOnce")
                    && matches!(tokens.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
                    && starts_type(&tokens, i);
                if bare_fn_trait {
                    out.push(TokenTree::Ident(Ident::new("dyn", id.span())));
                }
                out.push(t.clone());
            }
            TokenTree::Group(g) => {
                // `(FnMut() -> ()) + 'a` where a type starts: `dyn (FnMut() -> ()) + 'a` (a
                // parenthesised bound; `(dyn FnMut() -> ()) + 'a` is not a type).
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                let paren_fn_trait = g.delimiter() == Delimiter::Parenthesis
                    && starts_type(&tokens, i)
                    && matches!(inner.first(), Some(TokenTree::Ident(f)) if f == "Fn" || f == "FnMut" || f == "FnOnce")
                    && matches!(inner.get(1), Some(TokenTree::Group(a)) if a.delimiter() == Delimiter::Parenthesis);
                if paren_fn_trait {
                    out.push(TokenTree::Ident(Ident::new("dyn", g.span())));
                }
                let mut n = Group::new(g.delimiter(), as_2015(g.stream()));
                n.set_span(g.span());
                out.push(TokenTree::Group(n));
            }
            other => out.push(other.clone()),
        }
    }
    out.into_iter().collect()
}

/// The string of a `path = "..."` meta.
fn path_value(meta: &syn::Meta) -> Option<String> {
    match meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

/// The `path`s of a `cfg_attr(predicate, attr, ...)`, nested ones included, whatever the
/// predicate: every configuration's file is read.
fn cfg_attr_paths(meta: &syn::Meta, out: &mut Vec<String>) {
    use syn::punctuated::Punctuated;
    let syn::Meta::List(l) = meta else { return };
    if !l.path.is_ident("cfg_attr") {
        return;
    }
    let Ok(metas) = l.parse_args_with(Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
    else {
        return;
    };
    for m in metas.iter().skip(1) {
        if let Some(p) = path_value(m) {
            out.push(p);
        }
        cfg_attr_paths(m, out);
    }
}

/// The files a `mod name;` may be read from: its `#[path]` (or the default file) and the
/// `path` of each `#[cfg_attr(.., path = ..)]`. The second value tells whether the first file
/// is only one configuration's (there are `cfg_attr` paths besides it).
fn mod_paths(attrs: &[syn::Attribute]) -> (Option<String>, Vec<String>) {
    let plain = attrs.iter().find_map(|a| path_value(&a.meta));
    let mut conditional = Vec::new();
    for a in attrs {
        cfg_attr_paths(&a.meta, &mut conditional);
    }
    (plain, conditional)
}

/// The note for an `include!` whose path is not a literal.
pub(crate) const COMPUTED_INCLUDE: &str = "include! of a path computed at build time \
     (concat!, env!): not read; channels made there are not reported";

/// The file an `include!("file")` names (`std::include!` too), `Err` when the path is not a
/// literal.
pub(crate) fn include_path(m: &syn::Macro) -> Option<Result<String, ()>> {
    let last = m.path.segments.last()?;
    if last.ident != "include" || m.path.segments.len() > 2 {
        return None;
    }
    Some(
        m.parse_body::<syn::LitStr>()
            .map(|s| s.value())
            .map_err(|_| ()),
    )
}

fn collect_mods(
    items: &[syn::Item],
    dir: &Path,
    mod_dir: &Path,
    public: bool,
    out: &mut Vec<Next>,
    notes: &mut Vec<((usize, usize), String)>,
) {
    use syn::spanned::Spanned;
    for item in items {
        let at = {
            let s = item.span().start();
            (s.line, s.column + 1)
        };
        if let syn::Item::Macro(m) = item
            && let Some(p) = include_path(&m.mac)
        {
            match p {
                Ok(p) => out.push(Next {
                    path: dir.join(&p),
                    mod_root: true,
                    included_at: Some(at.0),
                    optional: false,
                    at,
                    what: format!("include!(\"{p}\")"),
                    also: None,
                    public,
                }),
                Err(()) => notes.push((at, COMPUTED_INCLUDE.to_string())),
            }
            continue;
        }
        let syn::Item::Mod(m) = item else { continue };
        // `mod r#async;` lives in `async.rs`.
        let name = syn::ext::IdentExt::unraw(&m.ident).to_string();
        let public = public && matches!(m.vis, syn::Visibility::Public(_));
        if let Some((_, inner)) = &m.content {
            collect_mods(
                inner,
                &mod_dir.join(&name),
                &mod_dir.join(&name),
                public,
                out,
                notes,
            );
            continue;
        }
        let (plain, conditional) = mod_paths(&m.attrs);
        let some_configuration = !conditional.is_empty();
        let what = format!("mod {name}");
        for p in conditional {
            out.push(Next {
                path: dir.join(p),
                mod_root: true,
                included_at: None,
                optional: true,
                at,
                what: what.clone(),
                also: None,
                public,
            });
        }
        if let Some(p) = plain {
            out.push(Next {
                path: dir.join(p),
                mod_root: true,
                included_at: None,
                optional: some_configuration,
                at,
                what,
                also: None,
                public,
            });
            continue;
        }
        let flat = mod_dir.join(format!("{name}.rs"));
        let (path, mod_root, also) = if flat.is_file() {
            (flat, false, None)
        } else {
            (mod_dir.join(&name).join("mod.rs"), true, Some(flat))
        };
        out.push(Next {
            path,
            mod_root,
            included_at: None,
            optional: some_configuration,
            at,
            what,
            also,
            public,
        });
    }
}

pub(crate) fn rel_path(root: &Path, abs: &Path) -> String {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    abs.strip_prefix(&root)
        .unwrap_or(abs)
        .to_string_lossy()
        .replace('\\', "/")
}
