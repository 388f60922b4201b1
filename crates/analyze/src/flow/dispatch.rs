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
            syn::Expr::MethodCall(mc) => self.method_call(e, mc),
            syn::Expr::Call(c) => self.call(c),
            syn::Expr::Closure(c) => {
                if let Some(&(span, broadcast)) = self.spawned_tails.get(&(c as *const _)) {
                    self.spawn(c, span, broadcast);
                } else if mentions(e, &self.names) {
                    self.refuse(
                        "captured by a closure the analysis does not follow",
                        c.span(),
                    );
                }
            }
            syn::Expr::ForLoop(f) => self.for_loop(f),
            syn::Expr::While(w) => self.while_loop(w),
            syn::Expr::Loop(l) => self.plain_loop(l),
            syn::Expr::Struct(s) => self.struct_literal(s),
            syn::Expr::Assign(a) => {
                if let Some(c) = self.carries(&a.right) {
                    match self.self_field(&a.left) {
                        // `self.f = h`: as a literal's field `f: h` of the impl's struct.
                        Some((n, f)) => self.moved_to_field(c, Some(&n), &f, &a.right),
                        None => self.stored(c, "stored in a field", a.right.span()),
                    }
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
