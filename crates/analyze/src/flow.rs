//! Handle tracking (WTC's producer/consumer proof, adapted to Rust ownership): each side of each
//! channel is followed from its `let (tx, rx)` binding through aliases, wrappers (`Arc`, `Mutex`,
//! `Some`, ...), clones (once, or in a loop: many), closures given to `thread::spawn`,
//! `Builder::spawn`, scoped and rayon spawns, same-crate calls (parameters by position, recursion
//! guarded), closures handed to a private function's parameter, parallel `*_with` adaptors, private
//! fields of structs that are never cloned or shared (see [`Fields`]), and into the places it
//! cannot follow: other stores into fields, collections and statics (conservative), returns and
//! hand-offs to external code, macros and closures it does not know (refused, or conservative for
//! macros of the crate).

use crate::discover::{Crate, Note};
use crate::resolve::Imports;
use crate::verdict::{Channel, Count, Side, Site};
use proc_macro2::{Span, TokenStream, TokenTree};
use std::collections::{HashMap, HashSet};
use syn::spanned::Spanned;
use syn::visit::Visit;

struct FnDef<'a> {
    file: usize,
    public: bool,
    /// The `impl`'s self type (or the trait) for associated functions.
    owner: Option<String>,
    sig: &'a syn::Signature,
    block: &'a syn::Block,
}

struct Index<'a> {
    krate: &'a Crate,
    imports: Vec<Imports>,
    fns: HashMap<String, Vec<FnDef<'a>>>,
    macros: HashMap<String, MacroDef>,
    fields: Fields,
    /// Statics and consts of the crate: name -> the last segment of each one's type.
    statics: HashMap<String, Vec<String>>,
}

/// The crate's structs and how their fields are used, for handles stored in a field: such a
/// handle stays a single handle, used by one thread at a time, when its field is private, its
/// struct is not `Clone`, and every access to a field of that name anywhere in the crate is
/// `self.f.send(..)`-like (a channel operation, possibly through `as_ref`/`unwrap`/`lock`) in a
/// method taking `self` by value or `&mut self`, outside closures.
#[derive(Default)]
struct Fields {
    /// Struct name -> (private field names, or indices of a tuple struct; derives `Clone`), one
    /// entry per definition.
    structs: HashMap<String, Vec<(HashSet<String>, bool)>>,
    /// Structs declared `pub` (their public methods may run any number of times).
    public: HashSet<String>,
    /// Types with an `impl Clone` (or `Copy`).
    cloned: HashSet<String>,
    /// Field names with an access of any other form, or named in a macro.
    escaping: HashSet<String>,
    /// Field names operated on in place through `&self` or another binding than `self`
    /// (confined only for a handle that is not `Sync`, in a crate without `unsafe impl Sync`:
    /// then no shared reference to its holder reaches another thread).
    by_ref: HashSet<String>,
    /// Types with an `unsafe impl Sync`.
    sync: HashSet<String>,
    /// Structs and enums of the crate: name, file, the types of their fields.
    defs: Vec<(String, usize, Vec<syn::Type>)>,
    /// Tuple structs of the crate.
    tuple_structs: HashSet<String>,
    /// (enum, variant) of the crate's variants with named fields.
    struct_variants: HashSet<(String, String)>,
    /// Struct patterns: the path's segments and a field they bind.
    pat_fields: Vec<(Vec<String>, String)>,
    /// (struct, field name or index) -> the field's declared type.
    field_types: HashMap<(String, String), syn::Type>,
    /// Structs and enums that are not `Sync` by their fields (a std receiver, `Cell`, `RefCell`,
    /// `Rc`, a raw pointer, or such a type of the crate, not behind a `Mutex`/`RwLock`).
    not_sync: HashSet<String>,
    /// Tuple variant name -> (its enum, whether the enum derives `Clone`, whether it is `pub`),
    /// one entry per definition.
    variants: HashMap<String, Vec<(String, bool, bool)>>,
    /// (variant, position) bound by a pattern other than a `match` arm that only operates on it
    /// in place (or ignores it).
    variant_escaping: HashSet<(String, usize)>,
    /// (struct, field) -> a method of that struct that clones the field into a value it keeps
    /// or hands on (`self.f.clone()` not only operated on): callable any number of times.
    cloned_by: HashMap<(String, String), String>,
    /// Types put behind an `Arc`/`Rc` or into a static somewhere in the crate (a holder that
    /// can be shared: each clone of it is one more holder of the handle).
    shared: HashSet<String>,
    /// Whether something of a type the scan cannot tell is put behind an `Arc`/`Rc`.
    unknown_shared: bool,
    /// Crate-wide: local and parameter names -> the types they are bound to (`None`: unknown).
    /// (`Err`: bound to another local's value.)
    locals: HashMap<String, Vec<Result<Option<String>, String>>>,
    /// Local names put behind an `Arc`/`Rc`.
    arc_vars: HashSet<String>,
}

impl Fields {
    /// Resolves the names put behind an `Arc`/`Rc` once every binding is known.
    fn resolve_shared(&mut self) {
        let mut todo: Vec<String> = std::mem::take(&mut self.arc_vars).into_iter().collect();
        let mut seen = HashSet::new();
        while let Some(v) = todo.pop() {
            if !seen.insert(v.clone()) {
                continue;
            }
            match self.locals.get(&v) {
                None => self.unknown_shared = true,
                Some(tys) => {
                    for t in tys {
                        match t {
                            Ok(Some(t)) => {
                                self.shared.insert(t.clone());
                            }
                            Ok(None) => self.unknown_shared = true,
                            Err(w) => todo.push(w.clone()),
                        }
                    }
                }
            }
        }
    }
}

/// The type a pattern's binding or an expression has, as far as it can be read off the syntax
/// (`S { .. }`, `S::new(..)`, `Mutex::new(S { .. })`, an annotation): the last segment's name.
fn type_name(t: &syn::Type) -> Option<String> {
    match t {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Reference(r) => type_name(&r.elem),
        syn::Type::Paren(p) => type_name(&p.elem),
        _ => None,
    }
}

/// Every type name mentioned in `t` (generic arguments included).
fn type_idents(t: &syn::Type, out: &mut HashSet<String>) {
    struct T<'o>(&'o mut HashSet<String>);
    impl<'a> Visit<'a> for T<'_> {
        fn visit_path_segment(&mut self, s: &'a syn::PathSegment) {
            self.0.insert(s.ident.to_string());
            syn::visit::visit_path_segment(self, s);
        }
    }
    T(out).visit_type(t);
}

impl Fields {
    /// Whether field `field` of struct `name` is declared to hold an `FnOnce` (and no `Fn` or
    /// `FnMut`): a closure stored there runs at most once.
    fn holds_fn_once(&self, name: &str, field: &str) -> bool {
        let Some(t) = self.field_types.get(&(name.to_string(), field.to_string())) else {
            return false;
        };
        let mut ids = HashSet::new();
        type_idents(t, &mut ids);
        ids.contains("FnOnce") && !ids.contains("Fn") && !ids.contains("FnMut")
    }

    /// Whether a handle moved into field `field` of a struct named `name` stays confined.
    fn confined(&self, name: &str, field: &str, not_sync: bool) -> bool {
        let not_sync = not_sync || self.not_sync.contains(name);
        let typed = format!("{name}::{field}");
        let by_ref = self.by_ref.contains(field) || self.by_ref.contains(&typed);
        (!by_ref || (not_sync && self.sync.is_empty()))
            && !self.escaping.contains(&typed)
            && self.confined_exclusive(name, field)
    }

    /// Computes [`Fields::not_sync`] (a fixpoint over the crate's types).
    fn resolve_not_sync(&mut self, imports: &[Imports]) {
        fn not_sync(
            t: &syn::Type,
            file: usize,
            imports: &[Imports],
            known: &HashSet<String>,
        ) -> bool {
            match t {
                syn::Type::Ptr(_) => true,
                syn::Type::Reference(r) => not_sync(&r.elem, file, imports, known),
                syn::Type::Paren(p) => not_sync(&p.elem, file, imports, known),
                syn::Type::Array(a) => not_sync(&a.elem, file, imports, known),
                syn::Type::Slice(a) => not_sync(&a.elem, file, imports, known),
                syn::Type::Tuple(tu) => tu.elems.iter().any(|e| not_sync(e, file, imports, known)),
                syn::Type::Path(p) => {
                    let Some(last) = p.path.segments.last() else {
                        return false;
                    };
                    let l = last.ident.to_string();
                    if matches!(l.as_str(), "Mutex" | "RwLock") {
                        return false;
                    }
                    let canon = imports[file].canonical(&p.path);
                    // std's (not a type of the crate named alike), by its real name: with
                    // `use std::sync::Arc as Rc`, an `Rc` field is an `Arc`.
                    if matches!(
                        canon.last().map(String::as_str),
                        Some("Cell" | "RefCell" | "Rc" | "UnsafeCell")
                    ) && matches!(
                        canon.first().map(String::as_str),
                        Some("std" | "core" | "alloc")
                    ) {
                        return true;
                    }
                    if canon == ["std", "sync", "mpsc", "Receiver"] {
                        return true;
                    }
                    // A type of the crate, not an import of the same name from elsewhere.
                    if p.path.segments.len() == 1
                        && known.contains(&l)
                        && (canon.len() == 1
                            || matches!(canon[0].as_str(), "crate" | "self" | "super"))
                    {
                        return true;
                    }
                    match &last.arguments {
                        syn::PathArguments::AngleBracketed(a) => a.args.iter().any(|g| {
                            matches!(g, syn::GenericArgument::Type(t)
                                if not_sync(t, file, imports, known))
                        }),
                        _ => false,
                    }
                }
                _ => false,
            }
        }
        loop {
            let mut changed = false;
            for (name, file, tys) in &self.defs {
                if !self.not_sync.contains(name)
                    && tys
                        .iter()
                        .any(|t| not_sync(t, *file, imports, &self.not_sync))
                {
                    self.not_sync.insert(name.clone());
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        // A name defined twice may be the other definition.
        let mut count: HashMap<&String, usize> = HashMap::new();
        for (n, _, _) in &self.defs {
            *count.entry(n).or_default() += 1;
        }
        let twice: Vec<String> = count
            .into_iter()
            .filter(|(_, c)| *c > 1)
            .map(|(n, _)| n.clone())
            .collect();
        for n in twice {
            self.not_sync.remove(&n);
        }
    }

    /// Whether a handle moved into position `k` of tuple variant `path` (`E::V` or `V`) stays one
    /// handle: a private enum that is not `Clone` nor shared, whose every pattern for that
    /// position is a `match` arm that only operates on the binding in place.
    fn variant_confined(&self, path: &syn::Path, k: usize) -> bool {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let Some(v) = segs.last() else { return false };
        let Some([(e, derives_clone, public)]) = self.variants.get(v).map(Vec::as_slice) else {
            return false;
        };
        (segs.len() == 1 || (segs.len() == 2 && &segs[0] == e))
            && !derives_clone
            && !public
            && !self.cloned.contains(e)
            && !self.shared.contains(e)
            && !self.unknown_shared
            && !self.variant_escaping.contains(&(v.clone(), k))
    }

    fn confined_exclusive(&self, name: &str, field: &str) -> bool {
        matches!(self.structs.get(name).map(Vec::as_slice), Some([(private, derives_clone)])
            if !derives_clone && private.contains(field))
            && !self.cloned.contains(name)
            && !self.escaping.contains(field)
            && !self.shared.contains(name)
            && !self.unknown_shared
            && !self.pat_fields.iter().any(|(segs, f)| {
                f == field
                    && match segs.as_slice() {
                        // A variant of an enum of the crate is not the struct.
                        [.., e, v] => !self.struct_variants.contains(&(e.clone(), v.clone())),
                        // Another struct of the crate, or a variant, is not the struct.
                        [n] => {
                            n == name
                                || !(self.structs.contains_key(n)
                                    || self.struct_variants.iter().any(|(_, v)| v == n))
                        }
                        [] => true,
                    }
            })
    }
}

/// Whether the attributes derive `Clone` or `Copy`.
fn derives_clone(attrs: &[syn::Attribute]) -> bool {
    // `derive(..)`, or a `cfg_attr(.., derive(..))` that may apply.
    attrs.iter().any(|a| {
        (a.path().is_ident("derive") || a.path().is_ident("cfg_attr"))
            && a.meta.require_list().is_ok_and(|l| {
                mentions_tokens(
                    &l.tokens,
                    &HashSet::from(["Clone".to_string(), "Copy".to_string()]),
                )
            })
    })
}

/// Channel constructors' names (the bindings of `let (tx, rx) = channel()` are handles).
const CHANNEL_FNS: &[&str] = &["channel", "sync_channel", "unbounded", "bounded"];

/// Types whose values hold values of other types.
const CONTAINERS: &[&str] = &[
    "Vec",
    "VecDeque",
    "LinkedList",
    "BinaryHeap",
    "HashMap",
    "BTreeMap",
    "HashSet",
    "BTreeSet",
    "Option",
    "Box",
    "Result",
];

/// Channel operations that use a handle in place.
const IN_PLACE: &[&str] = &[
    "send",
    "try_send",
    "send_timeout",
    "send_deadline",
    "recv",
    "try_recv",
    "recv_timeout",
    "recv_deadline",
    "len",
    "is_empty",
    "is_full",
    "capacity",
];
/// Accessors through which a field may reach an in-place operation.
const THROUGH: &[&str] = &[
    "as_ref",
    "as_mut",
    "unwrap",
    "expect",
    "lock",
    "borrow",
    "borrow_mut",
    "get_mut",
];

fn member_name(m: &syn::Member) -> String {
    match m {
        syn::Member::Named(i) => i.to_string(),
        syn::Member::Unnamed(i) => i.index.to_string(),
    }
}

/// Finds the field accesses that are not confined (see [`Fields`]).
struct FieldScan<'f, 'a> {
    fields: &'f mut Fields,
    fns: &'f HashMap<String, Vec<FnDef<'a>>>,
    /// Whether the enclosing function takes `self` by value or `&mut self`.
    exclusive: bool,
    /// Whether it takes `&self`.
    by_ref: bool,
    /// Type parameters in scope (a value of such a type may be any struct).
    generics: Vec<String>,
    /// `Arc::new(..)` calls initialising a struct field: the field's declared type names what
    /// is shared.
    typed: HashSet<*const syn::ExprCall>,
    /// Tuple-variant patterns of `match` arms, with the positions whose binding the arm only
    /// operates on in place (or ignores).
    arms: HashMap<*const syn::PatTupleStruct, Vec<bool>>,
    file: usize,
    closures: usize,
    ok: HashSet<*const syn::ExprField>,
    /// The `impl`'s self type, whether the impl is of a trait, and the method being scanned
    /// (when it is callable from outside the crate: `pub`, or of a trait impl).
    owner: Option<String>,
    trait_impl: bool,
    method: Option<String>,
    /// `self.f.clone()` calls that are only the receiver of another method call.
    immediate: HashSet<*const syn::ExprMethodCall>,
}

/// The in-place receiver of a channel operation: `x` in `x.send(..)`, `x.as_ref().unwrap().recv()`.
fn in_place_receiver(mc: &syn::ExprMethodCall) -> Option<&syn::Expr> {
    if !IN_PLACE.contains(&mc.method.to_string().as_str()) {
        return None;
    }
    let mut r = &*mc.receiver;
    loop {
        match r {
            syn::Expr::MethodCall(m)
                if m.args.is_empty() && THROUGH.contains(&m.method.to_string().as_str()) =>
            {
                r = &m.receiver;
            }
            syn::Expr::Paren(p) => r = &p.expr,
            _ => return Some(r),
        }
    }
}

/// Whether parameter `name` is used in `body` only as the in-place receiver of channel
/// operations, outside closures and macros.
fn param_in_place(body: &syn::Block, name: &str) -> bool {
    struct P<'n> {
        name: &'n str,
        closures: usize,
        ok: HashSet<*const syn::ExprPath>,
        bad: bool,
    }
    impl<'a> Visit<'a> for P<'_> {
        fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
            self.closures += 1;
            syn::visit::visit_expr_closure(self, c);
            self.closures -= 1;
        }
        fn visit_expr_async(&mut self, a: &'a syn::ExprAsync) {
            self.closures += 1;
            syn::visit::visit_expr_async(self, a);
            self.closures -= 1;
        }
        fn visit_expr_method_call(&mut self, mc: &'a syn::ExprMethodCall) {
            if let Some(syn::Expr::Path(p)) = in_place_receiver(mc) {
                self.ok.insert(p as *const _);
            }
            syn::visit::visit_expr_method_call(self, mc);
        }
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if p.path.is_ident(self.name)
                && (self.closures > 0 || !self.ok.contains(&(p as *const _)))
            {
                self.bad = true;
            }
        }
        fn visit_pat_ident(&mut self, i: &'a syn::PatIdent) {
            // A rebinding of the name: give up rather than track scopes.
            if i.ident == self.name {
                self.bad = true;
            }
            syn::visit::visit_pat_ident(self, i);
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            if mentions_tokens(&m.tokens, &HashSet::from([self.name.to_string()])) {
                self.bad = true;
            }
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut v = P {
        name,
        closures: 0,
        ok: HashSet::new(),
        bad: false,
    };
    v.visit_block(body);
    !v.bad
}

impl FieldScan<'_, '_> {
    /// The type of `e` as far as the syntax tells (`Err` with a local's name to resolve later).
    fn guess(&self, e: &syn::Expr) -> Result<Option<String>, String> {
        let seg = |p: &syn::Path, i: usize| -> Option<String> {
            let n = p.segments.len();
            let s = p.segments.iter().nth(n.checked_sub(i)?)?.ident.to_string();
            if s == "Self" {
                self.owner.clone()
            } else {
                Some(s)
            }
        };
        match e {
            syn::Expr::Struct(s) => Ok(seg(&s.path, 1)),
            syn::Expr::Paren(p) => self.guess(&p.expr),
            syn::Expr::Reference(r) => self.guess(&r.expr),
            syn::Expr::Lit(_) => Ok(Some(String::new())),
            syn::Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => {
                self.guess(&m.receiver)
            }
            syn::Expr::Call(c) => {
                let syn::Expr::Path(p) = &*c.func else {
                    return Ok(None);
                };
                let outer = seg(&p.path, 2);
                if c.args.len() == 1
                    && matches!(
                        outer.as_deref(),
                        Some("Mutex" | "RwLock" | "RefCell" | "Cell" | "Box" | "Some")
                    )
                {
                    return self.guess(&c.args[0]);
                }
                if p.path.segments.len() == 1 {
                    return Ok(seg(&p.path, 1).filter(|s| s.starts_with(char::is_uppercase)));
                }
                Ok(outer.filter(|s| s.starts_with(char::is_uppercase)))
            }
            syn::Expr::Path(p) => match p.path.get_ident() {
                Some(i) => Err(i.to_string()),
                None => Ok(None),
            },
            _ => Ok(None),
        }
    }

    /// Records the type of `e`, put behind an `Arc`/`Rc`.
    fn share(&mut self, e: &syn::Expr) {
        match e {
            syn::Expr::Tuple(t) => {
                for x in &t.elems {
                    self.share(x);
                }
            }
            syn::Expr::Path(p) if p.path.is_ident("self") => match &self.owner {
                Some(o) => {
                    self.fields.shared.insert(o.clone());
                }
                None => self.fields.unknown_shared = true,
            },
            syn::Expr::Struct(s) => {
                for seg in &s.path.segments {
                    self.fields.shared.insert(seg.ident.to_string());
                }
                if let Ok(Some(t)) = self.guess(e) {
                    self.fields.shared.insert(t);
                }
            }
            _ => match self.guess(e) {
                // A container's element type is not read off the syntax.
                Ok(Some(t)) if !self.generics.contains(&t) && !CONTAINERS.contains(&t.as_str()) => {
                    self.fields.shared.insert(t);
                }
                Ok(_) => self.fields.unknown_shared = true,
                Err(v) => {
                    self.fields.arc_vars.insert(v);
                }
            },
        }
    }

    fn bind(&mut self, pat: &syn::Pat, ty: Option<&syn::Type>, init: Option<&syn::Expr>) {
        // `let (tx, rx) = channel()`: channel handles, not structs of the crate.
        if let syn::Pat::Tuple(t) = unwrap_pat(pat)
            && let Some(syn::Expr::Call(c)) = init
            && last_seg(&c.func).is_some_and(|l| CHANNEL_FNS.contains(&l.as_str()))
        {
            for e in &t.elems {
                if let Some(n) = pat_ident(e) {
                    self.fields
                        .locals
                        .entry(n)
                        .or_default()
                        .push(Ok(Some(String::new())));
                }
            }
            return;
        }
        let Some(n) = pat_ident(pat) else { return };
        let ty = match (ty.and_then(type_name), init.map(|e| self.guess(e))) {
            (Some(t), _) => Ok(Some(t)),
            (None, Some(Ok(t))) => Ok(t),
            (None, Some(Err(w))) => Err(w),
            (None, None) => Ok(None),
        }
        .map(|t| t.filter(|t| !self.generics.contains(t)));
        self.fields.locals.entry(n).or_default().push(ty);
    }
}

impl<'a> Visit<'a> for FieldScan<'_, '_> {
    fn visit_generics(&mut self, g: &'a syn::Generics) {
        // Pushed for the rest of the item: popped by the item visitors below.
        for p in g.type_params() {
            self.generics.push(p.ident.to_string());
        }
        syn::visit::visit_generics(self, g);
    }
    fn visit_item(&mut self, i: &'a syn::Item) {
        let n = self.generics.len();
        syn::visit::visit_item(self, i);
        self.generics.truncate(n);
    }
    fn visit_impl_item(&mut self, i: &'a syn::ImplItem) {
        let n = self.generics.len();
        syn::visit::visit_impl_item(self, i);
        self.generics.truncate(n);
    }
    fn visit_trait_item(&mut self, i: &'a syn::TraitItem) {
        let n = self.generics.len();
        syn::visit::visit_trait_item(self, i);
        self.generics.truncate(n);
    }
    fn visit_local(&mut self, l: &'a syn::Local) {
        let ty = match &l.pat {
            syn::Pat::Type(t) => Some(&*t.ty),
            _ => None,
        };
        // An annotated binding: its type (or the alias's definition) names what is shared.
        if ty.is_some()
            && let Some(i) = &l.init
            && let syn::Expr::Call(c) = &*i.expr
        {
            self.typed.insert(c as *const _);
        }
        self.bind(&l.pat, ty, l.init.as_ref().map(|i| &*i.expr));
        syn::visit::visit_local(self, l);
    }
    fn visit_fn_arg(&mut self, a: &'a syn::FnArg) {
        if let syn::FnArg::Typed(t) = a {
            self.bind(&t.pat, Some(&t.ty), None);
        }
        syn::visit::visit_fn_arg(self, a);
    }
    fn visit_type_path(&mut self, t: &'a syn::TypePath) {
        if let Some(l) = t.path.segments.last()
            && (l.ident == "Arc" || l.ident == "Rc")
            && let syn::PathArguments::AngleBracketed(a) = &l.arguments
        {
            for g in &a.args {
                if let syn::GenericArgument::Type(ty) = g {
                    type_idents(ty, &mut self.fields.shared);
                }
            }
        }
        syn::visit::visit_type_path(self, t);
    }
    fn visit_item_static(&mut self, i: &'a syn::ItemStatic) {
        type_idents(&i.ty, &mut self.fields.shared);
        syn::visit::visit_item_static(self, i);
    }
    fn visit_expr_assign(&mut self, a: &'a syn::ExprAssign) {
        // `self.f = None`: drops the handle in place.
        if let syn::Expr::Field(f) = &*a.left {
            self.ok.insert(f as *const _);
        }
        syn::visit::visit_expr_assign(self, a);
    }
    fn visit_expr_struct(&mut self, s: &'a syn::ExprStruct) {
        for f in &s.fields {
            if let syn::Expr::Call(c) = &f.expr {
                self.typed.insert(c as *const _);
            }
        }
        syn::visit::visit_expr_struct(self, s);
    }
    fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func
            && p.path.segments.len() >= 2
            && let [.., a, b] = p.path.segments.iter().collect::<Vec<_>>().as_slice()
            && (a.ident == "Arc" || a.ident == "Rc")
            && b.ident != "clone"
            && !self.typed.contains(&(c as *const _))
        {
            for arg in &c.args {
                self.share(arg);
            }
        }
        // `&self.f` lent to a free function of the crate that only operates on it in place.
        if let syn::Expr::Path(p) = &*c.func
            && let Some(g) = p.path.get_ident()
            && let Some(defs) = self.fns.get(&g.to_string())
            && let [def] = defs
                .iter()
                .filter(|d| d.owner.is_none())
                .collect::<Vec<_>>()
                .as_slice()
        {
            for (i, a) in c.args.iter().enumerate() {
                if let syn::Expr::Reference(r) = a
                    && r.mutability.is_none()
                    && let syn::Expr::Field(f) = &*r.expr
                    && let Some(syn::FnArg::Typed(t)) = def.sig.inputs.iter().nth(i)
                    && let Some(n) = pat_ident(&t.pat)
                    && param_in_place(def.block, &n)
                {
                    self.ok.insert(f as *const _);
                }
            }
        }
        syn::visit::visit_expr_call(self, c);
    }
    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        let saved = (
            std::mem::replace(&mut self.exclusive, false),
            std::mem::replace(&mut self.by_ref, false),
            self.closures,
        );
        self.closures = 0;
        syn::visit::visit_item_fn(self, f);
        (self.exclusive, self.by_ref, self.closures) = saved;
    }
    fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
        let exclusive = matches!(f.sig.inputs.first(), Some(syn::FnArg::Receiver(r))
            if matches!(r.kind, syn::ReceiverKind::Value | syn::ReceiverKind::Reference(_, _, Some(_))));
        let by_ref = matches!(f.sig.inputs.first(), Some(syn::FnArg::Receiver(r))
            if matches!(r.kind, syn::ReceiverKind::Reference(_, _, None)));
        let saved = (
            std::mem::replace(&mut self.exclusive, exclusive),
            std::mem::replace(&mut self.by_ref, by_ref),
            self.closures,
            std::mem::replace(
                &mut self.method,
                (self.trait_impl || !matches!(f.vis, syn::Visibility::Inherited))
                    .then(|| f.sig.ident.to_string()),
            ),
        );
        self.closures = 0;
        syn::visit::visit_impl_item_fn(self, f);
        (self.exclusive, self.by_ref, self.closures, self.method) = saved;
    }
    fn visit_trait_item_fn(&mut self, f: &'a syn::TraitItemFn) {
        let saved = std::mem::replace(&mut self.exclusive, false);
        syn::visit::visit_trait_item_fn(self, f);
        self.exclusive = saved;
    }
    fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
        self.closures += 1;
        syn::visit::visit_expr_closure(self, c);
        self.closures -= 1;
    }
    fn visit_expr_async(&mut self, a: &'a syn::ExprAsync) {
        self.closures += 1;
        syn::visit::visit_expr_async(self, a);
        self.closures -= 1;
    }
    fn visit_expr_method_call(&mut self, mc: &'a syn::ExprMethodCall) {
        if let syn::Expr::MethodCall(inner) = &*mc.receiver {
            self.immediate.insert(inner as *const _);
        }
        if mc.method == "clone"
            && mc.args.is_empty()
            && !self.immediate.contains(&(mc as *const _))
            && let syn::Expr::Field(f) = &*mc.receiver
            && matches!(&*f.base, syn::Expr::Path(p) if p.path.is_ident("self"))
            && let Some(owner) = &self.owner
            && let Some(m) = &self.method
        {
            self.fields
                .cloned_by
                .entry((owner.clone(), member_name(&f.member)))
                .or_insert_with(|| m.clone());
        }
        if let Some(syn::Expr::Field(f)) = in_place_receiver(mc) {
            self.ok.insert(f as *const _);
        }
        syn::visit::visit_expr_method_call(self, mc);
    }
    fn visit_expr_field(&mut self, f: &'a syn::ExprField) {
        let on_self = matches!(&*f.base, syn::Expr::Path(p) if p.path.is_ident("self"));
        let in_place = self.closures == 0 && self.ok.contains(&(f as *const _));
        // `self.f` in an impl of T is T's field; any other base may be any struct's.
        let key = match (&self.owner, on_self) {
            (Some(o), true) => format!("{o}::{}", member_name(&f.member)),
            _ => member_name(&f.member),
        };
        if !in_place {
            self.fields.escaping.insert(key);
        } else if !(on_self && self.exclusive) {
            self.fields.by_ref.insert(key);
        }
        syn::visit::visit_expr_field(self, f);
    }
    fn visit_pat_struct(&mut self, p: &'a syn::PatStruct) {
        // Destructuring takes the field out: it escapes for the struct the pattern names.
        let mut segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if segs.len() == 1
            && segs[0] == "Self"
            && let Some(o) = &self.owner
        {
            segs[0] = o.clone();
        }
        for f in &p.fields {
            self.fields
                .pat_fields
                .push((segs.clone(), member_name(&f.member)));
        }
        syn::visit::visit_pat_struct(self, p);
    }
    fn visit_arm(&mut self, a: &'a syn::Arm) {
        if self.closures == 0
            && let syn::Pat::TupleStruct(p) = &a.pat
        {
            // (An arm with a guard has a `Pat::Guard`: not taken.)
            let body = syn::Block {
                brace_token: Default::default(),
                stmts: vec![syn::Stmt::Expr((*a.body).clone(), None)],
            };
            let ok = p
                .elems
                .iter()
                .map(|e| match e {
                    syn::Pat::Wild(_) => true,
                    syn::Pat::Ident(i) if i.subpat.is_none() => {
                        param_in_place(&body, &i.ident.to_string())
                    }
                    _ => false,
                })
                .collect();
            self.arms.insert(p as *const _, ok);
        }
        syn::visit::visit_arm(self, a);
    }
    fn visit_item_enum(&mut self, e: &'a syn::ItemEnum) {
        let tys = e
            .variants
            .iter()
            .flat_map(|v| v.fields.iter().map(|f| f.ty.clone()))
            .collect();
        self.fields.defs.push((e.ident.to_string(), self.file, tys));
        let derives_clone = derives_clone(&e.attrs);
        for v in &e.variants {
            if let syn::Fields::Named(_) = v.fields {
                self.fields
                    .struct_variants
                    .insert((e.ident.to_string(), v.ident.to_string()));
            }
            if let syn::Fields::Unnamed(_) = v.fields {
                self.fields
                    .variants
                    .entry(v.ident.to_string())
                    .or_default()
                    .push((
                        e.ident.to_string(),
                        derives_clone,
                        !matches!(e.vis, syn::Visibility::Inherited),
                    ));
            }
        }
        syn::visit::visit_item_enum(self, e);
    }
    fn visit_pat_tuple_struct(&mut self, p: &'a syn::PatTupleStruct) {
        for i in 0..p.elems.len() {
            self.fields.escaping.insert(i.to_string());
        }
        if let Some(v) = p.path.segments.last() {
            let ok = self.arms.get(&(p as *const _));
            for k in 0..p.elems.len() {
                if !ok.is_some_and(|o| o[k]) {
                    self.fields
                        .variant_escaping
                        .insert((v.ident.to_string(), k));
                }
            }
        }
        syn::visit::visit_pat_tuple_struct(self, p);
    }
    fn visit_macro(&mut self, m: &'a syn::Macro) {
        fn scan(ts: &TokenStream, out: &mut HashSet<String>) {
            for t in ts.clone() {
                match t {
                    TokenTree::Ident(i) => {
                        out.insert(i.to_string());
                    }
                    TokenTree::Literal(l) => {
                        out.insert(l.to_string());
                    }
                    TokenTree::Group(g) => scan(&g.stream(), out),
                    TokenTree::Punct(_) => {}
                }
            }
        }
        let mut idents = HashSet::new();
        scan(&m.tokens, &mut idents);
        // A macro that may declare a static or build an Arc (`lazy_static!`): whatever it names
        // may be shared.
        if ["Arc", "Rc", "static"].iter().any(|k| idents.contains(*k)) {
            self.fields.shared.extend(idents.iter().cloned());
        }
        self.fields.escaping.extend(idents);
    }
    fn visit_item_struct(&mut self, i: &'a syn::ItemStruct) {
        let private: HashSet<String> = i
            .fields
            .iter()
            .enumerate()
            .filter(|(_, f)| matches!(f.vis, syn::Visibility::Inherited))
            .map(|(n, f)| f.ident.as_ref().map_or(n.to_string(), ToString::to_string))
            .collect();
        let derives_clone = derives_clone(&i.attrs);
        if !matches!(i.vis, syn::Visibility::Inherited) {
            self.fields.public.insert(i.ident.to_string());
        }
        let tys = i.fields.iter().map(|f| f.ty.clone()).collect();
        self.fields.defs.push((i.ident.to_string(), self.file, tys));
        if let syn::Fields::Unnamed(_) = i.fields {
            self.fields.tuple_structs.insert(i.ident.to_string());
        }
        for (n, f) in i.fields.iter().enumerate() {
            let key = f.ident.as_ref().map_or(n.to_string(), ToString::to_string);
            self.fields
                .field_types
                .insert((i.ident.to_string(), key), f.ty.clone());
        }
        self.fields
            .structs
            .entry(i.ident.to_string())
            .or_default()
            .push((private, derives_clone));
        syn::visit::visit_item_struct(self, i);
    }
    fn visit_item_impl(&mut self, i: &'a syn::ItemImpl) {
        if let Some((t, _)) = &i.trait_
            && t.segments
                .last()
                .is_some_and(|s| s.ident == "Clone" || s.ident == "Copy")
            && let syn::Type::Path(p) = &*i.self_ty
            && let Some(l) = p.path.segments.last()
        {
            self.fields.cloned.insert(l.ident.to_string());
        }
        if let Some((t, _)) = &i.trait_
            && t.segments.last().is_some_and(|s| s.ident == "Sync")
            && let syn::Type::Path(p) = &*i.self_ty
            && let Some(l) = p.path.segments.last()
        {
            self.fields.sync.insert(l.ident.to_string());
        }
        let owner = match &*i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let saved = (
            std::mem::replace(&mut self.owner, owner),
            std::mem::replace(&mut self.trait_impl, i.trait_.is_some()),
        );
        syn::visit::visit_item_impl(self, i);
        (self.owner, self.trait_impl) = saved;
    }
}

/// A `macro_rules!` of the crate: where it is, and its rule when it has exactly one whose matcher
/// is a comma-separated list of `$name:fragment` (expanded by substitution).
struct MacroDef {
    site: Site,
    rule: Option<(Vec<String>, TokenStream)>,
}

fn single_rule(ts: &TokenStream) -> Option<(Vec<String>, TokenStream)> {
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

fn split_commas(ts: &TokenStream) -> Vec<Vec<TokenTree>> {
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

fn substitute(body: &TokenStream, args: &HashMap<String, TokenStream>) -> TokenStream {
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
    fn expand(&self, tokens: &TokenStream) -> Option<syn::Block> {
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
        };
        c.visit_file(&f.ast);
    }
    for (fi, f) in krate.files.iter().enumerate() {
        let mut scan = FieldScan {
            fields: &mut ix.fields,
            fns: &ix.fns,
            exclusive: false,
            by_ref: false,
            generics: Vec::new(),
            typed: HashSet::new(),
            arms: HashMap::new(),
            file: fi,
            closures: 0,
            ok: HashSet::new(),
            owner: None,
            trait_impl: false,
            method: None,
            immediate: HashSet::new(),
        };
        scan.visit_file(&f.ast);
    }
    ix.fields.resolve_shared();
    ix.fields.resolve_not_sync(&ix.imports);
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
        };
        finder.visit_file(&f.ast);
    }
    out.sort_by(|a, b| a.site.cmp(&b.site));
    (out, notes)
}

struct Collect<'i, 'a> {
    ix: &'i mut Index<'a>,
    file: usize,
    owner: Option<String>,
    trait_impl: bool,
}

/// Which functions a call can reach.
enum Want {
    /// A free function (`f(..)`, `module::f(..)`).
    Free,
    /// An associated function of this type, or of any type (`None`: methods, `Self::f`).
    Assoc(Option<String>),
}

impl Want {
    fn admits(&self, owner: &Option<String>) -> bool {
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
                public: !matches!(f.vis, syn::Visibility::Inherited),
                owner: None,
                sig: &f.sig,
                block: &f.block,
            });
        syn::visit::visit_item_fn(self, f);
        self.owner = saved;
    }
    fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
        self.ix
            .fns
            .entry(f.sig.ident.to_string())
            .or_default()
            .push(FnDef {
                file: self.file,
                // A trait impl's methods are as visible as the trait.
                public: self.trait_impl || !matches!(f.vis, syn::Visibility::Inherited),
                owner: self.owner.clone(),
                sig: &f.sig,
                block: &f.block,
            });
        syn::visit::visit_impl_item_fn(self, f);
    }
    fn visit_item_static(&mut self, s: &'a syn::ItemStatic) {
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

/// The function whose body is being walked.
#[derive(Clone)]
struct CurFn<'a> {
    name: String,
    public: bool,
    sig: &'a syn::Signature,
    block: &'a syn::Block,
}

struct Finder<'i, 'a> {
    ix: &'i Index<'a>,
    file: usize,
    handled: HashSet<usize>,
    out: &'i mut Vec<Channel>,
    notes: &'i mut Vec<Note>,
    fn_body: Option<*const syn::Block>,
    /// The `impl`'s self type, for `Self { .. }`.
    owner: Option<String>,
    cur: Option<CurFn<'a>>,
    trait_impl: bool,
}

/// A channel found at `site` whose two sides are refused for `reason`; `func_span` is the byte
/// range of the constructor's path in its file.
fn refused(
    site: Site,
    ctor: crate::resolve::Ctor,
    reason: String,
    func_span: (usize, usize),
) -> Channel {
    let side = Side::Refused {
        reason,
        site: site.clone(),
    };
    Channel {
        site,
        constructor: ctor.name,
        bounded: ctor.bounded,
        senders: side.clone(),
        receivers: side,
        func_span,
    }
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
    struct B<'o>(&'o mut HashSet<String>);
    impl<'a> Visit<'a> for B<'_> {
        fn visit_pat_ident(&mut self, i: &'a syn::PatIdent) {
            self.0.insert(i.ident.to_string());
            syn::visit::visit_pat_ident(self, i);
        }
    }
    B(out).visit_pat(p);
}

impl Finder<'_, '_> {
    /// Reports, refused for `reason`, every constructor named in macro tokens (a path that
    /// resolves to one and is called or given a turbofish; not a method or a definition).
    fn tokens(&mut self, ts: &TokenStream, reason: &str) {
        let file = self.file;
        for (path, start, end) in token_paths(ts) {
            let Some(ctor) = self.ix.imports[file].constructor(&path) else {
                continue;
            };
            let text = &self.ix.krate.files[file].text;
            let span = (offset(text, start.start()), offset(text, end.end()));
            let site = site(self.ix.krate, file, start);
            self.out.push(refused(site, ctor, reason.to_string(), span));
        }
    }

    /// An `include!` in a statement or an expression: the file is an expression (or
    /// statements), spliced where it is written. Its constructors are reported, refused;
    /// a path computed at build time is a note.
    fn included_expr(&mut self, m: &syn::Macro, p: Result<String, ()>) {
        let at = site(self.ix.krate, self.file, m.span());
        let Ok(path) = p else {
            self.notes.push(Note {
                site: at,
                text: crate::discover::COMPUTED_INCLUDE.into(),
            });
            return;
        };
        let dir = self.ix.krate.files[self.file]
            .abs
            .parent()
            .map(|d| d.to_path_buf())
            .unwrap_or_default();
        let abs = dir.join(&path);
        let Some((text, ts)) = std::fs::read_to_string(&abs)
            .ok()
            .and_then(|t| t.parse::<TokenStream>().ok().map(|ts| (t, ts)))
        else {
            self.notes.push(Note {
                site: at,
                text: format!(
                    "include!(\"{path}\"): cannot be read or tokenised; channels made there \
                     are not reported"
                ),
            });
            return;
        };
        // The file's paths resolve through the `use`s visible at the `include!`.
        let mut imports = Imports::default();
        imports.inherit(&self.ix.imports[self.file], at.line);
        for (p, start, end) in token_paths(&ts) {
            let Some(ctor) = imports.constructor(&p) else {
                continue;
            };
            let s = start.start();
            let site = Site {
                file: crate::discover::rel_path(&self.ix.krate.root, &abs),
                line: s.line,
                column: s.column + 1,
            };
            let reason =
                format!("made in a file included as an expression at {at}, which is not analysed");
            let span = (offset(&text, start.start()), offset(&text, end.end()));
            self.out.push(refused(site, ctor, reason, span));
        }
    }

    fn ctor_call<'e>(&self, e: &'e syn::Expr) -> Option<(&'e syn::ExprCall, crate::resolve::Ctor)> {
        let syn::Expr::Call(c) = e else { return None };
        let syn::Expr::Path(p) = &*c.func else {
            return None;
        };
        let ctor = self.ix.imports[self.file].constructor(&p.path)?;
        Some((c, ctor))
    }

    fn channel(&self, call: &syn::ExprCall, ctor: crate::resolve::Ctor) -> Channel {
        let text = &self.ix.krate.files[self.file].text;
        let fs = call.func.span();
        // The rewrite replaces the path up to the constructor's name: generic arguments after
        // it (`mpsc::channel::<u64>()`) stay, so the element type is not left to inference.
        let end = match &*call.func {
            syn::Expr::Path(p) => p
                .path
                .segments
                .last()
                .map_or(fs.end(), |seg| seg.ident.span().end()),
            _ => fs.end(),
        };
        let reason = Side::Refused {
            reason: "not bound to a (sender, receiver) pattern".into(),
            site: site(self.ix.krate, self.file, call.span()),
        };
        Channel {
            site: site(self.ix.krate, self.file, call.span()),
            constructor: ctor.name,
            bounded: ctor.bounded,
            senders: reason.clone(),
            receivers: reason,
            func_span: (offset(text, fs.start()), offset(text, end)),
        }
    }

    fn block(&mut self, b: &syn::Block, is_fn_body: bool) {
        for (i, st) in b.stmts.iter().enumerate() {
            let syn::Stmt::Local(l) = st else { continue };
            let Some(init) = &l.init else { continue };
            let Some((call, ctor)) = self.ctor_call(&init.expr) else {
                continue;
            };
            self.handled.insert(call as *const _ as usize);
            let mut ch = self.channel(call, ctor);
            if let syn::Pat::Tuple(t) = unwrap_pat(&l.pat)
                && t.elems.len() == 2
            {
                let rest = &b.stmts[i + 1..];
                let elems: Vec<&syn::Pat> = t.elems.iter().collect();
                // A std receiver is neither `Sync` nor `Clone`.
                let std_rx = ch.constructor.starts_with("std::sync::mpsc::");
                let at = (&self.owner, &self.cur, false);
                ch.senders = side(self.ix, self.file, at, elems[0], rest, is_fn_body);
                let at = (&self.owner, &self.cur, std_rx);
                ch.receivers = side(self.ix, self.file, at, elems[1], rest, is_fn_body);
            }
            self.out.push(ch);
        }
    }
}

impl<'a> Visit<'a> for Finder<'_, 'a> {
    fn visit_item_impl(&mut self, i: &'a syn::ItemImpl) {
        let owner = match &*i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let saved = (
            std::mem::replace(&mut self.owner, owner),
            std::mem::replace(&mut self.trait_impl, i.trait_.is_some()),
        );
        syn::visit::visit_item_impl(self, i);
        (self.owner, self.trait_impl) = saved;
    }
    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        self.fn_body = Some(&*f.block as *const _);
        let cur = CurFn {
            name: f.sig.ident.to_string(),
            public: !matches!(f.vis, syn::Visibility::Inherited),
            sig: &f.sig,
            block: &f.block,
        };
        let saved = self.cur.replace(cur);
        syn::visit::visit_item_fn(self, f);
        self.cur = saved;
    }
    fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
        self.fn_body = Some(&f.block as *const _);
        let cur = CurFn {
            name: f.sig.ident.to_string(),
            public: self.trait_impl || !matches!(f.vis, syn::Visibility::Inherited),
            sig: &f.sig,
            block: &f.block,
        };
        let saved = self.cur.replace(cur);
        syn::visit::visit_impl_item_fn(self, f);
        self.cur = saved;
    }
    fn visit_block(&mut self, b: &'a syn::Block) {
        let is_body = self.fn_body == Some(b as *const _);
        self.fn_body = None;
        self.block(b, is_body);
        syn::visit::visit_block(self, b);
    }
    fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
        if !self.handled.contains(&(c as *const _ as usize)) {
            let e = syn::Expr::Call(c.clone());
            if let Some((_, ctor)) = self.ctor_call(&e) {
                let ch = self.channel(c, ctor);
                self.out.push(ch);
            }
        }
        // The called path is the call's (above), not a constructor passed by name.
        for a in &c.attrs {
            self.visit_attribute(a);
        }
        if !matches!(&*c.func, syn::Expr::Path(_)) {
            self.visit_expr(&c.func);
        }
        for a in &c.args {
            self.visit_expr(a);
        }
    }
    fn visit_item_macro(&mut self, m: &'a syn::ItemMacro) {
        // An item-level `include!` is read as a file of its own (see `discover`).
        if crate::discover::include_path(&m.mac).is_some() {
            return;
        }
        if m.mac.path.is_ident("macro_rules") {
            let name = m.ident.as_ref().map_or(String::new(), |i| i.to_string());
            let reason = format!(
                "made in the body of macro_rules! {name}, wherever it expands; \
                 expansions are not analysed"
            );
            self.tokens(&m.mac.tokens, &reason);
            return;
        }
        self.visit_macro(&m.mac);
    }
    fn visit_macro(&mut self, m: &'a syn::Macro) {
        if let Some(p) = crate::discover::include_path(m) {
            self.included_expr(m, p);
            return;
        }
        let name = m
            .path
            .segments
            .last()
            .map_or(String::new(), |s| s.ident.to_string());
        let reason = format!("made inside {name}!(..), whose expansion is not analysed");
        self.tokens(&m.tokens, &reason);
    }
    fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
        // A constructor named without being called here (`Lazy::new(unbounded)`,
        // `let make = channel;`): its channels are made wherever it is called, which the
        // walker does not follow. Reported, refused, rather than missed.
        if let Some(ctor) = self.ix.imports[self.file].constructor(&p.path) {
            let text = &self.ix.krate.files[self.file].text;
            let span = p.span();
            let end = p
                .path
                .segments
                .last()
                .map_or(span.end(), |seg| seg.ident.span().end());
            self.out.push(refused(
                site(self.ix.krate, self.file, span),
                ctor,
                "the constructor is passed by name, not called here".into(),
                (offset(text, span.start()), offset(text, end)),
            ));
        }
        syn::visit::visit_expr_path(self, p);
    }
}

#[derive(Clone, Default)]
struct Unit {
    used: bool,
    on_constructing: bool,
    spawns: Vec<Site>,
    many: Option<(String, Site)>,
}

#[derive(Default)]
struct Acc {
    units: Vec<Unit>,
    cons: Option<(String, Site)>,
    refused: Option<(String, Site)>,
}

#[derive(Clone, Default)]
struct Ctx {
    thread: Option<Site>,
    many: Option<(String, Site)>,
    in_loop: bool,
}

fn side<'a>(
    ix: &Index<'a>,
    file: usize,
    (owner, cur, not_sync): (&Option<String>, &Option<CurFn<'a>>, bool),
    pat: &syn::Pat,
    rest: &[syn::Stmt],
    is_fn_body: bool,
) -> Side {
    let mut acc = Acc::default();
    if let syn::Pat::Wild(_) = unwrap_pat(pat) {
        return verdict(acc);
    }
    let Some(name) = pat_ident(pat) else {
        return Side::Refused {
            reason: "bound to a pattern the analysis does not follow".into(),
            site: site(ix.krate, file, pat.span()),
        };
    };
    acc.units.push(Unit::default());
    let mut w = Walker {
        ix,
        file,
        acc: &mut acc,
        names: HashSet::from([name]),
        siblings: HashSet::new(),
        closures: HashMap::new(),
        ctx: Ctx::default(),
        unit: 0,
        stack: Vec::new(),
        expanding: 0,
        owner: owner.clone(),
        cur: cur.clone(),
        not_sync,
    };
    w.stmts(rest, is_fn_body);
    verdict(acc)
}

fn verdict(acc: Acc) -> Side {
    let mut count = Count::N(0);
    let mut threads = Vec::new();
    let mut constructing = false;
    let mut why = None;
    for u in &acc.units {
        if !u.used {
            continue;
        }
        let c = if let Some(m) = &u.many {
            why.get_or_insert_with(|| m.clone());
            Count::Many
        } else {
            let mut n = u.spawns.len().max(1);
            // Used on the constructing thread and by a spawned one: the spawned thread may hold
            // only a reference (`move` of a `&Sender` into a scoped thread), so both can use it at
            // once; counting both never undercounts.
            if u.on_constructing && !u.spawns.is_empty() {
                n += 1;
            }
            Count::of(n)
        };
        count = count.plus(c);
        constructing |= u.on_constructing;
        threads.extend(u.spawns.iter().cloned());
    }
    threads.sort();
    threads.dedup();
    if let Some((reason, site)) = acc.refused {
        return Side::Refused { reason, site };
    }
    // A lower bound of many is many: no count exceeds it, so the side is exact.
    if let Some((reason, site)) = acc.cons.filter(|_| count != Count::Many) {
        let at_least = if count.value() == Some(0) {
            Count::One
        } else {
            count
        };
        return Side::Conservative {
            at_least,
            reason,
            site,
        };
    }
    Side::Exact {
        count,
        threads,
        constructing,
        why: if count == Count::Many { why } else { None },
    }
}

enum Carry {
    Alias,
    Clone(Site),
}

const WRAPPERS: &[&str] = &[
    "new", "Some", "Ok", "Box", "Arc", "Rc", "Mutex", "RwLock", "RefCell", "Cell",
];
const ACCESS: &[&str] = &[
    "lock",
    "read",
    "write",
    "borrow",
    "borrow_mut",
    "as_ref",
    "as_mut",
    "unwrap",
    "expect",
    "get",
    "take",
    "deref",
    "as_deref",
    "get_mut",
    "into_inner",
];
const STORE: &[&str] = &[
    "push",
    "push_back",
    "push_front",
    "insert",
    "extend",
    "append",
    "set",
    "replace",
    "get_or_init",
    "put",
    "store",
];
const ITER: &[&str] = &[
    "map",
    "for_each",
    "filter",
    "filter_map",
    "flat_map",
    "fold",
    "try_for_each",
    "any",
    "all",
    "find",
    "inspect",
    "and_then",
    "map_err",
    "unwrap_or_else",
    "take_while",
    "skip_while",
    "try_fold",
    "or_else",
    "then",
    "map_or_else",
];
/// Macros whose arguments parse as expressions evaluated where the macro is written: a handle
/// named there is borrowed for the statement, on this thread (`vec!` moves it into the vector
/// it makes). `dbg!` is not one: it returns its argument.
const FORMAT: &[&str] = &[
    "println",
    "print",
    "eprintln",
    "eprint",
    "format",
    "write",
    "writeln",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "panic",
    "vec",
    "format_args",
    "unreachable",
    "todo",
];

struct Walker<'w, 'a> {
    ix: &'w Index<'a>,
    file: usize,
    acc: &'w mut Acc,
    names: HashSet<String>,
    /// Names bound, in the scope being walked, to the other handles of the same side (`let
    /// b = a.clone()` seen from `a`'s walk, and `a` from `b`'s): for `b.clone_from(&a)`.
    siblings: HashSet<String>,
    closures: HashMap<String, syn::ExprClosure>,
    ctx: Ctx,
    unit: usize,
    stack: Vec<(usize, String)>,
    expanding: usize,
    /// The `impl`'s self type of the function being walked.
    owner: Option<String>,
    /// The function being walked (for calls of its parameters).
    cur: Option<CurFn<'a>>,
    /// Whether the handle is not `Sync` (a std receiver).
    not_sync: bool,
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
    struct M<'n> {
        names: &'n HashSet<String>,
        hit: bool,
    }
    impl<'a> Visit<'a> for M<'_> {
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
    let mut m = M { names, hit: false };
    m.visit_expr(e);
    m.hit
}

/// Whether parameter `i` of `sig` is bounded by `FnOnce` or `FnMut` and not by `Fn`, `Clone` or
/// `Copy`.
fn job_runs_once(sig: &syn::Signature, i: usize) -> bool {
    let Some(syn::FnArg::Typed(p)) = sig.inputs.iter().nth(i) else {
        return false;
    };
    let mut traits = Vec::new();
    let mut from_bounds =
        |bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>| {
            for b in bounds {
                if let syn::TypeParamBound::Trait(t) = b
                    && let Some(l) = t.path.segments.last()
                {
                    traits.push(l.ident.to_string());
                }
            }
        };
    match &*p.ty {
        syn::Type::ImplTrait(t) => from_bounds(&t.bounds),
        syn::Type::Path(tp) => {
            if let Some(id) = tp.path.get_ident() {
                for g in &sig.generics.params {
                    if let syn::GenericParam::Type(t) = g
                        && t.ident == *id
                    {
                        from_bounds(&t.bounds);
                    }
                }
                if let Some(w) = &sig.generics.where_clause {
                    for pred in &w.predicates {
                        if let syn::WherePredicate::Type(pt) = pred
                            && let syn::Type::Path(bp) = &pt.bounded_ty
                            && bp.path.is_ident(id)
                        {
                            from_bounds(&pt.bounds);
                        }
                    }
                }
            }
        }
        _ => {}
    }
    // A job that is also `Clone` (or `Copy`) can be cloned into several threads, each of which
    // runs its own copy once: not once.
    !traits
        .iter()
        .any(|t| t == "Fn" || t == "Clone" || t == "Copy")
        && traits.iter().any(|t| t == "FnOnce" || t == "FnMut")
}

/// The position of the parameter named `name` (receiver excluded: none when there is one).
fn param_index(sig: &syn::Signature, name: &str) -> Option<usize> {
    if sig.receiver().is_some() {
        return None;
    }
    sig.inputs.iter().position(
        |a| matches!(a, syn::FnArg::Typed(t) if pat_ident(&t.pat).as_deref() == Some(name)),
    )
}

/// Whether `name` is bound anywhere in `block` (a shadowing the analysis does not track).
fn rebinds(block: &syn::Block, name: &str) -> bool {
    struct R<'n>(&'n str, bool);
    impl<'a> Visit<'a> for R<'_> {
        fn visit_pat_ident(&mut self, i: &'a syn::PatIdent) {
            self.1 |= i.ident == self.0;
            syn::visit::visit_pat_ident(self, i);
        }
    }
    let mut r = R(name, false);
    r.visit_block(block);
    r.1
}

/// Every call of the function `name` in the crate, with the closure each passes at position
/// `pi` and where; `None` when one passes something else or the function is used as a value.
fn closure_args(
    krate: &Crate,
    name: &str,
    pi: usize,
) -> Option<Vec<(usize, Option<String>, syn::ExprClosure)>> {
    struct C<'n> {
        name: &'n str,
        pi: usize,
        file: usize,
        owner: Option<String>,
        calls: HashSet<*const syn::ExprPath>,
        out: Vec<(usize, Option<String>, syn::ExprClosure)>,
        bad: bool,
    }
    impl<'a> Visit<'a> for C<'_> {
        fn visit_item_impl(&mut self, i: &'a syn::ItemImpl) {
            let owner = match &*i.self_ty {
                syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
                _ => None,
            };
            let saved = std::mem::replace(&mut self.owner, owner);
            syn::visit::visit_item_impl(self, i);
            self.owner = saved;
        }
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            if let syn::Expr::Path(p) = &*c.func
                && p.path.segments.last().is_some_and(|s| s.ident == self.name)
            {
                self.calls.insert(p as *const _);
                match c.args.iter().nth(self.pi) {
                    Some(syn::Expr::Closure(cl)) => {
                        self.out.push((self.file, self.owner.clone(), cl.clone()));
                    }
                    _ => self.bad = true,
                }
            }
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if p.path.segments.last().is_some_and(|s| s.ident == self.name)
                && !self.calls.contains(&(p as *const _))
            {
                self.bad = true;
            }
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            if mentions_tokens(&m.tokens, &HashSet::from([self.name.to_string()])) {
                self.bad = true;
            }
        }
    }
    let mut c = C {
        name,
        pi,
        file: 0,
        owner: None,
        calls: HashSet::new(),
        out: Vec::new(),
        bad: false,
    };
    for (i, f) in krate.files.iter().enumerate() {
        c.file = i;
        c.visit_file(&f.ast);
    }
    (!c.bad).then_some(c.out)
}

fn stmt_rebinds(st: &syn::Stmt, name: &str) -> bool {
    rebinds(
        &syn::Block {
            brace_token: Default::default(),
            stmts: vec![st.clone()],
        },
        name,
    )
}

/// Where `name` (or `&name`) is cloned inside a loop of `stmts`, if it is.
fn cloned_in_loop(stmts: &[syn::Stmt], name: &str) -> Option<Span> {
    struct L<'n> {
        name: &'n str,
        depth: usize,
        hit: Option<Span>,
    }
    fn is_name(e: &syn::Expr, name: &str) -> bool {
        match e {
            syn::Expr::Path(p) => p.path.is_ident(name),
            syn::Expr::Reference(r) => is_name(&r.expr, name),
            syn::Expr::Paren(p) => is_name(&p.expr, name),
            _ => false,
        }
    }
    impl<'a> Visit<'a> for L<'_> {
        fn visit_item(&mut self, _: &'a syn::Item) {}
        fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
            self.visit_expr(&f.expr);
            self.depth += 1;
            self.visit_block(&f.body);
            self.depth -= 1;
        }
        fn visit_expr_while(&mut self, w: &'a syn::ExprWhile) {
            self.depth += 1;
            syn::visit::visit_expr_while(self, w);
            self.depth -= 1;
        }
        fn visit_expr_loop(&mut self, l: &'a syn::ExprLoop) {
            self.depth += 1;
            syn::visit::visit_expr_loop(self, l);
            self.depth -= 1;
        }
        fn visit_expr_method_call(&mut self, mc: &'a syn::ExprMethodCall) {
            if self.depth > 0
                && mc.method == "clone"
                && mc.args.is_empty()
                && is_name(&mc.receiver, self.name)
            {
                self.hit.get_or_insert(mc.method.span());
            }
            syn::visit::visit_expr_method_call(self, mc);
        }
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            if self.depth > 0
                && last_seg(&c.func).as_deref() == Some("clone")
                && c.args.len() == 1
                && is_name(&c.args[0], self.name)
            {
                self.hit.get_or_insert(c.span());
            }
            syn::visit::visit_expr_call(self, c);
        }
    }
    let mut l = L {
        name,
        depth: 0,
        hit: None,
    };
    for st in stmts {
        l.visit_stmt(st);
    }
    l.hit
}

/// Every call of the function `name` in the crate when each is `let x = name(..);` (or a method
/// call of that name): the file, the impl's type, `x` and the statements after it; `None` when
/// a call is anything else or the function is used as a value.
#[allow(clippy::type_complexity)]
fn let_callers(
    krate: &Crate,
    name: &str,
) -> Option<Vec<(usize, Option<String>, String, Vec<syn::Stmt>)>> {
    struct C<'n> {
        name: &'n str,
        file: usize,
        owner: Option<String>,
        bound: HashSet<usize>,
        calls: usize,
        out: Vec<(usize, Option<String>, String, Vec<syn::Stmt>)>,
        bad: bool,
    }
    impl C<'_> {
        fn is_call(&self, e: &syn::Expr) -> Option<usize> {
            match e {
                syn::Expr::Call(c) => match &*c.func {
                    syn::Expr::Path(p)
                        if p.path.segments.last().is_some_and(|s| s.ident == self.name) =>
                    {
                        Some(c as *const _ as usize)
                    }
                    _ => None,
                },
                syn::Expr::MethodCall(m) if m.method == self.name => Some(m as *const _ as usize),
                _ => None,
            }
        }
    }
    impl<'a> Visit<'a> for C<'_> {
        fn visit_item_impl(&mut self, i: &'a syn::ItemImpl) {
            let owner = match &*i.self_ty {
                syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
                _ => None,
            };
            let saved = std::mem::replace(&mut self.owner, owner);
            syn::visit::visit_item_impl(self, i);
            self.owner = saved;
        }
        fn visit_block(&mut self, b: &'a syn::Block) {
            for (i, st) in b.stmts.iter().enumerate() {
                if let syn::Stmt::Local(l) = st
                    && let Some(init) = &l.init
                    && init.diverge.is_none()
                    && let Some(id) = self.is_call(&init.expr)
                {
                    match pat_ident(&l.pat) {
                        Some(x) => {
                            self.bound.insert(id);
                            self.out.push((
                                self.file,
                                self.owner.clone(),
                                x,
                                b.stmts[i + 1..].to_vec(),
                            ));
                        }
                        None => self.bad = true,
                    }
                }
            }
            syn::visit::visit_block(self, b);
        }
        fn visit_expr(&mut self, e: &'a syn::Expr) {
            if let Some(id) = self.is_call(e) {
                self.calls += 1;
                if !self.bound.contains(&id) {
                    self.bad = true;
                }
                if let syn::Expr::Call(c) = e {
                    // The callee's own path is no use as a value.
                    for a in &c.args {
                        self.visit_expr(a);
                    }
                    return;
                }
            } else if let syn::Expr::Path(p) = e
                && p.path.segments.last().is_some_and(|s| s.ident == self.name)
            {
                self.bad = true;
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            if mentions_tokens(&m.tokens, &HashSet::from([self.name.to_string()])) {
                self.bad = true;
            }
        }
    }
    let mut c = C {
        name,
        file: 0,
        owner: None,
        bound: HashSet::new(),
        calls: 0,
        out: Vec::new(),
        bad: false,
    };
    for (i, f) in krate.files.iter().enumerate() {
        c.file = i;
        c.visit_file(&f.ast);
    }
    (!c.bad && c.calls == c.out.len()).then_some(c.out)
}

/// Whether `v` is a local `Vec`/`VecDeque` of `body` (bound once, `Vec::new()`-like) used only
/// by `push`/`push_back`/`len`/`is_empty`, and by `for x in v` / `v.into_iter().map(|x| ..)`
/// (and the like) whose element is only operated on in place (for a std receiver, also through
/// `iter`/`try_iter`, which lend it on this thread only), outside closures.
fn local_collection(body: &syn::Block, v: &str, not_sync: bool) -> bool {
    struct L<'n> {
        v: &'n str,
        not_sync: bool,
        closures: usize,
        binds: usize,
        ok: HashSet<*const syn::ExprPath>,
        bad: bool,
    }
    fn elem_in_place(body: &syn::Expr, x: &str, not_sync: bool) -> bool {
        let block = syn::Block {
            brace_token: Default::default(),
            stmts: vec![syn::Stmt::Expr(body.clone(), None)],
        };
        if param_in_place(&block, x) {
            return true;
        }
        // `x.iter()` of a receiver that is not Sync: the iterator stays on this thread.
        not_sync && {
            struct I<'n>(&'n str, HashSet<*const syn::ExprPath>, bool);
            impl<'a> Visit<'a> for I<'_> {
                fn visit_expr_method_call(&mut self, mc: &'a syn::ExprMethodCall) {
                    if let syn::Expr::Path(p) = &*mc.receiver
                        && (mc.method == "iter" || mc.method == "try_iter")
                    {
                        self.1.insert(p as *const _);
                    } else if let Some(syn::Expr::Path(p)) = in_place_receiver(mc) {
                        self.1.insert(p as *const _);
                    }
                    syn::visit::visit_expr_method_call(self, mc);
                }
                fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
                    if p.path.is_ident(self.0) && !self.1.contains(&(p as *const _)) {
                        self.2 = true;
                    }
                }
                fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
                    if mentions(
                        &syn::Expr::Closure(c.clone()),
                        &HashSet::from([self.0.to_string()]),
                    ) {
                        self.2 = true;
                    }
                }
                fn visit_pat_ident(&mut self, i: &'a syn::PatIdent) {
                    self.2 |= i.ident == self.0;
                }
                fn visit_macro(&mut self, m: &'a syn::Macro) {
                    self.2 |= mentions_tokens(&m.tokens, &HashSet::from([self.0.to_string()]));
                }
                fn visit_item(&mut self, _: &'a syn::Item) {}
            }
            let mut i = I(x, HashSet::new(), false);
            i.visit_expr(body);
            !i.2
        }
    }
    impl L<'_> {
        /// `v.into_iter()` (or `iter`, `drain(..)`) at the bottom of a chain of iterator
        /// adaptors.
        fn base<'e>(&self, e: &'e syn::Expr) -> Option<&'e syn::ExprPath> {
            match e {
                syn::Expr::MethodCall(m)
                    if matches!(
                        m.method.to_string().as_str(),
                        "into_iter" | "iter" | "drain"
                    ) =>
                {
                    match &*m.receiver {
                        syn::Expr::Path(p) if p.path.is_ident(self.v) => Some(p),
                        _ => None,
                    }
                }
                syn::Expr::Reference(r) => self.base(&r.expr),
                syn::Expr::Path(p) if p.path.is_ident(self.v) => Some(p),
                _ => None,
            }
        }
    }
    impl<'a> Visit<'a> for L<'_> {
        fn visit_item(&mut self, _: &'a syn::Item) {}
        fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
            self.closures += 1;
            syn::visit::visit_expr_closure(self, c);
            self.closures -= 1;
        }
        fn visit_expr_async(&mut self, a: &'a syn::ExprAsync) {
            self.closures += 1;
            syn::visit::visit_expr_async(self, a);
            self.closures -= 1;
        }
        fn visit_pat_ident(&mut self, i: &'a syn::PatIdent) {
            if i.ident == self.v {
                self.binds += 1;
            }
            syn::visit::visit_pat_ident(self, i);
        }
        fn visit_local(&mut self, l: &'a syn::Local) {
            if pat_ident(&l.pat).as_deref() == Some(self.v) {
                let fresh = matches!(l.init.as_ref().map(|i| &*i.expr), Some(syn::Expr::Call(c))
                    if matches!(&*c.func, syn::Expr::Path(p)
                        if p.path.segments.len() == 2
                            && matches!(p.path.segments[0].ident.to_string().as_str(), "Vec" | "VecDeque")
                            && matches!(p.path.segments[1].ident.to_string().as_str(), "new" | "with_capacity")));
                self.bad |= !fresh;
            }
            syn::visit::visit_local(self, l);
        }
        fn visit_expr_method_call(&mut self, mc: &'a syn::ExprMethodCall) {
            let m = mc.method.to_string();
            if let syn::Expr::Path(p) = &*mc.receiver
                && p.path.is_ident(self.v)
                && matches!(m.as_str(), "push" | "push_back" | "len" | "is_empty")
            {
                self.ok.insert(p as *const _);
            } else if ITER.contains(&m.as_str())
                && let Some(p) = self.base(&mc.receiver)
                && let Some(syn::Expr::Closure(c)) = mc.args.first()
                && let Some(x) = c.inputs.first().and_then(pat_ident)
                && elem_in_place(&c.body, &x, self.not_sync)
            {
                self.ok.insert(p as *const _);
            }
            syn::visit::visit_expr_method_call(self, mc);
        }
        fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
            if let Some(p) = self.base(&f.expr)
                && let Some(x) = pat_ident(&f.pat)
                && elem_in_place(
                    &syn::Expr::Block(syn::ExprBlock {
                        attrs: Vec::new(),
                        label: None,
                        block: f.body.clone(),
                    }),
                    &x,
                    self.not_sync,
                )
            {
                self.ok.insert(p as *const _);
            }
            syn::visit::visit_expr_for_loop(self, f);
        }
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if p.path.is_ident(self.v) && (self.closures > 0 || !self.ok.contains(&(p as *const _)))
            {
                self.bad = true;
            }
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            self.bad |= mentions_tokens(&m.tokens, &HashSet::from([self.v.to_string()]));
        }
    }
    let mut l = L {
        v,
        not_sync,
        closures: 0,
        binds: 0,
        ok: HashSet::new(),
        bad: false,
    };
    l.visit_block(body);
    !l.bad && l.binds == 1
}

/// The count a set of units adds up to.
/// Of several alternative walks (each call site of a function is one), keeps the one whose
/// side counts the most handles: an unbounded count beats every bounded one.
fn keep_largest(best: &mut Option<Vec<Unit>>, units: &[Unit]) {
    let larger =
        best.as_ref().is_none_or(
            |b| match (units_count(units).value(), units_count(b).value()) {
                (None, _) => true,
                (_, None) => false,
                (Some(x), Some(y)) => x > y,
            },
        );
    if larger {
        *best = Some(units.to_vec());
    }
}

fn units_count(units: &[Unit]) -> Count {
    units.iter().filter(|u| u.used).fold(Count::N(0), |n, u| {
        if u.many.is_some() {
            Count::Many
        } else {
            n.plus(Count::of(
                u.spawns.len().max(1) + usize::from(u.on_constructing && !u.spawns.is_empty()),
            ))
        }
    })
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

impl Walker<'_, '_> {
    fn site(&self, span: Span) -> Site {
        site(self.ix.krate, self.file, span)
    }

    fn refuse(&mut self, reason: &str, span: Span) {
        let s = self.site(span);
        self.acc.refused.get_or_insert((reason.to_string(), s));
    }

    fn conservative(&mut self, reason: &str, span: Span) {
        let s = self.site(span);
        self.acc.cons.get_or_insert((reason.to_string(), s));
    }

    fn use_here(&mut self) {
        let u = &mut self.acc.units[self.unit];
        u.used = true;
        match &self.ctx.thread {
            Some(t) => {
                if !u.spawns.contains(t) {
                    u.spawns.push(t.clone());
                }
            }
            None => u.on_constructing = true,
        }
        if let Some(m) = &self.ctx.many {
            u.many.get_or_insert_with(|| m.clone());
        }
    }

    /// `b.clone_from(&a)`. With `a` a handle of this side: when `b` is one too (this walk's,
    /// or a sibling's), `b` is still one handle of the side, so nothing is new and nothing is
    /// used; when `b` is anything else, it now holds a new handle the walk does not follow
    /// (conservative). With `a` anything else and `b` this walk's handle: refused, as an
    /// assignment to it is (the name no longer holds the handle, in this scope or beyond).
    /// A sibling's name is trusted because its own walk sees every statement this one does,
    /// and refuses the side at anything that replaces its handle. Whether it applied.
    fn clone_from(&mut self, mc: &syn::ExprMethodCall) -> bool {
        let plain = |e: &syn::Expr| match e {
            syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            syn::Expr::Reference(r) => match &*r.expr {
                syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                _ => None,
            },
            _ => None,
        };
        let ours = |w: &Self, n: &Option<String>| {
            n.as_ref()
                .is_some_and(|n| w.names.contains(n) || w.siblings.contains(n))
        };
        let (b, a) = (plain(&mc.receiver), plain(&mc.args[0]));
        if !ours(self, &a) {
            if b.is_some_and(|b| self.names.contains(&b)) {
                self.refuse("its handle is replaced by clone_from", mc.span());
                return true;
            }
            return false;
        }
        if ours(self, &b) {
            return true;
        }
        if self.carries(&mc.args[0]).is_some() {
            let s = self.site(mc.method.span());
            self.stored(
                Carry::Clone(s),
                "cloned by clone_from into a binding not followed",
                mc.receiver.span(),
            );
            self.visit_expr(&mc.receiver);
            return true;
        }
        false
    }

    fn stored(&mut self, c: Carry, reason: &str, span: Span) {
        match c {
            Carry::Clone(s) => {
                let u = self.new_unit(s);
                let saved = self.unit;
                self.unit = u;
                self.use_here();
                self.unit = saved;
            }
            Carry::Alias => self.use_here(),
        }
        self.conservative(reason, span);
    }

    /// A handle moved into a confined field (see [`Fields`]): one handle, used by whichever
    /// thread holds the struct, one at a time.
    fn in_field(&mut self, c: Carry) {
        let saved = self.unit;
        if let Carry::Clone(s) = c {
            self.unit = self.new_unit(s);
        }
        self.use_here();
        self.unit = saved;
    }

    /// Whether `e` is a struct literal (possibly wrapped: `Arc::new(S { .. })`) with a field
    /// that carries the handle.
    fn holds_handle(&self, e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Struct(s) => s.fields.iter().any(|f| self.carries(&f.expr).is_some()),
            syn::Expr::Paren(p) => self.holds_handle(&p.expr),
            syn::Expr::Call(c) if c.args.len() == 1 => {
                matches!(&*c.func, syn::Expr::Path(p)
                    if p.path.segments.iter().any(|s| WRAPPERS.contains(&s.ident.to_string().as_str())))
                    && self.holds_handle(&c.args[0])
            }
            _ => false,
        }
    }

    /// A closure (possibly in `Some`/`Box::new`) stored in a field declared `FnOnce`: it runs at
    /// most once, on some thread: followed as one more thread.
    fn fn_once_field(&mut self, name: &str, field: &str, e: &syn::Expr, span: Span) -> bool {
        fn closure(e: &syn::Expr) -> Option<&syn::ExprClosure> {
            match e {
                syn::Expr::Closure(c) => Some(c),
                syn::Expr::Paren(p) => closure(&p.expr),
                syn::Expr::Call(c)
                    if c.args.len() == 1
                        && matches!(&*c.func, syn::Expr::Path(p)
                            if p.path.is_ident("Some")
                                || (p.path.segments.len() == 2
                                    && p.path.segments[0].ident == "Box"
                                    && p.path.segments[1].ident == "new")) =>
                {
                    closure(&c.args[0])
                }
                _ => None,
            }
        }
        let Some(cl) = closure(e) else { return false };
        if !mentions(&syn::Expr::Closure(cl.clone()), &self.names)
            || !self.ix.fields.holds_fn_once(name, field)
        {
            return false;
        }
        self.spawn(cl, span, false);
        true
    }

    /// A unit of unboundedly many handles, for `why`.
    fn many_unit(&mut self, why: String, span: Span) {
        let s = self.site(span);
        let u = self.new_unit(s.clone());
        let u = &mut self.acc.units[u];
        u.used = true;
        u.many = Some((why, s));
    }

    /// The struct a literal or tuple-struct call names (`Self` is the impl's type).
    fn struct_name(&self, path: &syn::Path) -> Option<String> {
        let id = path.get_ident()?.to_string();
        if id == "Self" {
            self.owner.clone()
        } else {
            Some(id)
        }
    }

    fn new_unit(&mut self, clone_site: Site) -> usize {
        let mut u = Unit::default();
        if self.ctx.in_loop {
            u.many = Some(("cloned in a loop".into(), clone_site));
        }
        self.acc.units.push(u);
        self.acc.units.len() - 1
    }

    fn carries(&self, e: &syn::Expr) -> Option<Carry> {
        match e {
            syn::Expr::Path(p) => {
                let id = p.path.get_ident()?.to_string();
                self.names.contains(&id).then_some(Carry::Alias)
            }
            syn::Expr::Reference(r) => self.carries(&r.expr),
            syn::Expr::Paren(p) => self.carries(&p.expr),
            syn::Expr::MethodCall(m) => {
                let inner = self.carries(&m.receiver)?;
                let name = m.method.to_string();
                // `cloned()` of an `Option<&Sender>` (or an iterator of them), and
                // `map(Sender::clone)`, clone the handle as `clone()` does.
                let clone_fn = |a: &syn::Expr| last_seg(a).is_some_and(|l| l == "clone");
                if (name == "clone" || name == "to_owned" || name == "cloned") && m.args.is_empty()
                    || name == "map" && m.args.len() == 1 && clone_fn(&m.args[0])
                {
                    Some(Carry::Clone(self.site(m.method.span())))
                } else if ACCESS.contains(&name.as_str()) {
                    Some(inner)
                } else {
                    None
                }
            }
            syn::Expr::Call(c) => {
                let syn::Expr::Path(p) = &*c.func else {
                    return None;
                };
                let segs: Vec<String> = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                if c.args.len() != 1 {
                    return None;
                }
                let inner = self.carries(&c.args[0])?;
                let last = segs.last()?.as_str();
                if last == "clone" {
                    return Some(Carry::Clone(self.site(c.span())));
                }
                if segs.iter().any(|s| WRAPPERS.contains(&s.as_str())) && last != "spawn" {
                    return Some(inner);
                }
                None
            }
            _ => None,
        }
    }

    fn stmts(&mut self, stmts: &[syn::Stmt], is_fn_body: bool) {
        let saved = (
            self.names.clone(),
            self.closures.clone(),
            self.siblings.clone(),
        );
        for (i, st) in stmts.iter().enumerate() {
            match st {
                syn::Stmt::Local(l) => self.local(l, &stmts[i + 1..], is_fn_body),
                syn::Stmt::Item(_) => {}
                syn::Stmt::Expr(e, semi) => {
                    if is_fn_body && semi.is_none() && i + 1 == stmts.len() {
                        if let syn::Expr::Tuple(t) = e
                            && t.elems.iter().any(|x| self.carries(x).is_some())
                        {
                            self.refuse("returned from its function", e.span());
                            continue;
                        }
                        if let Some(c) = self.carries(e) {
                            if self.stack.is_empty()
                                && let Some(cur) = self.cur.clone()
                                && !cur.public
                                && self.follow_return(&cur, &c)
                            {
                                continue;
                            }
                            if let Carry::Clone(_) = c {
                                let s = self.site(e.span());
                                self.new_unit(s);
                            }
                            self.refuse("returned from its function", e.span());
                            continue;
                        }
                    }
                    self.visit_expr(e);
                }
                syn::Stmt::Macro(m) => self.mac(&m.mac),
            }
        }
        (self.names, self.closures, self.siblings) = saved;
    }

    fn local(&mut self, l: &syn::Local, rest: &[syn::Stmt], is_fn_body: bool) {
        let mut binds = HashSet::new();
        pat_binds(&l.pat, &mut binds);
        if let Some(init) = &l.init {
            if let Some(c) = self.carries(&init.expr) {
                match (pat_ident(&l.pat), c) {
                    (Some(n), Carry::Alias) => {
                        self.names.insert(n);
                        return;
                    }
                    (Some(n), Carry::Clone(s)) => {
                        let u = self.new_unit(s);
                        let saved_unit = self.unit;
                        let saved_names =
                            std::mem::replace(&mut self.names, HashSet::from([n.clone()]));
                        // Seen from the clone, the handles of this walk are its siblings.
                        let outer: HashSet<String> =
                            saved_names.union(&self.siblings).cloned().collect();
                        let saved_siblings = std::mem::replace(&mut self.siblings, outer);
                        let saved_cl = std::mem::take(&mut self.closures);
                        self.unit = u;
                        self.stmts(rest, is_fn_body);
                        self.unit = saved_unit;
                        self.names = saved_names;
                        self.siblings = saved_siblings;
                        self.closures = saved_cl;
                        for b in &binds {
                            self.names.remove(b);
                            self.siblings.remove(b);
                        }
                        self.siblings.insert(n);
                        return;
                    }
                    (None, _) => {
                        self.refuse("bound to a pattern the analysis does not follow", l.span());
                        return;
                    }
                }
            }
            if let (Some(n), syn::Expr::Closure(c)) = (pat_ident(&l.pat), &*init.expr)
                && mentions(&init.expr, &self.names)
            {
                self.closures.insert(n, c.clone());
                return;
            }
            self.visit_expr(&init.expr);
            if let Some((_, d)) = &init.diverge {
                self.visit_expr(d);
            }
            // A struct holding the handle, bound to a name that is cloned in a loop (an `Arc`
            // shared by the workers of a pool): many holders.
            if let Some(n) = pat_ident(&l.pat)
                && self.holds_handle(&init.expr)
                && !rest.iter().any(|st| stmt_rebinds(st, &n))
                && let Some(span) = cloned_in_loop(rest, &n)
            {
                self.many_unit("the struct holding it is cloned in a loop".into(), span);
            }
        }
        for b in &binds {
            self.names.remove(b);
            self.siblings.remove(b);
            self.closures.remove(b);
        }
    }

    fn with_ctx(&mut self, ctx: Ctx, shadow: &HashSet<String>, body: &syn::Expr) {
        let saved = (self.ctx.clone(), self.names.clone(), self.siblings.clone());
        self.ctx = ctx;
        for b in shadow {
            self.names.remove(b);
            self.siblings.remove(b);
        }
        self.visit_expr(body);
        (self.ctx, self.names, self.siblings) = saved;
    }

    fn closure_params(c: &syn::ExprClosure) -> HashSet<String> {
        let mut s = HashSet::new();
        for p in &c.inputs {
            pat_binds(p, &mut s);
        }
        s
    }

    fn as_closure(&self, e: &syn::Expr) -> Option<syn::ExprClosure> {
        match e {
            syn::Expr::Closure(c) => Some(c.clone()),
            syn::Expr::Path(p) => {
                let id = p.path.get_ident()?.to_string();
                self.closures.get(&id).cloned()
            }
            _ => None,
        }
    }

    fn spawn(&mut self, c: &syn::ExprClosure, span: Span, broadcast: bool) {
        let s = self.site(span);
        let mut ctx = self.ctx.clone();
        ctx.thread = Some(s.clone());
        if ctx.in_loop || broadcast {
            let why = if broadcast {
                "run on every worker"
            } else {
                "spawned in a loop"
            };
            ctx.many.get_or_insert((why.into(), s));
        }
        ctx.in_loop = false;
        let shadow = Self::closure_params(c);
        self.with_ctx(ctx, &shadow, &c.body);
    }

    fn inline_closure(&mut self, c: &syn::ExprClosure, in_loop: bool) {
        let mut ctx = self.ctx.clone();
        ctx.in_loop |= in_loop;
        let shadow = Self::closure_params(c);
        self.with_ctx(ctx, &shadow, &c.body);
    }

    fn call_same_crate(
        &mut self,
        name: &str,
        want: Want,
        args: &[&syn::Expr],
        method: bool,
        span: Span,
    ) -> bool {
        let Some(all) = self.ix.fns.get(name) else {
            return false;
        };
        let defs: Vec<&FnDef<'_>> = all.iter().filter(|d| want.admits(&d.owner)).collect();
        if defs.is_empty() {
            return false;
        }
        if defs.len() != 1 {
            self.conservative(
                &format!("call to {name} resolves to several functions"),
                span,
            );
            return true;
        }
        let def = defs[0];
        let offset =
            usize::from(method && matches!(def.sig.inputs.first(), Some(syn::FnArg::Receiver(_))));
        let key = (def.file, name.to_string());
        for (i, a) in args.iter().enumerate() {
            let Some(c) = self.carries(a) else {
                if let Some(cl) = self.as_closure(a) {
                    if mentions(&syn::Expr::Closure(cl.clone()), &self.names) {
                        if job_runs_once(def.sig, i + offset) {
                            // An `FnOnce`/`FnMut` parameter runs the closure once at a time,
                            // on some thread: counted as one more thread.
                            self.spawn(&cl, a.span(), false);
                        } else {
                            let reason = format!("captured by a closure given to {name}");
                            self.refuse(&reason, a.span());
                        }
                    }
                    continue;
                }
                self.visit_expr(a);
                continue;
            };
            if self.stack.contains(&key) {
                self.conservative(&format!("recursive call to {name}"), span);
                continue;
            }
            let Some(param) = def.sig.inputs.iter().nth(i + offset) else {
                self.refuse(&format!("handed to {name}"), a.span());
                continue;
            };
            let pname = match param {
                syn::FnArg::Typed(t) => pat_ident(&t.pat),
                syn::FnArg::Receiver(_) => None,
            };
            let Some(pname) = pname else {
                self.refuse(&format!("bound to a parameter pattern of {name}"), a.span());
                continue;
            };
            let saved = (
                self.unit,
                std::mem::replace(&mut self.names, HashSet::from([pname])),
                (
                    std::mem::take(&mut self.closures),
                    std::mem::take(&mut self.siblings),
                ),
                self.file,
                std::mem::replace(&mut self.owner, def.owner.clone()),
                self.cur.replace(CurFn {
                    name: name.to_string(),
                    public: def.public,
                    sig: def.sig,
                    block: def.block,
                }),
            );
            if let Carry::Clone(s) = c {
                self.unit = self.new_unit(s);
            }
            self.file = def.file;
            self.stack.push(key.clone());
            self.stmts(&def.block.stmts, true);
            self.stack.pop();
            (
                self.unit,
                self.names,
                (self.closures, self.siblings),
                self.file,
                self.owner,
                self.cur,
            ) = saved;
        }
        true
    }

    fn mac(&mut self, m: &syn::Macro) {
        let name = m
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if !mentions_tokens(&m.tokens, &self.names) {
            return;
        }
        if FORMAT.contains(&name.as_str()) {
            let parsed = m.parse_body_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            );
            if let Ok(args) = parsed {
                for a in &args {
                    if let Some(c) = self.carries(a) {
                        // `vec![tx.clone(), tx]` moves its elements into the vector it makes;
                        // the others borrow theirs for the statement, on this thread.
                        if name == "vec" {
                            self.stored(c, "stored in a collection", a.span());
                        } else {
                            self.use_here();
                        }
                    } else {
                        self.visit_expr(a);
                    }
                }
                return;
            }
        }
        if name == "select" || name == "select_biased" {
            self.use_here();
            return;
        }
        match self.ix.macros.get(&name) {
            Some(def) if self.expanding < 8 && def.expand(&m.tokens).is_some() => {
                let block = def.expand(&m.tokens).expect("checked above");
                self.expanding += 1;
                self.stmts(&block.stmts, false);
                self.expanding -= 1;
            }
            Some(def) => {
                let def = &def.site;
                let reason = format!("hidden in macro {name} at {}:{}", def.file, def.line);
                self.conservative(&reason, m.path.span());
            }
            None => self.refuse(&format!("handed to macro {name}!"), m.path.span()),
        }
    }
}

impl<'v> Visit<'v> for Walker<'_, '_> {
    fn visit_item(&mut self, _: &'v syn::Item) {}

    fn visit_block(&mut self, b: &'v syn::Block) {
        self.stmts(&b.stmts, false);
    }

    fn visit_macro(&mut self, m: &'v syn::Macro) {
        self.mac(m);
    }

    fn visit_expr(&mut self, e: &'v syn::Expr) {
        match e {
            syn::Expr::Path(p) => {
                if let Some(id) = p.path.get_ident() {
                    let id = id.to_string();
                    if self.names.contains(&id) || self.closures.contains_key(&id) {
                        self.refuse("used in a way the analysis does not follow", e.span());
                    }
                }
            }
            syn::Expr::MethodCall(mc) => {
                let m = mc.method.to_string();
                // `b.clone_from(&a)`: `b` drops its handle and holds a clone of `a`'s.
                if m == "clone_from" && mc.args.len() == 1 && self.clone_from(mc) {
                    return;
                }
                // A clone whose value goes somewhere no rule above follows (a closure's result,
                // a tuple, a block's or a branch's value): one more handle, not followed. Not a
                // use on this thread, which would leave the new handle uncounted.
                if let Some(Carry::Clone(s)) = self.carries(e) {
                    self.new_unit(s);
                    self.conservative(
                        "cloned into a place the analysis does not follow",
                        mc.method.span(),
                    );
                    return;
                }
                if let Some(c) = self.carries(&mc.receiver) {
                    if let Carry::Clone(s) = c {
                        self.new_unit(s);
                        self.conservative(
                            "cloned into a place the analysis does not follow",
                            mc.method.span(),
                        );
                    } else {
                        self.use_here();
                    }
                    for a in &mc.args {
                        self.visit_expr(a);
                    }
                    return;
                }
                // A parallel iterator's `*_with` adaptor clones its init value for every split
                // of the work, each used on a worker of the pool: many handles.
                if m.ends_with("_with")
                    && is_parallel(&mc.receiver)
                    && mc.args.iter().any(|a| self.carries(a).is_some())
                {
                    self.visit_expr(&mc.receiver);
                    let s = self.site(mc.method.span());
                    for a in &mc.args {
                        if let Some(c) = self.carries(a) {
                            let saved = (self.unit, self.ctx.clone());
                            if let Carry::Clone(cs) = c {
                                self.unit = self.new_unit(cs);
                            }
                            self.ctx.thread = Some(s.clone());
                            self.ctx.many = Some((
                                "cloned for every split of a parallel iterator".into(),
                                s.clone(),
                            ));
                            self.use_here();
                            (self.unit, self.ctx) = saved;
                        } else if let Some(cl) = self.as_closure(a) {
                            self.spawn(&cl, mc.method.span(), true);
                        } else {
                            self.visit_expr(a);
                        }
                    }
                    return;
                }
                // A thread pool's `execute*` runs each `move` job once, on one worker thread:
                // for the handles moved into it, it is a spawn at the call.
                // A method of the crate itself counts as a spawn only when its job parameter is
                // `FnOnce`/`FnMut` (called at most once, or never by two threads at once); one
                // of another crate (`Builder::spawn`, `Scope::spawn`, a pool's `execute`) is
                // taken to run each job once, on one thread.
                let own: Vec<&FnDef<'_>> = self
                    .ix
                    .fns
                    .get(&m)
                    .map(|d| d.iter().filter(|d| d.owner.is_some()).collect())
                    .unwrap_or_default();
                let once = match own.as_slice() {
                    [] => true,
                    [d] => mc
                        .args
                        .iter()
                        .position(|a| self.as_closure(a).is_some())
                        .is_some_and(|i| job_runs_once(d.sig, i + 1)),
                    _ => false,
                };
                if once && (m.starts_with("spawn") || m.starts_with("execute")) {
                    let cls: Vec<_> = mc
                        .args
                        .iter()
                        .filter_map(|a| self.as_closure(a))
                        .filter(|c| m.starts_with("spawn") || c.capture.is_some())
                        .collect();
                    if !cls.is_empty() {
                        self.visit_expr(&mc.receiver);
                        for c in &cls {
                            self.spawn(c, mc.method.span(), m == "spawn_broadcast");
                        }
                        return;
                    }
                }
                if self.call_same_crate_method(mc) {
                    return;
                }
                self.visit_expr(&mc.receiver);
                for a in &mc.args {
                    if let Some(c) = self.carries(a) {
                        if (m == "push" || m == "push_back")
                            && self.ctx.thread.is_none()
                            && owned(a)
                            && let syn::Expr::Path(p) = &*mc.receiver
                            && let Some(v) = p.path.get_ident()
                            && let Some(cur) = &self.cur
                            && local_collection(cur.block, &v.to_string(), self.not_sync)
                        {
                            // A local Vec of the function, whose elements are only operated on
                            // in place on this thread: the handle stays here.
                            self.in_field(c);
                        } else if STORE.contains(&m.as_str()) {
                            let what = match &*mc.receiver {
                                syn::Expr::Path(p)
                                    if p.path.segments.last().is_some_and(|s| {
                                        s.ident.to_string().chars().all(|c| !c.is_lowercase())
                                    }) =>
                                {
                                    "stored in a static"
                                }
                                _ => "stored in a collection",
                            };
                            self.stored(c, what, a.span());
                        } else {
                            if let Carry::Clone(s) = c {
                                self.new_unit(s);
                            }
                            self.refuse(&format!("handed to method {m}"), a.span());
                        }
                    } else if let Some(cl) = self.as_closure(a) {
                        if !mentions(&syn::Expr::Closure(cl.clone()), &self.names) {
                            self.visit_expr(a);
                        } else if ITER.contains(&m.as_str()) && is_parallel(&mc.receiver) {
                            self.spawn(&cl, mc.method.span(), true);
                        } else if ITER.contains(&m.as_str()) {
                            self.inline_closure(&cl, true);
                        } else if m == "scope" || m == "scoped" {
                            self.inline_closure(&cl, false);
                        } else {
                            self.refuse(
                                &format!("captured by a closure given to method {m}"),
                                a.span(),
                            );
                        }
                    } else {
                        self.visit_expr(a);
                    }
                }
            }
            syn::Expr::Call(c) => {
                let Some(last) = last_seg(&c.func) else {
                    syn::visit::visit_expr_call(self, c);
                    return;
                };
                let args: Vec<&syn::Expr> = c.args.iter().collect();
                // Free `spawn`/`scope`/`join` only when they resolve to the thread libraries
                // (a crate's own `spawn` may run its closure any number of times).
                let threads_lib = match &*c.func {
                    syn::Expr::Path(p) => {
                        let canon = self.ix.imports[self.file].canonical(&p.path);
                        matches!(
                            canon.first().map(String::as_str),
                            Some("std" | "rayon" | "rayon_core" | "crossbeam" | "crossbeam_utils")
                        )
                    }
                    _ => false,
                };
                if threads_lib
                    && matches!(last.as_str(), "spawn" | "spawn_fifo" | "spawn_broadcast")
                {
                    let cls: Vec<_> = args.iter().filter_map(|a| self.as_closure(a)).collect();
                    if !cls.is_empty() {
                        for cl in &cls {
                            self.spawn(cl, c.func.span(), last == "spawn_broadcast");
                        }
                        return;
                    }
                }
                if threads_lib
                    && matches!(last.as_str(), "scope" | "in_place_scope")
                    && let Some(cl) = args.first().and_then(|a| self.as_closure(a))
                {
                    self.inline_closure(&cl, false);
                    return;
                }
                if threads_lib && last == "join" && args.len() == 2 {
                    let cls: Vec<_> = args.iter().filter_map(|a| self.as_closure(a)).collect();
                    if cls.len() == 2 {
                        for cl in &cls {
                            self.spawn(cl, cl.span(), false);
                        }
                        return;
                    }
                }
                if last == "drop" && args.len() == 1 && self.carries(args[0]).is_some() {
                    return;
                }
                let is_ctor = matches!(&*c.func, syn::Expr::Path(p)
                    if self.ix.imports[self.file].constructor(&p.path).is_some());
                if is_ctor {
                    return;
                }
                if let syn::Expr::Path(p) = &*c.func
                    && let Some(pid) = p.path.get_ident()
                    && let Some(cur) = self.cur.clone()
                    && let Some(pi) = param_index(cur.sig, &pid.to_string())
                    && args.iter().any(|a| self.carries(a).is_some())
                {
                    self.call_param(&cur, pi, &args, c.span());
                    return;
                }
                let want = match &*c.func {
                    syn::Expr::Path(p) => {
                        let segs: Vec<String> = p
                            .path
                            .segments
                            .iter()
                            .map(|s| s.ident.to_string())
                            .collect();
                        let external = p.path.leading_colon.is_some()
                            || matches!(segs[0].as_str(), "std" | "core" | "alloc");
                        match segs.len() {
                            _ if external => None,
                            1 => Some(Want::Free),
                            n => {
                                let owner = &segs[n - 2];
                                if owner == "Self" {
                                    Some(Want::Assoc(None))
                                } else if owner.starts_with(|c: char| c.is_uppercase()) {
                                    Some(Want::Assoc(Some(owner.clone())))
                                } else {
                                    Some(Want::Free)
                                }
                            }
                        }
                    }
                    _ => None,
                };
                if let Some(want) = want
                    && args
                        .iter()
                        .any(|a| self.carries(a).is_some() || self.as_closure(a).is_some())
                    && self.call_same_crate(&last, want, &args, false, c.span())
                {
                    return;
                }
                let tuple = match &*c.func {
                    syn::Expr::Path(p) => self
                        .struct_name(&p.path)
                        .filter(|n| self.ix.fields.tuple_structs.contains(n)),
                    _ => None,
                };
                for (k, a) in args.into_iter().enumerate() {
                    let field = k.to_string();
                    if let Some(n) = &tuple
                        && let Some(cr) = self.carries(a)
                    {
                        // A tuple struct is a struct: its fields follow the field rules.
                        let bare = matches!(a, syn::Expr::Path(_));
                        if self.ix.fields.confined(n, &field, self.not_sync && bare) && owned(a) {
                            self.in_field(cr);
                        } else {
                            self.stored(cr, "stored in a field", a.span());
                        }
                        continue;
                    }
                    if let Some(n) = &tuple
                        && self.fn_once_field(n, &field, a, a.span())
                    {
                        continue;
                    }
                    if let Some(cr) = self.carries(a) {
                        // Moved into a message variant whose every match arm operates on it in
                        // place: one handle, used by whoever matches the message.
                        if let syn::Expr::Path(p) = &*c.func
                            && owned(a)
                            && self.ix.fields.variant_confined(&p.path, k)
                        {
                            self.in_field(cr);
                            continue;
                        }
                        if let Carry::Clone(s) = cr {
                            self.new_unit(s);
                        }
                        let f = match &*c.func {
                            syn::Expr::Path(p) => p
                                .path
                                .segments
                                .iter()
                                .map(|s| s.ident.to_string())
                                .collect::<Vec<_>>()
                                .join("::"),
                            _ => last.clone(),
                        };
                        self.refuse(&format!("handed to external function {f}"), a.span());
                    } else if let Some(cl) = self.as_closure(a) {
                        if mentions(&syn::Expr::Closure(cl.clone()), &self.names) {
                            self.refuse(
                                &format!("captured by a closure given to {last}"),
                                a.span(),
                            );
                        }
                    } else {
                        self.visit_expr(a);
                    }
                }
                self.visit_expr(&c.func);
            }
            syn::Expr::Closure(c) => {
                if mentions(e, &self.names) {
                    self.refuse(
                        "captured by a closure the analysis does not follow",
                        c.span(),
                    );
                }
            }
            syn::Expr::ForLoop(f) => {
                if self.carries(&f.expr).is_some() {
                    self.use_here();
                } else {
                    self.visit_expr(&f.expr);
                }
                let saved = (self.ctx.in_loop, self.names.clone(), self.siblings.clone());
                self.ctx.in_loop = true;
                let mut b = HashSet::new();
                pat_binds(&f.pat, &mut b);
                for n in b {
                    self.names.remove(&n);
                    self.siblings.remove(&n);
                }
                self.stmts(&f.body.stmts, false);
                (self.ctx.in_loop, self.names, self.siblings) = saved;
            }
            syn::Expr::While(w) => {
                let saved = self.ctx.in_loop;
                self.ctx.in_loop = true;
                self.visit_expr(&w.cond);
                self.stmts(&w.body.stmts, false);
                self.ctx.in_loop = saved;
            }
            syn::Expr::Loop(l) => {
                let saved = self.ctx.in_loop;
                self.ctx.in_loop = true;
                self.stmts(&l.body.stmts, false);
                self.ctx.in_loop = saved;
            }
            syn::Expr::Struct(s) => {
                let name = self.struct_name(&s.path);
                for f in &s.fields {
                    if let Some(c) = self.carries(&f.expr) {
                        let field = member_name(&f.member);
                        if let Some(n) = &name
                            && self.ix.fields.confined(
                                n,
                                &field,
                                self.not_sync && matches!(f.expr, syn::Expr::Path(_)),
                            )
                            && owned(&f.expr)
                        {
                            self.in_field(c);
                            continue;
                        }
                        self.stored(c, "stored in a field", f.expr.span());
                        if let Some(n) = &name
                            && self.ix.fields.structs.get(n).is_some_and(|d| d.len() == 1)
                            && self.ix.fields.public.contains(n)
                            && let Some(m) = self.ix.fields.cloned_by.get(&(n.clone(), field))
                        {
                            let why =
                                format!("cloned by {n}::{m}, which may run any number of times");
                            self.many_unit(why, f.expr.span());
                        }
                    } else if let Some(n) = &name
                        && self.fn_once_field(n, &member_name(&f.member), &f.expr, f.expr.span())
                    {
                    } else {
                        self.visit_expr(&f.expr);
                    }
                }
                if let Some(r) = &s.rest {
                    self.visit_expr(r);
                }
            }
            syn::Expr::Assign(a) => {
                if let Some(c) = self.carries(&a.right) {
                    self.stored(c, "stored in a field", a.right.span());
                } else {
                    self.visit_expr(&a.right);
                }
                self.visit_expr(&a.left);
            }
            syn::Expr::Return(r) => {
                if let Some(x) = &r.expr {
                    if self.carries(x).is_some() {
                        self.refuse("returned from its function", x.span());
                    } else {
                        self.visit_expr(x);
                    }
                }
            }
            syn::Expr::Async(a) => {
                if mentions(e, &self.names) {
                    self.refuse("captured by an async block", a.span());
                }
            }
            _ => syn::visit::visit_expr(self, e),
        }
    }
}

impl Walker<'_, '_> {
    /// A call of a parameter `p` of a private function `g` that is handed a handle: every call of
    /// `g` in the crate must pass a closure there; each is walked where `p` is called, as
    /// alternatives (one runs per call of `g`): the side counts as the largest of them.
    fn call_param(&mut self, cur: &CurFn<'_>, pi: usize, args: &[&syn::Expr], span: Span) {
        let pname = cur
            .sig
            .inputs
            .iter()
            .nth(pi)
            .map_or(String::new(), |a| match a {
                syn::FnArg::Typed(t) => pat_ident(&t.pat).unwrap_or_default(),
                syn::FnArg::Receiver(_) => String::new(),
            });
        let callers = (!cur.public && !rebinds(cur.block, &pname))
            .then(|| closure_args(self.ix.krate, &cur.name, pi))
            .flatten()
            .filter(|_| self.ix.fns.get(&cur.name).is_some_and(|d| d.len() == 1));
        let Some(callers) = callers else {
            for a in args {
                if let Some(Carry::Clone(s)) = self.carries(a) {
                    self.new_unit(s);
                }
            }
            self.refuse(&format!("handed to parameter {pname}"), span);
            return;
        };
        for (j, a) in args.iter().enumerate() {
            let Some(c) = self.carries(a) else {
                self.visit_expr(a);
                continue;
            };
            let unit = match c {
                Carry::Clone(s) => self.new_unit(s),
                Carry::Alias => self.unit,
            };
            let before = self.acc.units.clone();
            let mut best: Option<Vec<Unit>> = None;
            for (file, owner, cl) in &callers {
                let Some(n) = cl.inputs.iter().nth(j).and_then(pat_ident) else {
                    self.refuse(
                        &format!("bound to a parameter pattern of {pname}"),
                        a.span(),
                    );
                    continue;
                };
                self.acc.units = before.clone();
                let saved = (
                    self.unit,
                    std::mem::replace(&mut self.names, HashSet::from([n])),
                    (
                        std::mem::take(&mut self.closures),
                        std::mem::take(&mut self.siblings),
                    ),
                    self.file,
                    std::mem::replace(&mut self.owner, owner.clone()),
                    self.cur.take(),
                );
                self.unit = unit;
                self.file = *file;
                self.visit_expr(&cl.body);
                (
                    self.unit,
                    self.names,
                    (self.closures, self.siblings),
                    self.file,
                    self.owner,
                    self.cur,
                ) = saved;
                keep_largest(&mut best, &self.acc.units);
            }
            self.acc.units = best.unwrap_or(before);
        }
    }

    /// A handle returned from the private function it is constructed in: every call of that
    /// function in the crate must bind the result with `let x = f(..);`; the rest of each
    /// caller's block is walked for `x`, as alternatives (each call constructs its own channel):
    /// the side counts as the largest.
    fn follow_return(&mut self, cur: &CurFn<'_>, c: &Carry) -> bool {
        if self.ix.fns.get(&cur.name).is_none_or(|d| d.len() != 1) {
            return false;
        }
        let Some(callers) = let_callers(self.ix.krate, &cur.name) else {
            return false;
        };
        let unit = match c {
            Carry::Clone(s) => self.new_unit(s.clone()),
            Carry::Alias => self.unit,
        };
        let before = self.acc.units.clone();
        let mut best: Option<Vec<Unit>> = None;
        for (file, owner, name, rest) in &callers {
            self.acc.units = before.clone();
            let saved = (
                self.unit,
                std::mem::replace(&mut self.names, HashSet::from([name.clone()])),
                (
                    std::mem::take(&mut self.closures),
                    std::mem::take(&mut self.siblings),
                ),
                self.file,
                std::mem::replace(&mut self.owner, owner.clone()),
                self.cur.take(),
            );
            self.unit = unit;
            self.file = *file;
            // The caller's stack frame: a return from it is not followed again.
            self.stack.push((*file, cur.name.clone()));
            self.stmts(rest, false);
            self.stack.pop();
            (
                self.unit,
                self.names,
                (self.closures, self.siblings),
                self.file,
                self.owner,
                self.cur,
            ) = saved;
            keep_largest(&mut best, &self.acc.units);
        }
        self.acc.units = best.unwrap_or(before);
        true
    }

    fn call_same_crate_method(&mut self, mc: &syn::ExprMethodCall) -> bool {
        let name = mc.method.to_string();
        let has_handle = mc.args.iter().any(|a| {
            self.carries(a).is_some()
                || self
                    .as_closure(a)
                    .is_some_and(|c| mentions(&syn::Expr::Closure(c), &self.names))
        });
        if !has_handle
            || STORE.contains(&name.as_str())
            || ITER.contains(&name.as_str())
            || name == "scope"
            || name == "scoped"
        {
            return false;
        }
        let Some(defs) = self.ix.fns.get(&name) else {
            return false;
        };
        if !defs.iter().any(|d| d.owner.is_some()) {
            return false;
        }
        self.visit_expr(&mc.receiver);
        let args: Vec<&syn::Expr> = mc.args.iter().collect();
        // A receiver that names a static of the crate has the static's type.
        let ty = match &*mc.receiver {
            syn::Expr::Path(p) => p.path.get_ident().and_then(|i| {
                let i = i.to_string();
                let tys: HashSet<&String> = self.ix.statics.get(&i)?.iter().collect();
                match tys.into_iter().collect::<Vec<_>>().as_slice() {
                    [t] if !t.is_empty() && !i.chars().any(char::is_lowercase) => {
                        Some((*t).clone())
                    }
                    _ => None,
                }
            }),
            _ => None,
        };
        self.call_same_crate(&name, Want::Assoc(ty), &args, true, mc.span())
    }
}
