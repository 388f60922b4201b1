//! What the field scan knows of a value's type from the syntax (`FieldScan::guess`), and
//! what putting a value behind an `Arc`, an `Rc` or a lock shares (`FieldScan::share`): the
//! struct it is, the type a constructor of the crate declares it returns, what a closure
//! captures; the rest of the closure over held types is `Fields::resolve_shared`'s.

use super::*;

impl FieldScan<'_, '_> {
    /// The type of `e` as far as the syntax tells (`Err` with a local's name to resolve later).
    pub(super) fn guess(&self, e: &syn::Expr) -> Result<Option<String>, String> {
        let seg = |p: &syn::Path, i: usize| -> Option<String> {
            let n = p.segments.len();
            let s = p.segments.iter().nth(n.checked_sub(i)?)?.ident.to_string();
            if s == "Self" {
                self.owner.clone()
            } else {
                Some(s)
            }
        };
        match e {
            syn::Expr::Struct(s) => Ok(seg(&s.path, 1)),
            syn::Expr::Paren(p) => self.guess(&p.expr),
            syn::Expr::Reference(r) => self.guess(&r.expr),
            syn::Expr::Lit(_) => Ok(Some(String::new())),
            syn::Expr::Closure(_) => Ok(Some(CLOSURE.into())),
            syn::Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => {
                self.guess(&m.receiver)
            }
            syn::Expr::Call(c) => {
                let syn::Expr::Path(p) = &*c.func else {
                    return Ok(None);
                };
                let outer = seg(&p.path, 2);
                if c.args.len() == 1 && outer.as_deref().is_some_and(|o| HOLDERS.contains(&o)) {
                    return self.guess(&c.args[0]);
                }
                if p.path.segments.len() == 1 {
                    return Ok(seg(&p.path, 1).filter(|s| s.starts_with(char::is_uppercase)));
                }
                let (Some(outer), Some(f)) = (outer, seg(&p.path, 1)) else {
                    return Ok(None);
                };
                // `T::f(..)` of the crate: the type its definitions declare they return.
                let defs: Vec<_> = self
                    .fns
                    .get(&f)
                    .into_iter()
                    .flatten()
                    .filter(|d| d.owner.as_deref() == Some(outer.as_str()))
                    .collect();
                if !defs.is_empty() {
                    let tys: HashSet<Option<String>> = defs
                        .iter()
                        .map(|d| returned_type(&d.sig.output, &outer))
                        .collect();
                    return Ok(match tys.into_iter().collect::<Vec<_>>().as_slice() {
                        [Some(t)] => Some(t.clone()),
                        _ => None,
                    });
                }
                // A trait's function returns whatever type is inferred (`Default::default()`),
                // and a lock or `Arc` made empty holds what is put in it later.
                if GENERIC_RETURN.contains(&outer.as_str())
                    || (c.args.is_empty() && self.fields.is_sharer(&outer))
                {
                    return Ok(None);
                }
                Ok(Some(outer).filter(|s| s.starts_with(char::is_uppercase)))
            }
            syn::Expr::Path(p) => match p.path.get_ident() {
                Some(i) => Err(i.to_string()),
                None => Ok(None),
            },
            _ => Ok(None),
        }
    }

    /// Records the type of `e`, put behind an `Arc`/`Rc`.
    pub(super) fn share(&mut self, e: &syn::Expr) {
        // A closure shares what it captures: the values of those names.
        if let Some(c) = held_closure(e) {
            for n in captures(c) {
                if n == "self" {
                    match &self.owner {
                        Some(o) => {
                            self.fields.share_value(o.clone());
                        }
                        None => self.fields.unknown_shared = true,
                    }
                } else {
                    if self.fns.contains_key(&n) {
                        self.fields.fn_names.insert(n.clone());
                    }
                    self.fields.shared_captures.insert(n);
                }
            }
        }
        // `T::f(..)` of another crate, or of no function of the crate (a variant, a tuple
        // struct): what it is given may be held in what it returns (`LazyLock::new(|| s)`,
        // `ManuallyDrop::new(s)`), also the value a closure given to it makes.
        if let syn::Expr::Call(c) = e
            && let syn::Expr::Path(p) = &*c.func
            && p.path
                .segments
                .last()
                .is_some_and(|l| !self.fns.contains_key(&l.ident.to_string()))
        {
            for a in &c.args {
                self.share(a);
                if let syn::Expr::Closure(cl) = a {
                    self.share(&cl.body);
                }
            }
        }
        match e {
            syn::Expr::Tuple(t) => {
                for x in &t.elems {
                    self.share(x);
                }
            }
            syn::Expr::Path(p) if p.path.is_ident("self") => match &self.owner {
                Some(o) => {
                    self.fields.share_value(o.clone());
                }
                None => self.fields.unknown_shared = true,
            },
            syn::Expr::Struct(s) => {
                for seg in &s.path.segments {
                    self.fields.share_value(seg.ident.to_string());
                }
                if let Ok(Some(t)) = self.guess(e) {
                    self.fields.share_value(t);
                }
            }
            _ => match self.guess(e) {
                // A container's element type is not read off the syntax.
                Ok(Some(t)) if !self.generics.contains(&t) && !CONTAINERS.contains(&t.as_str()) => {
                    self.fields.share_value(t);
                }
                Ok(_) => self.fields.unknown_shared = true,
                Err(v) => {
                    self.fields.arc_vars.insert(v);
                }
            },
        }
    }
}

/// The type a function declares it returns (`output`, in an impl of `owner`), through `Result`,
/// `Option` and `Box`: `Self` is `owner`; `None` for no declared type, a type parameter or
/// `impl Trait`, or a tuple.
fn returned_type(output: &syn::ReturnType, owner: &str) -> Option<String> {
    let syn::ReturnType::Type(_, t) = output else {
        return None;
    };
    let mut t: &syn::Type = t;
    loop {
        let syn::Type::Path(p) = t else {
            return None;
        };
        let last = p.path.segments.last()?;
        let name = last.ident.to_string();
        if matches!(name.as_str(), "Result" | "Option" | "Box")
            && let syn::PathArguments::AngleBracketed(a) = &last.arguments
            && let Some(syn::GenericArgument::Type(inner)) = a.args.first()
        {
            t = inner;
            continue;
        }
        return Some(if name == "Self" {
            owner.to_string()
        } else {
            name
        });
    }
}

/// Traits whose functions return a type chosen by inference (`Default::default()`,
/// `From::from(x)`): `T::f(..)` with one of these as `T` is of no type the syntax shows.
const GENERIC_RETURN: &[&str] = &[
    "Default",
    "From",
    "Into",
    "TryFrom",
    "TryInto",
    "FromIterator",
    "FromStr",
    "Clone",
    "ToOwned",
    "Deserialize",
    "Iterator",
    "IntoIterator",
];

/// The names a closure uses from its environment: every single-name path in its body, and every
/// identifier in a macro's tokens there that is no method's, field's, path segment's or
/// keyword's, not bound by its parameters or inside it (`self` included). Names of types,
/// constants, statics and variants (capitalised) are left out.
pub(super) fn captures(c: &syn::ExprClosure) -> Vec<String> {
    #[derive(Default)]
    struct Names {
        used: HashSet<String>,
        in_macros: HashSet<String>,
        bound: HashSet<String>,
    }
    impl<'a> Visit<'a> for Names {
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if let Some(i) = p.path.get_ident() {
                self.used.insert(i.to_string());
            }
            syn::visit::visit_expr_path(self, p);
        }
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.bound.insert(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            // Not a method's or a field's name (after `.`), a path's segment (next to `::`),
            // a macro's name (before `!`) or a keyword argument's name (before `=`).
            fn idents(ts: proc_macro2::TokenStream, out: &mut HashSet<String>) {
                let tokens: Vec<proc_macro2::TokenTree> = ts.into_iter().collect();
                let punct = |k: Option<&proc_macro2::TokenTree>, c: char| matches!(k, Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == c);
                for (k, t) in tokens.iter().enumerate() {
                    match t {
                        proc_macro2::TokenTree::Ident(i) => {
                            let before = k.checked_sub(1).and_then(|b| tokens.get(b));
                            let after = tokens.get(k + 1);
                            if !(punct(before, '.')
                                || punct(before, ':')
                                || punct(after, ':')
                                || punct(after, '!')
                                || punct(after, '='))
                            {
                                out.insert(i.to_string());
                            }
                        }
                        proc_macro2::TokenTree::Group(g) => idents(g.stream(), out),
                        _ => {}
                    }
                }
            }
            idents(m.tokens.clone(), &mut self.in_macros);
        }
    }
    let mut n = Names::default();
    for p in &c.inputs {
        n.visit_pat(p);
    }
    n.visit_expr(&c.body);
    let free = |u: &String| !n.bound.contains(u) && !u.starts_with(char::is_uppercase);
    // A keyword is no name; `true`/`false` neither.
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move",
        "mut", "pub", "ref", "return", "static", "struct", "super", "trait", "true", "type",
        "unsafe", "use", "where", "while",
    ];
    let mut out: Vec<String> = n
        .used
        .iter()
        .chain(
            n.in_macros
                .iter()
                .filter(|u| !KEYWORDS.contains(&u.as_str())),
        )
        .filter(|u| free(u))
        .cloned()
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Constructors whose one argument is the value they hold, of that value's type for the scan.
const HOLDERS: &[&str] = &["Mutex", "RwLock", "RefCell", "Cell", "Box", "Some"];

/// The closure `e` is, through wrappers that hold it (`Box::new(..)`, `Mutex::new(..)`, ...).
pub(super) fn held_closure(e: &syn::Expr) -> Option<&syn::ExprClosure> {
    match e {
        syn::Expr::Closure(c) => Some(c),
        syn::Expr::Paren(p) => held_closure(&p.expr),
        syn::Expr::Call(c) if c.args.len() == 1 => match &*c.func {
            syn::Expr::Path(p)
                if p.path.segments.iter().any(|s| {
                    let s = s.ident.to_string();
                    HOLDERS.contains(&s.as_str()) || s == "Arc" || s == "Rc"
                }) =>
            {
                held_closure(&c.args[0])
            }
            _ => None,
        },
        _ => None,
    }
}
