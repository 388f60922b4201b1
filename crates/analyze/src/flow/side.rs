//! The start and end of one side's walk: [`side`] binds the side's name and walks the
//! statements after its constructor (and, for a channel made in a block that is a `let`'s
//! value, the statements after that `let`, see [`BlockTail`]); [`verdict`] adds up the handles
//! the walk found into the side's count; [`returned_element`] finds the handle in a function's
//! value.

use super::*;

/// The verdict on the side bound by `pat` (a name, or `_`: unused) before `rest` (see
/// [`side_named`]).
pub(super) fn side<'a>(
    ix: &Index<'a>,
    file: usize,
    (owner, cur, not_sync, cloneable): (&Option<String>, &Option<CurFn<'a>>, bool, bool),
    pat: &syn::Pat,
    rest: &[syn::Stmt],
    is_fn_body: bool,
    tail: Option<&BlockTail<'_>>,
) -> Side {
    if let syn::Pat::Wild(_) = unwrap_pat(pat) {
        return verdict(SideFacts::default());
    }
    let Some(name) = pat_ident(pat) else {
        return Side::Refused {
            reason: "bound to a pattern the analysis does not follow".into(),
            site: site(ix.krate, file, pat.span()),
        };
    };
    side_named(
        ix,
        file,
        (owner, cur, not_sync, cloneable),
        name,
        rest,
        is_fn_body,
        tail,
    )
}

/// Where the value of the block a channel is made in goes: `let x = { ..; v };` binds `x` to
/// the block's tail `v`, before `rest` of the enclosing block.
pub(super) struct BlockTail<'s> {
    pub(super) name: String,
    pub(super) rest: &'s [syn::Stmt],
    pub(super) is_fn_body: bool,
}

/// The verdict on a side bound to `name` before `rest`: in the impl of `owner`, in function
/// `cur`, of a handle that is not `Sync` (a std receiver) or can be cloned (every handle but a
/// std receiver and welltempered's spsc ones).
pub(super) fn side_named<'a>(
    ix: &Index<'a>,
    file: usize,
    (owner, cur, not_sync, cloneable): (&Option<String>, &Option<CurFn<'a>>, bool, bool),
    name: String,
    rest: &[syn::Stmt],
    is_fn_body: bool,
    tail: Option<&BlockTail<'_>>,
) -> Side {
    // The block's value is the side itself (its tail names it, and nothing in the block binds
    // that name again): the same handle goes on under the outer binding's name.
    let tail = tail.filter(|_| match rest.split_last() {
        Some((syn::Stmt::Expr(syn::Expr::Path(p), None), before)) => {
            p.path.is_ident(&name) && !before.iter().any(|st| stmt_rebinds(st, &name))
        }
        _ => false,
    });
    let mut facts = SideFacts::default();
    facts.handles.push(Handle::default());
    let mut w = Walker {
        ix,
        file,
        facts: &mut facts,
        names: HashSet::from([name]),
        scope: Scope::default(),
        closures: HashMap::new(),
        place: Place::default(),
        handle: 0,
        stack: Vec::new(),
        expanding: 0,
        held: 0,
        held_variant: 0,
        owner: owner.clone(),
        cur: cur.clone(),
        not_sync,
        cloneable,
        spawned_tails: HashMap::new(),
    };
    match tail {
        Some(t) => {
            w.stmts(&rest[..rest.len() - 1], false);
            w.names = HashSet::from([t.name.clone()]);
            w.stmts(t.rest, t.is_fn_body);
        }
        None => w.stmts(rest, is_fn_body),
    }
    verdict(facts)
}

pub(super) fn verdict(facts: SideFacts) -> Side {
    let mut count = Count::N(0);
    let mut threads = Vec::new();
    let mut constructing = false;
    let mut why = None;
    for u in &facts.handles {
        if !u.used {
            continue;
        }
        let c = if let Some(m) = &u.many {
            why.get_or_insert_with(|| m.clone());
            Count::Many
        } else {
            let mut n = u.spawns.len().max(1);
            // Used on the constructing thread and by a spawned one: the spawned thread may hold
            // only a reference (`move` of a `&Sender` into a scoped thread), so both can use it at
            // once; counting both never undercounts.
            if u.on_constructing && !u.spawns.is_empty() {
                n += 1;
            }
            Count::of(n)
        };
        count = count.plus(c);
        constructing |= u.on_constructing;
        threads.extend(u.spawns.iter().cloned());
    }
    threads.sort();
    threads.dedup();
    if let Some((reason, site)) = facts.refused {
        return Side::Refused { reason, site };
    }
    // A lower bound of many is many: no count exceeds it, so the side is exact.
    if let Some((reason, site)) = facts.cons.filter(|_| count != Count::Many) {
        let at_least = if count.value() == Some(0) {
            Count::One
        } else {
            count
        };
        return Side::Conservative {
            at_least,
            reason,
            site,
        };
    }
    Side::Exact {
        count,
        threads,
        constructing,
        why: if count == Count::Many { why } else { None },
    }
}

/// Where a handle sits in a function's tail expression (see [`returned_element`]).
pub(super) enum Returned<'e> {
    /// The whole value (or nothing that carries it: walked as usual).
    Whole(&'e syn::Expr),
    /// Element `k` of a tuple.
    Element(&'e syn::Expr, usize),
    /// Several elements of a tuple.
    Several,
}

/// The part of a tail expression `e` that a caller binds: `Ok(x)`/`Some(x)` is `x` (unwrapped
/// at the call by `?`, `unwrap` or `expect`), and of a tuple the one element that `carries`
/// the handle.
pub(super) fn returned_element<'e>(
    e: &'e syn::Expr,
    carries: impl Fn(&syn::Expr) -> bool,
) -> Returned<'e> {
    let mut x = e;
    loop {
        match x {
            syn::Expr::Paren(p) => x = &p.expr,
            syn::Expr::Call(c)
                if c.args.len() == 1
                    && matches!(&*c.func, syn::Expr::Path(p)
                        if p.path.is_ident("Ok") || p.path.is_ident("Some")) =>
            {
                x = &c.args[0];
            }
            _ => break,
        }
    }
    match x {
        syn::Expr::Tuple(t) => {
            let mut carrying = t.elems.iter().enumerate().filter(|(_, y)| carries(y));
            match (carrying.next(), carrying.next()) {
                (Some((k, y)), None) => Returned::Element(y, k),
                (Some(_), Some(_)) => Returned::Several,
                (None, _) => Returned::Whole(e),
            }
        }
        _ if carries(x) => Returned::Whole(x),
        _ => Returned::Whole(e),
    }
}
