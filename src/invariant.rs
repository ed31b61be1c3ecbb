//! The invariants, as a type. One table (the `invariants!` call below) gives each invariant its
//! stable kebab-case name (the one traces, scopes, proof files and `rmapcheck list` use), a
//! one-line description and the phase it is checked in; the enum, [`Invariant::ALL`], the name
//! lookups and the serde form (the name as a string) are all generated from it, so a violation
//! can only name an invariant the checker knows and an [`InvariantSet`] can never meet one it
//! does not. Each invariant also carries its [`Consequence`] on a production kernel, the rank a
//! verdict orders its findings by.
//!
//! It names nothing but the trees.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// When an invariant is checked (its main place; a few are also raised elsewhere, as the
/// descriptions say).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phase {
    /// After every step that touches a tree, a key or a lock, on every tree whose lock is free
    /// (and on every tree when a call returns).
    PerStep,
    /// When a call returns: the whole-world checks.
    Boundary,
    /// At the step that does it: raised by the builtins and the interpreter as they run.
    AtStep,
    /// Only where threads interleave: concurrent walkers, per-VMA read locks, lock order.
    Interleaving,
    /// Patch against baseline (`rmapcheck compare`).
    Compare,
    /// Not a model's: the tool could not set up the run (a fuzz case whose world does not build).
    Harness,
}

impl Phase {
    /// Every phase, in the order `rmapcheck list` prints them.
    pub const ALL: &'static [Phase] = &[
        Phase::PerStep,
        Phase::Boundary,
        Phase::AtStep,
        Phase::Interleaving,
        Phase::Compare,
        Phase::Harness,
    ];

    /// The phase in words, for `rmapcheck list`.
    pub fn describe(self) -> &'static str {
        match self {
            Phase::PerStep => "after every step, on each tree whose lock is free",
            Phase::Boundary => "when a call returns",
            Phase::AtStep => "at the step that does it",
            Phase::Interleaving => "in interleavings of a call with concurrent threads",
            Phase::Compare => "comparing a patch with the baseline",
            Phase::Harness => "by the tool itself, not a model",
        }
    }
}

/// What breaking an invariant does to a production kernel (no CONFIG_DEBUG_VM*, no lockdep),
/// most severe first: the order counterexamples are ranked in (`explore::consequence`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Consequence {
    /// The rmap loses a mapped page: an rmap walk (try_to_unmap, migration, reclaim,
    /// folio_referenced) misses a pte, or a pte sits where no walk computes it.
    MissedWalk,
    /// A freed (or detached) object is still reachable from an rmap tree or handed out by a
    /// walk: a use-after-free.
    UseAfterFree,
    /// The tree code or its locking breaks: a crash, an endless loop or a hang in the interval
    /// tree, the VMA list or the locks around them.
    BrokenTree,
    /// Seen only by a debug check (CONFIG_DEBUG_VM_RB, VM_WARN_ON/VM_BUG_ON under
    /// CONFIG_DEBUG_VM): a production kernel runs on.
    DebugOnly,
    /// Not a fact about the kernel: a difference from the baseline, or the tool's own set-up.
    NoKernelEffect,
}

impl Consequence {
    /// Every class, most severe first.
    pub const ALL: &'static [Consequence] = &[
        Consequence::MissedWalk,
        Consequence::UseAfterFree,
        Consequence::BrokenTree,
        Consequence::DebugOnly,
        Consequence::NoKernelEffect,
    ];

    /// The class's short name, as verdicts print it.
    pub const fn name(self) -> &'static str {
        match self {
            Consequence::MissedWalk => "missed rmap walk",
            Consequence::UseAfterFree => "use-after-free",
            Consequence::BrokenTree => "broken tree",
            Consequence::DebugOnly => "debug-only",
            Consequence::NoKernelEffect => "no kernel effect",
        }
    }

    /// The invariants of this class, in table order.
    pub fn invariants(self) -> InvariantSet {
        Invariant::ALL
            .iter()
            .copied()
            .filter(|i| i.consequence() == self)
            .collect()
    }
}

impl fmt::Display for Consequence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

macro_rules! invariants {
    ($($variant:ident = $name:literal, $phase:ident, $cls:ident, $what:literal;)*) => {
        /// One invariant the checker knows (see the table in `src/invariant.rs`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Invariant {
            $(
                #[doc = concat!("`", $name, "`: ", $what, ".")]
                $variant,
            )*
        }

        impl Invariant {
            /// Every invariant, in table order.
            pub const ALL: &'static [Invariant] = &[$(Invariant::$variant),*];

            /// Every name, in table order.
            pub(crate) const NAMES: &'static [&'static str] = &[$($name),*];

            /// The stable kebab-case name traces cite (`tree-order`).
            pub const fn name(self) -> &'static str {
                match self {
                    $(Invariant::$variant => $name,)*
                }
            }

            /// One line saying what holds.
            pub const fn description(self) -> &'static str {
                match self {
                    $(Invariant::$variant => $what,)*
                }
            }

            /// Where it is checked.
            pub const fn phase(self) -> Phase {
                match self {
                    $(Invariant::$variant => Phase::$phase,)*
                }
            }

            /// What breaking it does to a production kernel, for ranking counterexamples.
            pub const fn consequence(self) -> Consequence {
                match self {
                    $(Invariant::$variant => Consequence::$cls,)*
                }
            }

            /// The invariant of a name, if there is one.
            pub fn from_name(name: &str) -> Option<Invariant> {
                match name {
                    $($name => Some(Invariant::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

invariants! {
    RbShape = "rb-shape", PerStep, BrokenTree,
        "red-black colours, black height and parent links are consistent";
    TreeOrder = "tree-order", PerStep, BrokenTree,
        "in-order starts are non-decreasing on the objects' current keys";
    Augment = "augment", PerStep, BrokenTree,
        "every node's subtree_last is the max LAST of its subtree";
    Membership = "membership", Boundary, UseAfterFree,
        "each VMA/AVC is in exactly the rmap trees it belongs to";
    StaleDescent = "stale-descent", AtStep, BrokenTree,
        "no insert or query descends past a node whose key is out of place";
    TreePrecondition = "tree-precondition", AtStep, BrokenTree,
        "no erase of a non-member, insert of a member, bad insert_after";
    CachedKeys = "cached-keys", Boundary, DebugOnly,
        "DEBUG_VM_RB: each AVC's cached start/last equal its VMA's";
    LockDiscipline = "lock-discipline", AtStep, BrokenTree,
        "trees change only under their write locks; all locks dropped";
    WalkerComplete = "walker-complete", Boundary, MissedWalk,
        "an rmap walk finds every VMA mapping its pgoff (also concurrently)";
    RmapComplete = "rmap-complete", Boundary, MissedWalk,
        "the rmap walk from each mapped folio finds every pte mapping it";
    RmapExact = "rmap-exact", Boundary, UseAfterFree,
        "a walk from a folio returns each VMA once, live, able to map it";
    MappingPreserved = "mapping-preserved", Boundary, MissedWalk,
        "ptes change only as the call may; each pte's VMA maps its folio";
    VmaLockStable = "vma-lock-stable", Interleaving, MissedWalk,
        "a per-VMA read-lock holder sees its VMA's bounds unchanged";
    Deadlock = "deadlock", Interleaving, BrokenTree,
        "some thread can always move (not every live thread waits)";
    LockOrder = "lock-order", Interleaving, BrokenTree,
        "observed lock order is acyclic and follows mm/rmap.c's order";
    VmaLayout = "vma-layout", Boundary, BrokenTree,
        "each mm's VMAs are sorted, non-overlapping, non-empty, counted";
    ModelAssert = "model-assert", AtStep, DebugOnly,
        "a VM_WARN_ON / VM_BUG_ON in the model fired";
    ModelFault = "model-fault", AtStep, BrokenTree,
        "the model did something meaningless (NULL dereference, freed use)";
    Equivalent = "equivalent", Compare, NoKernelEffect,
        "a patch gives the same walker answers and layout as the baseline";
    FuzzSetup = "fuzz-setup", Harness, NoKernelEffect,
        "a fuzz case's initial world builds (a decoder bug otherwise)";
}

// InvariantSet is a u32 bitset.
const _: () = assert!(Invariant::ALL.len() <= 32);

impl Invariant {
    fn bit(self) -> u32 {
        1 << self as u32
    }
}

impl fmt::Display for Invariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Invariant {
    type Err = String;

    /// The named invariant; the error names the unknown one and lists the known ones.
    fn from_str(s: &str) -> Result<Invariant, String> {
        Invariant::from_name(s).ok_or_else(|| {
            format!(
                "unknown invariant {s:?}; the invariants are {} (see `rmapcheck list`)",
                Invariant::NAMES.join(", ")
            )
        })
    }
}

impl Serialize for Invariant {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Invariant {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Invariant, D::Error> {
        let name = String::deserialize(d)?;
        Invariant::from_name(&name)
            .ok_or_else(|| serde::de::Error::unknown_variant(&name, Invariant::NAMES))
    }
}

/// A set of invariants to check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InvariantSet(u32);

impl Default for InvariantSet {
    fn default() -> Self {
        InvariantSet::all()
    }
}

impl InvariantSet {
    pub fn all() -> Self {
        Invariant::ALL.iter().copied().collect()
    }

    pub fn empty() -> Self {
        InvariantSet(0)
    }

    /// No invariant at all.
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }

    pub fn contains(&self, inv: Invariant) -> bool {
        self.0 & inv.bit() != 0
    }

    /// This set and `inv`.
    pub fn with(self, inv: Invariant) -> Self {
        InvariantSet(self.0 | inv.bit())
    }

    /// This set less `inv`.
    pub fn without(self, inv: Invariant) -> Self {
        InvariantSet(self.0 & !inv.bit())
    }

    /// The members, in table order.
    pub fn iter(self) -> impl Iterator<Item = Invariant> {
        Invariant::ALL
            .iter()
            .copied()
            .filter(move |&i| self.contains(i))
    }

    /// Keep only the violations of invariants in the set.
    pub fn filter(&self, v: Vec<Violation>) -> Vec<Violation> {
        v.into_iter()
            .filter(|x| self.contains(x.invariant))
            .collect()
    }
}

impl FromIterator<Invariant> for InvariantSet {
    fn from_iter<I: IntoIterator<Item = Invariant>>(it: I) -> Self {
        it.into_iter()
            .fold(InvariantSet::empty(), InvariantSet::with)
    }
}

impl From<&crate::tree::validate::TreeViolation> for Invariant {
    fn from(v: &crate::tree::validate::TreeViolation) -> Invariant {
        use crate::tree::validate::TreeViolation as T;
        match v {
            T::RbShape { .. } => Invariant::RbShape,
            T::TreeOrder { .. } => Invariant::TreeOrder,
            T::Augment { .. } => Invariant::Augment,
        }
    }
}

/// One violated invariant.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Violation {
    /// The invariant (serialised as its stable name, see [`Invariant`]).
    pub invariant: Invariant,
    /// What was found, naming the objects involved (`vma#3`, `mapping#0`, ...).
    pub message: String,
}

impl Violation {
    pub fn new(invariant: Invariant, message: impl Into<String>) -> Self {
        Violation {
            invariant,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.invariant, self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_violations_map_to_the_invariant_they_name() {
        use crate::tree::validate::TreeViolation as T;
        let all = [
            T::RbShape {
                node: None,
                what: String::new(),
            },
            T::TreeOrder {
                node: 1,
                start: 0,
                prev: 0,
                prev_start: 1,
            },
            T::Augment {
                node: 0,
                stored: 0,
                expected: 1,
            },
        ];
        for v in &all {
            assert_eq!(Invariant::from(v).name(), v.name());
        }
    }

    use std::collections::BTreeSet;

    #[test]
    fn names_are_unique_kebab_case_and_round_trip() {
        let names: BTreeSet<&str> = Invariant::ALL.iter().map(|i| i.name()).collect();
        assert_eq!(names.len(), Invariant::ALL.len(), "duplicate names");
        assert_eq!(Invariant::NAMES.len(), Invariant::ALL.len());
        for (k, &i) in Invariant::ALL.iter().enumerate() {
            assert_eq!(i as usize, k, "ALL is in declaration order");
            assert_eq!(Invariant::NAMES[k], i.name());
            assert_eq!(Invariant::from_name(i.name()), Some(i));
            assert_eq!(i.name().parse::<Invariant>(), Ok(i));
            assert_eq!(i.to_string(), i.name());
            assert!(
                i.name()
                    .split('-')
                    .all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase())),
                "{} is not kebab-case",
                i.name()
            );
            assert!(!i.description().is_empty());
            assert!(Phase::ALL.contains(&i.phase()));
            let json = serde_json::to_string(&i).unwrap();
            assert_eq!(json, format!("\"{}\"", i.name()));
            assert_eq!(serde_json::from_str::<Invariant>(&json).unwrap(), i);
        }
    }

    #[test]
    fn every_invariant_is_ranked_and_the_ranking_is_the_issue_order() {
        use Consequence as C;
        // the order a verdict ranks findings in
        assert!(C::MissedWalk < C::UseAfterFree);
        assert!(C::UseAfterFree < C::BrokenTree);
        assert!(C::BrokenTree < C::DebugOnly);
        for &c in C::ALL {
            assert!(!c.invariants().is_empty() || c == C::NoKernelEffect, "{c}");
        }
        let all: usize = C::ALL.iter().map(|c| c.invariants().iter().count()).sum();
        assert_eq!(
            all,
            Invariant::ALL.len(),
            "each invariant in exactly one class"
        );
        assert_eq!(Invariant::RmapComplete.consequence(), C::MissedWalk);
        assert_eq!(Invariant::WalkerComplete.consequence(), C::MissedWalk);
        assert_eq!(Invariant::CachedKeys.consequence(), C::DebugOnly);
        assert_eq!(Invariant::RbShape.consequence(), C::BrokenTree);
    }

    #[test]
    fn unknown_names_are_errors_that_list_the_known_ones() {
        assert_eq!(Invariant::from_name("tree-ordr"), None);
        let e = "tree-ordr".parse::<Invariant>().unwrap_err();
        assert!(e.contains("unknown invariant \"tree-ordr\""), "{e}");
        for n in Invariant::NAMES {
            assert!(e.contains(n), "{e} does not list {n}");
        }
        let e = serde_json::from_str::<Invariant>("\"tree-ordr\"").unwrap_err();
        assert!(e.to_string().contains("tree-ordr"), "{e}");
    }

    #[test]
    fn a_set_keeps_every_violation_of_its_members() {
        let all: Vec<Violation> = Invariant::ALL
            .iter()
            .map(|&i| Violation::new(i, format!("message of {i}")))
            .collect();
        assert_eq!(InvariantSet::all().filter(all.clone()), all);
        assert!(InvariantSet::empty().filter(all.clone()).is_empty());
        for &i in Invariant::ALL {
            let one = InvariantSet::empty().with(i);
            assert_eq!(one.iter().collect::<Vec<_>>(), vec![i]);
            assert_eq!(i.name().parse::<Invariant>(), Ok(i));
            let kept = one.filter(all.clone());
            assert_eq!(kept.len(), 1);
            assert_eq!(kept[0].invariant, i);
            let rest = InvariantSet::all().without(i).filter(all.clone());
            assert_eq!(rest.len(), all.len() - 1);
            assert!(rest.iter().all(|v| v.invariant != i));
        }
    }
}
