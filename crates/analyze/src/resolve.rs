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

/// The `use` declarations of one file.
#[derive(Default)]
pub struct Imports {
    aliases: HashMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
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
    /// Collects every `use` in `file` (module- and block-level alike).
    pub fn of(file: &syn::File) -> Imports {
        struct V(Imports);
        impl<'a> Visit<'a> for V {
            fn visit_item_use(&mut self, u: &'a syn::ItemUse) {
                walk(&u.tree, Vec::new(), &mut self.0);
            }
        }
        let mut v = V(Imports::default());
        v.visit_file(file);
        v.0
    }

    /// Canonical segments of `path` after resolving its first segment.
    pub fn canonical(&self, path: &syn::Path) -> Vec<String> {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let mut out = match segs.first() {
            Some(first) if path.leading_colon.is_none() => match self.aliases.get(first) {
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

    /// The constructor `path` names, if any.
    pub fn constructor(&self, path: &syn::Path) -> Option<Ctor> {
        let c = self.canonical(path);
        if let Some(k) = known(&c) {
            return Some(k);
        }
        if c.len() == 1 {
            for g in &self.globs {
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

fn walk(tree: &syn::UseTree, prefix: Vec<String>, imp: &mut Imports) {
    match tree {
        syn::UseTree::Path(p) => {
            let mut next = prefix;
            next.push(p.ident.to_string());
            walk(&p.tree, next, imp);
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            let mut full = prefix;
            if name == "self" {
                if let Some(last) = full.last().cloned() {
                    imp.aliases.insert(last, full);
                }
                return;
            }
            full.push(name.clone());
            normalise(&mut full);
            imp.aliases.insert(name, full);
        }
        syn::UseTree::Rename(r) => {
            let mut full = prefix;
            if r.ident != "self" {
                full.push(r.ident.to_string());
            }
            normalise(&mut full);
            imp.aliases.insert(r.rename.to_string(), full);
        }
        syn::UseTree::Glob(_) => {
            let mut full = prefix;
            normalise(&mut full);
            imp.globs.push(full);
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                walk(t, prefix.clone(), imp);
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
