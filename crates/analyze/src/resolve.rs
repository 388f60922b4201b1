//! Name resolution for channel constructors: `use` aliases, renames, globs and full paths are
//! mapped to the canonical constructor (`crossbeam::channel` is `crossbeam_channel`).

use std::collections::HashMap;
use syn::visit::Visit;

/// A recognised channel constructor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ctor {
    /// Canonical path, e.g. `std::sync::mpsc::channel`.
    pub name: String,
    /// Whether it takes a capacity.
    pub bounded: bool,
}

/// The lines (first, last) of the module or block a `use` declaration is visible in; the whole
/// file is `(0, usize::MAX)`.
type Scope = (usize, usize);

const FILE: Scope = (0, usize::MAX);

/// The `use` declarations of one file, each with the scope it is declared in: a `use` inside an
/// inline `mod` or a block names nothing outside it (a `use std::sync::mpsc;` in `mod tests`
/// does not make the file's own `mpsc::channel` std's). A file-level `use` is taken to reach
/// the file's inline modules too (as it does through their `use super::*`).
#[derive(Default)]
pub struct Imports {
    aliases: HashMap<String, Vec<(Vec<String>, Scope)>>,
    globs: Vec<(Vec<String>, Scope)>,
}

fn within(line: usize, s: Scope) -> bool {
    s.0 <= line && line <= s.1
}

const KNOWN: &[(&str, bool)] = &[
    ("std::sync::mpsc::channel", false),
    ("std::sync::mpsc::sync_channel", true),
    ("crossbeam_channel::unbounded", false),
    ("crossbeam_channel::bounded", true),
    ("flume::unbounded", false),
    ("flume::bounded", true),
    ("welltempered::channel::unbounded", false),
    ("welltempered::channel::bounded", true),
    ("welltempered::channel::spsc::channel", false),
    ("welltempered::channel::spsc::bounded", true),
];

impl Imports {
    /// Collects every `use` in `file` (module- and block-level alike), with its scope.
    pub fn of(file: &syn::File) -> Imports {
        use syn::spanned::Spanned;
        struct V {
            imp: Imports,
            scopes: Vec<Scope>,
        }
        impl V {
            fn scoped(&mut self, span: proc_macro2::Span, f: impl FnOnce(&mut Self)) {
                self.scopes.push((span.start().line, span.end().line));
                f(self);
                self.scopes.pop();
            }
        }
        impl<'a> Visit<'a> for V {
            fn visit_item_use(&mut self, u: &'a syn::ItemUse) {
                let scope = *self.scopes.last().unwrap_or(&FILE);
                walk(&u.tree, Vec::new(), &mut self.imp, scope);
            }
            fn visit_item_mod(&mut self, m: &'a syn::ItemMod) {
                if m.content.is_some() {
                    self.scoped(m.span(), |v| syn::visit::visit_item_mod(v, m));
                } else {
                    syn::visit::visit_item_mod(self, m);
                }
            }
            fn visit_block(&mut self, b: &'a syn::Block) {
                self.scoped(b.span(), |v| syn::visit::visit_block(v, b));
            }
        }
        let mut v = V {
            imp: Imports::default(),
            scopes: Vec::new(),
        };
        v.visit_file(file);
        v.imp
    }

    /// Adds the `use` declarations of `parent` visible at its `line`, as seen everywhere in this
    /// file: the file is read by an `include!` written there, and its items are the including
    /// module's.
    pub fn inherit(&mut self, parent: &Imports, line: usize) {
        for (name, all) in &parent.aliases {
            for (full, s) in all {
                if within(line, *s) {
                    self.aliases
                        .entry(name.clone())
                        .or_default()
                        .push((full.clone(), FILE));
                }
            }
        }
        for (full, s) in &parent.globs {
            if within(line, *s) {
                self.globs.push((full.clone(), FILE));
            }
        }
    }

    /// The innermost `use` of `name` visible at `line`.
    fn alias(&self, name: &str, line: usize) -> Option<&Vec<String>> {
        self.aliases
            .get(name)?
            .iter()
            .filter(|(_, s)| within(line, *s))
            .min_by_key(|(_, s)| s.1 - s.0)
            .map(|(full, _)| full)
    }

    /// Canonical segments of `path` after resolving its first segment through the `use`
    /// declarations visible where the path is written.
    pub fn canonical(&self, path: &syn::Path) -> Vec<String> {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let line = path
            .segments
            .first()
            .map_or(0, |s| s.ident.span().start().line);
        let mut out = match segs.first() {
            Some(first) if path.leading_colon.is_none() => match self.alias(first, line) {
                Some(full) => full
                    .iter()
                    .cloned()
                    .chain(segs[1..].iter().cloned())
                    .collect(),
                None => segs,
            },
            _ => segs,
        };
        normalise(&mut out);
        out
    }

    /// Every canonical path `path` may name where it is written: one per `use` of its first
    /// segment visible there (several when `#[cfg]` alternatives import the same name from
    /// different crates), or through each visible glob for a single segment; the path as
    /// written when nothing imports it.
    pub fn canonical_all(&self, path: &syn::Path) -> Vec<Vec<String>> {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let line = path
            .segments
            .first()
            .map_or(0, |s| s.ident.span().start().line);
        let mut out: Vec<Vec<String>> = Vec::new();
        if let Some(first) = segs.first()
            && path.leading_colon.is_none()
        {
            for (full, _) in self
                .aliases
                .get(first)
                .into_iter()
                .flatten()
                .filter(|(_, s)| within(line, *s))
            {
                out.push(
                    full.iter()
                        .cloned()
                        .chain(segs[1..].iter().cloned())
                        .collect(),
                );
            }
            if out.is_empty() && segs.len() == 1 {
                for (g, _) in self.globs.iter().filter(|(_, s)| within(line, *s)) {
                    out.push(g.iter().cloned().chain(segs.iter().cloned()).collect());
                }
            }
        }
        if out.is_empty() {
            out.push(segs);
        }
        for c in &mut out {
            normalise(c);
        }
        out
    }

    /// The constructor `path` names, if any.
    pub fn constructor(&self, path: &syn::Path) -> Option<Ctor> {
        let c = self.canonical(path);
        if let Some(k) = known(&c) {
            return Some(k);
        }
        if c.len() == 1 {
            let line = path
                .segments
                .first()
                .map_or(0, |s| s.ident.span().start().line);
            for (g, _) in self.globs.iter().filter(|(_, s)| within(line, *s)) {
                let mut full = g.clone();
                full.push(c[0].clone());
                if let Some(k) = known(&full) {
                    return Some(k);
                }
            }
        }
        None
    }
}

impl Imports {
    /// Every constructor `path` may name where it is written (one per `#[cfg]` alternative
    /// import, see [`Imports::canonical_all`]); empty when it names none.
    pub fn constructors_all(&self, path: &syn::Path) -> Vec<Ctor> {
        let mut all: Vec<Ctor> = self
            .canonical_all(path)
            .iter()
            .filter_map(|c| known(c))
            .collect();
        all.extend(self.constructor(path));
        all
    }
}

fn known(c: &[String]) -> Option<Ctor> {
    let s = c.join("::");
    KNOWN.iter().find(|(n, _)| *n == s).map(|(n, b)| Ctor {
        name: n.to_string(),
        bounded: *b,
    })
}

fn normalise(c: &mut Vec<String>) {
    if c.len() >= 2 && c[0] == "crossbeam" && c[1] == "channel" {
        c.splice(0..2, ["crossbeam_channel".to_string()]);
    }
    if !c.is_empty() && c[0] == "welltempered_channel" {
        c.splice(0..1, ["welltempered".to_string(), "channel".to_string()]);
    }
    if !c.is_empty() && (c[0] == "core" || c[0] == "alloc") {
        c[0] = "std".to_string();
    }
}

fn walk(tree: &syn::UseTree, prefix: Vec<String>, imp: &mut Imports, scope: Scope) {
    match tree {
        syn::UseTree::Path(p) => {
            let mut next = prefix;
            next.push(p.ident.to_string());
            walk(&p.tree, next, imp, scope);
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            let mut full = prefix;
            if name == "self" {
                if let Some(last) = full.last().cloned() {
                    imp.aliases.entry(last).or_default().push((full, scope));
                }
                return;
            }
            full.push(name.clone());
            normalise(&mut full);
            imp.aliases.entry(name).or_default().push((full, scope));
        }
        syn::UseTree::Rename(r) => {
            let mut full = prefix;
            if r.ident != "self" {
                full.push(r.ident.to_string());
            }
            normalise(&mut full);
            imp.aliases
                .entry(r.rename.to_string())
                .or_default()
                .push((full, scope));
        }
        syn::UseTree::Glob(_) => {
            let mut full = prefix;
            normalise(&mut full);
            imp.globs.push((full, scope));
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                walk(t, prefix.clone(), imp, scope);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctor(src: &str, call: &str) -> Option<String> {
        let f: syn::File = syn::parse_str(src).unwrap();
        let p: syn::Path = syn::parse_str(call).unwrap();
        Imports::of(&f).constructor(&p).map(|c| c.name)
    }

    #[test]
    fn every_cfg_alternative_of_a_name_is_a_candidate() {
        let src = "#[cfg(feature = \"crossbeam\")]\n\
                   use crossbeam_channel::{unbounded as channel, Sender};\n\
                   #[cfg(not(feature = \"crossbeam\"))]\n\
                   use std::sync::mpsc::{channel, Sender};\n\
                   mod m { use super::*; }\n";
        let imp = Imports::of(&syn::parse_str(src).unwrap());
        let all = |p: &str| {
            let mut v: Vec<String> = imp
                .canonical_all(&syn::parse_str(p).unwrap())
                .into_iter()
                .map(|c| c.join("::"))
                .collect();
            v.sort();
            v
        };
        assert_eq!(
            all("Sender"),
            ["crossbeam_channel::Sender", "std::sync::mpsc::Sender"]
        );
        // Nothing imports it: the name as written (its origin unknown).
        assert_eq!(all("Receiver"), ["Receiver"]);
        // A glob: through it.
        let imp = Imports::of(&syn::parse_str("use flume::*;").unwrap());
        let got: Vec<String> = imp
            .canonical_all(&syn::parse_str("Sender").unwrap())
            .into_iter()
            .map(|c| c.join("::"))
            .collect();
        assert_eq!(got, ["flume::Sender"]);
    }

    #[test]
    fn a_use_in_a_module_or_block_names_nothing_outside_it() {
        let src = "mod own {}\n\
                   fn main() {\n\
                   mpsc::channel();\n\
                   }\n\
                   mod tests {\n\
                   use std::sync::mpsc;\n\
                   fn t() { mpsc::channel(); }\n\
                   }\n\
                   fn f() { use flume as mpsc; mpsc::unbounded(); }\n";
        let f: syn::File = syn::parse_str(src).unwrap();
        let imp = Imports::of(&f);
        let mut calls = Vec::new();
        struct C<'i>(&'i Imports, &'i mut Vec<(usize, Option<String>)>);
        impl<'a> Visit<'a> for C<'_> {
            fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
                if let syn::Expr::Path(p) = &*c.func {
                    let line = p.path.segments[0].ident.span().start().line;
                    self.1
                        .push((line, self.0.constructor(&p.path).map(|c| c.name)));
                }
            }
        }
        C(&imp, &mut calls).visit_file(&f);
        assert_eq!(
            calls,
            [
                (3, None),
                (7, Some("std::sync::mpsc::channel".into())),
                (9, Some("flume::unbounded".into())),
            ]
        );
    }

    #[test]
    fn renames_globs_and_paths() {
        assert_eq!(
            ctor("use std::sync::mpsc as m;", "m::channel").as_deref(),
            Some("std::sync::mpsc::channel")
        );
        assert_eq!(
            ctor("use crossbeam_channel::unbounded as mk;", "mk").as_deref(),
            Some("crossbeam_channel::unbounded")
        );
        assert_eq!(
            ctor("use flume::*;", "bounded").as_deref(),
            Some("flume::bounded")
        );
        assert_eq!(
            ctor("", "crossbeam::channel::bounded").as_deref(),
            Some("crossbeam_channel::bounded")
        );
        assert_eq!(ctor("", "channel"), None);
        assert_eq!(
            ctor("use std::sync::mpsc::{self, sync_channel};", "sync_channel").as_deref(),
            Some("std::sync::mpsc::sync_channel")
        );
    }
}
