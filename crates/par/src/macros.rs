//! `par_for!`: the source-level parallel loop omp0 listed and never built, with clauses
//! mirroring `#pragma omp parallel for schedule(kind[, chunk]) reduction(op: var)` (OpenMP
//! 5.2 §11.5 and §5.5.8).
//!
//! ```text
//! par_for!([on RUNTIME,] for I in RANGE [; CLAUSE, ...] => { BODY })
//! CLAUSE := schedule(static | static, N | dynamic | dynamic, N | guided | guided, N)
//!         | reduction(OP: NAME = INIT)        OP := + | * | min | max
//! ```
//!
//! Without `on`, the loop runs on [`crate::global`]. Without `schedule`, the runtime's
//! configured schedule applies. With a `reduction`, the body updates `NAME` as a local variable
//! (each thread's private copy starts from the operator's identity: 0, 1, the type's maximum or
//! minimum), and the macro's value is `INIT OP (the combined copies)`; the operators are
//! defined for the primitive integer and floating-point types. One reduction clause per loop.
//! The guarantees are those of [`crate::Runtime::parallel_for`] and
//! [`crate::Runtime::reduce_chunks`]: every index runs exactly once, the loop returns after all
//! have run.
//!
//! ```
//! use std::sync::atomic::{AtomicU64, Ordering};
//! use welltempered_par::{Config, Runtime, par_for};
//!
//! let rt = Runtime::new(Config { threads: 2, ..Config::default() });
//! let n = 1000;
//! let sum = par_for!(on &rt, for i in 0..n; schedule(dynamic, 4), reduction(+: sum = 0u64) => {
//!     sum += i as u64;
//! });
//! assert_eq!(sum, 999 * 1000 / 2);
//!
//! let out: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
//! par_for!(on &rt, for i in 0..n; schedule(static) => {
//!     out[i].store(2 * i as u64, Ordering::Relaxed);
//! });
//! assert!(out.iter().enumerate().all(|(i, v)| v.load(Ordering::Relaxed) == 2 * i as u64));
//!
//! let largest = par_for!(on &rt, for i in 0..n; reduction(max: m = 0u64) => {
//!     m = m.max((i as u64 * 7919) % 1000);
//! });
//! assert_eq!(largest, 999);
//! ```
//!
//! On the global runtime:
//!
//! ```
//! # if cfg!(miri) { return; } // the global team's threads outlive main
//! use welltempered_par::par_for;
//!
//! let product = par_for!(for i in 1..11; schedule(guided), reduction(*: p = 1u64) => {
//!     p *= i as u64;
//! });
//! assert_eq!(product, 3_628_800);
//! ```

/// Identities of the `par_for!` reduction operators for the primitive number types.
#[doc(hidden)]
pub trait ReductionIdentity: Copy {
    /// The identity of `+`.
    const ZERO: Self;
    /// The identity of `*`.
    const ONE: Self;
    /// The identity of `max`.
    const LOWEST: Self;
    /// The identity of `min`.
    const HIGHEST: Self;
}

macro_rules! identities {
    (int: $($t:ty),*) => {$(
        impl ReductionIdentity for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;
        }
    )*};
    (float: $($t:ty),*) => {$(
        impl ReductionIdentity for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const HIGHEST: Self = <$t>::INFINITY;
        }
    )*};
}
identities!(int: u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);
identities!(float: f32, f64);

/// `T::ZERO`, the type taken from a value.
#[doc(hidden)]
pub fn zero_like<T: ReductionIdentity>(_: &T) -> T {
    T::ZERO
}
/// `T::ONE`, the type taken from a value.
#[doc(hidden)]
pub fn one_like<T: ReductionIdentity>(_: &T) -> T {
    T::ONE
}
/// `T::LOWEST`, the type taken from a value.
#[doc(hidden)]
pub fn lowest_like<T: ReductionIdentity>(_: &T) -> T {
    T::LOWEST
}
/// `T::HIGHEST`, the type taken from a value.
#[doc(hidden)]
pub fn highest_like<T: ReductionIdentity>(_: &T) -> T {
    T::HIGHEST
}
/// The smaller of two values (the first on ties or when unordered).
#[doc(hidden)]
pub fn min<T: PartialOrd>(a: T, b: T) -> T {
    if b < a { b } else { a }
}
/// The larger of two values (the first on ties or when unordered).
#[doc(hidden)]
pub fn max<T: PartialOrd>(a: T, b: T) -> T {
    if b > a { b } else { a }
}

/// A parallel `for` loop with OpenMP's `schedule` and `reduction` clauses; see the
/// [`macros` module](crate::macros) for the grammar and examples.
#[macro_export]
macro_rules! par_for {
    (on $rt:expr, for $i:ident in $range:expr
        $(; $($clause:ident ( $($arg:tt)* )),+ )? => $body:block) => {
        $crate::__par_for!(@parse ($rt) $i ($range) sched[] red[] $body ;
            $($($clause ( $($arg)* ))+)?)
    };
    (for $i:ident in $range:expr
        $(; $($clause:ident ( $($arg:tt)* )),+ )? => $body:block) => {
        $crate::__par_for!(@parse ($crate::global()) $i ($range) sched[] red[] $body ;
            $($($clause ( $($arg)* ))+)?)
    };
}

/// The clause parser and expansion of [`par_for!`].
#[doc(hidden)]
#[macro_export]
macro_rules! __par_for {
    (@parse $rt:tt $i:ident $range:tt sched[] red[$($r:tt)*] $body:block ;
        schedule ( $($a:tt)* ) $($rest:tt)*) => {
        $crate::__par_for!(@parse $rt $i $range sched[($crate::__par_for!(@sched $($a)*))]
            red[$($r)*] $body ; $($rest)*)
    };
    (@parse $rt:tt $i:ident $range:tt sched[$($s:tt)*] red[] $body:block ;
        reduction ( $op:tt : $name:ident = $init:expr ) $($rest:tt)*) => {
        $crate::__par_for!(@parse $rt $i $range sched[$($s)*] red[$op $name ($init)] $body ;
            $($rest)*)
    };
    (@parse $rt:tt $i:ident $range:tt sched[$($s:tt)*] red[$($r:tt)*] $body:block ;
        $clause:ident $($rest:tt)*) => {
        ::core::compile_error!(::core::concat!(
            "par_for!: unknown or repeated clause `", ::core::stringify!($clause),
            "` (expected schedule(...) or reduction(op: name = init), each at most once)"))
    };
    (@parse $rt:tt $i:ident $range:tt sched[] red[] $body:block ;) => {
        $crate::Runtime::parallel_for(&$rt, $range, |$i: usize| $body)
    };
    (@parse $rt:tt $i:ident $range:tt sched[$s:tt] red[] $body:block ;) => {
        $crate::Runtime::parallel_for_schedule(&$rt, $range, $s, |$i: usize| $body)
    };
    (@parse $rt:tt $i:ident $range:tt sched[$($s:tt)?] red[$op:tt $name:ident ($init:expr)]
        $body:block ;) => {{
        let __rt: &$crate::Runtime = &$rt;
        let __init = $init;
        let __total = __rt.reduce_chunks(
            $range,
            $crate::__par_for!(@sched_or __rt $($s)?),
            $crate::__par_for!(@identity $op __init),
            |__chunk: ::core::ops::Range<usize>, #[allow(unused_mut)] mut $name| {
                for $i in __chunk $body
                $name
            },
            |__a, __b| $crate::__par_for!(@combine $op __a __b),
        );
        $crate::__par_for!(@combine $op __init __total)
    }};
    (@sched_or $rt:ident) => { $rt.config().schedule };
    (@sched_or $rt:ident $s:tt) => { $s };

    (@sched static) => { $crate::Schedule::Static };
    (@sched static, $n:expr) => { $crate::Schedule::StaticChunked { chunk: $n } };
    (@sched dynamic) => { $crate::Schedule::Dynamic { chunk: 1 } };
    (@sched dynamic, $n:expr) => { $crate::Schedule::Dynamic { chunk: $n } };
    (@sched guided) => { $crate::Schedule::Guided { min_chunk: 1 } };
    (@sched guided, $n:expr) => { $crate::Schedule::Guided { min_chunk: $n } };
    (@sched $($other:tt)*) => {
        ::core::compile_error!(::core::concat!(
            "par_for!: unknown schedule `", ::core::stringify!($($other)*),
            "` (expected static, static, N, dynamic, dynamic, N, guided or guided, N)"))
    };

    (@identity + $v:ident) => { $crate::macros::zero_like(&$v) };
    (@identity * $v:ident) => { $crate::macros::one_like(&$v) };
    (@identity min $v:ident) => { $crate::macros::highest_like(&$v) };
    (@identity max $v:ident) => { $crate::macros::lowest_like(&$v) };
    (@identity $op:tt $v:ident) => {
        ::core::compile_error!(::core::concat!(
            "par_for!: unknown reduction operator `", ::core::stringify!($op),
            "` (expected +, *, min or max)"))
    };

    (@combine + $a:ident $b:ident) => { $a + $b };
    (@combine * $a:ident $b:ident) => { $a * $b };
    (@combine min $a:ident $b:ident) => { $crate::macros::min($a, $b) };
    (@combine max $a:ident $b:ident) => { $crate::macros::max($a, $b) };
    (@combine $op:tt $a:ident $b:ident) => { $a };
}
