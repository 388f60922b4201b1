//! Verdict types: per channel and side, exact (count and the threads that use it),
//! conservative (a lower bound with its reason) or refused (with its reason).

use serde::Serialize;

/// A source position, path relative to the crate root, 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Site {
    /// File relative to the crate root.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

/// How many handles (threads) use one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Count {
    /// Exactly one (at most one at any time).
    One,
    /// A bounded number other than one (0 when no handle is ever used).
    N(usize),
    /// Unbounded (a loop creates them).
    Many,
}

impl Count {
    /// The sum of two counts (many absorbs).
    pub fn plus(self, other: Count) -> Count {
        match (self.value(), other.value()) {
            (Some(a), Some(b)) => Count::of(a + b),
            _ => Count::Many,
        }
    }
    /// The count `n`.
    pub fn of(n: usize) -> Count {
        if n == 1 { Count::One } else { Count::N(n) }
    }
    /// The number, `None` for many.
    pub fn value(self) -> Option<usize> {
        match self {
            Count::One => Some(1),
            Count::N(n) => Some(n),
            Count::Many => None,
        }
    }
}

/// The verdict on one side of a channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Side {
    /// Proved: the count, the spawn sites of the threads that use it, and for `Many` why.
    Exact {
        /// Handles that can be used at once.
        count: Count,
        /// Spawn sites of the threads using this side.
        threads: Vec<Site>,
        /// Whether the constructing thread uses it too.
        constructing: bool,
        /// For `Many`: what makes it unbounded (`cloned in a loop`, `spawned in a loop`).
        why: Option<(String, Site)>,
    },
    /// At least `at_least`; the analysis lost track for `reason` at `site`.
    Conservative {
        /// What is certain.
        at_least: Count,
        /// Why it is not exact.
        reason: String,
        /// Where.
        site: Site,
    },
    /// No claim: the handle escapes where the analysis cannot follow.
    Refused {
        /// Why.
        reason: String,
        /// Where.
        site: Site,
    },
}

impl Side {
    /// Whether the side is proved to have at most one handle.
    pub fn is_single(&self) -> bool {
        matches!(
            self,
            Side::Exact {
                count: Count::One | Count::N(0),
                ..
            }
        )
    }
}

impl Side {
    /// What is certain: the exact count, or the lower bound; `None` when refused.
    fn lower_bound(&self) -> Option<Count> {
        match self {
            Side::Exact { count, .. } => Some(*count),
            Side::Conservative { at_least, .. } => Some(*at_least),
            Side::Refused { .. } => None,
        }
    }

    /// The verdict for a channel made at one site whose handles are followed along several
    /// alternative paths (each call of the function making it): the largest count wins; a
    /// refusal or a lower bound on either path makes the whole one.
    pub fn alternative(self, other: Side) -> Side {
        match (self, other) {
            (r @ Side::Refused { .. }, _) | (_, r @ Side::Refused { .. }) => r,
            (a @ Side::Exact { count: ca, .. }, b @ Side::Exact { count: cb, .. }) => {
                let a_larger = match (ca.value(), cb.value()) {
                    (Some(x), Some(y)) => x >= y,
                    (None, _) => true,
                    (Some(_), None) => false,
                };
                if a_larger { a } else { b }
            }
            (c @ Side::Conservative { .. }, e) | (e, c @ Side::Conservative { .. }) => {
                let Side::Conservative {
                    at_least,
                    reason,
                    site,
                } = c
                else {
                    unreachable!("matched as conservative")
                };
                let other = e.lower_bound().unwrap_or(Count::One);
                let larger = match (at_least.value(), other.value()) {
                    (Some(x), Some(y)) => Count::of(x.max(y)),
                    _ => Count::Many,
                };
                Side::Conservative {
                    at_least: larger,
                    reason,
                    site,
                }
            }
        }
    }

    /// The verdict for a channel made in one branch of a function whose callers gave `sides`
    /// and disagree, where which callers reach that branch is not known: a refusal if any
    /// refuses, else at least the smallest count at `site`.
    pub fn branches(sides: Vec<Side>, site: &Site) -> Side {
        let mut least: Option<Count> = None;
        for s in sides {
            let Some(c) = s.lower_bound() else { return s };
            least = Some(match (least.and_then(Count::value), c.value()) {
                (Some(x), Some(y)) => Count::of(x.min(y)),
                (Some(_), None) => least.expect("set"),
                (None, _) => c,
            });
        }
        let at_least = match least {
            Some(c) if c.value() != Some(0) => c,
            _ => Count::One,
        };
        Side::Conservative {
            at_least,
            reason: "made in one of several branches, reached by callers that use it differently"
                .into(),
            site: site.clone(),
        }
    }

    /// One verdict for a side whose source is compiled into two targets (a module shared by
    /// several test crates) that gave `self` and `other`: the same verdict when they agree, a
    /// refusal when either refuses, else at least the larger of the two at `site`.
    pub fn merge(self, other: Side, site: &Site) -> Side {
        if self == other {
            return self;
        }
        let (Some(a), Some(b)) = (self.lower_bound(), other.lower_bound()) else {
            return if matches!(self, Side::Refused { .. }) {
                self
            } else {
                other
            };
        };
        let larger = match (a.value(), b.value()) {
            (Some(x), Some(y)) => Count::of(x.max(y)),
            _ => Count::Many,
        };
        Side::Conservative {
            at_least: larger,
            reason: "compiled into several targets, with different verdicts".into(),
            site: site.clone(),
        }
    }
}

/// One channel construction and its verdict.
#[derive(Debug, Clone, Serialize)]
pub struct Channel {
    /// Where the constructor is called.
    pub site: Site,
    /// The canonical constructor path.
    pub constructor: String,
    /// Whether the constructor takes a capacity.
    pub bounded: bool,
    /// The sending side.
    pub senders: Side,
    /// The receiving side.
    pub receivers: Side,
    /// Byte range in its file of the constructor's path up to its name, generic arguments
    /// excluded (for `--fix`).
    #[serde(skip)]
    pub func_span: (usize, usize),
}

#[cfg(test)]
mod tests {
    use super::{Count, Side, Site};

    #[test]
    fn merged_sides_keep_what_both_targets_prove() {
        let at = Site {
            file: "tests/common/mod.rs".into(),
            line: 3,
            column: 20,
        };
        let exact = |n| Side::Exact {
            count: Count::of(n),
            threads: Vec::new(),
            constructing: true,
            why: None,
        };
        let refused = Side::Refused {
            reason: "returned".into(),
            site: at.clone(),
        };
        assert_eq!(exact(1).merge(exact(1), &at), exact(1));
        assert_eq!(exact(1).merge(refused.clone(), &at), refused);
        assert_eq!(refused.clone().merge(exact(2), &at), refused);
        match exact(1).merge(exact(3), &at) {
            Side::Conservative { at_least, .. } => assert_eq!(at_least, Count::N(3)),
            s => panic!("{s:?}"),
        }
    }

    #[test]
    fn alternatives_keep_the_largest() {
        let at = Site {
            file: "src/lib.rs".into(),
            line: 9,
            column: 5,
        };
        let exact = |n| Side::Exact {
            count: Count::of(n),
            threads: Vec::new(),
            constructing: false,
            why: None,
        };
        let many = Side::Exact {
            count: Count::Many,
            threads: Vec::new(),
            constructing: false,
            why: Some(("cloned in a loop".into(), at.clone())),
        };
        let refused = Side::Refused {
            reason: "returned".into(),
            site: at.clone(),
        };
        let at_least = |n| Side::Conservative {
            at_least: Count::of(n),
            reason: "stored in a field".into(),
            site: at.clone(),
        };
        assert_eq!(exact(1).alternative(exact(2)), exact(2));
        assert_eq!(exact(2).alternative(exact(1)), exact(2));
        assert_eq!(exact(2).alternative(many.clone()), many);
        assert_eq!(exact(1).alternative(refused.clone()), refused);
        assert_eq!(refused.clone().alternative(at_least(1)), refused);
        assert_eq!(exact(3).alternative(at_least(1)), at_least(3));
        assert_eq!(at_least(2).alternative(exact(1)), at_least(2));
        match many.alternative(at_least(1)) {
            Side::Conservative { at_least, .. } => assert_eq!(at_least, Count::Many),
            s => panic!("{s:?}"),
        }
    }

    #[test]
    fn counts_add_and_many_absorbs() {
        assert_eq!(Count::of(1), Count::One);
        assert_eq!(Count::One.plus(Count::One), Count::N(2));
        assert_eq!(Count::N(0).plus(Count::One), Count::One);
        assert_eq!(Count::N(3).plus(Count::Many), Count::Many);
        assert_eq!(Count::Many.value(), None);
    }
}
