//! The error types, named and shaped like crossbeam-channel's (and `std::sync::mpsc`'s).

use core::fmt;

/// [`Sender::send`](crate::Sender::send) failed: every receiver is gone. Holds the value.
#[derive(PartialEq, Eq, Clone, Copy)]
pub struct SendError<T>(pub T);

/// [`Sender::try_send`](crate::Sender::try_send) failed. Holds the value.
#[derive(PartialEq, Eq, Clone, Copy)]
pub enum TrySendError<T> {
    /// The channel is bounded and full (or rendezvous with no receiver waiting).
    Full(T),
    /// Every receiver is gone.
    Disconnected(T),
}

/// [`Sender::send_timeout`](crate::Sender::send_timeout) failed. Holds the value.
#[derive(PartialEq, Eq, Clone, Copy)]
pub enum SendTimeoutError<T> {
    /// The deadline passed while the channel was full.
    Timeout(T),
    /// Every receiver is gone.
    Disconnected(T),
}

/// [`Receiver::recv`](crate::Receiver::recv) failed: the channel is empty and every sender is
/// gone.
#[derive(PartialEq, Eq, Clone, Copy, Debug)]
pub struct RecvError;

/// [`Receiver::try_recv`](crate::Receiver::try_recv) failed.
#[derive(PartialEq, Eq, Clone, Copy, Debug)]
pub enum TryRecvError {
    /// The channel is empty now.
    Empty,
    /// The channel is empty and every sender is gone.
    Disconnected,
}

/// [`Receiver::recv_timeout`](crate::Receiver::recv_timeout) failed.
#[derive(PartialEq, Eq, Clone, Copy, Debug)]
pub enum RecvTimeoutError {
    /// The deadline passed while the channel was empty.
    Timeout,
    /// The channel is empty and every sender is gone.
    Disconnected,
}

impl<T> SendError<T> {
    /// The value that was not sent.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> TrySendError<T> {
    /// The value that was not sent.
    pub fn into_inner(self) -> T {
        match self {
            Self::Full(v) | Self::Disconnected(v) => v,
        }
    }
    /// Whether the channel was full.
    pub fn is_full(&self) -> bool {
        matches!(self, Self::Full(_))
    }
    /// Whether every receiver was gone.
    pub fn is_disconnected(&self) -> bool {
        matches!(self, Self::Disconnected(_))
    }
}

impl<T> SendTimeoutError<T> {
    /// The value that was not sent.
    pub fn into_inner(self) -> T {
        match self {
            Self::Timeout(v) | Self::Disconnected(v) => v,
        }
    }
    /// Whether the deadline passed.
    pub fn is_timeout(&self) -> bool {
        matches!(self, Self::Timeout(_))
    }
    /// Whether every receiver was gone.
    pub fn is_disconnected(&self) -> bool {
        matches!(self, Self::Disconnected(_))
    }
}

impl TryRecvError {
    /// Whether the channel was empty.
    pub fn is_empty(&self) -> bool {
        matches!(self, Self::Empty)
    }
    /// Whether every sender was gone.
    pub fn is_disconnected(&self) -> bool {
        matches!(self, Self::Disconnected)
    }
}

impl RecvTimeoutError {
    /// Whether the deadline passed.
    pub fn is_timeout(&self) -> bool {
        matches!(self, Self::Timeout)
    }
    /// Whether every sender was gone.
    pub fn is_disconnected(&self) -> bool {
        matches!(self, Self::Disconnected)
    }
}

impl<T> fmt::Debug for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SendError { .. }")
    }
}
impl<T> fmt::Display for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("sending on a disconnected channel")
    }
}
impl<T> std::error::Error for SendError<T> {}

impl<T> fmt::Debug for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Full(_) => f.write_str("Full(..)"),
            Self::Disconnected(_) => f.write_str("Disconnected(..)"),
        }
    }
}
impl<T> fmt::Display for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Full(_) => f.write_str("sending on a full channel"),
            Self::Disconnected(_) => f.write_str("sending on a disconnected channel"),
        }
    }
}
impl<T> std::error::Error for TrySendError<T> {}

impl<T> fmt::Debug for SendTimeoutError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Timeout(_) => f.write_str("Timeout(..)"),
            Self::Disconnected(_) => f.write_str("Disconnected(..)"),
        }
    }
}
impl<T> fmt::Display for SendTimeoutError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Timeout(_) => f.write_str("timed out waiting on send operation"),
            Self::Disconnected(_) => f.write_str("sending on a disconnected channel"),
        }
    }
}
impl<T> std::error::Error for SendTimeoutError<T> {}

impl fmt::Display for RecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("receiving on an empty and disconnected channel")
    }
}
impl std::error::Error for RecvError {}

impl fmt::Display for TryRecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("receiving on an empty channel"),
            Self::Disconnected => f.write_str("receiving on an empty and disconnected channel"),
        }
    }
}
impl std::error::Error for TryRecvError {}

impl fmt::Display for RecvTimeoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Timeout => f.write_str("timed out waiting on receive operation"),
            Self::Disconnected => f.write_str("channel is empty and disconnected"),
        }
    }
}
impl std::error::Error for RecvTimeoutError {}

impl<T> From<SendError<T>> for TrySendError<T> {
    fn from(e: SendError<T>) -> Self {
        Self::Disconnected(e.0)
    }
}
impl<T> From<SendError<T>> for SendTimeoutError<T> {
    fn from(e: SendError<T>) -> Self {
        Self::Disconnected(e.0)
    }
}
impl From<RecvError> for TryRecvError {
    fn from(_: RecvError) -> Self {
        Self::Disconnected
    }
}
impl From<RecvError> for RecvTimeoutError {
    fn from(_: RecvError) -> Self {
        Self::Disconnected
    }
}

/// [`Select::try_select`](crate::Select::try_select) found no operation ready.
#[derive(PartialEq, Eq, Clone, Copy, Debug)]
pub struct TrySelectError;

/// [`Select::select_timeout`](crate::Select::select_timeout) found no operation ready before
/// its deadline.
#[derive(PartialEq, Eq, Clone, Copy, Debug)]
pub struct SelectTimeoutError;

/// [`Select::try_ready`](crate::Select::try_ready) found no operation ready.
#[derive(PartialEq, Eq, Clone, Copy, Debug)]
pub struct TryReadyError;

/// [`Select::ready_timeout`](crate::Select::ready_timeout) found no operation ready before
/// its deadline.
#[derive(PartialEq, Eq, Clone, Copy, Debug)]
pub struct ReadyTimeoutError;

impl fmt::Display for TrySelectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        "all operations in select would block".fmt(f)
    }
}

impl fmt::Display for SelectTimeoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        "timed out waiting on select".fmt(f)
    }
}

impl fmt::Display for TryReadyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        "all operations in select would block".fmt(f)
    }
}

impl fmt::Display for ReadyTimeoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        "timed out waiting on ready".fmt(f)
    }
}

impl std::error::Error for TrySelectError {}
impl std::error::Error for SelectTimeoutError {}
impl std::error::Error for TryReadyError {}
impl std::error::Error for ReadyTimeoutError {}
