//! Corruption and stale-key tests: each damage must fire the right named violation, and
//! key-driven descents through a stale-keyed node must report `stale-descent` (with the
//! stale node's id) while valid keys report nothing.

use rmapcheck::check::Invariant;
use rmapcheck::tree::{interval, render, validate, Color, NodeId, RbRoot, TreeObs, TreeViolation};

/// The ascending 1..=7 tree 2B(1B,4R(3B,6B(5R,7R))); id i has start 10*(i+1), last +5.
fn seven() -> (RbRoot, Vec<(u64, u64)>) {
    let k: Vec<(u64, u64)> = (1..=7u64).map(|x| (10 * x, 10 * x + 5)).collect();
    let mut t = RbRoot::new();
    let mut obs = TreeObs::default();
    for id in 0..7 {
        interval::insert(&mut t, &k, id, &mut obs).unwrap();
    }
    assert_eq!(validate(&t, &k), vec![]);
    (t, k)
}

/// Id of the node whose start is 10*x.
fn id(x: u64) -> NodeId {
    (x - 1) as NodeId
}

fn has(v: &[TreeViolation], inv: Invariant, node: Option<NodeId>, what: &str) -> bool {
    v.iter().any(|x| {
        Invariant::from(x) == inv
            && match x {
                TreeViolation::RbShape { node: n, what: w } => *n == node && w.contains(what),
                TreeViolation::TreeOrder { node: n, .. } => Some(*n) == node,
                TreeViolation::Augment { node: n, .. } => Some(*n) == node,
            }
    })
}

#[test]
fn red_root() {
    let (mut t, k) = seven();
    t.node_mut(id(2)).unwrap().color = Color::Red;
    let v = validate(&t, &k);
    assert!(
        has(&v, Invariant::RbShape, Some(id(2)), "root is red"),
        "{v:?}"
    );
}

#[test]
fn red_red() {
    let (mut t, k) = seven();
    // 3 is the black child of red 4.
    t.node_mut(id(3)).unwrap().color = Color::Red;
    let v = validate(&t, &k);
    assert!(
        has(&v, Invariant::RbShape, Some(id(3)), "red child of red"),
        "{v:?}"
    );
}

#[test]
fn black_height_mismatch() {
    let (mut t, k) = seven();
    // 1 is the black left child of the root; making it red shortens the left paths only.
    t.node_mut(id(1)).unwrap().color = Color::Red;
    let v = validate(&t, &k);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(has(
        &v,
        Invariant::RbShape,
        Some(id(2)),
        "black height 0 on the left, 1 on the right"
    ));
}

#[test]
fn broken_parent_link() {
    let (mut t, k) = seven();
    t.node_mut(id(5)).unwrap().parent = Some(id(4));
    let v = validate(&t, &k);
    assert!(
        has(&v, Invariant::RbShape, Some(id(5)), "parent link"),
        "{v:?}"
    );
}

#[test]
fn unreachable_node_and_cycle_do_not_hang() {
    let (mut t, k) = seven();
    t.node_mut(id(6)).unwrap().left = None; // 5 is cut off
    let v = validate(&t, &k);
    assert!(
        has(&v, Invariant::RbShape, Some(id(5)), "not reachable"),
        "{v:?}"
    );

    let (mut t, k) = seven();
    t.node_mut(id(7)).unwrap().left = Some(id(4)); // back edge to an ancestor
    let v = validate(&t, &k);
    assert!(
        has(&v, Invariant::RbShape, Some(id(4)), "reached twice"),
        "{v:?}"
    );
    // Rendering and in-order walks stop at the cycle.
    assert!(render(&t, &k, &|n| format!("n{n}")).contains("cycle"));
    assert_eq!(t.inorder().len(), 7);
}

#[test]
fn wrong_subtree_last() {
    let (mut t, k) = seven();
    t.node_mut(id(3)).unwrap().subtree_last = 999;
    let v = validate(&t, &k);
    assert!(v.contains(&TreeViolation::Augment {
        node: id(3),
        stored: 999,
        expected: 35
    }));
    // The parent 4 now disagrees too (it must cover its child's stored value).
    assert!(has(&v, Invariant::Augment, Some(id(4)), ""));
    assert!(v.iter().all(|x| Invariant::from(x) == Invariant::Augment));
}

#[test]
fn key_changed_in_tree_is_tree_order() {
    let (t, mut k) = seven();
    // Node 3 (start 30) gets start 55, last unchanged: it now sorts after 4 and 5.
    k[id(3) as usize].0 = 55;
    let v = validate(&t, &k);
    assert_eq!(
        v,
        vec![TreeViolation::TreeOrder {
            node: id(4),
            start: 40,
            prev: id(3),
            prev_start: 55
        }]
    );
    assert_eq!(Invariant::from(&v[0]), Invariant::TreeOrder);
    assert_eq!(
        v[0].to_string(),
        "tree-order: n3 (start 40) follows n2 (start 55)"
    );
}

#[test]
fn insert_and_query_through_a_stale_root_report_stale_descent() {
    let (mut t, mut k) = seven();
    let root = t.root().unwrap();
    assert_eq!(root, id(2));
    // The root (start 20) is re-keyed to 65 in place: 65 > its successor 30.
    k[root as usize] = (65, 70);

    let mut obs = TreeObs::checking();
    k.push((66, 66));
    interval::insert(&mut t, &k, 7, &mut obs).unwrap();
    let r = obs
        .stale
        .iter()
        .find(|s| s.node == root)
        .expect("stale root");
    assert_eq!(r.op, "insert");
    assert_eq!(r.start, 65);
    assert_eq!(r.pred, Some((id(1), 10)));
    assert_eq!(r.succ, Some((id(3), 30)));
    // Once per node per operation.
    let mut nodes: Vec<NodeId> = obs.stale.iter().map(|s| s.node).collect();
    nodes.dedup();
    assert_eq!(nodes.len(), obs.stale.len());

    let mut obs = TreeObs::checking();
    let _ = interval::query(&t, &k, 0, 100, &mut obs);
    assert!(
        obs.stale.iter().any(|s| s.node == root && s.op == "query"),
        "{:?}",
        obs.stale
    );

    // Without check_stale nothing is collected.
    let mut quiet = TreeObs::default();
    let _ = interval::query(&t, &k, 0, 100, &mut quiet);
    assert!(quiet.stale.is_empty());
    assert!(quiet.stats.visits > 0);
}

#[test]
fn valid_keys_report_nothing() {
    let (mut t, mut k) = seven();
    let mut obs = TreeObs::checking();
    k.push((33, 34));
    interval::insert(&mut t, &k, 7, &mut obs).unwrap();
    for (a, b) in [(0, 100), (31, 33), (60, 61), (200, 300)] {
        let _ = interval::query(&t, &k, a, b, &mut obs);
    }
    assert!(obs.stale.is_empty(), "{:?}", obs.stale);
    assert!(obs.stats.visits > 0);
}

/// As in mm/interval_tree.c, insert_after raises subtree_last only strictly below prev. A
/// node whose LAST exceeds what prev covers (fork copies the interval, so the kernel never
/// does this) leaves prev short: an `augment` violation, faithfully. Here n becomes prev's
/// right child and the fixup only recolours (red uncle), so nothing recomputes prev.
#[test]
fn insert_after_with_longer_interval_leaves_ancestors_short() {
    // 20B(10R,30R): prev = 10, which has no right child.
    let mut k: Vec<(u64, u64)> = vec![(20, 25), (10, 15), (30, 35)];
    let mut t = RbRoot::new();
    let mut obs = TreeObs::default();
    for i in 0..3 {
        interval::insert(&mut t, &k, i, &mut obs).unwrap();
    }
    k.push((10, 99));
    interval::insert_after(&mut t, &k, 3, 1, &mut obs).unwrap();
    let v = validate(&t, &k);
    assert_eq!(
        v,
        vec![TreeViolation::Augment {
            node: 1,
            stored: 15,
            expected: 99
        }]
    );
    // A same-interval copy (what fork does) stays valid.
    let mut k2: Vec<(u64, u64)> = vec![(20, 25), (10, 15), (30, 35), (10, 15)];
    let mut t2 = RbRoot::new();
    for i in 0..3 {
        interval::insert(&mut t2, &k2, i, &mut obs).unwrap();
    }
    interval::insert_after(&mut t2, &k2, 3, 1, &mut obs).unwrap();
    assert_eq!(validate(&t2, &k2), vec![]);
    assert_eq!(t2.inorder(), vec![1, 3, 0, 2]);
    k2[3].1 = 15;
    assert_eq!(validate(&t2, &k2), vec![]);
}

#[test]
fn violation_display_is_one_ascii_line() {
    let (mut t, k) = seven();
    t.node_mut(id(2)).unwrap().color = Color::Red;
    t.node_mut(id(3)).unwrap().subtree_last = 1;
    for v in validate(&t, &k) {
        let s = v.to_string();
        assert!(s.is_ascii() && !s.contains('\n'), "{s}");
        assert!(s.starts_with(v.name()));
    }
}
