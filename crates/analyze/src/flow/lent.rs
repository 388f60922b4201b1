//! Holders lent to other code ([`Fields::lent`]): a struct a function of the crate lends to a
//! closure (its `self`, or a parameter of its type, captured) that is not an iterator's
//! adapter, or hands to another crate's free function or to a `send`, may be used on another
//! thread as well as on its own, one after the other: the field rule, which proves one thread
//! at a time, then does not give its count. A parameter typed by a type parameter, `impl
//! Trait` or `dyn Trait` may be any struct of the crate that implements its bounds (any
//! struct, for bounds the crate's impls cannot settle). In a walk, a holder bound by `let` and
//! then captured or sent is not counted at one thread either ([`holder_captured`]).

use super::*;

/// Methods that hand their argument to another thread: a channel's send, a queue's push.
pub(super) const SENDS: &[&str] = &["send", "try_send", "send_timeout", "force_send", "push"];

/// What a parameter of a function may be, by its declared type.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum ParamType {
    /// The struct names the type holds.
    Named(HashSet<String>),
    /// A type parameter, `impl Trait` or `dyn Trait`: any type implementing these traits
    /// (marker traits left out).
    Bounded(Vec<String>),
    /// Any type.
    Any,
    /// Any of these (a local bound to several values).
    Several(Vec<ParamType>),
}

impl ParamType {
    /// `Self` read as the impl's type `owner` (any type, outside an impl).
    pub(super) fn with_owner(self, owner: Option<&str>) -> Self {
        match self {
            ParamType::Named(mut ids) if ids.contains("Self") => {
                ids.remove("Self");
                match owner {
                    Some(o) => {
                        ids.insert(o.to_string());
                        ParamType::Named(ids)
                    }
                    None => ParamType::Any,
                }
            }
            other => other,
        }
    }
}

/// Auto and marker traits, which any struct may implement: they narrow nothing down.
const MARKERS: &[&str] = &[
    "Send",
    "Sync",
    "Sized",
    "Unpin",
    "UnwindSafe",
    "RefUnwindSafe",
];

/// The trait names of bounds (`Read`, `Iterator<Item = u8>`), marker traits and lifetimes left
/// out.
fn bound_names<'b>(bounds: impl Iterator<Item = &'b syn::TypeParamBound>) -> Vec<String> {
    bounds
        .filter_map(|b| match b {
            syn::TypeParamBound::Trait(t) => t.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        })
        .filter(|n| !MARKERS.contains(&n.as_str()))
        .collect()
}

/// What a parameter of declared type `t` may be, in a function with signature `sig`.
pub(super) fn param_type(
    t: &syn::Type,
    sig: &syn::Signature,
    generics: &[String],
    fn_generics: &[String],
) -> ParamType {
    let mut t = t;
    while let syn::Type::Reference(r) = t {
        t = &r.elem;
    }
    match t {
        syn::Type::ImplTrait(i) => return ParamType::Bounded(bound_names(i.bounds.iter())),
        syn::Type::TraitObject(o) => return ParamType::Bounded(bound_names(o.bounds.iter())),
        syn::Type::Path(p) if p.qself.is_none() => {
            if let Some(i) = p.path.get_ident() {
                let n = i.to_string();
                if fn_generics.contains(&n) {
                    // A closure: what it captured was lent where it was made.
                    return ParamType::Named(HashSet::new());
                }
                if let Some(tp) = sig.generics.type_params().find(|tp| tp.ident == n) {
                    let mut b = bound_names(tp.bounds.iter());
                    for w in sig.generics.where_clause.iter().flat_map(|w| &w.predicates) {
                        if let syn::WherePredicate::Type(pt) = w
                            && matches!(&pt.bounded_ty, syn::Type::Path(x) if x.path.is_ident(i))
                        {
                            b.extend(bound_names(pt.bounds.iter()));
                        }
                    }
                    return ParamType::Bounded(b);
                }
            }
        }
        _ => {}
    }
    struct Opaque<'g> {
        generics: &'g [String],
        fn_generics: &'g [String],
        hit: bool,
        /// The bounds of each `impl Trait` or `dyn Trait` inside.
        bounded: Vec<Vec<String>>,
    }
    impl<'a> Visit<'a> for Opaque<'_> {
        fn visit_type_impl_trait(&mut self, i: &'a syn::TypeImplTrait) {
            self.bounded.push(bound_names(i.bounds.iter()));
        }
        fn visit_type_trait_object(&mut self, o: &'a syn::TypeTraitObject) {
            self.bounded.push(bound_names(o.bounds.iter()));
        }
        fn visit_path_segment(&mut self, s: &'a syn::PathSegment) {
            let n = s.ident.to_string();
            if self.generics.contains(&n) && !self.fn_generics.contains(&n) {
                self.hit = true;
            }
            syn::visit::visit_path_segment(self, s);
        }
    }
    let mut o = Opaque {
        generics,
        fn_generics,
        hit: false,
        bounded: Vec::new(),
    };
    o.visit_type(t);
    if o.hit {
        return ParamType::Any;
    }
    let mut ids = HashSet::new();
    held_type_idents(t, &mut ids);
    // `Box<dyn Pull>`: the types named, and any type implementing the bounds.
    o.bounded
        .into_iter()
        .fold(ParamType::Named(ids), |t, b| t.join(ParamType::Bounded(b)))
}

impl FieldScan<'_, '_> {
    /// Pushes the type parameters of `g` (and those bounded by `Fn*`) on the scope's lists.
    pub(super) fn push_generics(&mut self, g: &syn::Generics) {
        let where_bounds = g.where_clause.iter().flat_map(|w| &w.predicates);
        for p in g.type_params() {
            self.generics.push(p.ident.to_string());
            let in_where = where_bounds.clone().any(|w| {
                matches!(w, syn::WherePredicate::Type(t)
                    if matches!(&t.bounded_ty, syn::Type::Path(b) if b.path.is_ident(&p.ident))
                        && t.bounds.iter().any(fn_bound))
            });
            if p.bounds.iter().any(fn_bound) || in_where {
                self.fn_generics.push(p.ident.to_string());
            }
        }
    }

    /// `f`, with the type parameters of `sig` in scope.
    pub(super) fn with_generics<R>(
        &mut self,
        sig: &syn::Signature,
        f: impl FnOnce(&Self) -> R,
    ) -> R {
        let n = (self.generics.len(), self.fn_generics.len());
        self.push_generics(&sig.generics);
        let r = f(self);
        self.generics.truncate(n.0);
        self.fn_generics.truncate(n.1);
        r
    }

    /// The parameters of a function (`self` as the impl's type), by name.
    pub(super) fn params_of(&self, sig: &syn::Signature) -> HashMap<String, ParamType> {
        let mut out = HashMap::new();
        for a in &sig.inputs {
            match a {
                syn::FnArg::Receiver(_) => {
                    let t = match &self.owner {
                        Some(o) => ParamType::Named(HashSet::from([o.clone()])),
                        None => ParamType::Any,
                    };
                    out.insert("self".to_string(), t);
                }
                syn::FnArg::Typed(t) => {
                    let ty = param_type(&t.ty, sig, &self.generics, &self.fn_generics)
                        .with_owner(self.owner.as_deref());
                    let mut names = HashSet::new();
                    pat_binds(&t.pat, &mut names);
                    for n in names {
                        out.insert(n, ty.clone());
                    }
                }
            }
        }
        out
    }

    /// Records what the local or parameter `name` may be as lent. A name bound where
    /// [`LocalTypes`] does not reach (not a function, constant or primitive type of a
    /// macro's tokens) may be anything.
    fn lend(&mut self, name: &str) {
        match self.params.get(name) {
            Some(t) => {
                let t = t.clone();
                self.fields.lend_type(t);
            }
            None if self.fns.contains_key(name)
                || name.starts_with(char::is_uppercase)
                || PRIMITIVES.contains(&name) => {}
            None => self.fields.unknown_lent = true,
        }
    }

    /// Records a trait impl (see [`Fields::impls`]).
    pub(super) fn note_impl(&mut self, i: &syn::ItemImpl) {
        let Some((t, _)) = &i.trait_ else {
            return;
        };
        let Some(tr) = t.segments.last().map(|s| s.ident.to_string()) else {
            return;
        };
        // `impl Tr for Box<S>` implements it for a value holding an `S`; `impl<T> Tr for
        // Wrap<T>` for one holding anything.
        let mut ids = HashSet::new();
        type_idents(&i.self_ty, &mut ids);
        if i.generics
            .type_params()
            .any(|g| ids.contains(&g.ident.to_string()))
        {
            self.fields.blanket.insert(tr);
        } else {
            for id in ids {
                self.fields.impls.insert((tr.clone(), id));
            }
        }
    }

    /// Closures given to an iterator's or an `Option`'s adapter (not a parallel iterator's)
    /// run in place, on the calling thread: they lend nothing.
    pub(super) fn note_inline(&mut self, mc: &syn::ExprMethodCall) {
        if ITER.contains(&mc.method.to_string().as_str()) && !is_parallel(&mc.receiver) {
            for a in &mc.args {
                if let syn::Expr::Closure(c) = a {
                    self.inline.insert(std::ptr::from_ref(c));
                }
            }
        }
    }

    /// A closure lends the parameters and locals it captures (but of a struct made for the one
    /// thread it is moved to, see [`moved_once`], only what its fields were given).
    pub(super) fn lend_captures(&mut self, c: &syn::ExprClosure) {
        for n in captures(c) {
            if let Some(parts) = self.moved_once.get(&n) {
                let parts = parts.clone();
                self.fields.lend_type(parts);
                continue;
            }
            self.lend(&n);
        }
    }

    /// A call of `callee` (a function's or method's name) lends the parameters given to it
    /// (as themselves or by reference), unless it is a function of the crate (whose own
    /// parameters are scanned) or std's `drop`.
    pub(super) fn lend_args<'e>(
        &mut self,
        callee: &str,
        args: impl Iterator<Item = &'e syn::Expr>,
    ) {
        if self.fns.contains_key(callee) || callee == "drop" {
            return;
        }
        for a in args {
            let mut e = a;
            while let syn::Expr::Reference(r) = e {
                e = &r.expr;
            }
            if let syn::Expr::Path(p) = e
                && let Some(i) = p.path.get_ident()
            {
                self.lend(&i.to_string());
            }
        }
    }
}

/// Primitive types' names and path keywords, which a macro's tokens may give as identifiers.
const PRIMITIVES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "char", "str", "crate", "super",
];

impl Fields {
    /// Records a value of type `t` as lent (see [`ParamType`]).
    pub(super) fn lend_type(&mut self, t: ParamType) {
        match t {
            ParamType::Named(ids) => self.lent.extend(ids),
            // A closure (what it captured was lent where it was made), or a `Clone` type:
            // no holder the field rule counts.
            ParamType::Bounded(b)
                if b.iter().any(|t| {
                    matches!(t.as_str(), "Fn" | "FnMut" | "FnOnce" | "Clone" | "Copy")
                }) => {}
            ParamType::Bounded(b) if !b.is_empty() => self.lent_bounds.push(b),
            ParamType::Bounded(_) | ParamType::Any => self.unknown_lent = true,
            ParamType::Several(ts) => ts.into_iter().for_each(|t| self.lend_type(t)),
        }
    }

    /// A struct that a lent one holds (a field's declared type names it) is lent with it.
    pub(super) fn close_lent(&mut self) {
        // A value bounded by traits is any type implementing them all: a struct of the crate
        // only where the crate implements each for it (a std trait it may derive, or that
        // std implements for many types, may be implemented by any).
        const IMPLEMENTED: &[&str] = &[
            "Read",
            "Write",
            "BufRead",
            "Seek",
            "Iterator",
            "DoubleEndedIterator",
            "ExactSizeIterator",
            "IntoIterator",
            "Future",
            "Stream",
            "Sink",
            "Display",
            "Error",
            "Hasher",
            "Deref",
            "DerefMut",
            "AsyncRead",
            "AsyncWrite",
            "AsRef",
            "AsMut",
            "From",
            "TryFrom",
            "FromStr",
        ];
        for b in std::mem::take(&mut self.lent_bounds) {
            let checked = |t: &String| {
                IMPLEMENTED.contains(&t.as_str())
                    || (self.traits.contains_key(t) && !self.blanket.contains(t))
            };
            if !b.iter().all(checked) {
                self.unknown_lent = true;
                continue;
            }
            for name in self.holders.keys() {
                let implements = |t: &String| {
                    self.impls.contains(&(t.clone(), name.clone()))
                        || (t == "IntoIterator"
                            && self.impls.contains(&("Iterator".to_string(), name.clone())))
                };
                if b.iter().all(implements) {
                    self.lent.insert(name.clone());
                }
            }
        }
        let mut todo: Vec<String> = self.lent.iter().cloned().collect();
        while let Some(n) = todo.pop() {
            let mut ids = HashSet::new();
            for a in self.aliases.get(&n).into_iter().flatten() {
                ids.insert(a.clone());
            }
            for h in self.holders.get(&n).into_iter().flatten() {
                for t in &h.tys {
                    held_type_idents(t, &mut ids);
                }
            }
            for i in ids {
                if self.lent.insert(i.clone()) {
                    todo.push(i);
                }
            }
        }
    }
}

/// Where a closure (or an async block) in `stmts` mentions one of `names` (or a name bound
/// after them from a value that mentions them: `let r = &mut h;`), or a channel's `send` is
/// given them, unless the names are mentioned only in one `move` closure given to a thread's
/// `spawn` (which does not hand them on in turn), or in one `send` of a message variant
/// (`sendable`: its receivers operate on it in place, see `Fields::variant_confined`),
/// outside loops: that moves the holder to one thread, where it is used alone.
pub(super) fn holder_captured(
    names: &HashSet<String>,
    stmts: &[syn::Stmt],
    own_spawn: bool,
    sendable: bool,
) -> Option<Span> {
    #[derive(Default)]
    struct Captured {
        names: HashSet<String>,
        /// Mentions outside closures, and closures mentioning the names (with whether each
        /// is a `move` closure given to `spawn` outside loops).
        outside: usize,
        closures: Vec<(Span, bool)>,
        loops: usize,
        spawn_arg: Option<*const syn::ExprClosure>,
        sendable: bool,
    }
    impl<'a> Visit<'a> for Captured {
        fn visit_item(&mut self, _: &'a syn::Item) {}
        fn visit_ident(&mut self, i: &'a proc_macro2::Ident) {
            if self.names.contains(&i.to_string()) {
                self.outside += 1;
            }
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            if mentions_tokens(&m.tokens, &self.names) {
                self.outside += 1;
            }
        }
        fn visit_local(&mut self, l: &'a syn::Local) {
            syn::visit::visit_local(self, l);
            // A value naming the holder outside closures may be it, or borrow it; any other
            // binding of its name shadows it.
            let mut bound = HashSet::new();
            pat_binds(&l.pat, &mut bound);
            let aliases = l
                .init
                .as_ref()
                .is_some_and(|i| mentions_outside_closures(&i.expr, &self.names));
            for b in bound {
                if aliases {
                    self.names.insert(b);
                } else {
                    self.names.remove(&b);
                }
            }
        }
        fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
            self.loops += 1;
            syn::visit::visit_expr_for_loop(self, f);
            self.loops -= 1;
        }
        fn visit_expr_while(&mut self, w: &'a syn::ExprWhile) {
            self.loops += 1;
            syn::visit::visit_expr_while(self, w);
            self.loops -= 1;
        }
        fn visit_expr_loop(&mut self, l: &'a syn::ExprLoop) {
            self.loops += 1;
            syn::visit::visit_expr_loop(self, l);
            self.loops -= 1;
        }
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            if let syn::Expr::Path(p) = &*c.func
                && p.path.segments.last().is_some_and(|s| s.ident == "spawn")
                && let [syn::Expr::Closure(cl)] = c.args.iter().collect::<Vec<_>>().as_slice()
            {
                self.spawn_arg = Some(std::ptr::from_ref::<syn::ExprClosure>(cl));
            }
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            // Sent to another thread (see `SENDS`), as a spawn's closure moves it there.
            if SENDS.contains(&m.method.to_string().as_str())
                && m.args.iter().any(|a| mentions(a, &self.names))
            {
                self.closures
                    .push((m.span(), self.sendable && self.loops == 0));
                self.visit_expr(&m.receiver);
                return;
            }
            if m.method == "spawn"
                && let [syn::Expr::Closure(cl)] = m.args.iter().collect::<Vec<_>>().as_slice()
            {
                self.spawn_arg = Some(std::ptr::from_ref::<syn::ExprClosure>(cl));
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
            if mentions(&c.body, &self.names) {
                // The spawned thread does not hand it on in turn.
                let mut inner = Captured {
                    names: self.names.clone(),
                    ..Default::default()
                };
                inner.visit_expr(&c.body);
                let spawned = self.spawn_arg == Some(std::ptr::from_ref(c))
                    && c.capture.is_some()
                    && self.loops == 0
                    && inner.closures.is_empty();
                self.closures.push((c.span(), spawned));
            }
        }
        fn visit_expr_async(&mut self, a: &'a syn::ExprAsync) {
            let body = syn::Expr::Block(syn::ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: a.block.clone(),
            });
            if mentions(&body, &self.names) {
                self.closures.push((a.span(), false));
            }
        }
    }
    let mut v = Captured {
        names: names.clone(),
        sendable,
        ..Default::default()
    };
    for st in stmts {
        v.visit_stmt(st);
    }
    match v.closures.as_slice() {
        [] => None,
        [(_, true)] if v.outside == 0 && !own_spawn => None,
        [(span, _), ..] => Some(*span),
    }
}

/// The name `st` binds to a struct literal (`let p = Producer { out: tx };`, or a call of one
/// of the crate's tuple structs, `tuple_ctors`), where the statements after it mention it only
/// in one `move` closure given to `spawn`, outside loops, that does not hand it on, and bind
/// no other value to that name: the struct is made for that thread, and used there alone.
pub(super) fn moved_once(
    st: &syn::Stmt,
    after: &[syn::Stmt],
    tuple_ctors: &HashSet<String>,
) -> Option<String> {
    let syn::Stmt::Local(l) = st else {
        return None;
    };
    let n = pat_ident(&l.pat)?;
    let init = l.init.as_ref()?;
    let fresh = match &*init.expr {
        syn::Expr::Struct(_) => true,
        syn::Expr::Call(c) => matches!(&*c.func, syn::Expr::Path(p)
            if p.path.segments.last().is_some_and(|s| tuple_ctors.contains(&s.ident.to_string()))),
        _ => false,
    };
    if !fresh || init.diverge.is_some() {
        return None;
    }
    let names = HashSet::from([n.clone()]);
    let spawned = !after.iter().any(|s| stmt_rebinds(s, &n))
        && holder_captured(&names, after, false, false).is_none();
    spawned.then_some(n)
}

/// Whether `e` mentions one of `names` outside its closures and async blocks.
fn mentions_outside_closures(e: &syn::Expr, names: &HashSet<String>) -> bool {
    idents_outside_closures(e).iter().any(|i| names.contains(i))
}

/// The identifiers `e` names outside its closures and async blocks (a macro's tokens too).
pub(super) fn idents_outside_closures(e: &syn::Expr) -> Vec<String> {
    fn tokens(ts: &TokenStream, out: &mut Vec<String>) {
        for t in ts.clone() {
            match t {
                TokenTree::Ident(i) => out.push(i.to_string()),
                TokenTree::Group(g) => tokens(&g.stream(), out),
                _ => {}
            }
        }
    }
    struct Outside(Vec<String>);
    impl<'a> Visit<'a> for Outside {
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'a syn::ExprAsync) {}
        fn visit_ident(&mut self, i: &'a proc_macro2::Ident) {
            self.0.push(i.to_string());
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            tokens(&m.tokens, &mut self.0);
        }
    }
    let mut v = Outside(Vec::new());
    v.visit_expr(e);
    v.0
}
