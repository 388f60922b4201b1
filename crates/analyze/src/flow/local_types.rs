//! What a local of a function may hold ([`LocalTypes`]), by syntax alone, for the lending rule
//! of `lent.rs`: a closure that captures a local lends the structs the local may be, as it
//! lends a parameter's type. Every binding of the body is given the union of what each value
//! bound to its name may be (a `let`, an assignment, a `for`, `if let`, `while let` or `match`
//! pattern, a closure's parameter), and what a method is given on it
//! (`v.push(h)`: `v` may hold what `h` is). A value is typed by its form:
//!
//! - a struct literal is its struct, and what its fields are given;
//! - a call of a function of the crate is what its return type names (with what its arguments
//!   are, where the return type is `Self` or names a type parameter or `impl Trait`);
//! - a call or method of another crate is what its receiver and arguments are (a wrapper, a
//!   collection, an adapter), with the types its path and turbofish name; `into`/`from` may be
//!   any struct with a `From` impl, `parse` any with a `FromStr` impl, a `default()` or
//!   `transmute` of no named type any struct. (`mem::zeroed()` is not a holder: every channel
//!   handle holds a non-null pointer.)
//! - a field is what the crate's fields of that name are declared to hold (or what its base
//!   is, where no struct of the crate has it, or its declared type is a type parameter);
//! - a closure is what its body gives; a block, an `if` or a `match` what their values are;
//! - a macro of std that takes expressions is what they are; any other macro, any struct.
//!
//! A name bound where no rule reaches (a pattern of another form, a macro's own binding) may be
//! any struct: the rule then holds for no struct of the crate.

use super::*;

/// Macros of std whose arguments are expressions and whose value is one of them (`dbg!`,
/// `vec!`), or none of a struct of the crate: the format-like ones of [`FORMAT`], and these.
const EXPR_MACROS: &[&str] = &["dbg", "unimplemented"];

/// Macros whose value is text or a flag, whatever their arguments.
const TEXT_MACROS: &[&str] = &[
    "format",
    "concat",
    "stringify",
    "env",
    "option_env",
    "include_str",
    "include_bytes",
    "line",
    "column",
    "file",
    "module_path",
    "cfg",
    "matches",
];

impl ParamType {
    /// Nothing of the crate's structs.
    pub(super) fn none() -> Self {
        ParamType::Named(HashSet::new())
    }

    /// What either `self` or `other` may be: the struct names merged, the other forms
    /// listed once each.
    pub(super) fn join(self, other: ParamType) -> ParamType {
        let mut named = HashSet::new();
        let mut rest: Vec<ParamType> = Vec::new();
        let mut todo = vec![self, other];
        while let Some(t) = todo.pop() {
            match t {
                ParamType::Any => return ParamType::Any,
                ParamType::Named(ids) => named.extend(ids),
                ParamType::Several(ts) => todo.extend(ts),
                t => {
                    if !rest.contains(&t) {
                        rest.push(t);
                    }
                }
            }
        }
        if rest.is_empty() {
            return ParamType::Named(named);
        }
        if !named.is_empty() {
            rest.push(ParamType::Named(named));
        }
        if rest.len() == 1 {
            return rest.remove(0);
        }
        ParamType::Several(rest)
    }
}

/// The types of a function's locals (see the module's documentation).
pub(super) struct LocalTypes<'s, 'a> {
    pub(super) scan: &'s FieldScan<'s, 'a>,
    /// The enclosing function's signature (for the bounds of its type parameters).
    pub(super) sig: &'s syn::Signature,
    pub(super) types: HashMap<String, ParamType>,
    /// `let w = &mut v;` (or any value naming `v`): what is put in `w` may be put in `v`.
    aliases: HashMap<String, Vec<String>>,
    /// Locals bound to a struct literal or a call -> what the values given to its fields (its
    /// arguments) may be.
    parts: HashMap<String, ParamType>,
    /// Names whose every binding declares its type (a parameter, an annotated `let`): a value
    /// assigned to them later has that type.
    declared: HashSet<String>,
    /// The names of the type parameters in scope and of those bounded by `Fn*`.
    generics: Vec<String>,
    fn_generics: Vec<String>,
}

impl<'s, 'a> LocalTypes<'s, 'a> {
    /// The types of the locals of `block`, starting from its function's parameters, and what
    /// the fields of struct literals bound to locals are given.
    pub(super) fn of(
        scan: &'s FieldScan<'s, 'a>,
        sig: &'s syn::Signature,
        params: HashMap<String, ParamType>,
        block: &syn::Block,
    ) -> (HashMap<String, ParamType>, HashMap<String, ParamType>) {
        let mut v = LocalTypes {
            scan,
            sig,
            declared: params.keys().cloned().collect(),
            types: params,
            aliases: HashMap::new(),
            parts: HashMap::new(),
            generics: scan.generics.clone(),
            fn_generics: scan.fn_generics.clone(),
        };
        // Twice: a value may name a local bound (or filled) further on, in a loop.
        v.visit_block(block);
        v.visit_block(block);
        (v.types, v.parts)
    }

    /// Adds `t` to what `name` may hold, and (a value put in it: `w.push(h)`, `*w = h`) to
    /// what the locals it aliases may hold.
    fn add(&mut self, name: &str, t: ParamType, put: bool) {
        let mut todo = vec![name.to_string()];
        let mut seen = HashSet::new();
        while let Some(n) = todo.pop() {
            if !seen.insert(n.clone()) || (put && self.declared.contains(&n)) {
                continue;
            }
            let old = self.types.remove(&n).unwrap_or_else(ParamType::none);
            self.types.insert(n.clone(), old.join(t.clone()));
            if put {
                todo.extend(self.aliases.get(&n).into_iter().flatten().cloned());
            }
        }
    }

    /// Binds every name of `pat` to `t` (an annotation's type, where it has one).
    fn bind(&mut self, pat: &syn::Pat, t: &ParamType) {
        if let syn::Pat::Type(pt) = pat {
            let declared = self.declared(&pt.ty);
            let mut names = HashSet::new();
            pat_binds(&pt.pat, &mut names);
            for n in names {
                if !self.types.contains_key(&n) {
                    self.declared.insert(n.clone());
                }
                self.add(&n, declared.clone(), false);
            }
            return;
        }
        let mut names = HashSet::new();
        pat_binds(pat, &mut names);
        for n in names {
            self.declared.remove(&n);
            self.add(&n, t.clone(), false);
        }
    }

    /// What a value of declared type `t` may be.
    fn declared(&self, t: &syn::Type) -> ParamType {
        param_type(t, self.sig, &self.generics, &self.fn_generics)
            .with_owner(self.scan.owner.as_deref())
    }

    /// The union of what each of `es` may be.
    fn all<'e>(&self, es: impl IntoIterator<Item = &'e syn::Expr>) -> ParamType {
        es.into_iter()
            .fold(ParamType::none(), |t, e| t.join(self.value(e)))
    }

    /// What a call of the crate's function `def` returns, given arguments of type `args`.
    fn returned(def: &FnDef<'_>, args: &ParamType) -> ParamType {
        let syn::ReturnType::Type(_, t) = &def.sig.output else {
            return ParamType::none();
        };
        let generics: Vec<String> = def
            .sig
            .generics
            .type_params()
            .map(|p| p.ident.to_string())
            .collect();
        let ret = param_type(t, def.sig, &generics, &[]);
        match ret {
            ParamType::Named(mut ids) => {
                // `Self` is the impl's type, built (most often) from the arguments.
                if ids.remove("Self") {
                    match &def.owner {
                        Some(o) => {
                            ids.insert(o.clone());
                        }
                        None => return ParamType::Any,
                    }
                    return ParamType::Named(ids).join(args.clone());
                }
                ParamType::Named(ids)
            }
            // A type parameter or `impl Trait`: what the arguments are, or any type
            // implementing the bounds.
            ParamType::Any => {
                let mut ids = HashSet::new();
                type_idents(t, &mut ids);
                ids.retain(|i| !generics.contains(i));
                ParamType::Named(ids).join(args.clone())
            }
            other => other.join(args.clone()),
        }
    }

    /// What a call to `name` (the callee path's last segment, with the type before it, if
    /// any) may return, by the crate's functions of that name; `None` when the crate has none.
    fn crate_call(&self, name: &str, ty: Option<&str>, args: &ParamType) -> Option<ParamType> {
        let defs = self.scan.fns.get(name)?;
        let ty = ty.map(|t| match t {
            "Self" => self.scan.owner.as_deref().unwrap_or(t),
            _ => t,
        });
        let matching: Vec<&FnDef<'_>> = defs
            .iter()
            .filter(|d| match (ty, &d.owner) {
                // `Type::f`: an associated function of that type (a type of another crate
                // has none of the crate's).
                (Some(t), Some(o)) => t == o || !t.starts_with(char::is_uppercase),
                (Some(t), None) => !t.starts_with(char::is_uppercase),
                (None, _) => true,
            })
            .collect();
        if matching.is_empty() {
            return None;
        }
        Some(
            matching
                .into_iter()
                .fold(ParamType::none(), |t, d| t.join(Self::returned(d, args))),
        )
    }

    /// What the value `e` may be (see the module's documentation).
    pub(super) fn value(&self, e: &syn::Expr) -> ParamType {
        match e {
            syn::Expr::Path(p) => self.path_value(&p.path),
            syn::Expr::Struct(s) => {
                let mut ids = HashSet::new();
                for seg in &s.path.segments {
                    ids.insert(seg.ident.to_string());
                }
                ParamType::Named(ids)
                    .with_owner(self.scan.owner.as_deref())
                    .join(self.all(s.fields.iter().map(|f| &f.expr)))
                    .join(self.all(s.rest.as_deref()))
            }
            syn::Expr::Call(c) => {
                let args = self.all(&c.args);
                let syn::Expr::Path(p) = &*c.func else {
                    // A closure called in place, or a field holding one.
                    return self.value(&c.func).join(args);
                };
                let segs = path_segments(&p.path);
                let Some(name) = segs.last() else {
                    return ParamType::Any;
                };
                if segs.len() == 1
                    && let Some(t) = self.types.get(name)
                {
                    // A local closure: what its body gives.
                    return t.clone().join(args);
                }
                let ty = segs.len().checked_sub(2).map(|k| segs[k].as_str());
                if let Some(t) = self.crate_call(name, ty, &args) {
                    return t;
                }
                // Another crate's: what it is given (`Some(h)`, `Box::new(h)`), and the types
                // its path names (`Holder::default()`).
                let mut named: HashSet<String> = segs[..segs.len() - 1]
                    .iter()
                    .filter(|s| s.starts_with(char::is_uppercase))
                    .cloned()
                    .collect();
                if name.starts_with(char::is_uppercase) {
                    // A tuple struct or variant of the crate, or another crate's.
                    named.insert(name.clone());
                }
                let producer = Self::producer(name);
                let traits = ["Default", "From", "Into", "TryFrom", "TryInto", "FromStr"];
                named.retain(|n| !traits.contains(&n.as_str()));
                // `transmute::<_, T>(x)`, `Vec::<T>::new()`: the types given name it.
                for seg in &p.path.segments {
                    if let syn::PathArguments::AngleBracketed(a) = &seg.arguments {
                        turbofish(a, &mut named);
                    }
                }
                match producer {
                    Some(_) if named.is_empty() => ParamType::Any,
                    _ => ParamType::Named(named)
                        .with_owner(self.scan.owner.as_deref())
                        .join(args),
                }
            }
            syn::Expr::MethodCall(m) => {
                let name = m.method.to_string();
                let args = self.all(&m.args);
                let outside = self.value(&m.receiver).join(args.clone());
                let crate_part = self.crate_call(&name, None, &args);
                let external = match (Self::producer(&name), &m.turbofish) {
                    (Some(_), Some(a)) => {
                        let mut named = HashSet::new();
                        turbofish(a, &mut named);
                        outside.join(ParamType::Named(named))
                    }
                    (Some(p), None) => outside.join(p),
                    (None, _) => outside,
                };
                match crate_part {
                    Some(t) => t.join(external),
                    None => external,
                }
            }
            syn::Expr::Field(f) => {
                // What the crate's fields of that name are declared to hold; the base's type,
                // where none is the crate's (a tuple's) or one holds a type parameter.
                let decls = self.scan.fields.field_decls.get(&member_name(&f.member));
                let mut held = HashSet::new();
                let mut base = decls.is_none();
                for (h, generic) in decls.into_iter().flatten() {
                    held.extend(h.iter().cloned());
                    base |= generic;
                }
                let t = ParamType::Named(held);
                if base { t.join(self.value(&f.base)) } else { t }
            }
            syn::Expr::Reference(r) => self.value(&r.expr),
            syn::Expr::Paren(p) => self.value(&p.expr),
            syn::Expr::Group(g) => self.value(&g.expr),
            syn::Expr::Unary(u) => self.value(&u.expr),
            syn::Expr::Try(t) => self.value(&t.expr),
            syn::Expr::Await(a) => self.value(&a.base),
            syn::Expr::Index(i) => self.value(&i.expr),
            syn::Expr::Cast(c) => self.declared(&c.ty),
            syn::Expr::Tuple(t) => self.all(&t.elems),
            syn::Expr::Array(a) => self.all(&a.elems),
            syn::Expr::Repeat(r) => self.value(&r.expr),
            syn::Expr::Closure(c) => self.value(&c.body),
            syn::Expr::Block(b) => self.block_value(&b.block),
            syn::Expr::Unsafe(u) => self.block_value(&u.block),
            syn::Expr::Const(c) => self.block_value(&c.block),
            syn::Expr::If(i) => {
                let then = self.block_value(&i.then_branch);
                match &i.else_branch {
                    Some((_, e)) => then.join(self.value(e)),
                    None => then,
                }
            }
            syn::Expr::Match(m) => self.all(m.arms.iter().map(|a| &*a.body)),
            syn::Expr::Macro(m) => self.macro_value(&m.mac),
            syn::Expr::Lit(_)
            | syn::Expr::Binary(_)
            | syn::Expr::Range(_)
            | syn::Expr::Assign(_)
            | syn::Expr::Return(_)
            | syn::Expr::Break(_)
            | syn::Expr::Continue(_)
            | syn::Expr::While(_)
            | syn::Expr::ForLoop(_)
            | syn::Expr::Let(_)
            | syn::Expr::Async(_) => ParamType::none(),
            _ => ParamType::Any,
        }
    }

    /// What a path's value may be: a local's or parameter's type; a function of the crate
    /// (named as a value), nothing; a constant, unit struct or variant, the types it names.
    fn path_value(&self, path: &syn::Path) -> ParamType {
        if let Some(i) = path.get_ident() {
            let n = i.to_string();
            if let Some(t) = self.types.get(&n) {
                return t.clone();
            }
            if self.scan.fns.contains_key(&n) {
                return ParamType::none();
            }
            if n.starts_with(char::is_uppercase) {
                return ParamType::Named(HashSet::from([n]));
            }
            return ParamType::Any;
        }
        let ids: HashSet<String> = path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .filter(|s| s.starts_with(char::is_uppercase))
            .collect();
        ParamType::Named(ids).with_owner(self.scan.owner.as_deref())
    }

    /// What a block's value may be (its tail expression's).
    fn block_value(&self, b: &syn::Block) -> ParamType {
        match b.stmts.last() {
            Some(syn::Stmt::Expr(e, None)) => self.value(e),
            Some(syn::Stmt::Macro(m)) if m.semi_token.is_none() => self.macro_value(&m.mac),
            _ => ParamType::none(),
        }
    }

    /// What a macro's value may be.
    fn macro_value(&self, m: &syn::Macro) -> ParamType {
        let Some(name) = m.path.segments.last().map(|s| s.ident.to_string()) else {
            return ParamType::Any;
        };
        if TEXT_MACROS.contains(&name.as_str()) {
            return ParamType::none();
        }
        if !(FORMAT.contains(&name.as_str()) || EXPR_MACROS.contains(&name.as_str())) {
            return ParamType::Any;
        }
        let parser = |input: syn::parse::ParseStream<'_>| {
            let mut out = Vec::new();
            while !input.is_empty() {
                out.push(input.parse::<syn::Expr>()?);
                if input.is_empty() {
                    break;
                }
                if input.peek(syn::Token![;]) {
                    input.parse::<syn::Token![;]>()?;
                } else {
                    input.parse::<syn::Token![,]>()?;
                }
            }
            Ok(out)
        };
        match syn::parse::Parser::parse2(parser, m.tokens.clone()) {
            Ok(es) => self.all(&es),
            Err(_) => ParamType::Any,
        }
    }

    /// A method or function that makes a value of a type it is not given: what it may be.
    fn producer(name: &str) -> Option<ParamType> {
        let bound = |t: &str| Some(ParamType::Bounded(vec![t.to_string()]));
        match name {
            "into" | "try_into" | "from" | "try_from" => bound("From"),
            "parse" | "from_str" => bound("FromStr"),
            "default" | "unwrap_or_default" | "or_default" | "deserialize" | "downcast"
            | "downcast_ref" | "downcast_mut" | "transmute" | "read_unaligned" => {
                Some(ParamType::Any)
            }
            _ => None,
        }
    }
}

impl LocalTypes<'_, '_> {
    /// Binds the parameters of the closures among `args` to what the callee gives them:
    /// `given` (what its receiver and other arguments hold) for another crate's, anything for
    /// the crate's own (`crate_callee`), which may give them any of its values.
    fn bind_closure_params<'e>(
        &mut self,
        args: impl IntoIterator<Item = &'e syn::Expr>,
        crate_callee: bool,
        given: &ParamType,
    ) {
        let t = if crate_callee {
            ParamType::Any
        } else {
            given.clone()
        };
        for a in args {
            if let syn::Expr::Closure(c) = a {
                for p in &c.inputs {
                    self.bind(p, &t);
                }
            }
        }
    }
}

/// Adds the type names of a turbofish's type arguments to `out`.
fn turbofish(a: &syn::AngleBracketedGenericArguments, out: &mut HashSet<String>) {
    for g in &a.args {
        if let syn::GenericArgument::Type(t) = g {
            type_idents(t, out);
        }
    }
}

impl<'a> Visit<'a> for LocalTypes<'_, '_> {
    fn visit_item(&mut self, _: &'a syn::Item) {}
    fn visit_local(&mut self, l: &'a syn::Local) {
        syn::visit::visit_local(self, l);
        let t = match &l.init {
            Some(i) => {
                let t = self.value(&i.expr);
                let given = match &*i.expr {
                    syn::Expr::Struct(s) => Some(
                        self.all(s.fields.iter().map(|f| &f.expr))
                            .join(self.all(s.rest.as_deref())),
                    ),
                    syn::Expr::Call(c) => Some(self.all(&c.args)),
                    _ => None,
                };
                if let Some(given) = given
                    && let Some(n) = pat_ident(&l.pat)
                {
                    let old = self.parts.remove(&n).unwrap_or_else(ParamType::none);
                    self.parts.insert(n, old.join(given));
                }
                let named = idents_outside_closures(&i.expr);
                let mut bound = HashSet::new();
                pat_binds(&l.pat, &mut bound);
                // What is put in the new binding may be put in the locals it names (`let w =
                // &mut v;`).
                for b in &bound {
                    for n in named.iter().filter(|n| self.types.contains_key(*n)) {
                        let entry = self.aliases.entry(b.clone()).or_default();
                        if !entry.contains(n) {
                            entry.push(n.clone());
                        }
                    }
                }
                t
            }
            None => ParamType::none(),
        };
        self.bind(&l.pat, &t);
    }
    fn visit_expr_assign(&mut self, a: &'a syn::ExprAssign) {
        syn::visit::visit_expr_assign(self, a);
        let mut lhs = &*a.left;
        while let syn::Expr::Unary(u) = lhs {
            lhs = &u.expr;
        }
        // `x = v`, `*x = v`, `x.f = v`, `x[i] = v`: `x` may hold what `v` is.
        while let syn::Expr::Field(f) = lhs {
            lhs = &f.base;
        }
        while let syn::Expr::Index(i) = lhs {
            lhs = &i.expr;
        }
        if let syn::Expr::Path(p) = lhs
            && let Some(i) = p.path.get_ident()
        {
            let t = self.value(&a.right);
            self.add(&i.to_string(), t, true);
        }
    }
    fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        let t = self.value(&f.expr);
        self.bind(&f.pat, &t);
        self.visit_block(&f.body);
    }
    fn visit_expr_let(&mut self, l: &'a syn::ExprLet) {
        self.visit_expr(&l.expr);
        let t = self.value(&l.expr);
        self.bind(&l.pat, &t);
    }
    fn visit_expr_match(&mut self, m: &'a syn::ExprMatch) {
        self.visit_expr(&m.expr);
        let t = self.value(&m.expr);
        for a in &m.arms {
            self.bind(&a.pat, &t);
            self.visit_arm(a);
        }
    }
    fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
        // Closures given to it are given what the receiver and the other arguments hold (an
        // iterator's items, a scope's handle).
        let given = self.value(&m.receiver).join(
            self.all(
                m.args
                    .iter()
                    .filter(|a| !matches!(a, syn::Expr::Closure(_))),
            ),
        );
        let crate_method = self.scan.fns.contains_key(&m.method.to_string());
        self.bind_closure_params(&m.args, crate_method, &given);
        // `v.push(h)`: `v` may hold what it is given (whichever method it is).
        if !m.args.is_empty() {
            let mut r = &*m.receiver;
            while let syn::Expr::Reference(syn::ExprReference { expr: x, .. })
            | syn::Expr::Paren(syn::ExprParen { expr: x, .. }) = r
            {
                r = x;
            }
            if let syn::Expr::Path(p) = r
                && let Some(i) = p.path.get_ident()
            {
                let t = self.all(
                    m.args
                        .iter()
                        .filter(|a| !matches!(a, syn::Expr::Closure(_))),
                );
                self.add(&i.to_string(), t, true);
            }
        }
        syn::visit::visit_expr_method_call(self, m);
    }
    fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
        let given = self.all(
            c.args
                .iter()
                .filter(|a| !matches!(a, syn::Expr::Closure(_))),
        );
        let crate_fn = matches!(&*c.func, syn::Expr::Path(p)
            if p.path.segments.last().is_some_and(|s| self.scan.fns.contains_key(&s.ident.to_string())));
        self.bind_closure_params(&c.args, crate_fn, &given);
        syn::visit::visit_expr_call(self, c);
    }
    fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
        // Parameters not bound above (a closure bound by `let`, or called in place) may be
        // anything.
        for p in &c.inputs {
            let mut names = HashSet::new();
            pat_binds(p, &mut names);
            for n in names {
                if !self.types.contains_key(&n) {
                    self.add(&n, ParamType::Any, false);
                }
            }
        }
        syn::visit::visit_expr_closure(self, c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(ids: &[&str]) -> ParamType {
        ParamType::Named(ids.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn join_merges_names_and_lists_other_forms_once() {
        let read = ParamType::Bounded(vec!["Read".to_string()]);
        let t = named(&["A"])
            .join(read.clone())
            .join(named(&["B"]))
            .join(read.clone());
        let ParamType::Several(ts) = &t else {
            panic!("expected several forms, got {t:?}");
        };
        assert_eq!(ts.len(), 2, "{t:?}");
        assert!(ts.contains(&read));
        assert!(ts.contains(&named(&["A", "B"])));
        // Joining the same value again does not grow it (a loop visited twice).
        assert_eq!(t.clone().join(t.clone()), t);
    }

    #[test]
    fn any_absorbs_and_nothing_is_neutral() {
        assert_eq!(named(&["A"]).join(ParamType::Any), ParamType::Any);
        assert_eq!(ParamType::none().join(named(&["A"])), named(&["A"]));
        let read = ParamType::Bounded(vec!["Read".to_string()]);
        assert_eq!(ParamType::none().join(read.clone()), read);
    }
}
