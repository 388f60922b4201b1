//! The rule for struct literals and for assignments to a field of `self` (also through
//! `std::mem::replace`): a handle moved into a confined field stays one handle (see
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
                self.moved_to_field(c, name.as_deref(), &member_name(&f.member), &f.expr);
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

    /// A handle (`c`, carried by `e`) moved into field `field` of a struct named `name` (by a
    /// literal, an assignment `self.f = e`, or `std::mem::replace(&mut self.f, e)`): not used
    /// when nothing reads the field, one handle when the field is confined, else stored, and
    /// many when a public method clones the field or other crates share the struct.
    pub(super) fn moved_to_field(
        &mut self,
        c: Passes,
        name: Option<&str>,
        field: &str,
        e: &syn::Expr,
    ) {
        let name = name.map(str::to_string);
        let field = field.to_string();
        if let Some(n) = &name
            && owned(e)
            && self.ix.fields.unread(n, &field)
        {
            // Never read: the handle is dropped with the struct, used by no thread.
            if let Passes::Clone(s) = c {
                self.new_handle(s);
            }
            return;
        }
        if let Some(n) = &name
            && self
                .ix
                .fields
                .confined(n, &field, self.not_sync && matches!(e, syn::Expr::Path(_)))
            && owned(e)
        {
            self.in_field(c);
            return;
        }
        self.stored(c, "stored in a field", e.span());
        if let Some(n) = &name
            && self.ix.fields.structs.get(n).is_some_and(|d| d.len() == 1)
            && self.ix.fields.public.contains(n)
            && let Some(m) = self.ix.fields.cloned_by.get(&(n.clone(), field.clone()))
        {
            let why = format!("cloned by {n}::{m}, which may run any number of times");
            self.many_handle(why, e.span());
        } else if let Some(n) = &name
            && let Some(why) = self.users_share(n, &field)
        {
            self.many_handle(why, e.span());
        }
    }

    /// The field of `self` that `e` is (`self.f`), with the struct it belongs to (the impl's).
    pub(super) fn self_field(&self, e: &syn::Expr) -> Option<(String, String)> {
        let syn::Expr::Field(f) = e else { return None };
        let syn::Expr::Path(p) = &*f.base else {
            return None;
        };
        if !p.path.is_ident("self") {
            return None;
        }
        Some((self.owner.clone()?, member_name(&f.member)))
    }
}
