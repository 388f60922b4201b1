//! How a name or a field is used in place, for the field scan: channel operations on it
//! (through accessors), a parameter used only so, a clone handed to a `move` closure, and the
//! messages a function matches by value just as they were received.

use super::*;

/// Whether `e` is a message just received, by value: `rx.recv()`, `rx.try_recv()`,
/// `rx.recv_timeout(..)` (or `recv_deadline`), through `?`, `unwrap`, `expect` or `ok`.
pub(super) fn is_received(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Paren(p) => is_received(&p.expr),
        syn::Expr::Try(t) => is_received(&t.expr),
        syn::Expr::MethodCall(m) => match m.method.to_string().as_str() {
            "recv" | "try_recv" | "recv_timeout" | "recv_deadline" => true,
            "unwrap" | "expect" | "ok" => is_received(&m.receiver),
            _ => false,
        },
        _ => false,
    }
}

/// The names that every binding of in function `f` (closures included, nested items not)
/// binds to a message just received: `let m = rx.recv()?`, `while let Ok(m) = rx.try_recv()`,
/// `if let Some(m) = rx.recv().ok()`, `for m in rx` (also `rx.iter()`, `into_iter()`,
/// `try_iter()`, `&rx`) with `rx` a parameter declared a `Receiver` or bound by `let (tx, rx)
/// = channel()`. A name bound any other way anywhere in `f` is not one.
pub(super) fn received_names(inputs: &[&syn::FnArg], body: &syn::Block) -> HashSet<String> {
    #[derive(Default)]
    struct Bindings {
        received: HashSet<String>,
        /// Every other binding, counted by name.
        other: HashMap<String, usize>,
        /// Parameters declared a `Receiver`.
        receivers: HashSet<String>,
        /// `for m in rx`: (m, rx).
        loops: Vec<(String, String)>,
    }
    /// `rx` of `rx`, `&rx`, `rx.iter()`, `rx.into_iter()`, `rx.try_iter()`.
    fn iterated(e: &syn::Expr) -> Option<String> {
        match e {
            syn::Expr::Paren(p) => iterated(&p.expr),
            syn::Expr::Reference(r) => iterated(&r.expr),
            syn::Expr::MethodCall(m)
                if m.args.is_empty()
                    && matches!(
                        m.method.to_string().as_str(),
                        "iter" | "into_iter" | "try_iter"
                    ) =>
            {
                iterated(&m.receiver)
            }
            syn::Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
            _ => None,
        }
    }
    fn is_receiver_type(t: &syn::Type) -> bool {
        match t {
            syn::Type::Reference(r) => is_receiver_type(&r.elem),
            _ => type_name(t).is_some_and(|n| n == "Receiver"),
        }
    }
    /// `m`, `Ok(m)` or `Some(m)`.
    fn received_binding(p: &syn::Pat) -> Option<String> {
        match unwrap_pat(p) {
            syn::Pat::TupleStruct(t)
                if t.elems.len() == 1 && (t.path.is_ident("Ok") || t.path.is_ident("Some")) =>
            {
                received_binding(&t.elems[0])
            }
            q => pat_ident(q),
        }
    }
    impl<'a> Visit<'a> for Bindings {
        fn visit_local(&mut self, l: &'a syn::Local) {
            match (&l.init, received_binding(&l.pat)) {
                (Some(i), Some(n)) if i.diverge.is_none() && is_received(&i.expr) => {
                    self.received.insert(n);
                    self.visit_expr(&i.expr);
                }
                _ => syn::visit::visit_local(self, l),
            }
        }
        fn visit_expr_let(&mut self, l: &'a syn::ExprLet) {
            match received_binding(&l.pat) {
                Some(n) if is_received(&l.expr) => {
                    self.received.insert(n);
                    self.visit_expr(&l.expr);
                }
                _ => syn::visit::visit_expr_let(self, l),
            }
        }
        fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
            match (pat_ident(&f.pat), iterated(&f.expr)) {
                (Some(m), Some(r)) => {
                    self.loops.push((m, r));
                    self.visit_expr(&f.expr);
                    self.visit_block(&f.body);
                }
                _ => syn::visit::visit_expr_for_loop(self, f),
            }
        }
        fn visit_pat_ident(&mut self, i: &'a syn::PatIdent) {
            *self.other.entry(i.ident.to_string()).or_default() += 1;
            syn::visit::visit_pat_ident(self, i);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut b = Bindings::default();
    for a in inputs {
        if let syn::FnArg::Typed(t) = a
            && let Some(n) = pat_ident(&t.pat)
        {
            if is_receiver_type(&t.ty) {
                b.receivers.insert(n);
            } else {
                *b.other.entry(n).or_default() += 1;
            }
        }
    }
    // `let (tx, rx) = channel()`: the tuple's names are handles, the second a receiver.
    struct Ctors<'b>(&'b mut HashMap<String, usize>);
    impl<'a> Visit<'a> for Ctors<'_> {
        fn visit_local(&mut self, l: &'a syn::Local) {
            if let syn::Pat::Tuple(t) = unwrap_pat(&l.pat)
                && t.elems.len() == 2
                && let Some(i) = &l.init
                && let syn::Expr::Call(c) = &*i.expr
                && last_seg(&c.func).is_some_and(|l| CHANNEL_FNS.contains(&l.as_str()))
                && let Some(r) = pat_ident(&t.elems[1])
            {
                *self.0.entry(r).or_default() += 1;
            }
            syn::visit::visit_local(self, l);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut ctors = HashMap::new();
    Ctors(&mut ctors).visit_block(body);
    b.visit_block(body);
    // A receiver: a name every binding of which is a constructor's receiver (those bindings
    // are counted in `other` too), or a parameter declared one and never bound again.
    let count = |m: &HashMap<String, usize>, r: &str| m.get(r).copied().unwrap_or(0);
    let receiver = |r: &str| {
        count(&b.other, r) == count(&ctors, r) && (count(&ctors, r) > 0 || b.receivers.contains(r))
    };
    let loops = std::mem::take(&mut b.loops);
    let (into, not): (Vec<_>, Vec<_>) = loops.into_iter().partition(|(_, r)| receiver(r));
    b.received.extend(into.into_iter().map(|(m, _)| m));
    for (m, _) in not {
        *b.other.entry(m).or_default() += 1;
    }
    b.received.retain(|n| count(&b.other, n) == 0);
    b.received
}

/// The in-place receiver of a channel operation: `x` in `x.send(..)`, `x.as_ref().unwrap().recv()`.
pub(super) fn in_place_receiver(mc: &syn::ExprMethodCall) -> Option<&syn::Expr> {
    let m = mc.method.to_string();
    (OPERATIONS.contains(&m.as_str()) || QUERIES.contains(&m.as_str()))
        .then(|| through(&mc.receiver))
}

/// `e` without the accessors ([`THROUGH`]) and parentheses around it: `x` of
/// `(x.lock().unwrap())`.
pub(super) fn through(mut e: &syn::Expr) -> &syn::Expr {
    loop {
        match e {
            syn::Expr::MethodCall(m)
                if m.args.is_empty() && THROUGH.contains(&m.method.to_string().as_str()) =>
            {
                e = &m.receiver;
            }
            syn::Expr::Paren(p) => e = &p.expr,
            _ => return e,
        }
    }
}

/// Whether parameter `name` is used in `body` only as the in-place receiver of channel
/// operations, outside closures and macros.
pub(super) fn param_in_place(body: &syn::Block, name: &str) -> bool {
    struct ParamUses<'n> {
        name: &'n str,
        closures: usize,
        ok: HashSet<*const syn::ExprPath>,
        bad: bool,
    }
    impl<'a> Visit<'a> for ParamUses<'_> {
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
    let mut v = ParamUses {
        name,
        closures: 0,
        ok: HashSet::new(),
        bad: false,
    };
    v.visit_block(body);
    !v.bad
}

/// Whether a `move` closure or an `async move` block in `stmts` names `x` (not counting macros:
/// what they expand to is not read, and this decides a count of many).
pub(super) fn moved_into_closure(stmts: &[syn::Stmt], x: &str) -> bool {
    struct Moved {
        names: HashSet<String>,
        hit: bool,
    }
    impl<'a> Visit<'a> for Moved {
        fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
            if c.capture.is_some() && mentions(&c.body, &self.names) {
                self.hit = true;
            }
            syn::visit::visit_expr_closure(self, c);
        }
        fn visit_expr_async(&mut self, a: &'a syn::ExprAsync) {
            if a.capture.is_some() && mentions(&syn::Expr::Async(a.clone()), &self.names) {
                self.hit = true;
            }
            syn::visit::visit_expr_async(self, a);
        }
    }
    let mut v = Moved {
        names: HashSet::from([x.to_string()]),
        hit: false,
    };
    for st in stmts {
        v.visit_stmt(st);
    }
    v.hit
}
