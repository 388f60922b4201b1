//! Handle tracking (WTC's producer/consumer proof, adapted to Rust ownership): each side of each
//! channel is followed from its `let (tx, rx)` binding through aliases, wrappers (`Arc`, `Mutex`,
//! `Some`, ...), clones (once, or in a loop: many), closures given to `thread::spawn`,
//! `Builder::spawn`, scoped and rayon spawns, same-crate calls (parameters by position, recursion
//! guarded), closures handed to a private function's parameter, parallel `*_with` adaptors, private
//! fields of structs that are never cloned or shared (see `fields.rs`), and into the places it
//! cannot follow: other stores into fields, collections and statics (conservative), returns and
//! hand-offs to external code, macros and closures it does not know (refused, or conservative for
//! macros of the crate).
//!
//! Layout: this file runs the passes ([`analyze`]); `index.rs` indexes the crate's functions,
//! macros and statics; `fields.rs` holds the field facts and `field_scan.rs` gathers them
//! (`shared.rs` the structs behind an `Arc` or a lock, `lent.rs` those lent to other code);
//! `finder.rs` finds the constructors and starts one walk per side, which `side.rs` runs and
//! turns into a verdict; `walker.rs` holds a walk's
//! state and its rules; `dispatch.rs` sends each expression form to its rule (`method_call.rs`,
//! `call.rs`, `literal.rs`, `loops.rs`, or a short one of its own); `calls.rs` follows handles into
//! the crate's own functions; `api.rs` holds the rule for a library's structs in other crates'
//! hands. The README's table lists the rules construct by construct.

use crate::discover::{Crate, Note};
use crate::resolve::Imports;
use crate::verdict::{Channel, Count, Side, Site};
use proc_macro2::{Span, TokenStream, TokenTree};
use std::collections::{HashMap, HashSet};
use syn::spanned::Spanned;
use syn::visit::Visit;

mod api;
mod call;
mod calls;
mod dispatch;
mod field_scan;
mod fields;
mod finder;
mod in_place;
mod index;
mod lent;
mod literal;
mod local_types;
mod loops;
mod method_call;
mod shared;
mod side;
mod walker;

use api::*;
use calls::*;
use field_scan::*;
use fields::*;
use finder::*;
use in_place::*;
use index::*;
use lent::*;
use local_types::*;
use shared::*;
use side::*;
use walker::*;

/// Analyses every channel construction of the crate.
pub fn analyze(krate: &Crate) -> (Vec<Channel>, Vec<Note>) {
    // A file read by an `include!` sees the `use`s in scope where it is included (the
    // including file comes first in `files`).
    let mut imports: Vec<Imports> = Vec::with_capacity(krate.files.len());
    for f in &krate.files {
        let mut imp = Imports::of(&f.ast);
        if let Some((parent, line)) = f.included {
            imp.inherit(&imports[parent], line);
        }
        imports.push(imp);
    }
    let mut ix = Index {
        krate,
        imports,
        fns: HashMap::new(),
        macros: HashMap::new(),
        fields: Fields::default(),
        statics: HashMap::new(),
    };
    for (i, f) in krate.files.iter().enumerate() {
        let mut c = Collect {
            ix: &mut ix,
            file: i,
            owner: None,
            trait_impl: false,
            exported_scope: f.public,
        };
        c.visit_file(&f.ast);
    }
    for (fi, f) in krate.files.iter().enumerate() {
        let mut scan = FieldScan {
            fields: &mut ix.fields,
            imports: &ix.imports,
            fns: &ix.fns,
            exclusive: false,
            by_ref: false,
            generics: Vec::new(),
            fn_generics: Vec::new(),
            typed: HashSet::new(),
            arms: HashMap::new(),
            file: fi,
            closures: 0,
            ok: HashSet::new(),
            owner: None,
            trait_impl: false,
            method: None,
            exported_scope: f.public,
            api: None,
            impl_trait: None,
            self_method: None,
            handed: HashSet::new(),
            declaration: false,
            received: HashSet::new(),
            owned_match: false,
            params: HashMap::new(),
            inline: HashSet::new(),
            literal_parts: HashMap::new(),
            moved_once: HashMap::new(),
            in_trait: None,
        };
        scan.visit_file(&f.ast);
    }
    ix.fields.resolve_shared();
    ix.fields.close_lent();
    ix.fields.resolve_not_sync(&ix.imports);
    ix.fields.resolve_api_sync(&ix.imports);
    ix.fields.resolve_api_delegation();
    let mut out = Vec::new();
    let mut notes = Vec::new();
    for (i, f) in krate.files.iter().enumerate() {
        let mut finder = Finder {
            ix: &ix,
            file: i,
            handled: HashSet::new(),
            out: &mut out,
            notes: &mut notes,
            fn_body: None,
            owner: None,
            cur: None,
            trait_impl: false,
            exported_scope: f.public,
            tails: HashMap::new(),
        };
        finder.visit_file(&f.ast);
    }
    out.sort_by(|a, b| a.site.cmp(&b.site));
    (out, notes)
}

fn site(krate: &Crate, file: usize, span: Span) -> Site {
    let s = span.start();
    Site {
        file: krate.files[file].rel.clone(),
        line: s.line,
        column: s.column + 1,
    }
}

pub(crate) fn offset(text: &str, lc: proc_macro2::LineColumn) -> usize {
    let mut off = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i + 1 == lc.line {
            return off
                + line
                    .char_indices()
                    .nth(lc.column)
                    .map_or(line.len(), |(b, _)| b);
        }
        off += line.len();
    }
    off
}

fn unwrap_pat(p: &syn::Pat) -> &syn::Pat {
    match p {
        syn::Pat::Type(t) => unwrap_pat(&t.pat),
        syn::Pat::Paren(t) => unwrap_pat(&t.pat),
        _ => p,
    }
}

fn pat_ident(p: &syn::Pat) -> Option<String> {
    match unwrap_pat(p) {
        syn::Pat::Ident(i) if i.subpat.is_none() => Some(i.ident.to_string()),
        _ => None,
    }
}

fn pat_binds(p: &syn::Pat, out: &mut HashSet<String>) {
    struct Bindings<'o>(&'o mut HashSet<String>);
    impl<'a> Visit<'a> for Bindings<'_> {
        fn visit_pat_ident(&mut self, i: &'a syn::PatIdent) {
            self.0.insert(i.ident.to_string());
            syn::visit::visit_pat_ident(self, i);
        }
    }
    Bindings(out).visit_pat(p);
}

/// Every path in `ts` (and its groups) that is called or given a turbofish (`a::b(..)`,
/// `a::b::<T>(..)`), not preceded by `.` (a method) or `fn` (a definition), with the spans of
/// its first and last segment.
fn token_paths(ts: &TokenStream) -> Vec<(syn::Path, Span, Span)> {
    fn walk(ts: &TokenStream, out: &mut Vec<(syn::Path, Span, Span)>) {
        let toks: Vec<TokenTree> = ts.clone().into_iter().collect();
        let colons = |i: usize| {
            matches!((toks.get(i), toks.get(i + 1)),
                (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                    if a.as_char() == ':' && b.as_char() == ':')
        };
        let mut i = 0;
        while i < toks.len() {
            match &toks[i] {
                TokenTree::Group(g) => {
                    walk(&g.stream(), out);
                    i += 1;
                }
                TokenTree::Ident(first) => {
                    let after_dot_or_fn = match i.checked_sub(1).map(|j| &toks[j]) {
                        Some(TokenTree::Punct(p)) => p.as_char() == '.' || p.as_char() == '$',
                        Some(TokenTree::Ident(k)) => k == "fn",
                        _ => false,
                    };
                    let leading = i >= 2 && colons(i - 2);
                    let mut segs = vec![first.clone()];
                    let mut j = i + 1;
                    while colons(j) {
                        match toks.get(j + 2) {
                            Some(TokenTree::Ident(n)) => {
                                segs.push(n.clone());
                                j += 3;
                            }
                            _ => break,
                        }
                    }
                    let called = matches!(toks.get(j), Some(TokenTree::Group(g))
                        if g.delimiter() == proc_macro2::Delimiter::Parenthesis)
                        || (colons(j)
                            && matches!(toks.get(j + 2), Some(TokenTree::Punct(p)) if p.as_char() == '<'));
                    if called && !after_dot_or_fn {
                        let text = segs
                            .iter()
                            .map(|s| s.to_string())
                            .collect::<Vec<_>>()
                            .join("::");
                        let text = if leading { format!("::{text}") } else { text };
                        if let Ok(mut p) = syn::parse_str::<syn::Path>(&text) {
                            // Keep the source spans, for the scope of `use`s and the site.
                            for (seg, id) in p.segments.iter_mut().zip(&segs) {
                                seg.ident.set_span(id.span());
                            }
                            let last = segs.last().map_or(first.span(), |s| s.span());
                            out.push((p, first.span(), last));
                        }
                    }
                    i = j.max(i + 1);
                }
                _ => i += 1,
            }
        }
    }
    let mut out = Vec::new();
    walk(ts, &mut out);
    out
}

fn mentions_tokens(ts: &TokenStream, names: &HashSet<String>) -> bool {
    ts.clone().into_iter().any(|t| match t {
        TokenTree::Ident(i) => names.contains(&i.to_string()),
        TokenTree::Group(g) => mentions_tokens(&g.stream(), names),
        _ => false,
    })
}

fn mentions(e: &syn::Expr, names: &HashSet<String>) -> bool {
    struct Mentions<'n> {
        names: &'n HashSet<String>,
        hit: bool,
    }
    impl<'a> Visit<'a> for Mentions<'_> {
        fn visit_ident(&mut self, i: &'a proc_macro2::Ident) {
            if self.names.contains(&i.to_string()) {
                self.hit = true;
            }
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            if mentions_tokens(&m.tokens, self.names) {
                self.hit = true;
            }
        }
    }
    let mut m = Mentions { names, hit: false };
    m.visit_expr(e);
    m.hit
}

/// Whether a method chain is a parallel iterator (rayon's `par_*`, `into_par_iter`,
/// `par_bridge`): its closures run on many threads at once.
fn is_parallel(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::MethodCall(m) => {
            let n = m.method.to_string();
            n.starts_with("par_") || n.starts_with("into_par") || is_parallel(&m.receiver)
        }
        syn::Expr::Paren(p) => is_parallel(&p.expr),
        _ => false,
    }
}

/// Whether `path`, written in a file with `imports`, is std's `drop`: `std::mem::drop` (or
/// `core::`'s), or `drop` from the prelude when the crate has no free function of that name and
/// binds it nowhere else (`shadowed`: a local, a parameter, a static, a constant).
fn is_std_drop(
    path: &syn::Path,
    imports: &Imports,
    fns: &HashMap<String, Vec<FnDef<'_>>>,
    shadowed: bool,
) -> bool {
    let canon = imports.canonical(path);
    let canon: Vec<&str> = canon.iter().map(String::as_str).collect();
    matches!(canon.as_slice(), ["std" | "core", "mem", "drop"])
        || (canon == ["drop"]
            && !shadowed
            && !fns
                .get("drop")
                .is_some_and(|d| d.iter().any(|d| d.owner.is_none())))
}

/// Whether an expression that carries a handle hands over an owned handle (moved, cloned, or
/// wrapped by value), not a reference to one.
fn owned(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Path(_) => true,
        syn::Expr::Paren(p) => owned(&p.expr),
        syn::Expr::MethodCall(m) => {
            (m.method == "clone" || m.method == "to_owned") && m.args.is_empty()
        }
        syn::Expr::Call(c) => {
            c.args.len() == 1
                && last_seg(&c.func).is_some_and(|l| WRAPPERS.contains(&l.as_str()) || l == "clone")
                && (last_seg(&c.func).as_deref() == Some("clone") || owned(&c.args[0]))
        }
        _ => false,
    }
}

fn last_seg(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// The identifiers of `path`'s segments, in order.
fn path_segments(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}
