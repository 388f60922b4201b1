//! Calls into the crate: a handle given to a same-crate function or method (followed into the
//! callee by parameter position), closures given to a function parameter, handles returned to
//! callers, and the helpers that read a callee (`FnOnce` jobs, rebindings, loops, local
//! collections).

use super::*;

/// Whether parameter `i` of `sig` is bounded by `FnOnce` or `FnMut` and not by `Fn`, `Clone` or
/// `Copy`.
pub(super) fn job_runs_once(sig: &syn::Signature, i: usize) -> bool {
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
pub(super) fn param_index(sig: &syn::Signature, name: &str) -> Option<usize> {
    if sig.receiver().is_some() {
        return None;
    }
    sig.inputs.iter().position(
        |a| matches!(a, syn::FnArg::Typed(t) if pat_ident(&t.pat).as_deref() == Some(name)),
    )
}

/// Whether `name` is bound anywhere in `block` (a shadowing the analysis does not track).
pub(super) fn rebinds(block: &syn::Block, name: &str) -> bool {
    struct Rebinding<'n>(&'n str, bool);
    impl<'a> Visit<'a> for Rebinding<'_> {
        fn visit_pat_ident(&mut self, i: &'a syn::PatIdent) {
            self.1 |= i.ident == self.0;
            syn::visit::visit_pat_ident(self, i);
        }
    }
    let mut r = Rebinding(name, false);
    r.visit_block(block);
    r.1
}

/// Every call of the function `name` in the crate, with the closure each passes at position
/// `pi` and where; `None` when one passes something else or the function is used as a value.
pub(super) fn closure_args(
    krate: &Crate,
    name: &str,
    pi: usize,
) -> Option<Vec<(usize, Option<String>, syn::ExprClosure)>> {
    struct ClosureArgs<'n> {
        name: &'n str,
        pi: usize,
        file: usize,
        owner: Option<String>,
        calls: HashSet<*const syn::ExprPath>,
        out: Vec<(usize, Option<String>, syn::ExprClosure)>,
        bad: bool,
    }
    impl<'a> Visit<'a> for ClosureArgs<'_> {
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
    let mut c = ClosureArgs {
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

pub(super) fn stmt_rebinds(st: &syn::Stmt, name: &str) -> bool {
    rebinds(
        &syn::Block {
            brace_token: Default::default(),
            stmts: vec![st.clone()],
        },
        name,
    )
}

/// Where `name` (or `&name`) is cloned inside a loop of `stmts`, if it is.
pub(super) fn cloned_in_loop(stmts: &[syn::Stmt], name: &str) -> Option<Span> {
    struct LoopClones<'n> {
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
    impl<'a> Visit<'a> for LoopClones<'_> {
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
    let mut l = LoopClones {
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
/// Whether `body` has a `return` of its own (not one of a closure, an async block or a nested
/// item) that may hand its callers another value: not `return None` or `return Err(..)`, which
/// a caller binding the value through `?`, `unwrap` or `expect` never binds.
pub(super) fn has_return(body: &syn::Block) -> bool {
    struct Returns(bool);
    impl<'a> Visit<'a> for Returns {
        fn visit_expr_return(&mut self, r: &'a syn::ExprReturn) {
            let failure = match r.expr.as_deref() {
                Some(syn::Expr::Path(p)) => p.path.is_ident("None"),
                Some(syn::Expr::Call(c)) => {
                    matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("Err"))
                }
                _ => false,
            };
            self.0 |= !failure;
        }
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'a syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut v = Returns(false);
    v.visit_block(body);
    v.0
}

/// A `let` binding the value of a call (see [`let_callers`]).
pub(super) struct LetCaller {
    /// The file it is in, the `impl`'s self type and the function it is in.
    pub(super) file: usize,
    pub(super) owner: Option<String>,
    pub(super) func: Option<String>,
    /// The name bound.
    pub(super) name: String,
    /// The statements after it.
    pub(super) rest: Vec<syn::Stmt>,
}

impl LetCaller {
    /// The function the binding is in, as a walk needs it: its one definition of that name in
    /// that file and impl.
    pub(super) fn function<'a>(&self, ix: &Index<'a>) -> Option<CurFn<'a>> {
        let name = self.func.as_ref()?;
        let defs = ix.fns.get(name)?;
        let mut here = defs
            .iter()
            .filter(|d| d.file == self.file && d.owner == self.owner);
        let d = here.next()?;
        here.next().is_none().then(|| CurFn {
            name: name.clone(),
            public: d.public,
            exported: d.exported,
            sig: d.sig,
            block: d.block,
        })
    }
}

/// The callers of function `name` (of type `owner`, for an associated function that takes no
/// `self`): `Some` when every call of it in the crate binds its value (or element `pos` of a
/// tuple) to a name by `let`, and nothing else names it; each such `let` with the statements
/// after it. Without an owner, every call of any function of that name counts. With one, the
/// calls are `Owner::name(..)` and, inside an impl of `Owner`, `Self::name(..)`; a crate that
/// renames the type (`use .. as`, a `type` alias naming it) may call it otherwise, and has none.
pub(super) fn let_callers(
    krate: &Crate,
    name: &str,
    pos: Option<usize>,
    owner: Option<&str>,
) -> Option<Vec<LetCaller>> {
    struct LetCallers<'n> {
        name: &'n str,
        /// The associated function's type.
        of: Option<&'n str>,
        pos: Option<usize>,
        file: usize,
        owner: Option<String>,
        func: Option<String>,
        bound: HashSet<usize>,
        calls: usize,
        out: Vec<LetCaller>,
        bad: bool,
    }
    impl LetCallers<'_> {
        /// The call of the function bound by a `let`: `f(..)`, or `f(..)?`, `f(..).unwrap()`,
        /// `f(..).expect(..)` (what `f` wrapped in `Ok` or `Some`).
        fn bound_call(&self, e: &syn::Expr) -> Option<usize> {
            match e {
                syn::Expr::Try(t) => self.bound_call(&t.expr),
                syn::Expr::MethodCall(m)
                    if ((m.method == "unwrap" && m.args.is_empty())
                        || (m.method == "expect" && m.args.len() == 1))
                        && m.method != self.name =>
                {
                    self.bound_call(&m.receiver)
                }
                _ => self.is_call(e),
            }
        }
        fn is_call(&self, e: &syn::Expr) -> Option<usize> {
            match e {
                syn::Expr::Call(c) => match &*c.func {
                    syn::Expr::Path(p) if self.names_it(&p.path) => Some(c as *const _ as usize),
                    _ => None,
                },
                syn::Expr::MethodCall(m) if self.of.is_none() && m.method == self.name => {
                    Some(m as *const _ as usize)
                }
                _ => None,
            }
        }
        /// Whether `path` names the function: by its last segment, or for an associated one
        /// `Owner::name` (`Self::name` in an impl of `Owner`).
        fn names_it(&self, path: &syn::Path) -> bool {
            let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            match (self.of, segs.as_slice()) {
                (None, [.., f]) => f == self.name,
                (Some(o), [.., t, f]) => {
                    f == self.name && (t == o || (t == "Self" && self.owner.as_deref() == Some(o)))
                }
                _ => false,
            }
        }
    }
    impl<'a> Visit<'a> for LetCallers<'_> {
        fn visit_item_impl(&mut self, i: &'a syn::ItemImpl) {
            let owner = match &*i.self_ty {
                syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
                _ => None,
            };
            let saved = std::mem::replace(&mut self.owner, owner);
            syn::visit::visit_item_impl(self, i);
            self.owner = saved;
        }
        fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
            let saved = (
                self.owner.take(),
                self.func.replace(f.sig.ident.to_string()),
            );
            syn::visit::visit_item_fn(self, f);
            (self.owner, self.func) = saved;
        }
        fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
            let saved = self.func.replace(f.sig.ident.to_string());
            syn::visit::visit_impl_item_fn(self, f);
            self.func = saved;
        }
        fn visit_block(&mut self, b: &'a syn::Block) {
            for (i, st) in b.stmts.iter().enumerate() {
                if let syn::Stmt::Local(l) = st
                    && let Some(init) = &l.init
                    && init.diverge.is_none()
                    && let Some(id) = self.bound_call(&init.expr)
                {
                    let bound = match (self.pos, unwrap_pat(&l.pat)) {
                        (None, _) => pat_ident(&l.pat),
                        (Some(k), syn::Pat::Tuple(t)) => t.elems.iter().nth(k).and_then(pat_ident),
                        (Some(_), _) => None,
                    };
                    match bound {
                        Some(x) => {
                            self.bound.insert(id);
                            self.out.push(LetCaller {
                                file: self.file,
                                owner: self.owner.clone(),
                                func: self.func.clone(),
                                name: x,
                                rest: b.stmts[i + 1..].to_vec(),
                            });
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
                && (self.names_it(&p.path)
                    // `<Owner>::name`, `<T as Trait>::name`: the type is not read here.
                    || (p.qself.is_some()
                        && p.path.segments.last().is_some_and(|s| s.ident == self.name)))
            {
                self.bad = true;
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            let names = |n: &str| mentions_tokens(&m.tokens, &HashSet::from([n.to_string()]));
            if names(self.name) && self.of.is_none_or(|o| names(o) || names("Self")) {
                self.bad = true;
            }
        }
        fn visit_use_rename(&mut self, r: &'a syn::UseRename) {
            // `use .. Owner as X`, or another item imported as `Owner`.
            if self.of.is_some_and(|o| r.ident == o || r.rename == o) {
                self.bad = true;
            }
        }
        fn visit_item_type(&mut self, t: &'a syn::ItemType) {
            let mut ids = HashSet::new();
            type_idents(&t.ty, &mut ids);
            if self.of.is_some_and(|o| ids.contains(o)) {
                self.bad = true;
            }
            syn::visit::visit_item_type(self, t);
        }
    }
    let mut c = LetCallers {
        name,
        of: owner,
        pos,
        file: 0,
        owner: None,
        func: None,
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
pub(super) fn local_collection(body: &syn::Block, v: &str, not_sync: bool) -> bool {
    struct CollectionUses<'n> {
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
            struct ElementUses<'n>(&'n str, HashSet<*const syn::ExprPath>, bool);
            impl<'a> Visit<'a> for ElementUses<'_> {
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
            let mut i = ElementUses(x, HashSet::new(), false);
            i.visit_expr(body);
            !i.2
        }
    }
    impl CollectionUses<'_> {
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
    impl<'a> Visit<'a> for CollectionUses<'_> {
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
    let mut l = CollectionUses {
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

impl Walker<'_, '_> {
    /// A call of a parameter `p` of a private function `g` that is handed a handle: every call of
    /// `g` in the crate must pass a closure there; each is walked where `p` is called, as
    /// alternatives (one runs per call of `g`): the side counts as the largest of them.
    pub(super) fn call_param(
        &mut self,
        cur: &CurFn<'_>,
        pi: usize,
        args: &[&syn::Expr],
        span: Span,
    ) {
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
                if let Some(Passes::Clone(s)) = self.carries(a) {
                    self.new_handle(s);
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
            let handle = match c {
                Passes::Clone(s) => self.new_handle(s),
                Passes::Alias => self.handle,
            };
            let before = self.facts.handles.clone();
            let mut best: Option<Vec<Handle>> = None;
            for (file, owner, cl) in &callers {
                let Some(n) = cl.inputs.iter().nth(j).and_then(pat_ident) else {
                    self.refuse(
                        &format!("bound to a parameter pattern of {pname}"),
                        a.span(),
                    );
                    continue;
                };
                self.facts.handles = before.clone();
                let saved = (
                    self.handle,
                    std::mem::replace(&mut self.names, HashSet::from([n])),
                    (
                        std::mem::take(&mut self.closures),
                        std::mem::take(&mut self.scope),
                    ),
                    self.file,
                    std::mem::replace(&mut self.owner, owner.clone()),
                    self.cur.take(),
                );
                self.handle = handle;
                self.file = *file;
                self.visit_expr(&cl.body);
                (
                    self.handle,
                    self.names,
                    (self.closures, self.scope),
                    self.file,
                    self.owner,
                    self.cur,
                ) = saved;
                keep_largest(&mut best, &self.facts.handles);
            }
            self.facts.handles = best.unwrap_or(before);
        }
    }

    /// A handle returned from the private function it is constructed in: every call of that
    /// function in the crate must bind the result with `let x = f(..);`; the rest of each
    /// caller's block is walked for `x`, as alternatives (each call constructs its own channel):
    /// the side counts as the largest.
    pub(super) fn follow_return(
        &mut self,
        cur: &CurFn<'_>,
        c: &Passes,
        pos: Option<usize>,
    ) -> bool {
        // One definition (of its type, for an associated function without `self`, which
        // calls name by its type), and no `return` that could hand the callers another value.
        let of = self.owner.clone().filter(|_| !takes_self(cur.sig));
        let defs = self.ix.fns.get(&cur.name).map_or(0, |d| {
            d.iter().filter(|d| of.is_none() || d.owner == of).count()
        });
        if defs != 1 || has_return(cur.block) {
            return false;
        }
        let Some(callers) = let_callers(self.ix.krate, &cur.name, pos, of.as_deref()) else {
            return false;
        };
        let handle = match c {
            Passes::Clone(s) => self.new_handle(s.clone()),
            Passes::Alias => self.handle,
        };
        let before = self.facts.handles.clone();
        let mut best: Option<Vec<Handle>> = None;
        for caller in &callers {
            self.facts.handles = before.clone();
            let saved = (
                self.handle,
                std::mem::replace(&mut self.names, HashSet::from([caller.name.clone()])),
                (
                    std::mem::take(&mut self.closures),
                    std::mem::take(&mut self.scope),
                ),
                self.file,
                std::mem::replace(&mut self.owner, caller.owner.clone()),
                std::mem::replace(&mut self.cur, caller.function(self.ix)),
            );
            self.handle = handle;
            self.file = caller.file;
            // The caller's stack frame: a return from it is not followed again.
            self.stack.push((caller.file, cur.name.clone()));
            self.stmts(&caller.rest, false);
            self.stack.pop();
            (
                self.handle,
                self.names,
                (self.closures, self.scope),
                self.file,
                self.owner,
                self.cur,
            ) = saved;
            keep_largest(&mut best, &self.facts.handles);
        }
        self.facts.handles = best.unwrap_or(before);
        true
    }

    pub(super) fn call_same_crate_method(&mut self, mc: &syn::ExprMethodCall) -> bool {
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
