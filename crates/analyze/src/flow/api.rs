//! The rule for a handle stored in a struct that a library hands to its users: when the struct
//! is public and reachable from outside the crate, the function storing the handle is public and
//! returns the struct (or returns it to a public function of the crate that calls it, and
//! returns it in turn), and a public method operates on the handle's field, other crates decide
//! how many threads run that method. Two ways let them run it on several threads at once:
//!
//! - the struct derives `Clone`: each clone is one more holder, and may be moved to a thread of
//!   its own (any receiver: `self`, `&mut self` or `&self`);
//! - the struct is `Sync`, proved from the declared types of its fields, and the method takes
//!   `&self`: one value shared by `&` or an `Arc` serves every thread. The handle's own field
//!   must be proved `Sync` too: a std `Receiver` in a struct with an `unsafe impl Sync` is
//!   shared under a protocol of its author's that the rule cannot see (`indicatif`'s
//!   `MultiProgress::join` panics on a second join: one receiving thread ever).
//!
//! A method "operates on the handle" when it does so itself, or through the crate's methods it
//! calls on `self` or on a field of it (`self.base.schedule(..)`, `Self::push(self, ..)`),
//! followed by name ([`Fields::resolve_api_delegation`]).
//!
//! A method that hands out a clone of the handle (in a struct literal, as a call's argument or
//! as its value) makes one more handle per call, whatever the struct; and a public field of a
//! struct that is `Clone` or `Sync` is used by whoever holds the struct. The struct may also be
//! held (in an `Arc`, a `Mutex`, ...) by a field of the one the function returns, when the
//! method reaches the handle through that field (`self.inner.lock().unwrap().tx.send(..)`).
//!
//! A handle that such a function returns is many too when it can be cloned: other crates may
//! clone it onto any number of threads.
//!
//! Each makes the side *many*, exactly: more than one thread may use it at once, how many is
//! the users' choice. This is the reasoning of a library author who sizes a queue for callers
//! they do not know, and it holds only for a library target (a binary's `pub` items have no
//! other callers).
//!
//! `Sync` is proved, never assumed: every field type must be one the rule knows to be `Sync`
//! (see [`SYNC_STD`]: std's scalars, strings, collections, smart pointers, locks and atomics
//! with `Sync` arguments, std's `Sender` and `SyncSender`, crossbeam-channel's and flume's
//! handles), a type parameter (the user may choose a `Sync` one), or a struct or enum of the
//! crate proved the same way (a fixpoint), or one with an `unsafe impl Sync`. A type from
//! another crate, a trait object without `+ Sync`, a raw pointer, `Rc`, `Cell` or std's
//! `Receiver` leaves it unproved, and the rule does not apply.

use super::*;

/// Types of std (by their last segment, whatever their module) that are `Sync` when their type
/// arguments are, with the crate their canonical path must start with. Single-segment names of
/// the prelude (`Vec`, `Option`, `String`, ...) need no import.
const SYNC_STD: &[&str] = &[
    "bool",
    "char",
    "str",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "f32",
    "f64",
    "String",
    "Vec",
    "Option",
    "Result",
    "Box",
    "VecDeque",
    "HashMap",
    "HashSet",
    "BTreeMap",
    "BTreeSet",
    "BinaryHeap",
    "PathBuf",
    "Path",
    "OsString",
    "Duration",
    "Instant",
    "SystemTime",
    "Arc",
    "Mutex",
    "RwLock",
    "Condvar",
    "Barrier",
    "Once",
    "OnceLock",
    "PhantomData",
    "AtomicBool",
    "AtomicUsize",
    "AtomicIsize",
    "AtomicU8",
    "AtomicU16",
    "AtomicU32",
    "AtomicU64",
    "AtomicI8",
    "AtomicI16",
    "AtomicI32",
    "AtomicI64",
    "JoinHandle",
    "Thread",
    "Sender",
    "SyncSender",
];

/// The names of [`SYNC_STD`] that the prelude (or the language) provides without a `use`.
const PRELUDE: &[&str] = &[
    "bool", "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64",
    "i128", "isize", "f32", "f64", "String", "Vec", "Option", "Result", "Box",
];

/// A struct or enum of the crate, as the rule needs it.
pub(super) struct Holder {
    pub(super) file: usize,
    /// Declared `pub` (not `pub(crate)`).
    pub(super) public: bool,
    /// Declared `pub` in a module reachable from outside the crate.
    pub(super) exported: bool,
    pub(super) derives_clone: bool,
    /// Its fields declared `pub` (not `pub(crate)`): other crates use them directly.
    pub(super) pub_fields: HashSet<String>,
    /// Its type parameters.
    pub(super) generics: Vec<String>,
    /// Its fields' (or variants' fields') declared types.
    pub(super) tys: Vec<syn::Type>,
}

/// A method other crates can call that operates on a field of its `self` (see
/// [`Fields::api_ops`]).
#[derive(Clone)]
pub(super) struct ApiOp {
    pub(super) method: String,
    /// Whether it takes `&self`.
    pub(super) shared: bool,
    /// The trait it implements, if any: callable from outside only when that trait is another
    /// crate's or an exported one of this crate.
    pub(super) of_trait: Option<String>,
    /// Whether the use is a clone handed on (a struct literal's field, a call's argument, the
    /// method's value): each call hands out one more handle, which may go to another thread.
    pub(super) clones: bool,
}

/// The fields from `self` to the handle that `mc` uses (`self.f.send(..)`: `[f]`;
/// `self.inner.lock().unwrap().f.send(..)`: `[inner, f]`), and whether it clones it.
pub(super) fn api_use(mc: &syn::ExprMethodCall) -> Option<(Vec<String>, bool)> {
    // Queries such as `len` are left out: a thread that only asks is not a producer or a
    // consumer.
    let m = mc.method.to_string();
    if !(OPERATIONS.contains(&m.as_str()) || matches!(m.as_str(), "iter" | "try_iter" | "clone")) {
        return None;
    }
    self_path(&mc.receiver)
        .filter(|path| !path.is_empty())
        .map(|path| (path, mc.method == "clone"))
}

/// The fields from `self` to the value `e` is (`self`: `[]`; `&self.inner.lock().unwrap().f`:
/// `[inner, f]`), or `None` when `e` is not such a path.
pub(super) fn self_path(mut e: &syn::Expr) -> Option<Vec<String>> {
    let mut path = Vec::new();
    loop {
        match through(e) {
            syn::Expr::Reference(p) => e = &p.expr,
            syn::Expr::Field(f) => {
                path.push(member_name(&f.member));
                e = &f.base;
            }
            syn::Expr::Path(p) if p.path.is_ident("self") => {
                path.reverse();
                return Some(path);
            }
            _ => return None,
        }
    }
}

/// Whether `t` mentions a type that is never `Send`: `Rc`, a raw pointer, `NonNull`, or a lock
/// guard. (What the argument of a `Mutex` or of a channel handle must not be for the holder to
/// be `Sync`; any other argument is taken to be `Send`, as a channel's element must be for the
/// library's own thread to receive it.)
fn known_not_send(t: &syn::Type) -> bool {
    struct V(bool);
    impl<'a> Visit<'a> for V {
        fn visit_type_ptr(&mut self, _: &'a syn::TypePtr) {
            self.0 = true;
        }
        fn visit_path_segment(&mut self, s: &'a syn::PathSegment) {
            if matches!(
                s.ident.to_string().as_str(),
                "Rc" | "NonNull" | "MutexGuard" | "RwLockReadGuard" | "RwLockWriteGuard"
            ) {
                self.0 = true;
            }
            syn::visit::visit_path_segment(self, s);
        }
    }
    let mut v = V(false);
    v.visit_type(t);
    v.0
}

/// Whether `t`, written in `file`, is `Sync` by the rules of the module documentation; `known`
/// holds the crate's types proved so far, `generics` the type parameters in scope.
fn sync_type(
    t: &syn::Type,
    file: usize,
    imports: &[Imports],
    fields: &Fields,
    known: &HashSet<String>,
    generics: &[String],
) -> bool {
    let again = |t: &syn::Type| sync_type(t, file, imports, fields, known, generics);
    match t {
        syn::Type::Reference(r) => again(&r.elem),
        syn::Type::Paren(p) => again(&p.elem),
        syn::Type::Group(g) => again(&g.elem),
        syn::Type::Array(a) => again(&a.elem),
        syn::Type::Slice(a) => again(&a.elem),
        syn::Type::Tuple(tu) => tu.elems.iter().all(again),
        syn::Type::Never(_) => true,
        syn::Type::TraitObject(o) => o.bounds.iter().any(|b| {
            matches!(b, syn::TypeParamBound::Trait(t) if t.path.segments.last().is_some_and(|s| s.ident == "Sync"))
        }),
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let name = last.ident.to_string();
            // A `Mutex` and a channel handle are `Sync` when their argument is only `Send`.
            let send_only = matches!(
                name.as_str(),
                "Mutex" | "Sender" | "SyncSender" | "Receiver"
            );
            let args_ok = match &last.arguments {
                syn::PathArguments::None => true,
                syn::PathArguments::AngleBracketed(a) => a.args.iter().all(|g| match g {
                    syn::GenericArgument::Type(t) if send_only => !known_not_send(t),
                    syn::GenericArgument::Type(t) => again(t),
                    syn::GenericArgument::Lifetime(_) | syn::GenericArgument::Const(_) => true,
                    _ => false,
                }),
                syn::PathArguments::Parenthesized(_) => false,
            };
            if !args_ok {
                return false;
            }
            if p.path.segments.len() == 1 && generics.contains(&name) {
                return true;
            }
            // Every path it may name where it is written (`#[cfg]` alternatives, globs) must be
            // `Sync`.
            imports[file].canonical_all(&p.path).iter().all(|canon| {
                let of_crate = fields.holders.contains_key(&name)
                    && (canon.len() == 1 || matches!(canon[0].as_str(), "crate" | "self" | "super"));
                if of_crate {
                    return known.contains(&name);
                }
                match canon.first().map(String::as_str) {
                    _ if canon.len() == 1 => PRELUDE.contains(&name.as_str()),
                    Some("std" | "core" | "alloc") => {
                        SYNC_STD.contains(&name.as_str())
                            && *canon != ["std", "sync", "mpsc", "Receiver"]
                            // `std::rc::Weak` is neither `Send` nor `Sync`.
                            && !(name == "Weak" || canon.iter().any(|s| s == "rc" || s == "cell"))
                    }
                    Some("crossbeam_channel" | "flume") => {
                        matches!(name.as_str(), "Sender" | "Receiver")
                    }
                    _ => false,
                }
            })
        }
        _ => false,
    }
}

impl Fields {
    /// Adds to [`Fields::api_ops`] the handles that a method other crates can call reaches
    /// through the crate's own methods: `pub fn schedule(&self) { self.base.schedule(..) }`
    /// uses the handle `TimerBase::schedule` uses, as `base.tx`. The methods called on `self` or
    /// on a field of it are followed by name (every definition for that type), the field's type
    /// by its declaration (every struct or enum of the crate it names). A method reached this
    /// way is not resolved by its signature, so it may be another type's of the same name: the
    /// rule then claims more threads than run, never fewer.
    pub(super) fn resolve_api_delegation(&mut self) {
        let mut derived = Vec::new();
        for (t, m, file, op) in &self.api_methods {
            let mut seen = HashSet::new();
            let mut todo = vec![(t.clone(), Vec::<String>::new(), m.clone())];
            while let Some((u, prefix, callee)) = todo.pop() {
                if prefix.len() > 6 || !seen.insert((u.clone(), prefix.clone(), callee.clone())) {
                    continue;
                }
                let key = (u.clone(), callee.clone());
                // The method's own uses are recorded by the scan already.
                if !(prefix.is_empty() && callee == *m) {
                    for p in self.method_uses.get(&key).into_iter().flatten() {
                        let full: Vec<&str> = prefix.iter().chain(p).map(String::as_str).collect();
                        let op = ApiOp {
                            clones: false,
                            ..op.clone()
                        };
                        derived.push(((t.clone(), full.join(".")), (*file, op)));
                    }
                }
                for (q, next) in self.method_calls.get(&key).into_iter().flatten() {
                    for v in self.types_at(&u, q) {
                        let p = prefix.iter().chain(q).cloned().collect();
                        todo.push((v, p, next.clone()));
                    }
                }
            }
        }
        for (k, v) in derived {
            self.api_ops.entry(k).or_default().push(v);
        }
    }

    /// The crate's structs and enums that the value at fields `path` of a `u` may be (by each
    /// field's declared type).
    fn types_at(&self, u: &str, path: &[String]) -> Vec<String> {
        let mut cur = vec![u.to_string()];
        for g in path {
            let mut next = Vec::new();
            for c in &cur {
                if let Some(t) = self.field_types.get(&(c.clone(), g.clone())) {
                    let mut ids = HashSet::new();
                    type_idents(t, &mut ids);
                    next.extend(ids.into_iter().filter(|i| self.holders.contains_key(i)));
                }
            }
            next.sort();
            next.dedup();
            cur = next;
        }
        cur
    }

    /// Computes [`Fields::api_sync`] (a fixpoint over the crate's structs and enums; a name
    /// defined twice is never proved).
    pub(super) fn resolve_api_sync(&mut self, imports: &[Imports]) {
        let mut known: HashSet<String> = HashSet::new();
        loop {
            let mut changed = false;
            for (name, defs) in &self.holders {
                if known.contains(name) {
                    continue;
                }
                let [h] = defs.as_slice() else { continue };
                if self.sync.contains(name)
                    || h.tys
                        .iter()
                        .all(|t| sync_type(t, h.file, imports, self, &known, &h.generics))
                {
                    known.insert(name.clone());
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        // The fields whose own declared type is `Sync`: a handle that is not (std's `Receiver`)
        // is shared only through an `unsafe impl Sync` of its holder, whose author serializes
        // its uses in a way the rule cannot see (often: one thread ever).
        let mut sync_fields = HashSet::new();
        for ((s, f), t) in &self.field_types {
            if let Some([h]) = self.holders.get(s).map(Vec::as_slice)
                && sync_type(t, h.file, imports, self, &known, &h.generics)
            {
                sync_fields.insert((s.clone(), f.clone()));
            }
        }
        self.api_sync = known;
        self.sync_fields = sync_fields;
    }

    /// The one definition the struct literal `name { .. }` written in `file` builds: the
    /// crate's only struct of that name, or the only one defined in `file`.
    fn holder(&self, name: &str, file: usize) -> Option<&Holder> {
        let defs = self.holders.get(name)?;
        match defs.as_slice() {
            [h] => Some(h),
            _ => {
                let mut here = defs.iter().filter(|h| h.file == file);
                let h = here.next()?;
                here.next().is_none().then_some(h)
            }
        }
    }

    /// Whether other crates can name the type `name` (seen from `file`).
    pub(super) fn exported(&self, name: &str, file: usize) -> bool {
        self.holder(name, file)
            .is_some_and(|h| h.exported || (h.public && self.reexported.contains(name)))
    }

    /// Why a handle stored in field `field` of a struct `name` built in `file` is used by many
    /// threads at once (the module documentation's rule), or `None` when the rule does not prove
    /// it. `hand_out` is the chain of functions (signature, impl) that hands the struct to other
    /// crates: the one building it, then possibly the exported one calling it. The struct is the
    /// one handed out, or is held (in an `Arc`, a `Mutex`, ...) by a field of the one handed out.
    pub(super) fn used_by_users(
        &self,
        name: &str,
        field: &str,
        file: usize,
        hand_out: &[(&syn::Signature, &Option<String>)],
    ) -> Option<String> {
        // The types every function of the chain returns (the builder, then the exported
        // function that calls it, if any): the last one's caller is another crate.
        let returns = |sig: &syn::Signature, owner: &Option<String>| {
            let mut returned = HashSet::new();
            if let syn::ReturnType::Type(_, ret) = &sig.output {
                type_idents(ret, &mut returned);
            }
            if returned.remove("Self")
                && let Some(o) = owner
            {
                returned.insert(o.clone());
            }
            returned
        };
        // The builder returns the struct it builds (or the one holding it); the last function
        // of the chain returns the one handed out.
        let (first, last) = (hand_out.first()?, hand_out.last()?);
        let (built, returned) = (returns(first.0, first.1), returns(last.0, last.1));
        // (the type handed out, the fields from it to the handle)
        let mut candidates = vec![(name.to_string(), vec![field.to_string()])];
        for ((outer, g), t) in &self.field_types {
            let mut ids = HashSet::new();
            type_idents(t, &mut ids);
            if outer != name && ids.contains(name) {
                candidates.push((outer.clone(), vec![g.clone(), field.to_string()]));
            }
        }
        candidates.sort();
        for (t, path) in candidates {
            if !(returned.contains(&t) && (built.contains(&t) || built.contains(name)))
                || !self.exported(&t, file)
            {
                continue;
            }
            let Some(h) = self.holder(&t, file) else {
                continue;
            };
            let several = self.holders.get(&t).is_some_and(|d| d.len() > 1);
            // Of several impls of a name defined in several files, only those in the holder's
            // file; a trait's methods only when the trait is another crate's or exported.
            let callable = |op: &&(usize, ApiOp)| {
                (!several || op.0 == h.file)
                    && op.1.of_trait.as_ref().is_none_or(|tr| {
                        self.traits
                            .get(tr)
                            .is_none_or(|defs| defs.iter().all(|exported| *exported))
                    })
            };
            let via = if t == name {
                format!("stored in {t}")
            } else {
                format!("stored in {name}, held by {t}.{}", path[0])
            };
            // A public field of the struct handed out is used by whoever holds the struct.
            let handle_sync = self
                .sync_fields
                .contains(&(name.to_string(), field.to_string()));
            if t == name
                && h.pub_fields.contains(field)
                && (h.derives_clone || (handle_sync && self.api_sync.contains(&t)))
            {
                let how = if h.derives_clone {
                    "may clone (it derives Clone)"
                } else {
                    "may share (it is Sync by its fields' types)"
                };
                return Some(format!(
                    "{via}, which other crates get and {how}, in its public field {field}: \
                     any number of threads may use it at once"
                ));
            }
            let Some(ops) = self.api_ops.get(&(t.clone(), path.join("."))) else {
                continue;
            };
            if let Some((_, op)) = ops.iter().filter(|o| o.1.clones).find(callable) {
                return Some(format!(
                    "{via}, which other crates get, and {t}::{} clones it: each call hands out \
                     one more handle",
                    op.method
                ));
            }
            if h.derives_clone
                && let Some((_, op)) = ops.iter().find(callable)
            {
                return Some(format!(
                    "{via}, which other crates get and may clone (it derives Clone), and \
                     {t}::{} uses it: each clone may run on a thread of its own",
                    op.method
                ));
            }
            if handle_sync
                && self.api_sync.contains(&t)
                && let Some((_, op)) = ops.iter().filter(|o| o.1.shared).find(callable)
            {
                return Some(format!(
                    "{via}, which other crates get and is Sync (by its fields' types), and \
                     {t}::{}(&self) uses it: any number of threads may call it at once",
                    op.method
                ));
            }
        }
        None
    }
}

impl Walker<'_, '_> {
    /// Why the handle stored in field `field` of a struct `name` is used by many threads at once
    /// (the module documentation's rule), in a library target.
    pub(super) fn users_share(&self, name: &str, field: &str) -> Option<String> {
        if !self.ix.krate.lib {
            return None;
        }
        let cur = self.cur.as_ref()?;
        // A method is as reachable as its type; a free function as its module (in `exported`).
        let reachable = |owner: &Option<String>, file: usize| match owner {
            Some(o) => self.ix.fields.exported(o, file),
            None => true,
        };
        let fields = &self.ix.fields;
        if cur.exported && reachable(&self.owner, self.file) {
            let why = fields.used_by_users(name, field, self.file, &[(cur.sig, &self.owner)]);
            if why.is_some() {
                return why;
            }
        }
        // A builder other crates cannot call, whose value an exported function of the crate
        // hands out (`pub fn new() -> Self { Self::with_capacity(16) }`): one of the structs
        // built here reaches them.
        let defs = self.ix.fns.get(&cur.name)?;
        if defs.iter().filter(|d| d.owner == self.owner).count() != 1 {
            return None;
        }
        let target = Callee {
            name: &cur.name,
            owner: self.owner.as_deref(),
            unique: defs.len() == 1,
        };
        let mut callers: Vec<&FnDef<'_>> = self
            .ix
            .fns
            .values()
            .flatten()
            .filter(|d| {
                d.exported && reachable(&d.owner, d.file) && target.called_in(d.block, &d.owner)
            })
            .collect();
        callers.sort_by_key(|d| (d.file, d.sig.ident.to_string()));
        callers.into_iter().find_map(|d| {
            let chain = [(cur.sig, &self.owner), (d.sig, &d.owner)];
            fields.used_by_users(name, field, self.file, &chain)
        })
    }
}

impl Walker<'_, '_> {
    /// Why a handle that the function being walked returns is used by many threads at once: a
    /// library's function other crates can call hands it to them, and it can be cloned (every
    /// handle but a std receiver and welltempered's spsc ones), so they may clone it onto any
    /// number of threads.
    pub(super) fn returned_to_users(&self) -> Option<String> {
        let cur = self.cur.as_ref()?;
        let reachable = match &self.owner {
            Some(o) => self.ix.fields.exported(o, self.file),
            None => true,
        };
        (self.ix.krate.lib && self.stack.is_empty() && self.cloneable && cur.exported && reachable)
            .then(|| {
                format!(
                    "returned to other crates by {}, which they may clone onto any number of \
                     threads",
                    cur.name
                )
            })
    }
}

/// A function of the crate, as calls name it.
struct Callee<'n> {
    name: &'n str,
    /// The type of its `impl`.
    owner: Option<&'n str>,
    /// Whether no other function of the crate has its name (a method call may then be it).
    unique: bool,
}

impl Callee<'_> {
    /// Whether `body`, in an impl of `body_owner`, calls it: `f(..)` for a free function,
    /// `T::f(..)` (or `Self::f(..)` inside `impl T`) for an associated one, `x.f(..)` only when
    /// the name is unique.
    fn called_in(&self, body: &syn::Block, body_owner: &Option<String>) -> bool {
        struct Calls<'c, 'n> {
            callee: &'c Callee<'n>,
            body_owner: Option<&'c str>,
            hit: bool,
        }
        impl<'a> Visit<'a> for Calls<'_, '_> {
            fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
                if let syn::Expr::Path(p) = &*c.func {
                    let segs: Vec<String> = p
                        .path
                        .segments
                        .iter()
                        .map(|s| s.ident.to_string())
                        .collect();
                    let hit = match (segs.as_slice(), self.callee.owner) {
                        ([.., f], None) => {
                            f == self.callee.name && (segs.len() == 1 || self.callee.unique)
                        }
                        ([.., t, f], Some(o)) => {
                            f == self.callee.name
                                && (t == o || (t == "Self" && self.body_owner == Some(o)))
                        }
                        _ => false,
                    };
                    self.hit |= hit;
                }
                syn::visit::visit_expr_call(self, c);
            }
            fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
                if self.callee.unique && m.method == self.callee.name {
                    self.hit = true;
                }
                syn::visit::visit_expr_method_call(self, m);
            }
        }
        let mut v = Calls {
            callee: self,
            body_owner: body_owner.as_deref(),
            hit: false,
        };
        v.visit_block(body);
        v.hit
    }
}
