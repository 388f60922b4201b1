//! The field scan ([`FieldScan`]): the crate-wide pass that gathers the [`Fields`] facts, from
//! every struct and enum definition, impl, field access, method call, binding and `Arc` of the
//! crate, before any channel is followed.

use super::*;

/// Finds the field accesses that are not confined (see [`Fields`]).
pub(super) struct FieldScan<'f, 'a> {
    pub(super) fields: &'f mut Fields,
    pub(super) imports: &'f [Imports],
    pub(super) fns: &'f HashMap<String, Vec<FnDef<'a>>>,
    /// Whether the enclosing function takes `self` by value or `&mut self`.
    pub(super) exclusive: bool,
    /// Whether it takes `&self`.
    pub(super) by_ref: bool,
    /// Type parameters in scope (a value of such a type may be any struct).
    pub(super) generics: Vec<String>,
    /// Those of them bounded by `Fn`, `FnMut` or `FnOnce`: only a closure (or a function) can
    /// be one, never a struct of the crate.
    pub(super) fn_generics: Vec<String>,
    /// `Arc::new(..)` calls initialising a struct field: the field's declared type names what
    /// is shared.
    pub(super) typed: HashSet<*const syn::ExprCall>,
    /// Tuple-variant patterns of `match` arms, with the positions whose binding the arm only
    /// operates on in place (or ignores).
    pub(super) arms: HashMap<*const syn::PatTupleStruct, Vec<bool>>,
    pub(super) file: usize,
    pub(super) closures: usize,
    pub(super) ok: HashSet<*const syn::ExprField>,
    /// The `impl`'s self type, whether the impl is of a trait, and the method being scanned
    /// (when it is callable from outside the crate: `pub`, or of a trait impl).
    pub(super) owner: Option<String>,
    pub(super) trait_impl: bool,
    pub(super) method: Option<String>,
    /// Whether the items being scanned are reachable from outside the crate (a public file,
    /// inside `pub mod`s only).
    pub(super) exported_scope: bool,
    /// The method being scanned, when other crates can call it and it takes `self` (see
    /// `api.rs`).
    pub(super) api: Option<ApiOp>,
    /// The method being scanned when it takes `self` (in any form), whatever its visibility.
    pub(super) self_method: Option<String>,
    /// The trait of the impl being scanned.
    pub(super) impl_trait: Option<String>,
    /// Method calls whose value is handed on: a struct literal's field, a call's argument, a
    /// method's tail or `return` value.
    pub(super) handed: HashSet<*const syn::ExprMethodCall>,
    /// Whether the type being visited is declared for a value: a field's, an annotated
    /// binding's, a static's.
    pub(super) declaration: bool,
    /// In the function being scanned, the names every binding of which is a message just
    /// received (see [`received_names`]).
    pub(super) received: HashSet<String>,
    /// Whether the arms being visited match a message just received, by value.
    pub(super) owned_match: bool,
    /// The parameters of the function being scanned, and the closures run in place (see
    /// `lent.rs`).
    pub(super) params: HashMap<String, ParamType>,
    pub(super) inline: HashSet<*const syn::ExprClosure>,
    /// Locals bound to a struct literal: what the values given to its fields may be. Those
    /// moved, unused elsewhere, into one spawned thread (see [`moved_once`]) lend only that.
    pub(super) literal_parts: HashMap<String, ParamType>,
    pub(super) moved_once: HashMap<String, ParamType>,
    /// The trait whose items are being scanned: `self` in a default method's body may be any
    /// type implementing it.
    pub(super) in_trait: Option<String>,
}

impl FieldScan<'_, '_> {
    /// `std::mem::replace(&mut x.f, v)` or `std::mem::take(&mut x.f)` whose value `e` is dropped
    /// where it is made (a statement, `let _ =`, `drop(..)`): the field's old value is dropped
    /// in place, as by `x.f = v`.
    fn dropped_in_place(&mut self, e: &syn::Expr) {
        if let syn::Expr::Call(c) = e
            && let syn::Expr::Path(p) = &*c.func
            && let canon = self.imports[self.file].canonical(&p.path)
            && matches!(
                canon
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .as_slice(),
                ["std" | "core", "mem", "replace" | "take"]
            )
            && let Some(syn::Expr::Reference(r)) = c.args.first()
            && r.mutability.is_some()
            && let syn::Expr::Field(f) = &*r.expr
        {
            self.ok.insert(f as *const _);
        }
    }

    /// Whether `path`'s segment `from_end` from its end (1: a type, `Mutex<T>`; 2: a
    /// constructor, `Mutex::new`) names one of the [`SHARERS`] (or a sharer alias), as written
    /// or through the file's imports (`use std::sync::Mutex as Lock`).
    fn names_sharer(&self, path: &syn::Path, from_end: usize) -> bool {
        let written = path.segments.iter().rev().nth(from_end - 1);
        let canon = self.imports[self.file].canonical(path);
        written.is_some_and(|w| self.fields.is_sharer(&w.ident.to_string()))
            || canon
                .len()
                .checked_sub(from_end)
                .is_some_and(|i| self.fields.is_sharer(&canon[i]))
    }

    /// Records a struct or enum for `api.rs`.
    fn holder(
        &mut self,
        ident: &syn::Ident,
        vis: &syn::Visibility,
        generics: &syn::Generics,
        derives_clone: bool,
        tys: Vec<syn::Type>,
        pub_fields: HashSet<String>,
    ) {
        let public = matches!(vis, syn::Visibility::Public(_));
        self.fields
            .holders
            .entry(ident.to_string())
            .or_default()
            .push(Holder {
                file: self.file,
                public,
                exported: public && self.exported_scope,
                derives_clone,
                pub_fields,
                generics: generics
                    .type_params()
                    .map(|p| p.ident.to_string())
                    .collect(),
                tys,
            });
    }
}

impl FieldScan<'_, '_> {
    pub(super) fn bind(
        &mut self,
        pat: &syn::Pat,
        ty: Option<&syn::Type>,
        init: Option<&syn::Expr>,
    ) {
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
        // A closure of a type parameter bounded by `Fn*`, or of an `impl Fn*`, is no struct of
        // the crate but may hold some, captured where it was made: of unknown type.
        let closure = ty.is_some_and(|t| match t {
            syn::Type::ImplTrait(i) => i.bounds.iter().any(fn_bound),
            _ => type_name(t).is_some_and(|n| self.fn_generics.contains(&n)),
        });
        if closure {
            self.fields.locals.entry(n).or_default().push(Ok(None));
            return;
        }
        // A closure holds what it captures: sharing it shares their values.
        if let Some(c) = init.and_then(held_closure) {
            for v in captures(c) {
                if self.fns.contains_key(&v) {
                    self.fields.fn_names.insert(v.clone());
                }
                if v == "self" {
                    let o = self.owner.clone();
                    self.fields.locals.entry(n.clone()).or_default().push(Ok(o));
                } else {
                    let caps = self.fields.closure_captures.entry(n.clone()).or_default();
                    caps.push(v);
                }
            }
        }
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
        self.push_generics(g);
        syn::visit::visit_generics(self, g);
    }
    fn visit_item(&mut self, i: &'a syn::Item) {
        let n = (self.generics.len(), self.fn_generics.len());
        syn::visit::visit_item(self, i);
        self.generics.truncate(n.0);
        self.fn_generics.truncate(n.1);
    }
    fn visit_impl_item(&mut self, i: &'a syn::ImplItem) {
        let n = (self.generics.len(), self.fn_generics.len());
        syn::visit::visit_impl_item(self, i);
        self.generics.truncate(n.0);
        self.fn_generics.truncate(n.1);
    }
    fn visit_trait_item(&mut self, i: &'a syn::TraitItem) {
        let n = (self.generics.len(), self.fn_generics.len());
        syn::visit::visit_trait_item(self, i);
        self.generics.truncate(n.0);
        self.fn_generics.truncate(n.1);
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
        if let syn::Pat::Type(t) = &l.pat {
            // The annotation declares the binding's type (a parameter's is a signature's).
            self.visit_pat(&t.pat);
            let saved = std::mem::replace(&mut self.declaration, true);
            self.visit_type(&t.ty);
            self.declaration = saved;
            if let Some(i) = &l.init {
                self.visit_local_init(i);
            }
        } else {
            syn::visit::visit_local(self, l);
        }
    }
    fn visit_fn_arg(&mut self, a: &'a syn::FnArg) {
        if let syn::FnArg::Typed(t) = a {
            self.bind(&t.pat, Some(&t.ty), None);
        }
        syn::visit::visit_fn_arg(self, a);
    }
    fn visit_type_path(&mut self, t: &'a syn::TypePath) {
        if let Some(l) = t.path.segments.last()
            && self.names_sharer(&t.path, 1)
            && let syn::PathArguments::AngleBracketed(a) = &l.arguments
        {
            for g in &a.args {
                if let syn::GenericArgument::Type(ty) = g {
                    let mut names = HashSet::new();
                    held_type_idents(ty, &mut names);
                    // A type parameter there, in a declaration (a field, an annotated `let`,
                    // a static: whose initialiser the declaration types), may be any struct of
                    // the crate (bounded by `Fn*`: a closure, never one). In a signature it
                    // is not: the value was put there where it was built.
                    if self.declaration && names.iter().any(|n| self.generics.contains(n)) {
                        self.fields.unknown_shared = true;
                    }
                    self.fields.shared.extend(names);
                }
            }
        }
        syn::visit::visit_type_path(self, t);
    }
    fn visit_item_type(&mut self, t: &'a syn::ItemType) {
        let mut ids = HashSet::new();
        type_idents(&t.ty, &mut ids);
        for p in t.generics.type_params() {
            ids.remove(&p.ident.to_string());
        }
        let names = self.fields.aliases.entry(t.ident.to_string()).or_default();
        names.extend(ids);
        // A sharer alias's own parameters are not values of unknown type put behind a lock:
        // its uses are (`OwnShared<Pool>` shares `Pool`).
        if !self.fields.sharer_aliases.contains(&t.ident.to_string()) {
            syn::visit::visit_item_type(self, t);
        }
    }
    fn visit_field(&mut self, f: &'a syn::Field) {
        let saved = std::mem::replace(&mut self.declaration, true);
        syn::visit::visit_field(self, f);
        self.declaration = saved;
    }
    fn visit_item_static(&mut self, i: &'a syn::ItemStatic) {
        type_idents(&i.ty, &mut self.fields.shared);
        let saved = std::mem::replace(&mut self.declaration, true);
        self.visit_type(&i.ty);
        self.declaration = saved;
        syn::visit::visit_item_static(self, i);
    }
    fn visit_expr_assign(&mut self, a: &'a syn::ExprAssign) {
        // `self.f = None`: drops the handle in place.
        if let syn::Expr::Field(f) = &*a.left {
            self.ok.insert(f as *const _);
        }
        // `S { f: x, .. } = s`: a destructuring assignment reads the fields it names.
        if let syn::Expr::Struct(s) = &*a.left {
            for f in &s.fields {
                self.fields.read.insert(member_name(&f.member));
            }
        }
        syn::visit::visit_expr_assign(self, a);
    }
    fn visit_expr_struct(&mut self, s: &'a syn::ExprStruct) {
        for f in &s.fields {
            if let syn::Expr::Call(c) = &f.expr {
                self.typed.insert(c as *const _);
            }
            if let syn::Expr::MethodCall(m) = &f.expr {
                self.handed.insert(m as *const _);
            }
        }
        syn::visit::visit_expr_struct(self, s);
    }
    fn visit_stmt(&mut self, st: &'a syn::Stmt) {
        match st {
            syn::Stmt::Expr(e, Some(_)) => self.dropped_in_place(e),
            syn::Stmt::Local(l) if matches!(l.pat, syn::Pat::Wild(_)) => {
                if let Some(i) = &l.init {
                    self.dropped_in_place(&i.expr);
                }
            }
            _ => {}
        }
        syn::visit::visit_stmt(self, st);
    }
    fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
        // Another crate's free function may hand what it is given to another thread; a tuple
        // struct or variant (`Some(h)`), or a type's associated function (`Box::new(h)`),
        // makes a value holding it, which `LocalTypes` follows.
        if let syn::Expr::Path(p) = &*c.func
            && let Some(l) = p.path.segments.last()
            && !l.ident.to_string().starts_with(char::is_uppercase)
            && !p.path.segments.iter().rev().nth(1).is_some_and(|t| {
                t.ident.to_string().starts_with(char::is_uppercase) || t.ident == "Self"
            })
        {
            self.lend_args(&l.ident.to_string(), c.args.iter());
        }
        // `drop(x)`: std's (see [`is_std_drop`]).
        if let syn::Expr::Path(p) = &*c.func
            && let [arg] = c.args.iter().collect::<Vec<_>>().as_slice()
            && is_std_drop(
                &p.path,
                &self.imports[self.file],
                self.fns,
                self.fields.drop_shadowed,
            )
        {
            self.dropped_in_place(arg);
        }
        for a in &c.args {
            if let syn::Expr::MethodCall(m) = a {
                self.handed.insert(m as *const _);
            }
        }
        // `Box::leak(b)`: a `&'static` reference to what `b` holds, which any thread can get.
        if let syn::Expr::Path(p) = &*c.func
            && p.path.segments.len() >= 2
            && p.path.segments.last().is_some_and(|l| l.ident == "leak")
        {
            for arg in &c.args {
                self.share(arg);
            }
        }
        // `ParallelBridge::par_bridge(it)`, as `it.par_bridge()`.
        if let syn::Expr::Path(p) = &*c.func
            && p.path
                .segments
                .last()
                .is_some_and(|l| l.ident == "par_bridge")
        {
            self.fields.par_bridge = true;
        }
        // Inside a call whose type is declared (an annotated `let`'s or a field's initialiser,
        // `Arc::new(Mutex::new(..))`), or in a tuple struct's or variant's field, the nested
        // `Mutex::new(..)` is typed by that declaration too.
        let ctor = matches!(&*c.func, syn::Expr::Path(p)
        if p.path.segments.last().is_some_and(|l| {
            self.fields.tuple_ctors.contains(&l.ident.to_string())
        }));
        if ctor || self.typed.contains(&(c as *const _)) {
            for a in &c.args {
                if let syn::Expr::Call(inner) = a {
                    self.typed.insert(inner as *const _);
                }
            }
        }
        if let syn::Expr::Path(p) = &*c.func
            && p.path.segments.len() >= 2
            && p.path.segments.last().is_some_and(|b| b.ident != "clone")
            && self.names_sharer(&p.path, 2)
        {
            // `Mutex::default()`: holds what is put in it later, of a type the syntax does not
            // show (unless a declaration types it).
            if c.args.is_empty() && !self.typed.contains(&(c as *const _)) {
                self.fields.unknown_shared = true;
            }
            for arg in &c.args {
                if self.typed.contains(&(c as *const _)) {
                    // The declaration names what is shared, unless it names only a trait
                    // (`Arc<Mutex<Box<dyn T>>>`): a type the argument shows is shared too.
                    if let Ok(Some(t)) = self.guess(arg) {
                        self.fields.shared.insert(t);
                    }
                } else {
                    self.share(arg);
                }
            }
        }
        // `Self::m(self, ..)`, `Inner::m(&self.inner, ..)`: a method called on `self` or a field.
        if let (Some(m), Some(owner)) = (&self.self_method, &self.owner)
            && let syn::Expr::Path(p) = &*c.func
            && p.path.segments.len() >= 2
            && let Some(path) = c.args.first().and_then(self_path)
            && let Some(callee) = p.path.segments.last()
        {
            let call = (path, callee.ident.to_string());
            let key = (owner.clone(), m.clone());
            self.fields.method_calls.entry(key).or_default().push(call);
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
        // Items inside a function are not reachable from outside it.
        let scope = std::mem::replace(&mut self.exported_scope, false);
        let self_method = self.self_method.take();
        let inputs: Vec<&syn::FnArg> = f.sig.inputs.iter().collect();
        let received = std::mem::replace(&mut self.received, received_names(&inputs, &f.block));
        let (params, parts) = self.with_generics(&f.sig, |s| {
            LocalTypes::of(s, &f.sig, s.params_of(&f.sig), &f.block)
        });
        let params = std::mem::replace(&mut self.params, params);
        let parts = std::mem::replace(&mut self.literal_parts, parts);
        let moved = std::mem::take(&mut self.moved_once);
        syn::visit::visit_item_fn(self, f);
        self.moved_once = moved;
        self.literal_parts = parts;
        self.params = params;
        self.received = received;
        self.self_method = self_method;
        self.exported_scope = scope;
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
        let callable = if self.trait_impl {
            self.impl_trait.is_some()
        } else {
            matches!(f.vis, syn::Visibility::Public(_))
        };
        let api = match f.sig.inputs.first() {
            Some(syn::FnArg::Receiver(r)) if callable => Some(ApiOp {
                method: f.sig.ident.to_string(),
                shared: matches!(r.kind, syn::ReceiverKind::Reference(_, _, None)),
                of_trait: self.impl_trait.clone(),
                clones: false,
            }),
            _ => None,
        };
        if let Some(syn::Stmt::Expr(syn::Expr::MethodCall(m), None)) = f.block.stmts.last() {
            self.handed.insert(m as *const _);
        }
        if let (Some(op), Some(owner)) = (&api, &self.owner) {
            let entry = (owner.clone(), op.method.clone(), self.file, op.clone());
            self.fields.api_methods.push(entry);
        }
        let self_method = matches!(f.sig.inputs.first(), Some(syn::FnArg::Receiver(_)))
            .then(|| f.sig.ident.to_string());
        let saved_self_method = std::mem::replace(&mut self.self_method, self_method);
        let saved_api = std::mem::replace(&mut self.api, api);
        self.closures = 0;
        let scope = std::mem::replace(&mut self.exported_scope, false);
        let inputs: Vec<&syn::FnArg> = f.sig.inputs.iter().collect();
        let received = std::mem::replace(&mut self.received, received_names(&inputs, &f.block));
        let (params, parts) = self.with_generics(&f.sig, |s| {
            LocalTypes::of(s, &f.sig, s.params_of(&f.sig), &f.block)
        });
        let params = std::mem::replace(&mut self.params, params);
        let parts = std::mem::replace(&mut self.literal_parts, parts);
        let moved = std::mem::take(&mut self.moved_once);
        syn::visit::visit_impl_item_fn(self, f);
        self.moved_once = moved;
        self.literal_parts = parts;
        self.params = params;
        self.received = received;
        self.exported_scope = scope;
        (self.exclusive, self.by_ref, self.closures, self.method) = saved;
        self.api = saved_api;
        self.self_method = saved_self_method;
    }
    fn visit_trait_item_fn(&mut self, f: &'a syn::TraitItemFn) {
        let saved = std::mem::replace(&mut self.exclusive, false);
        let (params, parts) = match &f.default {
            Some(block) => self.with_generics(&f.sig, |s| {
                let mut params = s.params_of(&f.sig);
                if let (Some(p), Some(tr)) = (params.get_mut("self"), &s.in_trait) {
                    *p = ParamType::Bounded(vec![tr.clone()]);
                }
                LocalTypes::of(s, &f.sig, params, block)
            }),
            None => (HashMap::new(), HashMap::new()),
        };
        let params = std::mem::replace(&mut self.params, params);
        let parts = std::mem::replace(&mut self.literal_parts, parts);
        let moved = std::mem::take(&mut self.moved_once);
        syn::visit::visit_trait_item_fn(self, f);
        self.moved_once = moved;
        self.literal_parts = parts;
        self.params = params;
        self.exclusive = saved;
    }
    fn visit_block(&mut self, b: &'a syn::Block) {
        // `let x = self.f.clone();` then a `move` closure or `async move` block naming `x`:
        // the clone is handed on (to whatever runs the closure).
        for (i, st) in b.stmts.iter().enumerate() {
            if let Some(n) = moved_once(st, &b.stmts[i + 1..], &self.fields.tuple_ctors) {
                let parts = self
                    .literal_parts
                    .get(&n)
                    .cloned()
                    .unwrap_or(ParamType::Any);
                self.moved_once.insert(n, parts);
            }
            if let syn::Stmt::Local(l) = st
                && let Some(init) = &l.init
                && let syn::Expr::MethodCall(m) = &*init.expr
                && let Some(x) = pat_ident(&l.pat)
                && moved_into_closure(&b.stmts[i + 1..], &x)
            {
                self.handed.insert(m as *const _);
            }
        }
        syn::visit::visit_block(self, b);
    }
    fn visit_expr_return(&mut self, r: &'a syn::ExprReturn) {
        if self.closures == 0
            && let Some(syn::Expr::MethodCall(m)) = r.expr.as_deref()
        {
            self.handed.insert(m as *const _);
        }
        syn::visit::visit_expr_return(self, r);
    }
    fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
        if !self.inline.contains(&std::ptr::from_ref(c)) {
            self.lend_captures(c);
        }
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
        // A value given to a method runs there, on this thread, unless the method sends it
        // to another (a channel's or a queue's).
        if SENDS.contains(&mc.method.to_string().as_str()) {
            self.lend_args(&mc.method.to_string(), mc.args.iter());
        }
        self.note_inline(mc);
        if mc.method == "par_bridge" {
            self.fields.par_bridge = true;
        }
        // `v.leak()` (a `Vec`'s, a `Box`'s): shared as `Box::leak(v)` is.
        if mc.method == "leak" && mc.args.is_empty() {
            self.share(&mc.receiver);
        }
        if mc.method == "clone"
            && mc.args.is_empty()
            && self.handed.contains(&(mc as *const _))
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
        if let (Some(m), Some(owner)) = (&self.self_method, &self.owner) {
            let key = (owner.clone(), m.clone());
            if let Some((path, _)) = api_use(mc) {
                self.fields.method_uses.entry(key).or_default().push(path);
            } else if let Some(path) = self_path(&mc.receiver) {
                let call = (path, mc.method.to_string());
                self.fields.method_calls.entry(key).or_default().push(call);
            }
        }
        if let Some(op) = &self.api
            && let Some(owner) = &self.owner
            && let Some((path, clones)) = api_use(mc)
        {
            let op = ApiOp {
                clones: clones && self.handed.contains(&(mc as *const _)),
                ..op.clone()
            };
            self.fields
                .api_ops
                .entry((owner.clone(), path.join(".")))
                .or_default()
                .push((self.file, op));
        }
        syn::visit::visit_expr_method_call(self, mc);
    }
    fn visit_expr_field(&mut self, f: &'a syn::ExprField) {
        let on_self = matches!(&*f.base, syn::Expr::Path(p) if p.path.is_ident("self"));
        let in_place = self.closures == 0 && self.ok.contains(&(f as *const _));
        // `self.f` in an impl of T is T's field; any other base may be any struct's.
        self.fields.read.insert(member_name(&f.member));
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
        let mut segs: Vec<String> = path_segments(&p.path);
        if segs.len() == 1
            && segs[0] == "Self"
            && let Some(o) = &self.owner
        {
            segs[0] = o.clone();
        }
        for f in &p.fields {
            self.fields.read.insert(member_name(&f.member));
            self.fields
                .pat_fields
                .push((segs.clone(), member_name(&f.member)));
        }
        syn::visit::visit_pat_struct(self, p);
    }
    fn visit_expr_match(&mut self, m: &'a syn::ExprMatch) {
        self.visit_expr(&m.expr);
        let owned = is_received(&m.expr)
            || matches!(&*m.expr, syn::Expr::Path(p)
                if p.path.get_ident().is_some_and(|i| self.received.contains(&i.to_string())));
        let saved = std::mem::replace(&mut self.owned_match, owned);
        for a in &m.arms {
            self.visit_arm(a);
        }
        self.owned_match = saved;
    }
    fn visit_arm(&mut self, a: &'a syn::Arm) {
        // Only a message matched by value, just received, is used by the one thread that
        // received it, wherever the `match` is (a worker's closure included): one matched by
        // reference may be lent to several threads at once.
        if self.owned_match
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
            .collect::<Vec<_>>();
        let derives_clone = derives_clone(&e.attrs);
        self.holder(
            &e.ident,
            &e.vis,
            &e.generics,
            derives_clone,
            tys.clone(),
            HashSet::new(),
        );
        self.fields.defs.push((e.ident.to_string(), self.file, tys));
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
            self.fields.read.insert(i.to_string());
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
        // A format-like macro's arguments are expressions evaluated where it is written (as
        // the walk reads them): scanned as such.
        let name = m.path.segments.last().map(|s| s.ident.to_string());
        if name.is_some_and(|n| FORMAT.contains(&n.as_str()))
            && let Ok(args) = m.parse_body_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            )
        {
            for a in &args {
                self.visit_expr(a);
            }
            return;
        }
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
        self.fields.read.extend(idents.iter().cloned());
        // A macro that may declare a static or build an Arc (`lazy_static!`): whatever it names
        // may be shared.
        if ["Arc", "Rc", "static"].iter().any(|k| idents.contains(*k)) {
            for i in &idents {
                self.fields.share_value(i.clone());
            }
        }
        self.fields.escaping.extend(idents);
    }
    fn visit_item_struct(&mut self, i: &'a syn::ItemStruct) {
        let inner: HashSet<String> = i
            .fields
            .iter()
            .enumerate()
            .filter(|(_, f)| !matches!(f.vis, syn::Visibility::Public(_)))
            .map(|(n, f)| f.ident.as_ref().map_or(n.to_string(), ToString::to_string))
            .collect();
        let derives_clone = derives_clone(&i.attrs);
        if !matches!(i.vis, syn::Visibility::Inherited) {
            self.fields.public.insert(i.ident.to_string());
        }
        if !plain_attrs(&i.attrs) {
            self.fields.generated.insert(i.ident.to_string());
        }
        let tys: Vec<syn::Type> = i.fields.iter().map(|f| f.ty.clone()).collect();
        let pub_fields: HashSet<String> = i
            .fields
            .iter()
            .enumerate()
            .filter(|(_, f)| matches!(f.vis, syn::Visibility::Public(_)))
            .map(|(n, f)| f.ident.as_ref().map_or(n.to_string(), ToString::to_string))
            .collect();
        self.holder(
            &i.ident,
            &i.vis,
            &i.generics,
            derives_clone,
            tys.clone(),
            pub_fields.clone(),
        );
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
            .push(StructDef {
                inner,
                public: pub_fields,
                derives_clone,
            });
        syn::visit::visit_item_struct(self, i);
    }
    fn visit_item_mod(&mut self, m: &'a syn::ItemMod) {
        let saved = self.exported_scope;
        self.exported_scope = exported_scope(saved, m);
        syn::visit::visit_item_mod(self, m);
        self.exported_scope = saved;
    }
    fn visit_item_trait(&mut self, t: &'a syn::ItemTrait) {
        self.fields
            .traits
            .entry(t.ident.to_string())
            .or_default()
            .push(self.exported_scope && matches!(t.vis, syn::Visibility::Public(_)));
        let saved = self.in_trait.replace(t.ident.to_string());
        syn::visit::visit_item_trait(self, t);
        self.in_trait = saved;
    }
    fn visit_item_use(&mut self, u: &'a syn::ItemUse) {
        fn names(t: &syn::UseTree, out: &mut HashSet<String>) {
            match t {
                syn::UseTree::Path(p) => names(&p.tree, out),
                syn::UseTree::Name(n) => {
                    out.insert(n.ident.to_string());
                }
                syn::UseTree::Rename(r) => {
                    out.insert(r.ident.to_string());
                }
                syn::UseTree::Group(g) => g.items.iter().for_each(|t| names(t, out)),
                syn::UseTree::Glob(_) => {}
            }
        }
        if matches!(u.vis, syn::Visibility::Public(_)) && self.exported_scope {
            names(&u.tree, &mut self.fields.reexported);
        }
        syn::visit::visit_item_use(self, u);
    }
    fn visit_use_rename(&mut self, r: &'a syn::UseRename) {
        let names = self.fields.aliases.entry(r.rename.to_string()).or_default();
        names.insert(r.ident.to_string());
        syn::visit::visit_use_rename(self, r);
    }
    fn visit_item_impl(&mut self, i: &'a syn::ItemImpl) {
        self.note_impl(i);
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
        // An iterator of the crate may be shared by `par_bridge` (see `Fields::par_bridge`).
        if let Some((t, _)) = &i.trait_
            && t.segments.last().is_some_and(|s| s.ident == "Iterator")
            && let syn::Type::Path(p) = &*i.self_ty
            && let Some(l) = p.path.segments.last()
        {
            self.fields.iterators.insert(l.ident.to_string());
        }
        if let Some((t, _)) = &i.trait_
            && t.segments.last().is_some_and(|s| s.ident == "Send")
        {
            self.fields.unsafe_send = true;
        }
        let owner = match &*i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let of_trait = i
            .trait_
            .as_ref()
            .and_then(|(t, _)| t.segments.last().map(|s| s.ident.to_string()));
        let saved = (
            std::mem::replace(&mut self.owner, owner),
            std::mem::replace(&mut self.trait_impl, i.trait_.is_some()),
            std::mem::replace(&mut self.impl_trait, of_trait),
        );
        syn::visit::visit_item_impl(self, i);
        (self.owner, self.trait_impl, self.impl_trait) = saved;
    }
}
