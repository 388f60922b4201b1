//! The rule for struct literals: a handle moved into a confined field stays one handle (see
//! `fields.rs`); into any other field it is stored (conservative), and many if a public method
//! of the struct clones that field, or if other crates get the struct and may use that field
//! from several threads at once (see `api.rs`); a closure stored in an `FnOnce` field runs at
//! most once.

use super::*;

impl Walker<'_, '_> {
    /// A struct literal (see the module documentation).
    pub(super) fn struct_literal(&mut self, s: &syn::ExprStruct) {
        let name = self.struct_name(&s.path);
        for f in &s.fields {
            if let Some(c) = self.carries(&f.expr) {
                let field = member_name(&f.member);
                if let Some(n) = &name
                    && owned(&f.expr)
                    && self.ix.fields.unread(n, &field)
                {
                    // Never read: the handle is dropped with the struct, used by no thread.
                    if let Passes::Clone(s) = c {
                        self.new_handle(s);
                    }
                    continue;
                }
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
                    && let Some(m) = self.ix.fields.cloned_by.get(&(n.clone(), field.clone()))
                {
                    let why = format!("cloned by {n}::{m}, which may run any number of times");
                    self.many_handle(why, f.expr.span());
                } else if let Some(n) = &name
                    && let Some(why) = self.users_share(n, &field)
                {
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
}
