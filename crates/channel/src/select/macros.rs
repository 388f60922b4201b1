//! The [`select!`](crate::select!) and [`select_biased!`](crate::select_biased!) macros and
//! their parser. The expansion names only what [`super::__private`] exports.

/// Waits on several channel operations at once and runs the branch of the one that completes,
/// as crossbeam-channel's `select!` does.
///
/// Cases: `recv(r) -> res => body` receives on `r` (`res` is a `Result<T, RecvError>`:
/// `Err` once the channel is over); `send(s, value) -> res => body` sends `value` on `s` (`res`
/// is a `Result<(), SendError<T>>`); at most one `default => body` (runs if no operation can
/// complete now) or `default(timeout) => body` (if none completes within `timeout`). Bodies
/// are expressions or blocks, separated by commas (optional after a block). `r` and `s` may be
/// handles or references to them (plain, shared or [`spsc`](crate::spsc), or anything that
/// derefs to one of them). When several operations can complete,
/// one is chosen at random. Without a default it waits until one completes.
///
/// ```
/// use std::time::Duration;
/// use welltempered_channel::{after, select, unbounded};
/// let (tx1, rx1) = unbounded::<u32>();
/// let (tx2, rx2) = unbounded::<&str>();
/// std::thread::spawn(move || tx2.send("hello").unwrap());
/// let timeout = after(Duration::from_secs(10));
/// let mut sent = false;
/// let got = loop {
///     select! {
///         recv(rx2) -> msg => break msg.unwrap(),
///         send(tx1, 1) -> res => { res.unwrap(); sent = true }
///         recv(rx1) -> _ => {}
///         recv(timeout) -> _ => panic!("timed out"),
///     }
/// };
/// assert_eq!(got, "hello");
/// # let _ = sent;
/// ```
///
/// **A send's message** is evaluated only when that send is chosen (when its channel has room,
/// a receiver waits, or it is disconnected), as crossbeam's is: `send(s, it.next().unwrap())`
/// takes nothing from `it` when another case runs. It is evaluated in the caller's code,
/// outside the selection's protocol, so it may panic, use the channel, or contain `?`,
/// `return`, `break` or `continue`, which act on the caller's function and loops. Two
/// differences from crossbeam, which reserves the chosen slot before evaluating:
/// - If the room the send was chosen for is taken by another sender before the message is
///   sent (a race of a few instructions), the selection goes on with that send holding its
///   message, among the receives and that send only (each other send's message is
///   evaluated at one place of the expansion, once, so it is not chosen again); if another
///   case completes, the evaluated message is dropped.
/// - A selection with a send on a rendezvous channel (`bounded(0)`) evaluates every send's
///   message before it starts: a rendezvous send completes by handing its message to a
///   receiver within the selection, retrying while receivers come and go, and the other
///   sends with it. Their messages are dropped if another case is chosen.
///
/// ```
/// use welltempered_channel::{bounded, select, unbounded};
/// let (full, _keep) = bounded::<u32>(1);
/// full.send(0).unwrap();
/// let (tx, rx) = unbounded();
/// tx.send("ready").unwrap();
/// let mut items = vec![1, 2, 3].into_iter();
/// select! {
///     send(full, items.next().unwrap()) -> _ => unreachable!("the channel is full"),
///     recv(rx) -> msg => assert_eq!(msg, Ok("ready")),
/// }
/// assert_eq!(items.next(), Some(1)); // the message was not evaluated
/// ```
#[macro_export]
macro_rules! select {
    ($($tokens:tt)*) => {
        $crate::__select_parse!(@cases false [] [] $($tokens)*)
    };
}

/// [`select!`], but when several operations can complete, the first in the order written is
/// chosen (crossbeam-channel's `select_biased!`).
///
/// ```
/// use welltempered_channel::{select_biased, unbounded};
/// let (tx1, rx1) = unbounded();
/// let (tx2, rx2) = unbounded();
/// tx1.send(1).unwrap();
/// tx2.send(2).unwrap();
/// let first = select_biased! {
///     recv(rx1) -> v => v.unwrap(),
///     recv(rx2) -> v => v.unwrap(),
/// };
/// assert_eq!(first, 1);
/// ```
#[macro_export]
macro_rules! select_biased {
    ($($tokens:tt)*) => {
        $crate::__select_parse!(@cases true [] [] $($tokens)*)
    };
}

/// The parser and generator behind [`select!`]; not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __select_parse {
    // ---- Parsing: each case into `(recv [r] [res] [body])`, `(send [s] [v] [res] [body])`,
    // the default into the second list.
    (@cases $b:tt [$($c:tt)*] [$($d:tt)*]) => {
        $crate::__select_parse!(@gen $b [$($c)*] [] [0] [$($d)*])
    };
    (@cases $b:tt [$($c:tt)*] [$($d:tt)*] recv($r:expr) -> $res:pat => $body:expr, $($rest:tt)*) => {
        $crate::__select_parse!(@cases $b [$($c)* (recv [$r] [$res] [$body])] [$($d)*] $($rest)*)
    };
    (@cases $b:tt [$($c:tt)*] [$($d:tt)*] recv($r:expr) -> $res:pat => $body:expr) => {
        $crate::__select_parse!(@cases $b [$($c)* (recv [$r] [$res] [$body])] [$($d)*])
    };
    (@cases $b:tt [$($c:tt)*] [$($d:tt)*] recv($r:expr) -> $res:pat => $body:block $($rest:tt)*) => {
        $crate::__select_parse!(@cases $b [$($c)* (recv [$r] [$res] [$body])] [$($d)*] $($rest)*)
    };
    (@cases $b:tt [$($c:tt)*] [$($d:tt)*] recv($r:expr,) $($rest:tt)*) => {
        $crate::__select_parse!(@cases $b [$($c)*] [$($d)*] recv($r) $($rest)*)
    };
    (@cases $b:tt [$($c:tt)*] [$($d:tt)*]
        send($s:expr, $v:expr $(,)?) -> $res:pat => $body:expr, $($rest:tt)*) => {
        $crate::__select_parse!(@cases $b [$($c)* (send [$s] [$v] [$res] [$body])] [$($d)*] $($rest)*)
    };
    (@cases $b:tt [$($c:tt)*] [$($d:tt)*]
        send($s:expr, $v:expr $(,)?) -> $res:pat => $body:expr) => {
        $crate::__select_parse!(@cases $b [$($c)* (send [$s] [$v] [$res] [$body])] [$($d)*])
    };
    (@cases $b:tt [$($c:tt)*] [$($d:tt)*]
        send($s:expr, $v:expr $(,)?) -> $res:pat => $body:block $($rest:tt)*) => {
        $crate::__select_parse!(@cases $b [$($c)* (send [$s] [$v] [$res] [$body])] [$($d)*] $($rest)*)
    };
    (@cases $b:tt [$($c:tt)*] [] default => $body:expr, $($rest:tt)*) => {
        $crate::__select_parse!(@cases $b [$($c)*] [(try [$body])] $($rest)*)
    };
    (@cases $b:tt [$($c:tt)*] [] default => $body:expr) => {
        $crate::__select_parse!(@cases $b [$($c)*] [(try [$body])])
    };
    (@cases $b:tt [$($c:tt)*] [] default => $body:block $($rest:tt)*) => {
        $crate::__select_parse!(@cases $b [$($c)*] [(try [$body])] $($rest)*)
    };
    (@cases $b:tt [$($c:tt)*] [] default() => $($rest:tt)*) => {
        $crate::__select_parse!(@cases $b [$($c)*] [] default => $($rest)*)
    };
    (@cases $b:tt [$($c:tt)*] [] default($t:expr $(,)?) => $body:expr, $($rest:tt)*) => {
        $crate::__select_parse!(@cases $b [$($c)*] [(timeout [$t] [$body])] $($rest)*)
    };
    (@cases $b:tt [$($c:tt)*] [] default($t:expr $(,)?) => $body:expr) => {
        $crate::__select_parse!(@cases $b [$($c)*] [(timeout [$t] [$body])])
    };
    (@cases $b:tt [$($c:tt)*] [] default($t:expr $(,)?) => $body:block $($rest:tt)*) => {
        $crate::__select_parse!(@cases $b [$($c)*] [(timeout [$t] [$body])] $($rest)*)
    };
    (@cases $b:tt [$($c:tt)*] [$($d:tt)+] default $($rest:tt)*) => {
        ::core::compile_error!("select!: there can be only one `default` case")
    };
    (@cases $b:tt [$($c:tt)*] [$($d:tt)*] $($rest:tt)+) => {
        ::core::compile_error!(
            "select!: expected `recv(r) -> res => body`, `send(s, v) -> res => body`, \
             `default => body` or `default(timeout) => body`"
        )
    };

    // ---- Generation: one nested scope per case, so each case's variable is its own (by
    // hygiene every expansion's `__case` is a different name).
    (@gen $b:tt [(recv [$r:expr] [$res:pat] [$body:expr]) $($rest:tt)*] [$($done:tt)*]
        [$($i:tt)*] [$($d:tt)*]) => {
        match &$r {
            __r => {
                // Method syntax: found through auto-deref (see `SelectReceiver`).
                let mut __case = {
                    use $crate::select::__private::SelectReceiver as _;
                    __r.__welltempered_recv_case()
                };
                $crate::__select_parse!(@gen $b [$($rest)*]
                    [$($done)* (__case [] [$res] [$body] [$($i)*])] [$($i)* + 1] [$($d)*])
            }
        }
    };
    (@gen $b:tt [(send [$s:expr] [$v:expr] [$res:pat] [$body:expr]) $($rest:tt)*] [$($done:tt)*]
        [$($i:tt)*] [$($d:tt)*]) => {
        match &$s {
            __s => {
                // As for a receive.
                let mut __case = {
                    use $crate::select::__private::SelectSender as _;
                    __s.__welltempered_send_case()
                };
                $crate::__select_parse!(@gen $b [$($rest)*]
                    [$($done)* (__case [$v] [$res] [$body] [$($i)*])] [$($i)* + 1] [$($d)*])
            }
        }
    };
    (@gen $b:tt [] [$(($case:ident [$($v:expr)?] [$res:pat] [$body:expr] [$($i:tt)*]))*]
        [$($n:tt)*] [$($d:tt)*]) => {{
        let __mode = $crate::__select_parse!(@mode $($d)*);
        // Constant: whether any case is a send (a selection of receives only runs `run` alone).
        let __has_send = false $($( || { let _ = ::core::stringify!($v); true } )?)*;
        let __eager = __has_send && $crate::select::__private::eager(&[$(&$case),*]);
        let __chosen = if __eager {
            ::core::option::Option::None
        } else {
            $crate::select::__private::run::<&mut dyn $crate::select::__private::Operation>(
                &mut [$(&mut $case),*], __mode, false, $b,
            )
        };
        // A send gets its message here, in the caller's code (once per selection, outside any
        // loop: `?`, `return`, `break` and `continue` in it act on the caller's function and
        // loops): the chosen one, or every one before the selection (`eager`).
        $( $crate::__select_parse!(@supply __eager __chosen $case [$($i)*] [$($v)?]); )*
        let __chosen = if __has_send {
            $crate::select::__private::finish::<&mut dyn $crate::select::__private::Operation>(
                &mut [$(&mut $case),*], __chosen, __mode, $b, __eager,
            )
        } else {
            __chosen
        };
        // Every case is done with (its borrows of the handles end) before a body runs, so
        // a body may drop or replace a handle.
        $(
            let $case = if __chosen == ::core::option::Option::Some($($i)*) {
                ::core::option::Option::Some($case.into_result())
            } else {
                // Moved out and dropped here (a plain `drop` call trips `drop_non_drop`
                // where the case has no destructor).
                let _case = $case;
                ::core::option::Option::None
            };
        )*
        match __chosen {
            $(
                ::core::option::Option::Some(__i) if __i == $($i)* => {
                    let $res = match $case {
                        ::core::option::Option::Some(__r) => __r,
                        ::core::option::Option::None => ::core::unreachable!(),
                    };
                    $body
                }
            )*
            _ => $crate::__select_parse!(@default $($d)*),
        }
    }};
    (@supply $e:ident $c:ident $case:ident [$($i:tt)*] []) => {};
    (@supply $e:ident $c:ident $case:ident [$($i:tt)*] [$v:expr]) => {
        if ($e || $c == ::core::option::Option::Some($($i)*)) && $case.is_pending() {
            $case.supply($v);
        }
    };
    (@mode) => { $crate::select::__private::Mode::Block };
    (@mode (try [$body:expr])) => { $crate::select::__private::Mode::Try };
    (@mode (timeout [$t:expr] [$body:expr])) => {
        $crate::select::__private::Mode::timeout($t)
    };
    (@default) => { ::core::unreachable!("select!: woke without a chosen case") };
    (@default (try [$body:expr])) => { $body };
    (@default (timeout [$t:expr] [$body:expr])) => { $body };
}
