//! The rule for function calls with a handle: a closure given to a parameter of the function
//! being walked, `thread::spawn` and the other spawns, the crate's own functions, `drop`,
//! wrappers, and hand-offs to functions it does not know.

use super::*;

impl Walker<'_, '_> {
    /// A function call (see the module documentation).
    pub(super) fn call(&mut self, c: &syn::ExprCall) {
        let Some(last) = last_seg(&c.func) else {
            syn::visit::visit_expr_call(self, c);
            return;
        };
        let args: Vec<&syn::Expr> = c.args.iter().collect();
        // `std::panic::catch_unwind(f)`, also of `AssertUnwindSafe(f)`: `f` runs once, here.
        if let syn::Expr::Path(p) = &*c.func
            && self.std_path(&p.path, &["std", "panic", "catch_unwind"])
            && let [a] = args.as_slice()
            && let Some(cl) = self.unwind_safe_closure(a)
        {
            self.inline_closure(&cl, false);
            return;
        }
        // `std::mem::replace(&mut self.f, h)`: stores `h` as `self.f = h` does (the old value is
        // the field's, not this walk's).
        if let syn::Expr::Path(p) = &*c.func
            && self.std_path(&p.path, &["std", "mem", "replace"])
            && let [place, value] = args.as_slice()
            && let syn::Expr::Reference(r) = place
            && r.mutability.is_some()
            && let Some((n, f)) = self.self_field(&r.expr)
            && let Some(carried) = self.carries(value)
        {
            self.moved_to_field(carried, Some(&n), &f, value);
            return;
        }
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
        if threads_lib && matches!(last.as_str(), "spawn" | "spawn_fifo" | "spawn_broadcast") {
            let cls: Vec<&syn::Expr> = args
                .iter()
                .copied()
                .filter(|a| self.as_closure(a).is_some() || block_closure(a).is_some())
                .collect();
            if !cls.is_empty() {
                for a in cls {
                    self.spawn_arg(a, c.func.span(), last == "spawn_broadcast");
                }
                return;
            }
        }
        if threads_lib
            && matches!(last.as_str(), "scope" | "in_place_scope")
            && let Some(cl) = args.first().and_then(|a| self.as_closure(a))
        {
            self.scope_closure(&cl);
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
        if args.len() == 1
            && matches!(&*c.func, syn::Expr::Path(p) if is_std_drop(&p.path, &self.ix.imports[self.file], &self.ix.fns, self.ix.fields.drop_shadowed))
            && self.carries(args[0]).is_some()
        {
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
                    self.held_variant += 1;
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
                // A variant of the crate's (`E::V` of its enum `E`, or a bare `V`).
                let variant = matches!(&*c.func, syn::Expr::Path(p)
                if p.path.segments.last().is_some_and(|v| {
                    self.ix.fields.variants.get(&v.ident.to_string()).is_some_and(|defs| {
                        p.path.segments.len() == 1
                            || defs.iter().any(|(e, _, _)| {
                                p.path.segments.iter().rev().nth(1).is_some_and(|s| s.ident == e)
                            })
                    })
                }));
                if variant {
                    let why = format!("moved into variant {f}, not proved to reach one thread");
                    self.refuse(&why, a.span());
                } else {
                    self.refuse(&format!("handed to external function {f}"), a.span());
                }
            } else if let Some(cl) = self.as_closure(a) {
                if mentions(&syn::Expr::Closure(cl.clone()), &self.names) {
                    self.refuse(&format!("captured by a closure given to {last}"), a.span());
                }
            } else {
                self.visit_expr(a);
            }
        }
        self.visit_expr(&c.func);
    }
}

impl Walker<'_, '_> {
    /// Whether `path`, written in the file being walked, names std's item `canon` (through the
    /// file's imports; `core::` for `std::` too).
    pub(super) fn std_path(&self, path: &syn::Path, canon: &[&str]) -> bool {
        let c = self.ix.imports[self.file].canonical(path);
        c.len() == canon.len()
            && c.iter()
                .zip(canon)
                .enumerate()
                .all(|(i, (a, b))| a == b || (i == 0 && *b == "std" && a == "core"))
    }

    /// The closure `e` is, also through std's `AssertUnwindSafe(..)`.
    fn unwind_safe_closure(&self, e: &syn::Expr) -> Option<syn::ExprClosure> {
        if let syn::Expr::Call(c) = e
            && let syn::Expr::Path(p) = &*c.func
            && self.std_path(&p.path, &["std", "panic", "AssertUnwindSafe"])
            && let Some(inner) = c.args.first()
            && c.args.len() == 1
        {
            return self.unwind_safe_closure(inner);
        }
        self.as_closure(e)
    }
}
