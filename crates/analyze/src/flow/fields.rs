//! Field facts ([`Fields`]): which crate-private fields of which structs hold a handle that
//! stays one handle used by one thread at a time, which structs are `Clone`, shared, or not
//! `Sync`, and the types of locals; gathered crate-wide by the [`FieldScan`] pass.

use super::*;

/// The crate's structs and how their fields are used, for handles stored in a field: such a
/// handle stays a single handle, used by one thread at a time, when its field is not `pub` (the
/// crate's own code is all that can use it), its struct is not `Clone`, and every access to a
/// field of that name anywhere in the crate is `self.f.send(..)`-like (a channel operation,
/// possibly through `as_ref`/`unwrap`/`lock`) in a method taking `self` by value or
/// `&mut self`, outside closures.
#[derive(Default)]
pub(super) struct Fields {
    /// Struct name -> its definitions (several under `#[cfg]` alternatives, or in several
    /// modules).
    pub(super) structs: HashMap<String, Vec<StructDef>>,
    /// Structs declared `pub` (their public methods may run any number of times).
    pub(super) public: HashSet<String>,
    /// Types with an `impl Clone` (or `Copy`).
    pub(super) cloned: HashSet<String>,
    /// Field names with an access of any other form, or named in a macro.
    pub(super) escaping: HashSet<String>,
    /// Field names operated on in place through `&self` or another binding than `self`
    /// (confined only for a handle that is not `Sync`, in a crate without `unsafe impl Sync`:
    /// then no shared reference to its holder reaches another thread).
    pub(super) by_ref: HashSet<String>,
    /// Field names and tuple indices read anywhere in the crate: a field access on any base, a
    /// struct or tuple-struct pattern naming it (a destructuring assignment too), or an
    /// identifier of a macro whose arguments are not parsed.
    pub(super) read: HashSet<String>,
    /// Structs with a definition that has an attribute the compiler does not define (see
    /// [`plain_attrs`]): a derive or attribute macro may generate code that reads its fields.
    pub(super) generated: HashSet<String>,
    /// Types with an `unsafe impl Sync`.
    pub(super) sync: HashSet<String>,
    /// Whether the crate has an `unsafe impl Send` (which could carry an `Rc` to another
    /// thread: the walk's `Rc` rule is then off).
    pub(super) unsafe_send: bool,
    /// Structs and enums of the crate: name, file, the types of their fields.
    pub(super) defs: Vec<(String, usize, Vec<syn::Type>)>,
    /// Tuple structs of the crate.
    pub(super) tuple_structs: HashSet<String>,
    /// (enum, variant) of the crate's variants with named fields.
    pub(super) struct_variants: HashSet<(String, String)>,
    /// Struct patterns: the path's segments and a field they bind.
    pub(super) pat_fields: Vec<(Vec<String>, String)>,
    /// (struct, field name or index) -> the field's declared type.
    pub(super) field_types: HashMap<(String, String), syn::Type>,
    /// Structs and enums that are not `Sync` by their fields (a std receiver, `Cell`, `RefCell`,
    /// `Rc`, a raw pointer, or such a type of the crate, not behind a `Mutex`/`RwLock`).
    pub(super) not_sync: HashSet<String>,
    /// Tuple variant name -> (its enum, whether the enum derives `Clone`, whether it is `pub`),
    /// one entry per definition.
    pub(super) variants: HashMap<String, Vec<(String, bool, bool)>>,
    /// (variant, position) bound by a pattern other than a `match` arm that only operates on it
    /// in place (or ignores it).
    pub(super) variant_escaping: HashSet<(String, usize)>,
    /// (struct, field) -> a method of that struct that hands on a clone of the field (as a
    /// struct literal's field, a call's argument, or its value): callable any number of times,
    /// each call one more handle. (A clone bound by `let` and used in place is not counted: it
    /// lives on the calling thread.)
    pub(super) cloned_by: HashMap<(String, String), String>,
    /// Types put behind an `Arc`/`Rc` or into a static somewhere in the crate (a holder that
    /// can be shared: each clone of it is one more holder of the handle).
    pub(super) shared: HashSet<String>,
    /// The crate's tuple structs and tuple variants (gathered before the scan): the declared
    /// types of their fields name what a lock built in their arguments holds.
    pub(super) tuple_ctors: HashSet<String>,
    /// Generic type aliases of the crate that put their parameter in one of the [`SHARERS`]
    /// (`type OwnShared<T> = Arc<T>`): sharers too (gathered before the scan).
    pub(super) sharer_aliases: HashSet<String>,
    /// Whether the crate calls `par_bridge`, which shares the iterator it is given by
    /// reference (behind a lock) among the pool's threads.
    pub(super) par_bridge: bool,
    /// Types with an `impl Iterator`.
    pub(super) iterators: HashSet<String>,
    /// Whether the crate binds the name `drop` (a local, a parameter, a static or a constant),
    /// which may shadow std's `drop` where it is called.
    pub(super) drop_shadowed: bool,
    /// Whether something of a type the scan cannot tell is put behind an `Arc`/`Rc`.
    pub(super) unknown_shared: bool,
    /// Structs lent to a closure, to another crate's function or to a `send` (see `lent.rs`).
    pub(super) lent: HashSet<String>,
    /// Whether a parameter of a type the syntax does not name is lent.
    pub(super) unknown_lent: bool,
    /// The trait bounds of parameters lent whose type is a type parameter, `impl` or `dyn`.
    pub(super) lent_bounds: Vec<Vec<String>>,
    /// Field name (or index) -> for each struct of the crate with such a field, the type
    /// names its declared type holds (see [`held_type_idents`]) and whether it names a type
    /// parameter of the struct (gathered before the scan).
    pub(super) field_decls: HashMap<String, Vec<(HashSet<String>, bool)>>,
    /// (trait, every type named in the impl's self type) of the crate's trait impls, and the
    /// traits it implements for a type parameter or a type holding one (`impl<T> Tr for T`,
    /// `impl<T> Tr for Wrap<T>`).
    pub(super) impls: HashSet<(String, String)>,
    pub(super) blanket: HashSet<String>,
    /// Crate-wide: local and parameter names -> the types they are bound to (`None`: unknown).
    /// (`Err`: bound to another local's value.)
    pub(super) locals: HashMap<String, Vec<Result<Option<String>, String>>>,
    /// The names in [`Fields::shared`] recorded from values, not declared types (see
    /// [`Fields::share_value`]).
    pub(super) shared_values: HashSet<String>,
    /// Other names of types: a `type` alias or a `use .. as` rename -> the names it stands for
    /// (an alias's every type name).
    pub(super) aliases: HashMap<String, HashSet<String>>,
    /// Names a closure put behind an `Arc`/`Rc` (or a lock) uses from its environment (see
    /// [`captures`]), resolved as [`Fields::arc_vars`] are when bound as a `let` or a parameter
    /// somewhere in the crate; a function's name is nothing shared; any other (a name a `match`
    /// or `if let` binds) is of unknown type.
    pub(super) shared_captures: HashSet<String>,
    /// Locals bound to a closure -> the names it uses from its environment (as above).
    pub(super) closure_captures: HashMap<String, Vec<String>>,
    /// Captured names that are also the names of functions of the crate.
    pub(super) fn_names: HashSet<String>,
    /// Local names put behind an `Arc`/`Rc`.
    pub(super) arc_vars: HashSet<String>,
    /// Structs and enums by name, one entry per definition (for `api.rs`).
    pub(super) holders: HashMap<String, Vec<Holder>>,
    /// Names re-exported by a `pub use` (its last segment, or the name before `as`).
    pub(super) reexported: HashSet<String>,
    /// (type, field) -> the methods other crates can call that use that field of `self` as a
    /// handle, with the file of their impl.
    pub(super) api_ops: HashMap<(String, String), Vec<(usize, ApiOp)>>,
    /// (type, method) -> the fields from `self` that each of its methods (of any visibility,
    /// taking `self` in any form) uses as a handle (see [`api_use`]).
    pub(super) method_uses: HashMap<(String, String), Vec<Vec<String>>>,
    /// (type, method) -> the methods it calls on `self` or on a field of it: the fields from
    /// `self` to the receiver, and the method's name.
    pub(super) method_calls: HashMap<(String, String), Vec<SelfCall>>,
    /// The methods other crates can call that take `self`: (type, method, file of the impl, the
    /// op's template).
    pub(super) api_methods: Vec<(String, String, usize, ApiOp)>,
    /// The crate's traits by name: whether each definition is exported.
    pub(super) traits: HashMap<String, Vec<bool>>,
    /// The crate's structs and enums proved `Sync` by their fields' types (see `api.rs`).
    pub(super) api_sync: HashSet<String>,
    /// (struct, field) whose declared type is proved `Sync` the same way.
    pub(super) sync_fields: HashSet<(String, String)>,
}

/// One definition of a struct, as the field rules need it.
pub(super) struct StructDef {
    /// Its fields (names, or indices of a tuple struct) that other crates cannot use: private
    /// or `pub(crate)`/`pub(super)`/`pub(in ..)`. Every access to them is in this crate, where
    /// the scan sees it.
    pub(super) inner: HashSet<String>,
    /// Its fields declared `pub`.
    pub(super) public: HashSet<String>,
    pub(super) derives_clone: bool,
}

/// A method called on `self` or on a field of it: the fields from `self` to the receiver, and
/// the method's name.
pub(super) type SelfCall = (Vec<String>, String);

impl Fields {
    /// Resolves the names put behind an `Arc`/`Rc` (or a lock) once every binding is known;
    /// with a `par_bridge` in the crate, every iterator of the crate may be shared.
    pub(super) fn resolve_shared(&mut self) {
        if self.par_bridge {
            for i in self.iterators.clone() {
                self.share_value(i);
            }
        }
        let mut todo: Vec<String> = std::mem::take(&mut self.arc_vars).into_iter().collect();
        let caps: Vec<String> = std::mem::take(&mut self.shared_captures)
            .into_iter()
            .collect();
        self.follow_captures(&caps, &mut todo);
        let mut seen = HashSet::new();
        while let Some(v) = todo.pop() {
            if !seen.insert(v.clone()) {
                continue;
            }
            if let Some(caps) = self.closure_captures.get(&v).cloned() {
                self.follow_captures(&caps, &mut todo);
            }
            match self.locals.get(&v) {
                None => self.unknown_shared = true,
                Some(tys) => {
                    for t in tys {
                        match t {
                            Ok(Some(t)) => {
                                self.shared_values.insert(t.clone());
                                self.shared.insert(t.clone());
                            }
                            Ok(None) => self.unknown_shared = true,
                            Err(w) => todo.push(w.clone()),
                        }
                    }
                }
            }
        }
        self.close_shared();
    }

    /// Adds to `todo` the captured names bound as locals; a name that is neither a local nor a
    /// function of the crate (bound by a `match` or `if let`) is of unknown type.
    fn follow_captures(&mut self, caps: &[String], todo: &mut Vec<String>) {
        for c in caps {
            if self.locals.contains_key(c) {
                todo.push(c.clone());
            } else if !self.fn_names.contains(c) {
                self.unknown_shared = true;
            }
        }
    }

    /// Records type `t`, of a value put behind an `Arc`/`Rc` (or a lock): shared, with its type
    /// arguments unknown.
    pub(super) fn share_value(&mut self, t: String) {
        self.shared_values.insert(t.clone());
        self.shared.insert(t);
    }

    /// A struct or enum of the crate that a shared one holds (a field's declared type names it)
    /// is shared with it, and so are the type arguments that declared type names. A type
    /// parameter in the fields of one shared as a value ([`Fields::share_value`]), whose type
    /// arguments the syntax does not show, may be any struct of the crate. A name that is an
    /// alias or a rename shares what it stands for.
    fn close_shared(&mut self) {
        let mut todo: Vec<String> = self.shared.iter().cloned().collect();
        let mut seen = HashSet::new();
        while let Some(n) = todo.pop() {
            if !seen.insert(n.clone()) {
                continue;
            }
            for a in self.aliases.get(&n).into_iter().flatten() {
                if self.shared.insert(a.clone()) {
                    todo.push(a.clone());
                }
            }
            for h in self.holders.get(&n).into_iter().flatten() {
                let mut ids = HashSet::new();
                for t in &h.tys {
                    held_type_idents(t, &mut ids);
                }
                if self.shared_values.contains(&n) && ids.iter().any(|i| h.generics.contains(i)) {
                    self.unknown_shared = true;
                }
                for i in ids {
                    if self.shared.insert(i.clone()) {
                        todo.push(i);
                    }
                }
            }
        }
    }
}

/// Types whose value is shared by reference among threads, or that hand out `&mut` through a
/// shared reference (a lock): a struct inside one may be used by several threads in turn, each
/// one more user of the handles in its fields. (`Rc` never leaves its thread, but a struct
/// behind one has several holders: counted too.)
pub(super) const SHARERS: &[&str] = &[
    "Arc",
    "Rc",
    "Mutex",
    "RwLock",
    "FairMutex",
    "ReentrantMutex",
    "UnsafeCell",
    "SyncUnsafeCell",
];

/// The type name recorded for a closure (no struct of the crate is named so).
pub(super) const CLOSURE: &str = "{closure}";

/// Whether a bound is `Fn(..)`, `FnMut(..)` or `FnOnce(..)`.
pub(super) fn fn_bound(b: &syn::TypeParamBound) -> bool {
    matches!(b, syn::TypeParamBound::Trait(t)
    if t.path.segments.last().is_some_and(|s| {
        matches!(s.ident.to_string().as_str(), "Fn" | "FnMut" | "FnOnce")
    }))
}

/// The type a pattern's binding or an expression has, as far as it can be read off the syntax
/// (`S { .. }`, `S::new(..)`, `Mutex::new(S { .. })`, an annotation): the last segment's name.
pub(super) fn type_name(t: &syn::Type) -> Option<String> {
    match t {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Reference(r) => type_name(&r.elem),
        syn::Type::Paren(p) => type_name(&p.elem),
        _ => None,
    }
}

/// Every type name mentioned in `t` (generic arguments included).
pub(super) fn type_idents(t: &syn::Type, out: &mut HashSet<String>) {
    struct TypeIdents<'o>(&'o mut HashSet<String>);
    impl<'a> Visit<'a> for TypeIdents<'_> {
        fn visit_path_segment(&mut self, s: &'a syn::PathSegment) {
            self.0.insert(s.ident.to_string());
            syn::visit::visit_path_segment(self, s);
        }
    }
    TypeIdents(out).visit_type(t);
}

/// Every type name mentioned in `t`, but not the message types of channel handles: a lock
/// or `Arc` holding a `Sender<Msg>` shares the sender, while each message goes, moved, to one
/// receiver.
pub(super) fn held_type_idents(t: &syn::Type, out: &mut HashSet<String>) {
    struct HeldIdents<'o>(&'o mut HashSet<String>);
    impl<'a> Visit<'a> for HeldIdents<'_> {
        fn visit_path_segment(&mut self, s: &'a syn::PathSegment) {
            self.0.insert(s.ident.to_string());
            if !matches!(
                s.ident.to_string().as_str(),
                "Sender" | "SyncSender" | "Receiver"
            ) {
                syn::visit::visit_path_segment(self, s);
            }
        }
    }
    HeldIdents(out).visit_type(t);
}

impl Fields {
    /// Whether a type or constructor of this name shares what it holds (see [`SHARERS`]).
    pub(super) fn is_sharer(&self, name: &str) -> bool {
        SHARERS.contains(&name) || self.sharer_aliases.contains(name)
    }

    /// Whether field `field` of struct `name` is declared to hold an `FnOnce` (and no `Fn` or
    /// `FnMut`): a closure stored there runs at most once.
    pub(super) fn holds_fn_once(&self, name: &str, field: &str) -> bool {
        let Some(t) = self.field_types.get(&(name.to_string(), field.to_string())) else {
            return false;
        };
        let mut ids = HashSet::new();
        type_idents(t, &mut ids);
        ids.contains("FnOnce") && !ids.contains("Fn") && !ids.contains("FnMut")
    }

    /// Whether a handle moved into field `field` of a struct named `name` stays confined.
    pub(super) fn confined(&self, name: &str, field: &str, not_sync: bool) -> bool {
        let not_sync = not_sync || self.not_sync.contains(name);
        let typed = format!("{name}::{field}");
        let by_ref = self.by_ref.contains(field) || self.by_ref.contains(&typed);
        (!by_ref || (not_sync && self.sync.is_empty()))
            && !self.escaping.contains(&typed)
            && self.confined_exclusive(name, field)
    }

    /// Whether field `field` of struct `name` is never read anywhere in the crate: a handle
    /// moved there is held until the struct is dropped and used by no thread (`_shutdown_tx:
    /// tx`, kept only to disconnect the channel on drop). A field of the same name read on any
    /// base counts as read; so does any field of a struct of that name (any definition) that
    /// other crates can read (`pub`) or that macro-generated code may read.
    pub(super) fn unread(&self, name: &str, field: &str) -> bool {
        self.structs
            .get(name)
            .is_some_and(|defs| defs.iter().any(|d| d.inner.contains(field)))
            && !self
                .holders
                .get(name)
                .is_some_and(|hs| hs.iter().any(|h| h.pub_fields.contains(field)))
            && !self.generated.contains(name)
            && !self.read.contains(field)
    }

    /// Computes [`Fields::not_sync`] (a fixpoint over the crate's types).
    pub(super) fn resolve_not_sync(&mut self, imports: &[Imports]) {
        fn not_sync(
            t: &syn::Type,
            file: usize,
            imports: &[Imports],
            known: &HashSet<String>,
        ) -> bool {
            match t {
                syn::Type::Ptr(_) => true,
                syn::Type::Reference(r) => not_sync(&r.elem, file, imports, known),
                syn::Type::Paren(p) => not_sync(&p.elem, file, imports, known),
                syn::Type::Array(a) => not_sync(&a.elem, file, imports, known),
                syn::Type::Slice(a) => not_sync(&a.elem, file, imports, known),
                syn::Type::Tuple(tu) => tu.elems.iter().any(|e| not_sync(e, file, imports, known)),
                syn::Type::Path(p) => {
                    let Some(last) = p.path.segments.last() else {
                        return false;
                    };
                    let l = last.ident.to_string();
                    if matches!(l.as_str(), "Mutex" | "RwLock") {
                        return false;
                    }
                    let canon = imports[file].canonical(&p.path);
                    // std's (not a type of the crate named alike), by its real name: with
                    // `use std::sync::Arc as Rc`, an `Rc` field is an `Arc`.
                    if matches!(
                        canon.last().map(String::as_str),
                        Some("Cell" | "RefCell" | "Rc" | "UnsafeCell")
                    ) && matches!(
                        canon.first().map(String::as_str),
                        Some("std" | "core" | "alloc")
                    ) {
                        return true;
                    }
                    if canon == ["std", "sync", "mpsc", "Receiver"] {
                        return true;
                    }
                    // A type of the crate, not an import of the same name from elsewhere.
                    if p.path.segments.len() == 1
                        && known.contains(&l)
                        && (canon.len() == 1
                            || matches!(canon[0].as_str(), "crate" | "self" | "super"))
                    {
                        return true;
                    }
                    match &last.arguments {
                        syn::PathArguments::AngleBracketed(a) => a.args.iter().any(|g| {
                            matches!(g, syn::GenericArgument::Type(t)
                                if not_sync(t, file, imports, known))
                        }),
                        _ => false,
                    }
                }
                _ => false,
            }
        }
        loop {
            let mut changed = false;
            for (name, file, tys) in &self.defs {
                if !self.not_sync.contains(name)
                    && tys
                        .iter()
                        .any(|t| not_sync(t, *file, imports, &self.not_sync))
                {
                    self.not_sync.insert(name.clone());
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        // A name defined twice may be the other definition.
        let mut count: HashMap<&String, usize> = HashMap::new();
        for (n, _, _) in &self.defs {
            *count.entry(n).or_default() += 1;
        }
        let twice: Vec<String> = count
            .into_iter()
            .filter(|(_, c)| *c > 1)
            .map(|(n, _)| n.clone())
            .collect();
        for n in twice {
            self.not_sync.remove(&n);
        }
    }

    /// Whether a handle moved into position `k` of tuple variant `path` (`E::V` or `V`) stays one
    /// handle: a private enum that is not `Clone` nor shared, whose every pattern for that
    /// position is a `match` arm that only operates on the binding in place.
    pub(super) fn variant_confined(&self, path: &syn::Path, k: usize) -> bool {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let Some(v) = segs.last() else { return false };
        let Some([(e, derives_clone, public)]) = self.variants.get(v).map(Vec::as_slice) else {
            return false;
        };
        (segs.len() == 1 || (segs.len() == 2 && &segs[0] == e))
            && !derives_clone
            && !public
            && !self.cloned.contains(e)
            && !self.shared.contains(e)
            && !self.unknown_shared
            && !self.variant_escaping.contains(&(v.clone(), k))
    }

    pub(super) fn confined_exclusive(&self, name: &str, field: &str) -> bool {
        // Every definition of the name (`#[cfg]` alternatives, or another module's struct) that
        // has the field keeps it from other crates and is not `Clone`; the facts below are
        // gathered by name, for all of them at once.
        self.structs.get(name).is_some_and(|defs| {
            defs.iter().any(|d| d.inner.contains(field))
                && !defs.iter().any(|d| {
                    d.public.contains(field) || (d.derives_clone && d.inner.contains(field))
                })
        }) && !self.cloned.contains(name)
            && !self.escaping.contains(field)
            && !self.shared.contains(name)
            && !self.unknown_shared
            && !self.lent.contains(name)
            && !self.unknown_lent
            && !self.pat_fields.iter().any(|(segs, f)| {
                f == field
                    && match segs.as_slice() {
                        // A variant of an enum of the crate is not the struct.
                        [.., e, v] => !self.struct_variants.contains(&(e.clone(), v.clone())),
                        // Another struct of the crate, or a variant, is not the struct.
                        [n] => {
                            n == name
                                || !(self.structs.contains_key(n)
                                    || self.struct_variants.iter().any(|(_, v)| v == n))
                        }
                        [] => true,
                    }
            })
    }
}

/// Whether every attribute is one the compiler defines and none can generate code: docs,
/// lints, `cfg`, `repr`, `non_exhaustive`, `must_use`, tool attributes, and `derive`s of std's
/// traits only (`cfg_attr` is not: it may add any derive).
pub(super) fn plain_attrs(attrs: &[syn::Attribute]) -> bool {
    const STD_DERIVES: &[&str] = &[
        "Debug",
        "Clone",
        "Copy",
        "Default",
        "PartialEq",
        "Eq",
        "PartialOrd",
        "Ord",
        "Hash",
    ];
    const BUILTIN: &[&str] = &[
        "doc",
        "allow",
        "warn",
        "deny",
        "forbid",
        "expect",
        "cfg",
        "repr",
        "non_exhaustive",
        "must_use",
    ];
    attrs.iter().all(|a| {
        let p = a.path();
        if p.is_ident("derive") {
            return a
                .parse_args_with(
                    syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
                )
                .is_ok_and(|ds| {
                    // `Debug`, `std::fmt::Debug`: not another crate's macro of that name.
                    ds.iter().all(|d| {
                        (d.segments.len() == 1
                            || d.segments
                                .first()
                                .is_some_and(|s| s.ident == "std" || s.ident == "core"))
                            && d.segments.last().is_some_and(|s| {
                                STD_DERIVES.contains(&s.ident.to_string().as_str())
                            })
                    })
                });
        }
        // `rustfmt::skip`, `clippy::..`: tool attributes generate nothing.
        p.segments.len() == 2
            && p.segments
                .first()
                .is_some_and(|s| s.ident == "rustfmt" || s.ident == "clippy")
            || p.get_ident()
                .is_some_and(|i| BUILTIN.contains(&i.to_string().as_str()))
    })
}

/// Whether the attributes derive `Clone` or `Copy`.
pub(super) fn derives_clone(attrs: &[syn::Attribute]) -> bool {
    // `derive(..)`, or a `cfg_attr(.., derive(..))` that may apply.
    attrs.iter().any(|a| {
        (a.path().is_ident("derive") || a.path().is_ident("cfg_attr"))
            && a.meta.require_list().is_ok_and(|l| {
                mentions_tokens(
                    &l.tokens,
                    &HashSet::from(["Clone".to_string(), "Copy".to_string()]),
                )
            })
    })
}

/// Channel constructors' names (the bindings of `let (tx, rx) = channel()` are handles).
pub(super) const CHANNEL_FNS: &[&str] = &["channel", "sync_channel", "unbounded", "bounded"];

/// Types whose values hold values of other types.
pub(super) const CONTAINERS: &[&str] = &[
    "Vec",
    "VecDeque",
    "LinkedList",
    "BinaryHeap",
    "HashMap",
    "BTreeMap",
    "HashSet",
    "BTreeSet",
    "Option",
    "Box",
    "Result",
];

/// Channel operations that send or receive on a handle in place.
pub(super) const OPERATIONS: &[&str] = &[
    "send",
    "try_send",
    "send_timeout",
    "send_deadline",
    "recv",
    "try_recv",
    "recv_timeout",
    "recv_deadline",
];

/// Queries on a handle, in place.
pub(super) const QUERIES: &[&str] = &["len", "is_empty", "is_full", "capacity"];

/// Accessors through which a field may reach an in-place operation.
pub(super) const THROUGH: &[&str] = &[
    "as_ref",
    "as_mut",
    "unwrap",
    "expect",
    "lock",
    "borrow",
    "borrow_mut",
    "get_mut",
];

pub(super) fn member_name(m: &syn::Member) -> String {
    match m {
        syn::Member::Named(i) => i.to_string(),
        syn::Member::Unnamed(i) => i.index.to_string(),
    }
}
