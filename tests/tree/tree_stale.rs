//! Property test of the stale-descent check on random op lists with stale keys (objects
//! rekeyed in place): every checked insert, insert_after, erase and query reports the same
//! nodes, in the same order, with the same work counts, as the same operation on a tree that
//! walks the links for each node's neighbours (`rb_prev`/`rb_next`: a tree whose root was
//! written by hand keeps no neighbours); and each report names a node out of place among its
//! neighbours in the tree's in-order sequence (brute force).

use proptest::prelude::*;
use rmapcheck::tree::{interval, NodeId, RbRoot, TreeObs};

/// One step; indices pick among the members (modulo their number).
#[derive(Clone, Debug)]
enum Step {
    Insert(u64, u64),
    InsertAfter(usize),
    Erase(usize),
    Rekey(usize, u64, u64),
    Query(u64, u64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..60u64, 0..12u64).prop_map(|(s, w)| Step::Insert(s, w)),
        1 => any::<usize>().prop_map(Step::InsertAfter),
        2 => any::<usize>().prop_map(Step::Erase),
        2 => (any::<usize>(), 0..60u64, 0..12u64).prop_map(|(i, s, w)| Step::Rekey(i, s, w)),
        3 => (0..70u64, 0..20u64).prop_map(|(f, w)| Step::Query(f, w)),
    ]
}

/// A tree that keeps no neighbours: its checks walk the links.
fn walking() -> RbRoot {
    let mut t = RbRoot::new();
    t.set_root(None);
    t
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn kept_neighbours_report_as_walking_the_links(steps in prop::collection::vec(step(), 1..80)) {
        let mut keys: Vec<(u64, u64)> = Vec::new();
        let (mut t, mut w) = (RbRoot::new(), walking());
        let mut members: Vec<NodeId> = Vec::new();
        for st in steps {
            // the reports of an insert are of the tree before it
            let order = t.inorder();
            let (mut a, mut b) = (TreeObs::checking(), TreeObs::checking());
            let pick = |i: usize| members[i % members.len()];
            match st {
                Step::Insert(s, wd) => {
                    keys.push((s, s + wd));
                    let n = keys.len() as NodeId - 1;
                    interval::insert(&mut t, &keys, n, &mut a).unwrap();
                    interval::insert(&mut w, &keys, n, &mut b).unwrap();
                    members.push(n);
                }
                Step::InsertAfter(i) if !members.is_empty() => {
                    let p = pick(i);
                    keys.push(keys[p as usize]);
                    let n = keys.len() as NodeId - 1;
                    interval::insert_after(&mut t, &keys, n, p, &mut a).unwrap();
                    interval::insert_after(&mut w, &keys, n, p, &mut b).unwrap();
                    members.push(n);
                }
                Step::Erase(i) if !members.is_empty() => {
                    let n = members.swap_remove(i % members.len());
                    interval::remove(&mut t, &keys, n, &mut a).unwrap();
                    interval::remove(&mut w, &keys, n, &mut b).unwrap();
                }
                Step::Rekey(i, s, wd) if !members.is_empty() => {
                    keys[pick(i) as usize] = (s, s + wd);
                }
                Step::Query(f, wd) => {
                    prop_assert_eq!(
                        interval::query(&t, &keys, f, f + wd, &mut a),
                        interval::query(&w, &keys, f, f + wd, &mut b)
                    );
                }
                _ => {}
            }
            prop_assert_eq!(&a.stale, &b.stale);
            prop_assert_eq!(a.stats, b.stats);
            prop_assert!(t == w);
            prop_assert_eq!(t.inorder(), w.inorder());
            // brute force: each report names a node out of place among its in-order neighbours
            for r in &a.stale {
                let i = order.iter().position(|&n| n == r.node).unwrap();
                let start = keys[r.node as usize].0;
                let pred = i.checked_sub(1).map(|j| (order[j], keys[order[j] as usize].0));
                let succ = order.get(i + 1).map(|&s| (s, keys[s as usize].0));
                prop_assert_eq!((r.start, r.pred, r.succ), (start, pred, succ));
                prop_assert!(
                    pred.is_some_and(|p| start < p.1) || succ.is_some_and(|s| start > s.1)
                );
            }
        }
    }
}
