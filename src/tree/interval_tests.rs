//! Unit tests of the interval tree: a tree's hash, equality and `Debug` text are those of its
//! nodes' kernel fields; and of its stale-descent check: two live query iterators, a rekeyed
//! node judged by the neighbours later inserts and erases give it, and the in-order neighbours
//! and leftmost node the tree keeps against its in-order sequence on random op lists.

use super::*;
use crate::tree::record::NO_NODE;
use crate::tree::RbNode;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

fn tree(keys: &Vec<(u64, u64)>) -> RbRoot {
    let mut t = RbRoot::new();
    for n in 0..keys.len() as NodeId {
        insert(&mut t, keys, n, &mut TreeObs::default()).unwrap();
    }
    t
}

/// A tree that keeps no neighbours: its checks walk the links, as `rb_prev`/`rb_next` do.
fn walking() -> RbRoot {
    let mut t = RbRoot::new();
    t.set_root(None);
    t
}

/// The kept neighbours and leftmost of `t` are those of its in-order sequence.
fn assert_kept_in_order(t: &RbRoot) {
    let order = t.inorder();
    assert_eq!(t.kept_leftmost(), Some(order.first().copied()));
    for (i, &n) in order.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| order[j]);
        let next = order.get(i + 1).copied();
        assert_eq!(t.neighbours(n), Some((prev, next)), "n{n} in {order:?}");
    }
}

#[test]
fn two_live_iterators_each_report_every_node_once() {
    let mut keys: Vec<(u64, u64)> = (0..16).map(|i| (i * 4, i * 4 + 20)).collect();
    let t = tree(&keys);
    keys[5] = (1, 2);
    let mut want = TreeObs::checking();
    let all = query(&t, &keys, 0, 100, &mut want);
    assert!(!want.stale.is_empty());
    let (mut oa, mut ob) = (TreeObs::checking(), TreeObs::checking());
    let mut a = query_iter(&t, &keys, 0, 100, &mut oa);
    let mut b = query_iter(&t, &keys, 0, 100, &mut ob);
    let (mut ga, mut gb) = (Vec::new(), Vec::new());
    loop {
        let (x, y) = (a.next(), b.next());
        ga.extend(x);
        gb.extend(y);
        if x.is_none() && y.is_none() {
            break;
        }
    }
    assert_eq!((&ga, &gb), (&all, &all));
    assert_eq!(oa.stale, want.stale);
    assert_eq!(ob.stale, want.stale);
    assert_eq!((oa.stats, ob.stats), (want.stats, want.stats));
    let mut nodes: Vec<NodeId> = want.stale.iter().map(|s| s.node).collect();
    nodes.sort_unstable();
    nodes.dedup();
    assert_eq!(nodes.len(), want.stale.len(), "a node reported twice");
}

#[test]
fn a_rekeyed_node_is_judged_by_its_neighbours_of_the_moment() {
    // n0..n7 start at 0, 10, ..., 70; n3 is rekeyed in place, and later inserts and erases
    // change its neighbours: whether it is stale (and with it the neighbour it is inverted
    // with) follows its neighbours of the moment.
    let mut keys: Vec<(u64, u64)> = (0..8).map(|i| (i * 10, i * 10 + 5)).collect();
    let mut t = tree(&keys);
    // (node, pred, succ) of each report of a checked query of everything, sorted by node
    let stale_of = |t: &RbRoot, keys: &Vec<(u64, u64)>| {
        let mut obs = TreeObs::checking();
        assert_eq!(query(t, keys, 0, 100, &mut obs).len(), t.len());
        let mut r: Vec<_> = obs.stale.iter().map(|s| (s.node, s.pred, s.succ)).collect();
        r.sort_unstable();
        r
    };
    keys[3] = (34, 39); // still between n2 (20) and n4 (40)
    assert!(stale_of(&t, &keys).is_empty());
    // a new predecessor for n3: n8 at 32 sorts between n2 and n3
    keys.push((32, 33));
    insert(&mut t, &keys, 8, &mut TreeObs::checking()).unwrap();
    assert_eq!(t.neighbours(3), Some((Some(8), Some(4))));
    assert!(stale_of(&t, &keys).is_empty());
    // 31 is after n2 (20) but before the predecessor the insert gave it
    keys[3] = (31, 39);
    assert_eq!(
        stale_of(&t, &keys),
        vec![
            (3, Some((8, 32)), Some((4, 40))),
            (8, Some((2, 20)), Some((3, 31)))
        ]
    );
    // erasing that predecessor puts n3 back in place
    remove(&mut t, &keys, 8, &mut TreeObs::checking()).unwrap();
    assert_eq!(t.neighbours(3), Some((Some(2), Some(4))));
    assert!(stale_of(&t, &keys).is_empty());
    // 45 is after its successor n4 (40); erasing n4 gives it n5 (50) and puts it in place
    keys[3] = (45, 49);
    assert_eq!(stale_of(&t, &keys).len(), 2);
    remove(&mut t, &keys, 4, &mut TreeObs::checking()).unwrap();
    assert!(stale_of(&t, &keys).is_empty());
    keys[3] = (55, 59);
    assert_eq!(
        stale_of(&t, &keys),
        vec![
            (3, Some((2, 20)), Some((5, 50))),
            (5, Some((3, 55)), Some((6, 60)))
        ]
    );
    assert_kept_in_order(&t);
}

/// On random op lists (stale keys included), the tree keeps its in-order neighbours and
/// leftmost node right after every insert, insert_after and erase, and a checked query
/// reports and counts what the same query of a tree that walks the links does. (The reports
/// against a brute-force in-order check, as a property test: tests/tree/tree_stale.rs.)
#[test]
fn kept_neighbours_follow_every_change() {
    let mut rng = crate::tree::bench::SplitMix64(15);
    for _ in 0..200 {
        let mut keys: Vec<(u64, u64)> = Vec::new();
        let (mut t, mut w) = (RbRoot::new(), walking());
        let mut members: Vec<NodeId> = Vec::new();
        for _ in 0..rng.below(100) {
            let (mut a, mut b) = (TreeObs::checking(), TreeObs::checking());
            let s = rng.below(60);
            match rng.below(10) {
                0..=3 => {
                    keys.push((s, s + rng.below(12)));
                    let n = keys.len() as NodeId - 1;
                    insert(&mut t, &keys, n, &mut a).unwrap();
                    insert(&mut w, &keys, n, &mut b).unwrap();
                    members.push(n);
                }
                4 if !members.is_empty() => {
                    let p = members[rng.below(members.len() as u64) as usize];
                    keys.push(keys[p as usize]);
                    let n = keys.len() as NodeId - 1;
                    insert_after(&mut t, &keys, n, p, &mut a).unwrap();
                    insert_after(&mut w, &keys, n, p, &mut b).unwrap();
                    members.push(n);
                }
                5 | 6 if !members.is_empty() => {
                    let n = members.swap_remove(rng.below(members.len() as u64) as usize);
                    remove(&mut t, &keys, n, &mut a).unwrap();
                    remove(&mut w, &keys, n, &mut b).unwrap();
                }
                7 if !members.is_empty() => {
                    let n = members[rng.below(members.len() as u64) as usize];
                    keys[n as usize] = (s, s + rng.below(12));
                }
                _ => {
                    let f = rng.below(70);
                    let l = f + rng.below(20);
                    assert_eq!(
                        query(&t, &keys, f, l, &mut a),
                        query(&w, &keys, f, l, &mut b)
                    );
                }
            }
            assert_eq!(a.stale, b.stale);
            assert_eq!(a.stats, b.stats);
            assert!(t == w);
            assert_kept_in_order(&t);
        }
    }
}

fn hash(t: &RbRoot) -> u64 {
    let mut h = DefaultHasher::new();
    t.hash(&mut h);
    h.finish()
}

/// Every call a hasher gets, in order.
#[derive(Default)]
struct Calls(Vec<String>);

impl Hasher for Calls {
    fn finish(&self) -> u64 {
        0
    }
    fn write(&mut self, b: &[u8]) {
        self.0.push(format!("{b:?}"));
    }
    fn write_u8(&mut self, i: u8) {
        self.0.push(format!("u8 {i}"));
    }
    fn write_u32(&mut self, i: u32) {
        self.0.push(format!("u32 {i}"));
    }
    fn write_u64(&mut self, i: u64) {
        self.0.push(format!("u64 {i}"));
    }
    fn write_usize(&mut self, i: usize) {
        self.0.push(format!("usize {i}"));
    }
    fn write_isize(&mut self, i: isize) {
        self.0.push(format!("isize {i}"));
    }
}

#[test]
fn hash_debug_and_equality_are_those_of_the_kernel_fields() {
    let keys: Vec<(u64, u64)> = [5, 1, 9, 3, 7].iter().map(|&s| (s, s + 2)).collect();
    let mut t = RbRoot::new();
    for n in 0..5 {
        insert(&mut t, &keys, n, &mut TreeObs::checking()).unwrap();
    }
    remove(&mut t, &keys, 2, &mut TreeObs::default()).unwrap();
    let views: Vec<Option<RbNode>> = (0..5).map(|n| t.node(n)).collect();
    let (mut got, mut want) = (Calls::default(), Calls::default());
    t.hash(&mut got);
    t.root.hash(&mut want);
    views.as_slice().hash(&mut want);
    assert_eq!(got.0, want.0);
    let want_debug = format!(
        "RbRoot {{ root: {:?}, nodes: {:?}, count: 4 }}",
        t.root, views
    );
    assert_eq!(format!("{t:?}"), want_debug);
    assert!(format!("{t:#?}").contains("subtree_last"));
    // the same links without kept neighbours: equal, same hash
    let mut w = t.clone();
    w.set_root(t.root);
    for n in w.members() {
        if let Some(r) = w.rec_mut(n) {
            r.prev = NO_NODE;
            r.next = NO_NODE;
        }
    }
    assert_eq!(t, w);
    assert_eq!(hash(&t), hash(&w));
}

/// Linking a node as the root of a tree that has one cuts the old nodes off: the tree no
/// longer keeps the neighbours, so the stale-descent check walks the links.
#[test]
fn a_second_root_link_stops_keeping_the_neighbours() {
    let keys: Vec<(u64, u64)> = vec![(1, 2), (5, 6)];
    let mut t = RbRoot::new();
    insert(&mut t, &keys, 0, &mut TreeObs::checking()).unwrap();
    assert!(t.keeps_order());
    crate::tree::rbtree::link_node(&mut t, 1, None, crate::tree::rbtree::Side::Left, 6);
    assert!(!t.keeps_order());
}
