//! The walker's dispatch: every expression form goes to the rule for it, and a form no rule
//! knows that mentions a handle is refused (`used in a way the analysis does not follow`).

use super::*;

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
                        let segs: Vec<String> = path_segments(&p.path);
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
                        if let Passes::Clone(s) = cr {
                            self.new_handle(s);
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
                let saved = (self.place.in_loop, self.names.clone(), self.scope.clone());
                self.place.in_loop = true;
                let mut b = HashSet::new();
                pat_binds(&f.pat, &mut b);
                for n in b {
                    self.names.remove(&n);
                    self.scope.forget(&n);
                }
                self.stmts(&f.body.stmts, false);
                (self.place.in_loop, self.names, self.scope) = saved;
            }
            syn::Expr::While(w) => {
                let saved = self.place.in_loop;
                self.place.in_loop = true;
                self.visit_expr(&w.cond);
                self.stmts(&w.body.stmts, false);
                self.place.in_loop = saved;
            }
            syn::Expr::Loop(l) => {
                let saved = self.place.in_loop;
                self.place.in_loop = true;
                self.stmts(&l.body.stmts, false);
                self.place.in_loop = saved;
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
                            self.many_handle(why, f.expr.span());
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
