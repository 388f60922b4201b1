//! The crate index the walks consult: every function and method by name ([`FnDef`]), the
//! `macro_rules!` of the crate with their single rule ([`MacroDef`]), statics, and the `use`s of
//! each file; built by the [`Collect`] pass before any channel is followed.

use super::*;

pub(super) struct FnDef<'a> {
    pub(super) file: usize,
    /// Whether code outside the crate may call it (see [`callable_outside`]): then its callers
    /// are not all in view.
    pub(super) public: bool,
    /// Other crates may call it: a `pub` (not `pub(crate)`) function in a module reachable from
    /// outside the crate, or a `pub` inherent method (as reachable as its type; see `api.rs`).
    /// A trait impl's method is not counted: its trait may be the crate's own.
    pub(super) exported: bool,
    /// The `impl`'s self type (or the trait) for associated functions.
    pub(super) owner: Option<String>,
    pub(super) sig: &'a syn::Signature,
    pub(super) block: &'a syn::Block,
}

pub(super) struct Index<'a> {
    pub(super) krate: &'a Crate,
    pub(super) imports: Vec<Imports>,
    pub(super) fns: HashMap<String, Vec<FnDef<'a>>>,
    pub(super) macros: HashMap<String, MacroDef>,
    pub(super) fields: Fields,
    /// Statics and consts of the crate: name -> the last segment of each one's type.
    pub(super) statics: HashMap<String, Vec<String>>,
}

/// A `macro_rules!` of the crate: where it is, and its rule when it has exactly one whose matcher
/// is a comma-separated list of `$name:fragment` (expanded by substitution).
pub(super) struct MacroDef {
    pub(super) site: Site,
    pub(super) rule: Option<(Vec<String>, TokenStream)>,
}

/// Whether a function takes `self` (can be called with method syntax).
pub(super) fn takes_self(sig: &syn::Signature) -> bool {
    matches!(sig.inputs.first(), Some(syn::FnArg::Receiver(_)))
}

pub(super) fn single_rule(ts: &TokenStream) -> Option<(Vec<String>, TokenStream)> {
    let tts: Vec<TokenTree> = ts.clone().into_iter().collect();
    let rule = match tts.as_slice() {
        [
            TokenTree::Group(m),
            TokenTree::Punct(a),
            TokenTree::Punct(b),
            TokenTree::Group(body),
        ]
        | [
            TokenTree::Group(m),
            TokenTree::Punct(a),
            TokenTree::Punct(b),
            TokenTree::Group(body),
            TokenTree::Punct(_),
        ] if a.as_char() == '=' && b.as_char() == '>' => (m.stream(), body.stream()),
        _ => return None,
    };
    let mut params = Vec::new();
    for part in split_commas(&rule.0) {
        match part.as_slice() {
            [
                TokenTree::Punct(d),
                TokenTree::Ident(n),
                TokenTree::Punct(c),
                TokenTree::Ident(_),
            ] if d.as_char() == '$' && c.as_char() == ':' => params.push(n.to_string()),
            [] => {}
            _ => return None,
        }
    }
    Some((params, rule.1))
}

pub(super) fn split_commas(ts: &TokenStream) -> Vec<Vec<TokenTree>> {
    let mut out = vec![Vec::new()];
    for t in ts.clone() {
        match &t {
            TokenTree::Punct(p) if p.as_char() == ',' => out.push(Vec::new()),
            _ => out.last_mut().expect("never empty").push(t),
        }
    }
    if out.last().is_some_and(Vec::is_empty) {
        out.pop();
    }
    out
}

pub(super) fn substitute(body: &TokenStream, args: &HashMap<String, TokenStream>) -> TokenStream {
    let tts: Vec<TokenTree> = body.clone().into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < tts.len() {
        match (&tts[i], tts.get(i + 1)) {
            (TokenTree::Punct(d), Some(TokenTree::Ident(n)))
                if d.as_char() == '$' && args.contains_key(&n.to_string()) =>
            {
                let g = proc_macro2::Group::new(
                    proc_macro2::Delimiter::Parenthesis,
                    args[&n.to_string()].clone(),
                );
                out.push(TokenTree::Group(g));
                i += 2;
                continue;
            }
            (TokenTree::Group(g), _) => {
                let mut ng = proc_macro2::Group::new(g.delimiter(), substitute(&g.stream(), args));
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
            }
            (t, _) => out.push(t.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

impl MacroDef {
    /// The invocation expanded into a block, when the rule is simple enough.
    pub(super) fn expand(&self, tokens: &TokenStream) -> Option<syn::Block> {
        let (params, body) = self.rule.as_ref()?;
        let parts = split_commas(tokens);
        if parts.len() != params.len() {
            return None;
        }
        let args: HashMap<String, TokenStream> = params
            .iter()
            .cloned()
            .zip(parts.into_iter().map(|p| p.into_iter().collect()))
            .collect();
        let g = proc_macro2::Group::new(proc_macro2::Delimiter::Brace, substitute(body, &args));
        syn::parse2(TokenTree::Group(g).into()).ok()
    }
}

pub(super) struct Collect<'i, 'a> {
    pub(super) ix: &'i mut Index<'a>,
    pub(super) file: usize,
    pub(super) owner: Option<String>,
    pub(super) trait_impl: bool,
    /// Whether items here are reachable from outside the crate (see [`exported_scope`]).
    pub(super) exported_scope: bool,
}

/// Whether code outside the crate may call a function: a trait impl's method (the trait's
/// users call it), or a `pub` one of a library (a `pub` free function in a private module
/// counts: a `pub use` may re-export it). `pub(crate)`, `pub(super)` and `pub(in ..)` ones, and
/// every other function of a binary, test, example or bench, are called only where the crate's
/// own sources show.
pub(super) fn callable_outside(lib: bool, trait_impl: bool, vis: &syn::Visibility) -> bool {
    trait_impl || (lib && matches!(vis, syn::Visibility::Public(_)))
}

/// Whether the items of module `m`, inside a scope whose items are reachable from outside the
/// crate (`outer`), are too: a `pub mod`.
pub(super) fn exported_scope(outer: bool, m: &syn::ItemMod) -> bool {
    outer && matches!(m.vis, syn::Visibility::Public(_))
}

/// Which functions a call can reach.
pub(super) enum Want {
    /// A free function (`f(..)`, `module::f(..)`).
    Free,
    /// An associated function of this type, or of any type (`None`: methods, `Self::f`).
    Assoc(Option<String>),
}

impl Want {
    pub(super) fn admits(&self, owner: &Option<String>) -> bool {
        match self {
            Want::Free => owner.is_none(),
            Want::Assoc(None) => owner.is_some(),
            Want::Assoc(Some(t)) => owner.as_ref() == Some(t),
        }
    }
}

impl<'a> Visit<'a> for Collect<'_, 'a> {
    fn visit_item_impl(&mut self, i: &'a syn::ItemImpl) {
        let owner = match &*i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let saved = (
            std::mem::replace(&mut self.owner, owner.or(Some(String::new()))),
            std::mem::replace(&mut self.trait_impl, i.trait_.is_some()),
        );
        syn::visit::visit_item_impl(self, i);
        (self.owner, self.trait_impl) = saved;
    }
    fn visit_item_trait(&mut self, t: &'a syn::ItemTrait) {
        let saved = self.owner.replace(t.ident.to_string());
        syn::visit::visit_item_trait(self, t);
        self.owner = saved;
    }
    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        let saved = self.owner.take();
        self.ix
            .fns
            .entry(f.sig.ident.to_string())
            .or_default()
            .push(FnDef {
                file: self.file,
                public: callable_outside(self.ix.krate.lib, false, &f.vis),
                exported: self.exported_scope && matches!(f.vis, syn::Visibility::Public(_)),
                owner: None,
                sig: &f.sig,
                block: &f.block,
            });
        // Items inside a function are not reachable from outside it.
        let scope = std::mem::replace(&mut self.exported_scope, false);
        syn::visit::visit_item_fn(self, f);
        self.exported_scope = scope;
        self.owner = saved;
    }
    fn visit_item_type(&mut self, t: &'a syn::ItemType) {
        // `type OwnShared<T> = Arc<T>;`: the alias shares what it is given, as `Arc` does.
        let params: HashSet<String> = t
            .generics
            .type_params()
            .map(|p| p.ident.to_string())
            .collect();
        if !params.is_empty() && shares_params(&t.ty, &params) {
            self.ix.fields.sharer_aliases.insert(t.ident.to_string());
        }
        syn::visit::visit_item_type(self, t);
    }
    fn visit_item_struct(&mut self, i: &'a syn::ItemStruct) {
        if let syn::Fields::Unnamed(_) = i.fields {
            self.ix.fields.tuple_ctors.insert(i.ident.to_string());
        }
        let params: HashSet<String> = i
            .generics
            .type_params()
            .map(|p| p.ident.to_string())
            .collect();
        for (n, f) in i.fields.iter().enumerate() {
            let key = f.ident.as_ref().map_or(n.to_string(), ToString::to_string);
            let mut ids = HashSet::new();
            type_idents(&f.ty, &mut ids);
            let generic = !ids.is_disjoint(&params);
            let mut held = HashSet::new();
            held_type_idents(&f.ty, &mut held);
            let decl = (held, generic);
            self.ix
                .fields
                .field_decls
                .entry(key)
                .or_default()
                .push(decl);
        }
        syn::visit::visit_item_struct(self, i);
    }
    fn visit_item_enum(&mut self, e: &'a syn::ItemEnum) {
        for v in &e.variants {
            if let syn::Fields::Unnamed(_) = v.fields {
                self.ix.fields.tuple_ctors.insert(v.ident.to_string());
            }
        }
        syn::visit::visit_item_enum(self, e);
    }
    fn visit_item_mod(&mut self, m: &'a syn::ItemMod) {
        let saved = self.exported_scope;
        self.exported_scope = exported_scope(saved, m);
        syn::visit::visit_item_mod(self, m);
        self.exported_scope = saved;
    }
    fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
        self.ix
            .fns
            .entry(f.sig.ident.to_string())
            .or_default()
            .push(FnDef {
                file: self.file,
                public: callable_outside(self.ix.krate.lib, self.trait_impl, &f.vis),
                exported: !self.trait_impl && matches!(f.vis, syn::Visibility::Public(_)),
                owner: self.owner.clone(),
                sig: &f.sig,
                block: &f.block,
            });
        syn::visit::visit_impl_item_fn(self, f);
    }
    fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
        self.ix.fields.drop_shadowed |= p.ident == "drop";
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_item_const(&mut self, c: &'a syn::ItemConst) {
        self.ix.fields.drop_shadowed |= c.ident == "drop";
        syn::visit::visit_item_const(self, c);
    }
    fn visit_item_static(&mut self, s: &'a syn::ItemStatic) {
        self.ix.fields.drop_shadowed |= s.ident == "drop";
        let ty = match &*s.ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        self.ix
            .statics
            .entry(s.ident.to_string())
            .or_default()
            .push(ty.unwrap_or_default());
        syn::visit::visit_item_static(self, s);
    }
    fn visit_item_macro(&mut self, m: &'a syn::ItemMacro) {
        if m.mac.path.is_ident("macro_rules")
            && let Some(id) = &m.ident
        {
            let s = site(self.ix.krate, self.file, id.span());
            let def = MacroDef {
                site: s,
                rule: single_rule(&m.mac.tokens),
            };
            self.ix.macros.insert(id.to_string(), def);
        }
    }
}

/// Whether `t` holds one of `params` inside one of the [`SHARERS`] (`Arc<T>`,
/// `parking_lot::Mutex<Vec<T>>`).
fn shares_params(t: &syn::Type, params: &HashSet<String>) -> bool {
    struct Find<'p> {
        params: &'p HashSet<String>,
        hit: bool,
    }
    impl<'a> Visit<'a> for Find<'_> {
        fn visit_path_segment(&mut self, s: &'a syn::PathSegment) {
            if SHARERS.contains(&s.ident.to_string().as_str())
                && let syn::PathArguments::AngleBracketed(a) = &s.arguments
            {
                for g in &a.args {
                    if let syn::GenericArgument::Type(ty) = g {
                        let mut names = HashSet::new();
                        held_type_idents(ty, &mut names);
                        self.hit |= names.iter().any(|n| self.params.contains(n));
                    }
                }
            }
            syn::visit::visit_path_segment(self, s);
        }
    }
    let mut f = Find { params, hit: false };
    f.visit_type(t);
    f.hit
}
