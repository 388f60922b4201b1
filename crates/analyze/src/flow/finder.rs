//! Finding the channels ([`Finder`]): every constructor call, named constructor and constructor
//! inside a macro, and for each `let (tx, rx) = ctor()` the walk of each side.

use super::*;

/// The function whose body is being walked.
#[derive(Clone)]
pub(super) struct CurFn<'a> {
    pub(super) name: String,
    pub(super) public: bool,
    /// Other crates may call it (see [`FnDef::exported`]).
    pub(super) exported: bool,
    pub(super) sig: &'a syn::Signature,
    pub(super) block: &'a syn::Block,
}

pub(super) struct Finder<'i, 'a> {
    pub(super) ix: &'i Index<'a>,
    pub(super) file: usize,
    pub(super) handled: HashSet<usize>,
    pub(super) out: &'i mut Vec<Channel>,
    pub(super) notes: &'i mut Vec<Note>,
    pub(super) fn_body: Option<*const syn::Block>,
    /// The `impl`'s self type, for `Self { .. }`.
    pub(super) owner: Option<String>,
    pub(super) cur: Option<CurFn<'a>>,
    pub(super) trait_impl: bool,
    /// Whether items here are reachable from outside the crate (see [`exported_scope`]).
    pub(super) exported_scope: bool,
    /// Blocks that initialise a `let` binding one name, and where their value goes.
    pub(super) tails: HashMap<*const syn::Block, BlockTail<'a>>,
}

/// A channel found at `site` whose two sides are refused for `reason`; `func_span` is the byte
/// range of the constructor's path in its file.
pub(super) fn refused(
    site: Site,
    ctor: crate::resolve::Ctor,
    reason: String,
    func_span: (usize, usize),
) -> Channel {
    let side = Side::Refused {
        reason,
        site: site.clone(),
    };
    Channel {
        site,
        constructor: ctor.name,
        bounded: ctor.bounded,
        senders: side.clone(),
        receivers: side,
        func_span,
    }
}

impl<'a> Finder<'_, 'a> {
    /// Reports, refused for `reason`, every constructor named in macro tokens (a path that
    /// resolves to one and is called or given a turbofish; not a method or a definition).
    pub(super) fn tokens(&mut self, ts: &TokenStream, reason: &str) {
        let file = self.file;
        for (path, start, end) in token_paths(ts) {
            let Some(ctor) = self.ix.imports[file].constructor(&path) else {
                continue;
            };
            let text = &self.ix.krate.files[file].text;
            let span = (offset(text, start.start()), offset(text, end.end()));
            let site = site(self.ix.krate, file, start);
            self.out.push(refused(site, ctor, reason.to_string(), span));
        }
    }

    /// An `include!` in a statement or an expression: the file is an expression (or
    /// statements), spliced where it is written. Its constructors are reported, refused;
    /// a path computed at build time is a note.
    pub(super) fn included_expr(&mut self, m: &syn::Macro, p: Result<String, ()>) {
        let at = site(self.ix.krate, self.file, m.span());
        let Ok(path) = p else {
            self.notes.push(Note {
                site: at,
                text: crate::discover::COMPUTED_INCLUDE.into(),
            });
            return;
        };
        let dir = self.ix.krate.files[self.file]
            .abs
            .parent()
            .map(|d| d.to_path_buf())
            .unwrap_or_default();
        let abs = dir.join(&path);
        let Some((text, ts)) = std::fs::read_to_string(&abs)
            .ok()
            .and_then(|t| t.parse::<TokenStream>().ok().map(|ts| (t, ts)))
        else {
            self.notes.push(Note {
                site: at,
                text: format!(
                    "include!(\"{path}\"): cannot be read or tokenised; channels made there \
                     are not reported"
                ),
            });
            return;
        };
        // The file's paths resolve through the `use`s visible at the `include!`.
        let mut imports = Imports::default();
        imports.inherit(&self.ix.imports[self.file], at.line);
        for (p, start, end) in token_paths(&ts) {
            let Some(ctor) = imports.constructor(&p) else {
                continue;
            };
            let s = start.start();
            let site = Site {
                file: crate::discover::rel_path(&self.ix.krate.root, &abs),
                line: s.line,
                column: s.column + 1,
            };
            let reason =
                format!("made in a file included as an expression at {at}, which is not analysed");
            let span = (offset(&text, start.start()), offset(&text, end.end()));
            self.out.push(refused(site, ctor, reason, span));
        }
    }

    pub(super) fn ctor_call<'e>(
        &self,
        e: &'e syn::Expr,
    ) -> Option<(&'e syn::ExprCall, crate::resolve::Ctor)> {
        // `{ use std::sync::mpsc; mpsc::channel() }`: the block's value.
        if let syn::Expr::Block(b) = e
            && b.label.is_none()
            && let Some(syn::Stmt::Expr(tail, None)) = b.block.stmts.last()
        {
            return self.ctor_call(tail);
        }
        if let syn::Expr::Paren(p) = e {
            return self.ctor_call(&p.expr);
        }
        let syn::Expr::Call(c) = e else { return None };
        let syn::Expr::Path(p) = &*c.func else {
            return None;
        };
        let ctor = self.ix.imports[self.file].constructor(&p.path)?;
        Some((c, ctor))
    }

    /// Whether the constructor `call` names, in any configuration (`#[cfg]` alternative
    /// imports), may make handles that cannot be cloned: welltempered's spsc ones (both sides),
    /// and std's (its receiver).
    pub(super) fn uncloneable(&self, call: &syn::ExprCall) -> (bool, bool) {
        let syn::Expr::Path(p) = &*call.func else {
            return (true, true);
        };
        let all = self.ix.imports[self.file].constructors_all(&p.path);
        (
            all.iter().any(|c| c.name.contains("::spsc::")),
            all.iter().any(|c| c.name.starts_with("std::sync::mpsc::")),
        )
    }

    pub(super) fn channel(&self, call: &syn::ExprCall, ctor: crate::resolve::Ctor) -> Channel {
        let text = &self.ix.krate.files[self.file].text;
        let fs = call.func.span();
        // The rewrite replaces the path up to the constructor's name: generic arguments after
        // it (`mpsc::channel::<u64>()`) stay, so the element type is not left to inference.
        let end = match &*call.func {
            syn::Expr::Path(p) => p
                .path
                .segments
                .last()
                .map_or(fs.end(), |seg| seg.ident.span().end()),
            _ => fs.end(),
        };
        let reason = Side::Refused {
            reason: "not bound to a (sender, receiver) pattern".into(),
            site: site(self.ix.krate, self.file, call.span()),
        };
        Channel {
            site: site(self.ix.krate, self.file, call.span()),
            constructor: ctor.name,
            bounded: ctor.bounded,
            senders: reason.clone(),
            receivers: reason,
            func_span: (offset(text, fs.start()), offset(text, end)),
        }
    }

    /// Constructors a function returns whole (its body's value, through blocks, `if`/`else` and
    /// `match` arms): the channel is made at every call. For a private function with one
    /// definition whose every call is bound by `let (tx, rx) = f(..)`, and whose every value is
    /// such a constructor (or diverges: `panic!`, `unreachable!`, ...; no `return`, which may
    /// hand out another pair), each side is walked from each caller. With one constructor, every caller's pair was made there: the largest count of
    /// the callers' is exact. With several (one per branch), which callers reach which is not
    /// known: exact when all callers agree, else at least the smallest. Otherwise both sides
    /// are refused as returned.
    pub(super) fn returned_ctors(&mut self, body: &syn::Block) {
        fn tails<'e>(e: &'e syn::Expr, out: &mut Vec<&'e syn::Expr>) {
            match e {
                syn::Expr::If(i) => {
                    match i.then_branch.stmts.last() {
                        Some(syn::Stmt::Expr(t, None)) => tails(t, out),
                        _ => out.push(e),
                    }
                    match &i.else_branch {
                        Some((_, el)) => tails(el, out),
                        None => out.push(e),
                    }
                }
                syn::Expr::Match(m) => m.arms.iter().for_each(|a| tails(&a.body, out)),
                syn::Expr::Block(b) if b.label.is_none() => match b.block.stmts.last() {
                    Some(syn::Stmt::Expr(t, None)) => tails(t, out),
                    _ => out.push(e),
                },
                syn::Expr::Paren(p) => tails(&p.expr, out),
                _ => out.push(e),
            }
        }
        fn diverges(e: &syn::Expr) -> bool {
            match e {
                syn::Expr::Macro(m) => m.mac.path.segments.last().is_some_and(|s| {
                    matches!(
                        s.ident.to_string().as_str(),
                        "panic" | "unreachable" | "todo" | "unimplemented"
                    )
                }),
                _ => false,
            }
        }
        let Some(cur) = self.cur.clone() else { return };
        let Some(syn::Stmt::Expr(tail, None)) = body.stmts.last() else {
            return;
        };
        let mut found = Vec::new();
        tails(tail, &mut found);
        let ctors: Vec<_> = found.iter().filter_map(|e| self.ctor_call(e)).collect();
        if ctors.is_empty() {
            return;
        }
        // A `return` may hand out another pair.
        let only_ctors = !has_return(body)
            && found
                .iter()
                .all(|e| diverges(e) || self.ctor_call(e).is_some());
        let private = !cur.public && self.ix.fns.get(&cur.name).is_some_and(|d| d.len() == 1);
        let callers = (only_ctors && private)
            .then(|| {
                let txs = let_callers(self.ix.krate, &cur.name, Some(0), None)?;
                let rxs = let_callers(self.ix.krate, &cur.name, Some(1), None)?;
                (!txs.is_empty() && txs.len() == rxs.len()).then_some((txs, rxs))
            })
            .flatten();
        let several = ctors.len() > 1;
        for (call, ctor) in ctors {
            self.handled.insert(call as *const _ as usize);
            let mut ch = self.channel(call, ctor);
            let returned = Side::Refused {
                reason: "returned from its function".into(),
                site: ch.site.clone(),
            };
            ch.senders = returned.clone();
            ch.receivers = returned;
            if let Some((txs, rxs)) = &callers {
                let std_rx = ch.constructor.starts_with("std::sync::mpsc::");
                let (spsc, std_any) = self.uncloneable(call);
                let walk = |callers: &[LetCaller], not_sync: bool, cloneable: bool| {
                    let sides: Vec<Side> = callers
                        .iter()
                        .map(|c| {
                            let at = (&c.owner, &c.function(self.ix), not_sync, cloneable);
                            side_named(self.ix, c.file, at, c.name.clone(), &c.rest, false, None)
                        })
                        .collect();
                    if several && sides.windows(2).any(|w| w[0] != w[1]) {
                        Side::branches(sides, &ch.site)
                    } else {
                        let mut it = sides.into_iter();
                        let first = it.next().expect("callers is not empty");
                        it.fold(first, Side::alternative)
                    }
                };
                ch.senders = walk(txs, false, !spsc);
                ch.receivers = walk(rxs, std_rx, !spsc && !std_any);
            }
            self.out.push(ch);
        }
    }

    pub(super) fn block(&mut self, b: &'a syn::Block, is_fn_body: bool) {
        // `let x = { .. };`: the inner block's value is bound to `x` (not a labelled block, whose
        // `break 'l v` may give another value).
        for (i, st) in b.stmts.iter().enumerate() {
            if let syn::Stmt::Local(l) = st
                && let Some(init) = &l.init
                && init.diverge.is_none()
                && let syn::Expr::Block(inner) = &*init.expr
                && inner.label.is_none()
                && let Some(name) = pat_ident(&l.pat)
            {
                let tail = BlockTail {
                    name,
                    rest: &b.stmts[i + 1..],
                    is_fn_body,
                };
                self.tails.insert(&inner.block as *const _, tail);
            }
        }
        let tail = self.tails.get(&(b as *const _));
        for (i, st) in b.stmts.iter().enumerate() {
            let syn::Stmt::Local(l) = st else { continue };
            let Some(init) = &l.init else { continue };
            let Some((call, ctor)) = self.ctor_call(&init.expr) else {
                continue;
            };
            self.handled.insert(call as *const _ as usize);
            let mut ch = self.channel(call, ctor);
            if let syn::Pat::Tuple(t) = unwrap_pat(&l.pat)
                && t.elems.len() == 2
            {
                let rest = &b.stmts[i + 1..];
                let elems: Vec<&syn::Pat> = t.elems.iter().collect();
                // A std receiver is neither `Sync` nor `Clone`.
                let std_rx = ch.constructor.starts_with("std::sync::mpsc::");
                let (spsc, std_any) = self.uncloneable(call);
                let at = (&self.owner, &self.cur, false, !spsc);
                ch.senders = side(self.ix, self.file, at, elems[0], rest, is_fn_body, tail);
                let at = (&self.owner, &self.cur, std_rx, !spsc && !std_any);
                ch.receivers = side(self.ix, self.file, at, elems[1], rest, is_fn_body, tail);
            }
            self.out.push(ch);
        }
    }
}

impl<'a> Visit<'a> for Finder<'_, 'a> {
    fn visit_item_impl(&mut self, i: &'a syn::ItemImpl) {
        let owner = match &*i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let saved = (
            std::mem::replace(&mut self.owner, owner),
            std::mem::replace(&mut self.trait_impl, i.trait_.is_some()),
        );
        syn::visit::visit_item_impl(self, i);
        (self.owner, self.trait_impl) = saved;
    }
    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        self.fn_body = Some(&*f.block as *const _);
        let cur = CurFn {
            name: f.sig.ident.to_string(),
            public: callable_outside(self.ix.krate.lib, false, &f.vis),
            exported: self.exported_scope && matches!(f.vis, syn::Visibility::Public(_)),
            sig: &f.sig,
            block: &f.block,
        };
        let saved = self.cur.replace(cur);
        self.returned_ctors(&f.block);
        let scope = std::mem::replace(&mut self.exported_scope, false);
        syn::visit::visit_item_fn(self, f);
        self.exported_scope = scope;
        self.cur = saved;
    }
    fn visit_item_mod(&mut self, m: &'a syn::ItemMod) {
        let saved = self.exported_scope;
        self.exported_scope = exported_scope(saved, m);
        syn::visit::visit_item_mod(self, m);
        self.exported_scope = saved;
    }
    fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
        self.fn_body = Some(&f.block as *const _);
        let cur = CurFn {
            name: f.sig.ident.to_string(),
            public: callable_outside(self.ix.krate.lib, self.trait_impl, &f.vis),
            exported: !self.trait_impl && matches!(f.vis, syn::Visibility::Public(_)),
            sig: &f.sig,
            block: &f.block,
        };
        let saved = self.cur.replace(cur);
        self.returned_ctors(&f.block);
        syn::visit::visit_impl_item_fn(self, f);
        self.cur = saved;
    }
    fn visit_block(&mut self, b: &'a syn::Block) {
        let is_body = self.fn_body == Some(b as *const _);
        self.fn_body = None;
        self.block(b, is_body);
        syn::visit::visit_block(self, b);
    }
    fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
        if !self.handled.contains(&(c as *const _ as usize)) {
            let e = syn::Expr::Call(c.clone());
            if let Some((_, ctor)) = self.ctor_call(&e) {
                let ch = self.channel(c, ctor);
                self.out.push(ch);
            }
        }
        // The called path is the call's (above), not a constructor passed by name.
        for a in &c.attrs {
            self.visit_attribute(a);
        }
        if !matches!(&*c.func, syn::Expr::Path(_)) {
            self.visit_expr(&c.func);
        }
        for a in &c.args {
            self.visit_expr(a);
        }
    }
    fn visit_item_macro(&mut self, m: &'a syn::ItemMacro) {
        // An item-level `include!` is read as a file of its own (see `discover`).
        if crate::discover::include_path(&m.mac).is_some() {
            return;
        }
        if m.mac.path.is_ident("macro_rules") {
            let name = m.ident.as_ref().map_or(String::new(), |i| i.to_string());
            let reason = format!(
                "made in the body of macro_rules! {name}, wherever it expands; \
                 expansions are not analysed"
            );
            self.tokens(&m.mac.tokens, &reason);
            return;
        }
        self.visit_macro(&m.mac);
    }
    fn visit_macro(&mut self, m: &'a syn::Macro) {
        if let Some(p) = crate::discover::include_path(m) {
            self.included_expr(m, p);
            return;
        }
        let name = m
            .path
            .segments
            .last()
            .map_or(String::new(), |s| s.ident.to_string());
        let reason = format!("made inside {name}!(..), whose expansion is not analysed");
        self.tokens(&m.tokens, &reason);
    }
    fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
        // A constructor named without being called here (`Lazy::new(unbounded)`,
        // `let make = channel;`): its channels are made wherever it is called, which the
        // walker does not follow. Reported, refused, rather than missed.
        if let Some(ctor) = self.ix.imports[self.file].constructor(&p.path) {
            let text = &self.ix.krate.files[self.file].text;
            let span = p.span();
            let end = p
                .path
                .segments
                .last()
                .map_or(span.end(), |seg| seg.ident.span().end());
            self.out.push(refused(
                site(self.ix.krate, self.file, span),
                ctor,
                "the constructor is passed by name, not called here".into(),
                (offset(text, span.start()), offset(text, end)),
            ));
        }
        syn::visit::visit_expr_path(self, p);
    }
}
