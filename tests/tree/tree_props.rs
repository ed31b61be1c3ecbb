//! Property tests of the interval tree against oracles: random insert / erase / query /
//! insert_after streams. After every operation the tree validates clean, its in-order id
//! sequence equals an ordered-list oracle (ties go right, insert_after lands right after
//! prev), its in-order starts equal a BTreeMap multiset of starts, and query answers equal a
//! brute-force scan (in tree order). Precondition errors leave the tree unchanged.

use std::collections::BTreeMap;

use proptest::prelude::*;
use rmapcheck::tree::{interval, validate, NodeId, RbRoot, TreeError, TreeObs};

#[derive(Clone, Debug)]
enum Step {
    Insert {
        start: u64,
        len: u64,
    },
    /// Erase the member at position `pick % len` of the oracle order.
    Erase {
        pick: usize,
    },
    /// Fork-like: a new object with the interval of the member at `pick`, right after it.
    InsertAfter {
        pick: usize,
    },
    Query {
        first: u64,
        span: u64,
    },
    /// Erase an object that is not in the tree (expect an error, no change).
    EraseMissing,
    /// Re-insert a member (expect an error, no change).
    InsertMember {
        pick: usize,
    },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0u64..60, 0u64..20).prop_map(|(start, len)| Step::Insert { start, len }),
        3 => any::<usize>().prop_map(|pick| Step::Erase { pick }),
        1 => any::<usize>().prop_map(|pick| Step::InsertAfter { pick }),
        2 => (0u64..80, 0u64..30).prop_map(|(first, span)| Step::Query { first, span }),
        1 => Just(Step::EraseMissing),
        1 => any::<usize>().prop_map(|pick| Step::InsertMember { pick }),
    ]
}

struct World {
    t: RbRoot,
    keys: Vec<(u64, u64)>,
    order: Vec<NodeId>,
    starts: BTreeMap<u64, usize>,
    obs: TreeObs,
}

impl World {
    fn check(&self) {
        assert_eq!(validate(&self.t, &self.keys), vec![]);
        assert_eq!(self.t.inorder(), self.order);
        assert_eq!(self.t.len(), self.order.len());
        let tree_starts: Vec<u64> = self
            .t
            .inorder()
            .iter()
            .map(|&n| self.keys[n as usize].0)
            .collect();
        let oracle_starts: Vec<u64> = self
            .starts
            .iter()
            .flat_map(|(&s, &c)| std::iter::repeat_n(s, c))
            .collect();
        assert_eq!(tree_starts, oracle_starts);
    }

    fn add_start(&mut self, s: u64) {
        *self.starts.entry(s).or_insert(0) += 1;
    }

    fn del_start(&mut self, s: u64) {
        let c = self.starts.get_mut(&s).unwrap();
        *c -= 1;
        if *c == 0 {
            self.starts.remove(&s);
        }
    }

    fn apply(&mut self, s: &Step) {
        match *s {
            Step::Insert { start, len } => {
                let id = self.keys.len() as NodeId;
                self.keys.push((start, start + len));
                interval::insert(&mut self.t, &self.keys, id, &mut self.obs).unwrap();
                // Ties go right: after every node whose start is <= ours.
                let pos = self
                    .order
                    .iter()
                    .position(|&n| self.keys[n as usize].0 > start)
                    .unwrap_or(self.order.len());
                self.order.insert(pos, id);
                self.add_start(start);
            }
            Step::Erase { pick } => {
                if self.order.is_empty() {
                    return;
                }
                let id = self.order.remove(pick % self.order.len());
                interval::remove(&mut self.t, &self.keys, id, &mut self.obs).unwrap();
                assert!(!self.t.contains(id));
                self.del_start(self.keys[id as usize].0);
            }
            Step::InsertAfter { pick } => {
                if self.order.is_empty() {
                    return;
                }
                let pos = pick % self.order.len();
                let prev = self.order[pos];
                let id = self.keys.len() as NodeId;
                self.keys.push(self.keys[prev as usize]);
                interval::insert_after(&mut self.t, &self.keys, id, prev, &mut self.obs).unwrap();
                self.order.insert(pos + 1, id);
                self.add_start(self.keys[id as usize].0);
            }
            Step::Query { first, span } => {
                let last = first + span;
                let got = interval::query(&self.t, &self.keys, first, last, &mut self.obs);
                let want: Vec<NodeId> = self
                    .order
                    .iter()
                    .copied()
                    .filter(|&n| {
                        let (s, l) = self.keys[n as usize];
                        s <= last && first <= l
                    })
                    .collect();
                assert_eq!(got, want, "query [{first}..{last}]");
                let head = interval::iter_first(&self.t, &self.keys, first, last, &mut self.obs);
                assert_eq!(head, want.first().copied());
            }
            Step::EraseMissing => {
                let id = self.keys.len() as NodeId + 3;
                let before = self.t.clone();
                assert_eq!(
                    interval::remove(&mut self.t, &self.keys, id, &mut self.obs),
                    Err(TreeError::NotInTree(id))
                );
                assert_eq!(
                    interval::insert_after(&mut self.t, &self.keys, id + 1, id, &mut self.obs),
                    Err(TreeError::PrevNotInTree(id))
                );
                assert_eq!(self.t, before);
            }
            Step::InsertMember { pick } => {
                if self.order.is_empty() {
                    return;
                }
                let id = self.order[pick % self.order.len()];
                let before = self.t.clone();
                assert_eq!(
                    interval::insert(&mut self.t, &self.keys, id, &mut self.obs),
                    Err(TreeError::AlreadyInTree(id))
                );
                assert_eq!(self.t, before);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_streams_match_oracles(steps in prop::collection::vec(step(), 1..120)) {
        let mut w = World {
            t: RbRoot::new(),
            keys: Vec::new(),
            order: Vec::new(),
            starts: BTreeMap::new(),
            obs: TreeObs::checking(),
        };
        for s in &steps {
            w.apply(s);
            w.check();
        }
        // Keys never went stale, so no descent may report one.
        prop_assert!(w.obs.stale.is_empty(), "{:?}", w.obs.stale);
        // Emptying the tree leaves a tree equal to a fresh one (trailing slots ignored).
        for id in w.order.clone() {
            interval::remove(&mut w.t, &w.keys, id, &mut w.obs).unwrap();
        }
        prop_assert!(w.t.is_empty());
        prop_assert_eq!(w.t.root(), None);
        prop_assert_eq!(&w.t, &RbRoot::new());
    }

    /// `propagate` after a key's LAST changes in place restores the augment invariant (the
    /// start stays, so the order is intact), and is a no-op on a valid tree.
    #[test]
    fn propagate_repairs_changed_last(
        ivs in prop::collection::vec((0u64..100, 0u64..50), 1..40),
        pick in any::<usize>(),
        new_len in 0u64..200,
    ) {
        let mut t = RbRoot::new();
        let mut keys: Vec<(u64, u64)> = ivs.iter().map(|&(s, l)| (s, s + l)).collect();
        let mut obs = TreeObs::default();
        for id in 0..keys.len() as NodeId {
            interval::insert(&mut t, &keys, id, &mut obs).unwrap();
        }
        let before = t.clone();
        let id = (pick % keys.len()) as NodeId;
        interval::propagate(&mut t, &keys, id, &mut obs).unwrap();
        prop_assert_eq!(&t, &before);
        keys[id as usize].1 = keys[id as usize].0 + new_len;
        interval::propagate(&mut t, &keys, id, &mut obs).unwrap();
        prop_assert_eq!(validate(&t, &keys), vec![]);
    }
}
