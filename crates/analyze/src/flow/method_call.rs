//! The rule for method calls on a handle or with a handle argument: `clone_from`, iterators
//! over a handle made parallel (`par_bridge`), clones whose value goes unfollowed, channel operations, parallel `*_with` adaptors, spawns and pools'
//! `execute*`, the crate's own methods, stores into collections and statics, iterator
//! adaptors given a closure that names a handle, and hand-offs to methods it does not know.

use super::*;

impl Walker<'_, '_> {
    /// A method call (see the module documentation).
    pub(super) fn method_call(&mut self, e: &syn::Expr, mc: &syn::ExprMethodCall) {
        let m = mc.method.to_string();
        // `b.clone_from(&a)`: `b` drops its handle and holds a clone of `a`'s.
        if m == "clone_from" && mc.args.len() == 1 && self.clone_from(mc) {
            return;
        }
        // An iterator over the handle made parallel (`rx.into_iter().par_bridge()`,
        // `rx.iter().par_bridge()`): every worker of the pool pulls from it, so the side is
        // used on many threads (one at a time, through the bridge's lock, as with a receiver
        // in an `Arc<Mutex<_>>`). Then the chain is walked as usual.
        if (m.starts_with("par_") || m.starts_with("into_par"))
            && self.iterated_handle(&mc.receiver)
        {
            let s = self.site(mc.method.span());
            let saved = self.place.clone();
            self.place.thread = Some(s.clone());
            self.place.many = Some(("iterated by a parallel iterator".into(), s));
            self.use_here();
            self.place = saved;
        }
        // A clone whose value goes somewhere no rule above follows (a closure's result,
        // a tuple, a block's or a branch's value): one more handle, not followed. Not a
        // use on this thread, which would leave the new handle uncounted.
        if let Some(Passes::Clone(s)) = self.carries(e) {
            self.new_handle(s);
            self.conservative(
                "cloned into a place the analysis does not follow",
                mc.method.span(),
            );
            return;
        }
        if let Some(c) = self.carries(&mc.receiver) {
            if let Passes::Clone(s) = c {
                self.new_handle(s);
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
                    let saved = (self.handle, self.place.clone());
                    if let Passes::Clone(cs) = c {
                        self.handle = self.new_handle(cs);
                    }
                    self.place.thread = Some(s.clone());
                    self.place.many = Some((
                        "cloned for every split of a parallel iterator".into(),
                        s.clone(),
                    ));
                    self.use_here();
                    (self.handle, self.place) = saved;
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
        // Method syntax reaches only functions with a `self` parameter.
        let own: Vec<&FnDef<'_>> = self
            .ix
            .fns
            .get(&m)
            .map(|d| {
                d.iter()
                    .filter(|d| d.owner.is_some() && takes_self(d.sig))
                    .collect()
            })
            .unwrap_or_default();
        // A method whose parameter there is a struct or enum of the crate cannot be given the
        // closure: not a candidate.
        let closure_at = mc
            .args
            .iter()
            .position(|a| self.as_closure(a).is_some() || block_closure(a).is_some());
        let own: Vec<&FnDef<'_>> = own
            .into_iter()
            .filter(|d| closure_at.is_none_or(|i| self.accepts_closure(d.sig, i + 1)))
            .collect();
        // A thread library's scope spawns its closure once, on a thread of its own.
        let on_scope = matches!(&*mc.receiver, syn::Expr::Path(p)
            if p.path.get_ident().is_some_and(|i| self.scope.scopes.contains(&i.to_string())));
        // `std::thread::Builder::new()..spawn(..)` (or `spawn_scoped`) is std's, whatever
        // methods of that name the crate has.
        let std_builder = m.starts_with("spawn")
            && builder_root(&mc.receiver)
                .is_some_and(|p| self.std_path(p, &["std", "thread", "Builder", "new"]));
        let once = match own.as_slice() {
            _ if (on_scope && m == "spawn") || std_builder => true,
            [] => true,
            // Whichever of the crate's methods of that name it is (one, or several that agree):
            // each runs the job at most once at a time.
            defs => closure_at.is_some_and(|i| defs.iter().all(|d| job_runs_once(d.sig, i + 1))),
        };
        if once && (m.starts_with("spawn") || m.starts_with("execute")) {
            let cls: Vec<&syn::Expr> = mc
                .args
                .iter()
                .filter(|a| {
                    let c = self.as_closure(a);
                    let c = c.as_ref().or_else(|| block_closure(a));
                    c.is_some_and(|c| m.starts_with("spawn") || c.capture.is_some())
                })
                .collect();
            if !cls.is_empty() {
                self.visit_expr(&mc.receiver);
                for a in cls {
                    self.spawn_arg(a, mc.method.span(), m == "spawn_broadcast");
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
                    && self.place.thread.is_none()
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
                    if let Passes::Clone(s) = c {
                        self.new_handle(s);
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
                    self.scope_closure(&cl);
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

    /// Whether parameter `i` of `sig` may be given a closure: not when its type is a struct or
    /// enum of the crate (by name, not one of the function's type parameters).
    fn accepts_closure(&self, sig: &syn::Signature, i: usize) -> bool {
        let Some(syn::FnArg::Typed(p)) = sig.inputs.iter().nth(i) else {
            return false;
        };
        let syn::Type::Path(tp) = &*p.ty else {
            return true;
        };
        let Some(last) = tp.path.segments.last() else {
            return true;
        };
        let generic = sig.generics.type_params().any(|g| g.ident == last.ident);
        generic || !self.ix.fields.holders.contains_key(&last.ident.to_string())
    }

    /// Whether `e` is an iterator chain over the handle (`rx.iter()`, `rx.try_iter()`,
    /// `rx.into_iter().filter(..)`, ...): its items are received from the side. (An iterator
    /// over something received, `rx.recv()?.into_iter()`, is not.)
    fn iterated_handle(&self, e: &syn::Expr) -> bool {
        match e {
            syn::Expr::MethodCall(m) => {
                (matches!(
                    m.method.to_string().as_str(),
                    "iter" | "into_iter" | "try_iter"
                ) && self.carries(&m.receiver).is_some())
                    || self.iterated_handle(&m.receiver)
            }
            syn::Expr::Paren(p) => self.iterated_handle(&p.expr),
            _ => false,
        }
    }
}

/// The path of the call a chain of std `Builder` setters starts from: `thread::Builder::new` of
/// `thread::Builder::new().name(..).stack_size(..)`. (Any other method in the chain may be the
/// crate's own, through an extension trait, and return another type.)
fn builder_root(mut e: &syn::Expr) -> Option<&syn::Path> {
    loop {
        match e {
            syn::Expr::MethodCall(m) if m.method == "name" || m.method == "stack_size" => {
                e = &m.receiver;
            }
            syn::Expr::Call(c) => match &*c.func {
                syn::Expr::Path(p) if p.qself.is_none() => return Some(&p.path),
                _ => return None,
            },
            _ => return None,
        }
    }
}
