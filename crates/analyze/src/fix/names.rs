//! The names `--fix` rewrites with a family's channels (the handle, error, iterator and
//! selection types, crossbeam's `select!` and timers), found wherever the crate's sources
//! name them: types, patterns, expression paths, `use` paths and macro invocations' tokens.

use crate::Error;
use crate::resolve::Imports;
use crate::verdict::Site;
use std::path::Path;
use syn::visit::Visit;

/// The family of a handle type whose import could not be resolved: it blocks every family.
pub(super) const ANY_FAMILY: &str = "*";

/// The names of a channel family's types that `--fix` rewrites with its channels: the handles
/// and the errors, whose shapes welltempered's channel shares (`SendError(T)`,
/// `TryRecvError::{Empty, Disconnected}`, ...).
const FAMILY_NAMES: &[&str] = &[
    "Sender",
    "SyncSender",
    "Receiver",
    "SendError",
    "TrySendError",
    "SendTimeoutError",
    "RecvError",
    "TryRecvError",
    "RecvTimeoutError",
];

/// Names that count only where an import or a full path resolves them to a family (a crate's
/// own `Iter` or `tick` is none of ours): std's, crossbeam's and flume's iterators, and
/// crossbeam-channel's selection (`Select`, `select!`) and timer channels, which
/// welltempered's channel has under the same names. Crossbeam's only: [`CROSSBEAM_NAMES`].
const RESOLVED_NAMES: &[&str] = &["Iter", "TryIter", "IntoIter"];

/// See [`RESOLVED_NAMES`].
const CROSSBEAM_NAMES: &[&str] = &[
    "Select",
    "SelectedOperation",
    "SelectTimeoutError",
    "TrySelectError",
    "ReadyTimeoutError",
    "TryReadyError",
    "select",
    "select_biased",
    "after",
    "at",
    "never",
    "tick",
];

/// Whether `name` is one that `--fix` rewrites with its family's channels.
fn rewritten_name(name: &str) -> bool {
    FAMILY_NAMES.contains(&name)
        || RESOLVED_NAMES.contains(&name)
        || CROSSBEAM_NAMES.contains(&name)
}

/// A type of a channel family named in the crate's sources (`mpsc::Sender<u64>`, a bare
/// `Receiver<T>`, `TryRecvError::Empty`).
#[derive(Debug, Clone)]
pub(super) struct NamedType {
    /// The family it resolves to (`std::sync::mpsc`), or [`ANY_FAMILY`].
    pub(super) family: String,
    /// One of the names [`rewritten_name`] accepts.
    pub(super) name: String,
    pub(super) site: Site,
    /// Byte range of the path up to the name, its generic arguments and what follows left out.
    pub(super) span: (usize, usize),
    /// Whether it is part of the crate's public API: in the signature of a `pub` function or
    /// of a trait's or trait impl's function, a `pub` field (or any field of a `pub` enum), a
    /// `pub` type alias, constant or static.
    pub(super) public: bool,
}

/// Every handle type named in the crate, one entry per family it may be.
pub(super) fn named_handle_types(root: &Path) -> Result<Vec<NamedType>, Error> {
    let krate = crate::discover::discover(root)?;
    let mut out = Vec::new();
    for f in &krate.files {
        let imp = Imports::of(&f.ast);
        struct V<'i> {
            imp: &'i Imports,
            file: &'i str,
            text: &'i str,
            public: bool,
            out: Vec<NamedType>,
        }
        impl V<'_> {
            /// Every path in `ts` that ends in one of the family's names (`mpsc::Sender`,
            /// `::std::sync::mpsc::Receiver`; not a field or method `.Sender`), as a path.
            fn paths_in_tokens(&mut self, ts: proc_macro2::TokenStream) {
                use proc_macro2::TokenTree;
                let tokens: Vec<TokenTree> = ts.into_iter().collect();
                let colon2 = |j: usize| {
                    matches!((&tokens[j], &tokens[j + 1]), (TokenTree::Punct(a), TokenTree::Punct(b))
                        if a.as_char() == ':' && a.spacing() == proc_macro2::Spacing::Joint
                            && b.as_char() == ':')
                };
                for (i, t) in tokens.iter().enumerate() {
                    let id = match t {
                        TokenTree::Group(g) => {
                            self.paths_in_tokens(g.stream());
                            continue;
                        }
                        TokenTree::Ident(id) if rewritten_name(&id.to_string()) => id,
                        _ => continue,
                    };
                    let mut segments = vec![id.clone()];
                    let mut start = i;
                    while start >= 2 && colon2(start - 2) {
                        match start.checked_sub(3).map(|k| &tokens[k]) {
                            Some(TokenTree::Ident(p)) => {
                                segments.insert(0, p.clone());
                                start -= 3;
                            }
                            _ => break,
                        }
                    }
                    let leading = start >= 2 && colon2(start - 2);
                    let after_dot = !leading
                        && start >= 1
                        && matches!(&tokens[start - 1], TokenTree::Punct(p) if p.as_char() == '.');
                    if after_dot {
                        continue;
                    }
                    let path = syn::Path {
                        leading_colon: leading.then(|| syn::Token![::](tokens[start - 2].span())),
                        segments: segments.into_iter().map(syn::PathSegment::from).collect(),
                    };
                    self.visit_path(&path);
                }
            }
            /// Visits what `f` visits with `public` set as `public` (and restores it).
            fn with(&mut self, public: bool, f: impl FnOnce(&mut Self)) {
                let was = std::mem::replace(&mut self.public, public);
                f(self);
                self.public = was;
            }
        }
        fn is_pub(v: &syn::Visibility) -> bool {
            matches!(v, syn::Visibility::Public(_))
        }
        fn has_pub(ts: proc_macro2::TokenStream) -> bool {
            ts.into_iter().any(|t| match t {
                proc_macro2::TokenTree::Ident(i) => i == "pub",
                proc_macro2::TokenTree::Group(g) => has_pub(g.stream()),
                _ => false,
            })
        }
        impl<'a> Visit<'a> for V<'_> {
            fn visit_item_fn(&mut self, i: &'a syn::ItemFn) {
                self.with(is_pub(&i.vis), |v| v.visit_signature(&i.sig));
                self.with(false, |v| v.visit_block(&i.block));
            }
            fn visit_impl_item_fn(&mut self, i: &'a syn::ImplItemFn) {
                // A trait impl's signature follows its trait's, which may be another crate's.
                self.with(is_pub(&i.vis) || self.public, |v| v.visit_signature(&i.sig));
                self.with(false, |v| v.visit_block(&i.block));
            }
            fn visit_item_impl(&mut self, i: &'a syn::ItemImpl) {
                let public = i.trait_.is_some();
                self.with(public, |v| syn::visit::visit_item_impl(v, i));
            }
            fn visit_item_trait(&mut self, i: &'a syn::ItemTrait) {
                self.with(true, |v| syn::visit::visit_item_trait(v, i));
            }
            fn visit_field(&mut self, i: &'a syn::Field) {
                self.with(is_pub(&i.vis) || self.public, |v| {
                    syn::visit::visit_field(v, i)
                });
            }
            fn visit_item_struct(&mut self, i: &'a syn::ItemStruct) {
                self.with(false, |v| syn::visit::visit_item_struct(v, i));
            }
            fn visit_item_enum(&mut self, i: &'a syn::ItemEnum) {
                self.with(is_pub(&i.vis), |v| syn::visit::visit_item_enum(v, i));
            }
            fn visit_item_type(&mut self, i: &'a syn::ItemType) {
                self.with(is_pub(&i.vis), |v| syn::visit::visit_item_type(v, i));
            }
            fn visit_item_const(&mut self, i: &'a syn::ItemConst) {
                self.with(is_pub(&i.vis), |v| v.visit_type(&i.ty));
                self.with(false, |v| v.visit_expr(&i.expr));
            }
            fn visit_item_static(&mut self, i: &'a syn::ItemStatic) {
                self.with(is_pub(&i.vis), |v| v.visit_type(&i.ty));
                self.with(false, |v| v.visit_expr(&i.expr));
            }
            fn visit_item_use(&mut self, u: &'a syn::ItemUse) {
                // `use std::sync::mpsc::TryRecvError::*;`: what it imports is reached through
                // a family's name, which the rewrite must follow (a plain path, written from
                // the family's crate; groups are left to the compiler's check).
                let mut segments: Vec<&syn::Ident> = Vec::new();
                let mut tree = &u.tree;
                while let syn::UseTree::Path(p) = tree {
                    segments.push(&p.ident);
                    tree = &p.tree;
                }
                let Some(i) = segments
                    .iter()
                    .position(|s| FAMILY_NAMES.contains(&s.to_string().as_str()))
                else {
                    return;
                };
                let family = match segments[..i]
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("::")
                    .as_str()
                {
                    "crossbeam::channel" | "crossbeam_channel" => "crossbeam_channel".to_string(),
                    f @ ("std::sync::mpsc" | "flume") => f.to_string(),
                    _ => return,
                };
                let s = segments[0].span().start();
                self.out.push(NamedType {
                    family,
                    name: segments[i].to_string(),
                    site: Site {
                        file: self.file.to_string(),
                        line: s.line,
                        column: s.column + 1,
                    },
                    span: (
                        crate::flow::offset(self.text, s),
                        crate::flow::offset(self.text, segments[i].span().end()),
                    ),
                    public: is_pub(&u.vis),
                });
            }
            fn visit_path(&mut self, path: &'a syn::Path) {
                // Every prefix of the path that ends in one of the family's names: the type
                // `mpsc::Sender<u8>`, the pattern `TryRecvError::Empty`, the function
                // `Sender::clone`.
                for (i, seg) in path.segments.iter().enumerate() {
                    let name = seg.ident.to_string();
                    if !rewritten_name(&name) {
                        continue;
                    }
                    let mut prefix = path.clone();
                    while prefix.segments.len() > i + 1 {
                        prefix.segments.pop();
                    }
                    let s = syn::spanned::Spanned::span(path).start();
                    let site = Site {
                        file: self.file.to_string(),
                        line: s.line,
                        column: s.column + 1,
                    };
                    let span = (
                        crate::flow::offset(self.text, s),
                        crate::flow::offset(self.text, seg.ident.span().end()),
                    );
                    // Every family the name may be: `#[cfg]` alternatives import `Sender` from
                    // std in one configuration and from crossbeam in another. A bare name that
                    // nothing visible imports (reached through a parent's glob, say) may be
                    // any family's.
                    for c in self.imp.canonical_all(&prefix) {
                        let family = if c.len() >= 2 {
                            c[..c.len() - 1].join("::")
                        } else if FAMILY_NAMES.contains(&name.as_str()) {
                            ANY_FAMILY.to_string()
                        } else {
                            continue;
                        };
                        let crossbeam =
                            matches!(family.as_str(), "crossbeam_channel" | "crossbeam::channel");
                        if CROSSBEAM_NAMES.contains(&name.as_str()) && !crossbeam {
                            continue;
                        }
                        self.out.push(NamedType {
                            family,
                            name: name.clone(),
                            site: site.clone(),
                            span,
                            public: self.public,
                        });
                    }
                }
                syn::visit::visit_path(self, path);
            }
            fn visit_macro(&mut self, m: &'a syn::Macro) {
                // A macro's tokens (`thread_local! { static OUT: RefCell<Option<Sender<M>>> =
                // .. }`) name types as paths do; a `macro_rules!` body's are templates, whose
                // names resolve where it expands, and stay. A `pub` among them may make a
                // name public.
                if m.path.is_ident("macro_rules") {
                    return;
                }
                // Its own path: crossbeam's `select!`.
                self.visit_path(&m.path);
                let public = self.public || has_pub(m.tokens.clone());
                self.with(public, |v| v.paths_in_tokens(m.tokens.clone()));
            }
            fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
                // `Err(RecvError)`: a bare name that an import makes a unit struct's is a path
                // to it, not a binding.
                if p.by_ref.is_none()
                    && p.mutability.is_none()
                    && p.subpat.is_none()
                    && rewritten_name(&p.ident.to_string())
                {
                    let path = syn::Path::from(p.ident.clone());
                    if self.imp.canonical_all(&path).iter().any(|c| c.len() >= 2) {
                        self.visit_path(&path);
                    }
                }
                syn::visit::visit_pat_ident(self, p);
            }
        }
        let mut v = V {
            imp: &imp,
            file: &f.rel,
            text: &f.text,
            public: false,
            out: Vec::new(),
        };
        v.visit_file(&f.ast);
        out.extend(v.out);
    }
    Ok(out)
}
