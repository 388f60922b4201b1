//! The walk of one side ([`Walker`]): the handles of the side ([`Handle`]: the original and
//! each clone, with where it is used), the place the walk is in ([`Place`]: a spawned thread, a
//! loop) and how an expression passes a handle on ([`Passes`]); a walk starts, and its verdict
//! is given, in `side.rs`. The rules for bindings, clones, stores, spawns and macros are the
//! methods here; the expression forms are dispatched in `dispatch.rs`, calls into the crate in
//! `calls.rs`.

use super::*;

#[derive(Clone, Default, PartialEq)]
pub(super) struct Handle {
    pub(super) used: bool,
    pub(super) on_constructing: bool,
    pub(super) spawns: Vec<Site>,
    pub(super) many: Option<(String, Site)>,
}

#[derive(Default)]
pub(super) struct SideFacts {
    pub(super) handles: Vec<Handle>,
    pub(super) cons: Option<(String, Site)>,
    pub(super) refused: Option<(String, Site)>,
}

#[derive(Clone, Default)]
pub(super) struct Place {
    pub(super) thread: Option<Site>,
    pub(super) many: Option<(String, Site)>,
    pub(super) in_loop: bool,
}

pub(super) enum Passes {
    Alias,
    Clone(Site),
}

pub(super) const WRAPPERS: &[&str] = &[
    "new", "Some", "Ok", "Box", "Arc", "Rc", "Mutex", "RwLock", "RefCell", "Cell",
];

pub(super) const ACCESS: &[&str] = &[
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

pub(super) const STORE: &[&str] = &[
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

pub(super) const ITER: &[&str] = &[
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
pub(super) const FORMAT: &[&str] = &[
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

/// What names in scope hold besides the walk's own handle; scoped like the walk's names (a
/// binding shadows, a block's end restores, a call into another function starts empty).
#[derive(Clone, Default)]
pub(super) struct Scope {
    /// Names bound to the other handles of the same side (`let b = a.clone()` seen from `a`'s
    /// walk, and `a` from `b`'s): for `b.clone_from(&a)`.
    pub(super) siblings: HashSet<String>,
    /// Names of this walk bound to an `Rc` holding the handle (`let r = Rc::new(..)`, or a
    /// clone of such a name): an `Rc` never leaves its thread, so its clones are more holders
    /// of the same handle on the same thread, not more handles.
    pub(super) rc: HashSet<String>,
    /// Names bound to a thread library's scope (the parameter of the closure given to
    /// `std::thread::scope`, crossbeam's or rayon's `scope`): their `spawn` is the library's,
    /// whatever methods of that name the crate has.
    pub(super) scopes: HashSet<String>,
}

impl Scope {
    /// `name` is bound anew: it holds neither a sibling, an `Rc` nor a scope.
    pub(super) fn forget(&mut self, name: &str) {
        self.siblings.remove(name);
        self.rc.remove(name);
        self.scopes.remove(name);
    }
}

pub(super) struct Walker<'w, 'a> {
    pub(super) ix: &'w Index<'a>,
    pub(super) file: usize,
    pub(super) facts: &'w mut SideFacts,
    pub(super) names: HashSet<String>,
    /// What the names in scope hold besides this walk's handle (see [`Scope`]).
    pub(super) scope: Scope,
    pub(super) closures: HashMap<String, syn::ExprClosure>,
    pub(super) place: Place,
    pub(super) handle: usize,
    pub(super) stack: Vec<(usize, String)>,
    pub(super) expanding: usize,
    /// How many times the handle has been moved into a confined field (see `literal.rs`),
    /// and how many of those were a message variant's.
    pub(super) held: usize,
    pub(super) held_variant: usize,
    /// The `impl`'s self type of the function being walked.
    pub(super) owner: Option<String>,
    /// The function being walked (for calls of its parameters).
    pub(super) cur: Option<CurFn<'a>>,
    /// Whether the handle is not `Sync` (a std receiver).
    pub(super) not_sync: bool,
    /// Whether the handle can be cloned (not a std receiver, nor welltempered's spsc handles).
    pub(super) cloneable: bool,
    /// Closures that a spawn receives as the value of a block, which the walk reaches at the
    /// block's end: spawned there (from the call's span; whether on every worker).
    pub(super) spawned_tails: HashMap<*const syn::ExprClosure, (Span, bool)>,
}

/// The closure an unlabelled block `{ ..; move || .. }` ends with, as its value.
pub(super) fn block_closure(e: &syn::Expr) -> Option<&syn::ExprClosure> {
    match e {
        syn::Expr::Block(b) if b.label.is_none() => match b.block.stmts.last() {
            Some(syn::Stmt::Expr(syn::Expr::Closure(c), None)) => Some(c),
            _ => None,
        },
        _ => None,
    }
}

/// The count a set of handles adds up to.
/// Of several alternative walks (each call site of a function is one), keeps the one whose
/// side counts the most handles: an unbounded count beats every bounded one.
pub(super) fn keep_largest(best: &mut Option<Vec<Handle>>, handles: &[Handle]) {
    let larger = best.as_ref().is_none_or(|b| {
        match (count_handles(handles).value(), count_handles(b).value()) {
            (None, _) => true,
            (_, None) => false,
            (Some(x), Some(y)) => x > y,
        }
    });
    if larger {
        *best = Some(handles.to_vec());
    }
}

pub(super) fn count_handles(handles: &[Handle]) -> Count {
    handles.iter().filter(|u| u.used).fold(Count::N(0), |n, u| {
        if u.many.is_some() {
            Count::Many
        } else {
            n.plus(Count::of(
                u.spawns.len().max(1) + usize::from(u.on_constructing && !u.spawns.is_empty()),
            ))
        }
    })
}

impl Walker<'_, '_> {
    pub(super) fn site(&self, span: Span) -> Site {
        site(self.ix.krate, self.file, span)
    }

    pub(super) fn refuse(&mut self, reason: &str, span: Span) {
        let s = self.site(span);
        self.facts.refused.get_or_insert((reason.to_string(), s));
    }

    pub(super) fn conservative(&mut self, reason: &str, span: Span) {
        let s = self.site(span);
        self.facts.cons.get_or_insert((reason.to_string(), s));
    }

    pub(super) fn use_here(&mut self) {
        let u = &mut self.facts.handles[self.handle];
        u.used = true;
        match &self.place.thread {
            Some(t) => {
                if !u.spawns.contains(t) {
                    u.spawns.push(t.clone());
                }
            }
            None => u.on_constructing = true,
        }
        if let Some(m) = &self.place.many {
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
    pub(super) fn clone_from(&mut self, mc: &syn::ExprMethodCall) -> bool {
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
                .is_some_and(|n| w.names.contains(n) || w.scope.siblings.contains(n))
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
                Passes::Clone(s),
                "cloned by clone_from into a binding not followed",
                mc.receiver.span(),
            );
            self.visit_expr(&mc.receiver);
            return true;
        }
        false
    }

    pub(super) fn stored(&mut self, c: Passes, reason: &str, span: Span) {
        match c {
            Passes::Clone(s) => {
                let u = self.new_handle(s);
                let saved = self.handle;
                self.handle = u;
                self.use_here();
                self.handle = saved;
            }
            Passes::Alias => self.use_here(),
        }
        self.conservative(reason, span);
    }

    /// A handle moved into a confined field (see [`Fields`]): one handle, used by whichever
    /// thread holds the struct, one at a time.
    pub(super) fn in_field(&mut self, c: Passes) {
        self.held += 1;
        let saved = self.handle;
        if let Passes::Clone(s) = c {
            self.handle = self.new_handle(s);
        }
        self.use_here();
        self.handle = saved;
    }

    /// Whether `e` is a struct literal (possibly wrapped: `Arc::new(S { .. })`) with a field
    /// that carries the handle.
    pub(super) fn holds_handle(&self, e: &syn::Expr) -> bool {
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
    pub(super) fn fn_once_field(
        &mut self,
        name: &str,
        field: &str,
        e: &syn::Expr,
        span: Span,
    ) -> bool {
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

    /// A handle of unboundedly many handles, for `why`.
    pub(super) fn many_handle(&mut self, why: String, span: Span) {
        let s = self.site(span);
        let u = self.new_handle(s.clone());
        let u = &mut self.facts.handles[u];
        u.used = true;
        u.many = Some((why, s));
    }

    /// The struct a literal or tuple-struct call names (`Self` is the impl's type).
    pub(super) fn struct_name(&self, path: &syn::Path) -> Option<String> {
        let id = path.get_ident()?.to_string();
        if id == "Self" {
            self.owner.clone()
        } else {
            Some(id)
        }
    }

    pub(super) fn new_handle(&mut self, clone_site: Site) -> usize {
        let mut u = Handle::default();
        if self.place.in_loop {
            u.many = Some(("cloned in a loop".into(), clone_site));
        }
        self.facts.handles.push(u);
        self.facts.handles.len() - 1
    }

    /// Whether `e` is a name of this walk bound to an `Rc` (see [`Scope::rc`]); never in a
    /// crate with an `unsafe impl Send`.
    fn is_rc(&self, e: &syn::Expr) -> bool {
        if self.ix.fields.unsafe_send {
            return false;
        }
        match e {
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| self.scope.rc.contains(&i.to_string())),
            syn::Expr::Reference(r) => self.is_rc(&r.expr),
            syn::Expr::Paren(p) => self.is_rc(&p.expr),
            _ => false,
        }
    }

    /// Whether the value of `e` is an `Rc`: `Rc::new(..)`, `Rc::clone(..)` (any path ending
    /// so), or a clone of a name bound to one.
    fn rc_value(&self, e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Call(c) => match &*c.func {
                syn::Expr::Path(p) => {
                    let segs: Vec<String> = path_segments(&p.path);
                    segs.len() >= 2
                        && segs[segs.len() - 2] == "Rc"
                        && matches!(segs[segs.len() - 1].as_str(), "new" | "clone")
                }
                _ => false,
            },
            syn::Expr::MethodCall(m) => m.method == "clone" && self.is_rc(&m.receiver),
            syn::Expr::Paren(p) => self.rc_value(&p.expr),
            _ => false,
        }
    }

    pub(super) fn carries(&self, e: &syn::Expr) -> Option<Passes> {
        match e {
            syn::Expr::Path(p) => {
                let id = p.path.get_ident()?.to_string();
                self.names.contains(&id).then_some(Passes::Alias)
            }
            syn::Expr::Reference(r) => self.carries(&r.expr),
            syn::Expr::Paren(p) => self.carries(&p.expr),
            syn::Expr::MethodCall(m) => {
                let inner = self.carries(&m.receiver)?;
                let name = m.method.to_string();
                // `cloned()` of an `Option<&Sender>` (or an iterator of them), and
                // `map(Sender::clone)`, clone the handle as `clone()` does.
                let clone_fn = |a: &syn::Expr| last_seg(a).is_some_and(|l| l == "clone");
                if name == "clone" && m.args.is_empty() && self.is_rc(&m.receiver) {
                    // Another holder of the same `Rc`, on the same thread.
                    Some(inner)
                } else if (name == "clone" || name == "to_owned" || name == "cloned")
                    && m.args.is_empty()
                    || name == "map" && m.args.len() == 1 && clone_fn(&m.args[0])
                {
                    Some(Passes::Clone(self.site(m.method.span())))
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
                let segs: Vec<String> = path_segments(&p.path);
                if c.args.len() != 1 {
                    return None;
                }
                let inner = self.carries(&c.args[0])?;
                let last = segs.last()?.as_str();
                if last == "clone"
                    && segs.len() >= 2
                    && segs[segs.len() - 2] == "Rc"
                    && !self.ix.fields.unsafe_send
                {
                    // `Rc::clone(&r)`: another holder on the same thread.
                    return Some(inner);
                }
                if last == "clone" {
                    return Some(Passes::Clone(self.site(c.span())));
                }
                if segs.iter().any(|s| WRAPPERS.contains(&s.as_str())) && last != "spawn" {
                    return Some(inner);
                }
                None
            }
            _ => None,
        }
    }

    pub(super) fn stmts(&mut self, stmts: &[syn::Stmt], is_fn_body: bool) {
        let saved = (
            self.names.clone(),
            self.closures.clone(),
            self.scope.clone(),
        );
        for (i, st) in stmts.iter().enumerate() {
            match st {
                syn::Stmt::Local(l) => self.local(l, &stmts[i + 1..], is_fn_body),
                syn::Stmt::Item(_) => {}
                syn::Stmt::Expr(e, semi) => {
                    if is_fn_body && semi.is_none() && i + 1 == stmts.len() {
                        // What is returned: the value, or one element of a tuple, possibly in
                        // `Ok`/`Some`.
                        let (e, pos) = match returned_element(e, |x| self.carries(x).is_some()) {
                            Returned::Whole(x) => (x, None),
                            Returned::Element(x, k) => (x, Some(k)),
                            Returned::Several => {
                                self.refuse("returned from its function", e.span());
                                continue;
                            }
                        };
                        if let Some(c) = self.carries(e) {
                            if self.stack.is_empty()
                                && let Some(cur) = self.cur.clone()
                                && !cur.public
                                && self.follow_return(&cur, &c, pos)
                            {
                                continue;
                            }
                            if let Some(why) = self.returned_to_users() {
                                if let Passes::Clone(s) = c {
                                    self.new_handle(s);
                                }
                                self.many_handle(why, e.span());
                                continue;
                            }
                            if let Passes::Clone(_) = c {
                                let s = self.site(e.span());
                                self.new_handle(s);
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
        (self.names, self.closures, self.scope) = saved;
    }

    pub(super) fn local(&mut self, l: &syn::Local, rest: &[syn::Stmt], is_fn_body: bool) {
        let mut binds = HashSet::new();
        pat_binds(&l.pat, &mut binds);
        if let Some(init) = &l.init {
            if let Some(c) = self.carries(&init.expr) {
                match (pat_ident(&l.pat), c) {
                    (Some(n), Passes::Alias) => {
                        if self.rc_value(&init.expr) {
                            self.scope.rc.insert(n.clone());
                        } else {
                            self.scope.rc.remove(&n);
                        }
                        self.names.insert(n);
                        return;
                    }
                    (Some(n), Passes::Clone(s)) => {
                        let u = self.new_handle(s);
                        let saved_unit = self.handle;
                        let saved_names =
                            std::mem::replace(&mut self.names, HashSet::from([n.clone()]));
                        // Seen from the clone, the handles of this walk are its siblings.
                        let outer: HashSet<String> =
                            saved_names.union(&self.scope.siblings).cloned().collect();
                        let scopes = self.scope.scopes.clone();
                        let saved_scope = std::mem::replace(
                            &mut self.scope,
                            Scope {
                                siblings: outer,
                                rc: HashSet::new(),
                                scopes,
                            },
                        );
                        let saved_cl = std::mem::take(&mut self.closures);
                        self.handle = u;
                        self.stmts(rest, is_fn_body);
                        self.handle = saved_unit;
                        self.names = saved_names;
                        self.scope = saved_scope;
                        self.closures = saved_cl;
                        for b in &binds {
                            self.names.remove(b);
                            self.scope.forget(b);
                        }
                        self.scope.siblings.insert(n);
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
            let held = (self.held, self.held_variant);
            self.visit_expr(&init.expr);
            if let Some((_, d)) = &init.diverge {
                self.visit_expr(d);
            }
            // The struct holding the handle in a confined field (built here, or by a function
            // of the crate given the handle) is one holder used where it is; one that a
            // closure captures, or that is sent, may be used on another thread too, before or
            // after (unless moved to one thread and not named again: see `holder_captured`).
            let own_spawn = self.ix.fns.contains_key("spawn");
            let sendable = self.held - held.0 == self.held_variant - held.1;
            if self.held > held.0
                && let Some(span) = holder_captured(&binds, rest, own_spawn, sendable)
            {
                self.conservative("the struct holding it is captured or sent on", span);
            }
            // A struct holding the handle, bound to a name that is cloned in a loop (an `Arc`
            // shared by the workers of a pool): many holders.
            if let Some(n) = pat_ident(&l.pat)
                && self.holds_handle(&init.expr)
                && !rest.iter().any(|st| stmt_rebinds(st, &n))
                && let Some(span) = cloned_in_loop(rest, &n)
            {
                self.many_handle("the struct holding it is cloned in a loop".into(), span);
            }
        }
        // A `#[cfg(..)]` binding may be compiled out (`let (tx, rx)` once per feature): it does
        // not certainly shadow the names, so they stay followed.
        if l.attrs.iter().any(|a| a.path().is_ident("cfg")) {
            return;
        }
        for b in &binds {
            self.names.remove(b);
            self.scope.forget(b);
            self.closures.remove(b);
        }
    }

    pub(super) fn with_place(&mut self, place: Place, shadow: &HashSet<String>, body: &syn::Expr) {
        let saved = (self.place.clone(), self.names.clone(), self.scope.clone());
        self.place = place;
        for b in shadow {
            self.names.remove(b);
            self.scope.forget(b);
        }
        self.visit_expr(body);
        (self.place, self.names, self.scope) = saved;
    }

    pub(super) fn closure_params(c: &syn::ExprClosure) -> HashSet<String> {
        let mut s = HashSet::new();
        for p in &c.inputs {
            pat_binds(p, &mut s);
        }
        s
    }

    pub(super) fn as_closure(&self, e: &syn::Expr) -> Option<syn::ExprClosure> {
        match e {
            syn::Expr::Closure(c) => Some(c.clone()),
            syn::Expr::Path(p) => {
                let id = p.path.get_ident()?.to_string();
                self.closures.get(&id).cloned()
            }
            _ => None,
        }
    }

    /// A spawn's argument `a`: a closure (see [`Walker::as_closure`]), or a block whose value
    /// is one (`spawn({ let tx = tx.clone(); move || .. })`): the block's statements run here,
    /// on this thread, and the closure they end with is spawned with the names they bind.
    pub(super) fn spawn_arg(&mut self, a: &syn::Expr, span: Span, broadcast: bool) {
        if let Some(c) = block_closure(a) {
            let key = c as *const _;
            let outer = self.spawned_tails.insert(key, (span, broadcast));
            if let syn::Expr::Block(b) = a {
                self.stmts(&b.block.stmts, false);
            }
            match outer {
                Some(o) => self.spawned_tails.insert(key, o),
                None => self.spawned_tails.remove(&key),
            };
        } else if let Some(cl) = self.as_closure(a) {
            self.spawn(&cl, span, broadcast);
        }
    }

    pub(super) fn spawn(&mut self, c: &syn::ExprClosure, span: Span, broadcast: bool) {
        let s = self.site(span);
        let mut place = self.place.clone();
        place.thread = Some(s.clone());
        if place.in_loop || broadcast {
            let why = if broadcast {
                "run on every worker"
            } else {
                "spawned in a loop"
            };
            place.many.get_or_insert((why.into(), s));
        }
        place.in_loop = false;
        let shadow = Self::closure_params(c);
        self.with_place(place, &shadow, &c.body);
    }

    /// The closure given to a thread library's `scope`: run once, here, with its parameter
    /// bound to the scope (see [`Scope::scopes`]).
    pub(super) fn scope_closure(&mut self, c: &syn::ExprClosure) {
        let saved = (self.place.clone(), self.names.clone(), self.scope.clone());
        for b in Self::closure_params(c) {
            self.names.remove(&b);
            self.scope.forget(&b);
        }
        if let Some(n) = c.inputs.first().and_then(pat_ident) {
            self.scope.scopes.insert(n);
        }
        self.visit_expr(&c.body);
        (self.place, self.names, self.scope) = saved;
    }

    pub(super) fn inline_closure(&mut self, c: &syn::ExprClosure, in_loop: bool) {
        let mut place = self.place.clone();
        place.in_loop |= in_loop;
        let shadow = Self::closure_params(c);
        self.with_place(place, &shadow, &c.body);
    }

    pub(super) fn call_same_crate(
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
        // Method syntax reaches only functions with a `self` parameter.
        let defs: Vec<&FnDef<'_>> = all
            .iter()
            .filter(|d| want.admits(&d.owner) && (!method || takes_self(d.sig)))
            .collect();
        if defs.is_empty() {
            return false;
        }
        if let [def] = defs.as_slice() {
            self.call_def(def, name, args, method, span);
            return true;
        }
        // The call runs one of them: each is walked as an alternative, and where they all
        // leave the side's handles alike (used on the same threads), the walk goes on from
        // there. Where they differ, or one is not followed, the call is a lower bound: the
        // side as it was before the call, at least.
        let before = self.facts.handles.clone();
        let (refused, cons) = (self.facts.refused.clone(), self.facts.cons.clone());
        let mut first: Option<Vec<Handle>> = None;
        let mut agree = true;
        for def in defs {
            self.facts.handles = before.clone();
            self.call_def(def, name, args, method, span);
            agree &= self.facts.refused == refused
                && *first.get_or_insert_with(|| self.facts.handles.clone()) == self.facts.handles;
            if !agree {
                break;
            }
        }
        if !agree {
            (self.facts.handles, self.facts.refused, self.facts.cons) = (before, refused, cons);
            self.conservative(
                &format!("call to {name} resolves to several functions"),
                span,
            );
        }
        true
    }

    pub(super) fn mac(&mut self, m: &syn::Macro) {
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

impl<'w, 'a> Walker<'w, 'a> {
    /// Walks the definition `def` a call of `name` resolves to, with the handles it is given
    /// bound to its parameters.
    fn call_def(
        &mut self,
        def: &'w FnDef<'a>,
        name: &str,
        args: &[&syn::Expr],
        method: bool,
        span: Span,
    ) {
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
                self.handle,
                std::mem::replace(&mut self.names, HashSet::from([pname])),
                (
                    std::mem::take(&mut self.closures),
                    std::mem::take(&mut self.scope),
                ),
                self.file,
                std::mem::replace(&mut self.owner, def.owner.clone()),
                self.cur.replace(CurFn {
                    name: name.to_string(),
                    public: def.public,
                    exported: def.exported,
                    sig: def.sig,
                    block: def.block,
                }),
            );
            if let Passes::Clone(s) = c {
                self.handle = self.new_handle(s);
            }
            self.file = def.file;
            self.stack.push(key.clone());
            self.stmts(&def.block.stmts, true);
            self.stack.pop();
            (
                self.handle,
                self.names,
                (self.closures, self.scope),
                self.file,
                self.owner,
                self.cur,
            ) = saved;
        }
    }
}
