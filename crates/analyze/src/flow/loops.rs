//! The rules for loops: a body runs any number of times, so a clone or spawn in it is many; a
//! `for` over a handle uses it here.

use super::*;

impl Walker<'_, '_> {
    /// A `for` loop.
    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop) {
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

    /// A `while` loop.
    pub(super) fn while_loop(&mut self, w: &syn::ExprWhile) {
        let saved = self.place.in_loop;
        self.place.in_loop = true;
        self.visit_expr(&w.cond);
        self.stmts(&w.body.stmts, false);
        self.place.in_loop = saved;
    }

    /// A `loop`.
    pub(super) fn plain_loop(&mut self, l: &syn::ExprLoop) {
        let saved = self.place.in_loop;
        self.place.in_loop = true;
        self.stmts(&l.body.stmts, false);
        self.place.in_loop = saved;
    }
}
