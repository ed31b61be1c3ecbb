//! Exhaustive small-tree checks. Bound: every insertion order of n distinct keys for n <= 7,
//! and for n <= 6 every erase order after every insertion order (720 x 720 sequences at
//! n = 6; n = 7 would be 25 million and take minutes). Validation runs after every step.
//! A duplicate-key variant checks that equal starts keep insertion order (ties go right).

use rmapcheck::tree::rbtree::{self, NoAugment, Side};
use rmapcheck::tree::{interval, validate, NodeId, RbRoot, TreeObs};

fn permutations(n: usize) -> Vec<Vec<NodeId>> {
    fn go(cur: &mut Vec<NodeId>, used: &mut [bool], out: &mut Vec<Vec<NodeId>>) {
        if cur.len() == used.len() {
            out.push(cur.clone());
            return;
        }
        for i in 0..used.len() {
            if !used[i] {
                used[i] = true;
                cur.push(i as NodeId);
                go(cur, used, out);
                cur.pop();
                used[i] = false;
            }
        }
    }
    let mut out = Vec::new();
    go(&mut Vec::new(), &mut vec![false; n], &mut out);
    out
}

/// Intervals for id i: start 10*i, last varies so that subtree_last is not just the rightmost.
fn keys(n: usize) -> Vec<(u64, u64)> {
    (0..n as u64)
        .map(|i| (10 * i, 10 * i + (i * 37) % 50))
        .collect()
}

/// A plain (non-augmented) rbtree insert using the same kernel fixup, for a shape cross-check.
fn plain_insert(t: &mut RbRoot, k: &[(u64, u64)], n: NodeId) {
    let mut parent = None;
    let mut side = Side::Left;
    let mut cur = t.root();
    while let Some(p) = cur {
        parent = Some(p);
        let rec = t.node(p).unwrap();
        if k[n as usize].0 < k[p as usize].0 {
            side = Side::Left;
            cur = rec.left;
        } else {
            side = Side::Right;
            cur = rec.right;
        }
    }
    rbtree::link_node(t, n, parent, side, 0);
    rbtree::insert_color(t, n, &NoAugment, &mut TreeObs::default());
}

/// Shape and colours only (subtree_last differs between the plain and augmented trees).
fn shape(t: &RbRoot) -> Vec<(NodeId, Option<NodeId>, Option<NodeId>, bool)> {
    t.inorder()
        .into_iter()
        .map(|n| {
            let r = t.node(n).unwrap();
            (n, r.left, r.right, r.color == rmapcheck::tree::Color::Red)
        })
        .collect()
}

#[test]
fn every_insertion_order_up_to_seven() {
    let mut orders_checked = 0;
    for n in 1..=7 {
        let k = keys(n);
        for order in permutations(n) {
            let mut t = RbRoot::new();
            let mut plain = RbRoot::new();
            let mut obs = TreeObs::checking();
            for (i, &id) in order.iter().enumerate() {
                interval::insert(&mut t, &k, id, &mut obs).unwrap();
                plain_insert(&mut plain, &k, id);
                assert_eq!(validate(&t, &k), vec![], "order {order:?} step {i}");
                assert_eq!(shape(&t), shape(&plain), "order {order:?} step {i}");
            }
            let ids: Vec<NodeId> = (0..n as NodeId).collect();
            assert_eq!(t.inorder(), ids);
            assert!(obs.stale.is_empty());
            orders_checked += 1;
        }
    }
    assert_eq!(orders_checked, 1 + 2 + 6 + 24 + 120 + 720 + 5040);
}

#[test]
fn every_erase_order_after_every_insertion_order_up_to_six() {
    let mut runs = 0u64;
    for n in 1..=6 {
        let k = keys(n);
        let perms = permutations(n);
        for ins in &perms {
            let mut base = RbRoot::new();
            let mut obs = TreeObs::default();
            for &id in ins {
                interval::insert(&mut base, &k, id, &mut obs).unwrap();
            }
            for del in &perms {
                let mut t = base.clone();
                let mut plain = base.clone();
                let mut left: Vec<NodeId> = (0..n as NodeId).collect();
                for &id in del {
                    interval::remove(&mut t, &k, id, &mut obs).unwrap();
                    rbtree::erase(&mut plain, id, &NoAugment, &mut obs);
                    left.retain(|&x| x != id);
                    assert_eq!(validate(&t, &k), vec![], "ins {ins:?} del {del:?}");
                    assert_eq!(t.inorder(), left);
                    assert_eq!(shape(&t), shape(&plain));
                }
                assert!(t.is_empty());
                runs += 1;
            }
        }
    }
    assert_eq!(runs, 1 + 4 + 36 + 576 + 14400 + 518400);
}

/// Starts 0,0,1,1,2,2 (ids 0..6): every insertion order keeps equal starts in insertion
/// order, and every erase order keeps the tree valid.
#[test]
fn duplicate_keys_keep_insertion_order() {
    let k: Vec<(u64, u64)> = (0..6u64).map(|i| (i / 2, i / 2 + i % 3)).collect();
    for ins in permutations(6) {
        let mut t = RbRoot::new();
        let mut obs = TreeObs::checking();
        for &id in &ins {
            interval::insert(&mut t, &k, id, &mut obs).unwrap();
            assert_eq!(validate(&t, &k), vec![]);
        }
        let mut want = ins.clone();
        want.sort_by_key(|&id| k[id as usize].0); // stable: ties keep insertion order
        assert_eq!(t.inorder(), want);
        assert!(obs.stale.is_empty());
        // Erase in insertion order; each query of [1..1] matches a scan.
        for &id in &ins {
            interval::remove(&mut t, &k, id, &mut obs).unwrap();
            want.retain(|&x| x != id);
            assert_eq!(validate(&t, &k), vec![]);
            let got = interval::query(&t, &k, 1, 1, &mut obs);
            let scan: Vec<NodeId> = want
                .iter()
                .copied()
                .filter(|&x| k[x as usize].0 <= 1 && 1 <= k[x as usize].1)
                .collect();
            assert_eq!(got, scan);
        }
    }
}

/// All keys equal: every node goes right of the existing ones.
#[test]
fn all_equal_keys() {
    let k: Vec<(u64, u64)> = (0..50u64).map(|i| (7, 7 + i % 5)).collect();
    let mut t = RbRoot::new();
    let mut obs = TreeObs::default();
    for id in 0..50 {
        interval::insert(&mut t, &k, id, &mut obs).unwrap();
        assert_eq!(validate(&t, &k), vec![]);
    }
    assert_eq!(t.inorder(), (0..50).collect::<Vec<NodeId>>());
    assert_eq!(interval::query(&t, &k, 11, 20, &mut obs).len(), 10);
}
