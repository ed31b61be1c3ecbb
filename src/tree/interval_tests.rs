//! Unit tests of the interval tree's stale-descent bookkeeping: the marks across the epoch
//! wrapping, two live query iterators, and the in-order neighbours kept per links version.

use super::*;

fn tree(keys: &Vec<(u64, u64)>) -> RbRoot {
    let mut t = RbRoot::new();
    for n in 0..keys.len() as NodeId {
        insert(&mut t, keys, n, &mut TreeObs::default()).unwrap();
    }
    t
}

#[test]
fn stale_marks_survive_the_epoch_wrapping() {
    let mut keys: Vec<(u64, u64)> = (0..8).map(|i| (i * 10, i * 10 + 9)).collect();
    let t = tree(&keys);
    keys[0] = (75, 79); // stale: n0 now sorts after n7 but sits first
    let mut before = TreeObs::checking();
    let hits = query(&t, &keys, 0, 100, &mut before);
    MARKS.with(|m| {
        let mut marks = m.take();
        marks.epoch = u32::MAX - 1;
        m.set(marks);
    });
    for _ in 0..3 {
        let mut obs = TreeObs::checking();
        assert_eq!(query(&t, &keys, 0, 100, &mut obs), hits);
        assert_eq!(obs.stale, before.stale);
    }
    assert!(!before.stale.is_empty());
    assert_eq!(
        MARKS.with(|m| {
            let v = m.take();
            let e = v.epoch;
            m.set(v);
            e
        }),
        2
    );
}

#[test]
fn two_live_iterators_each_check_every_node_once() {
    let mut keys: Vec<(u64, u64)> = (0..16).map(|i| (i * 4, i * 4 + 20)).collect();
    let t = tree(&keys);
    keys[5] = (1, 2);
    let mut want = TreeObs::checking();
    let all = query(&t, &keys, 0, 100, &mut want);
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
    drop((a, b));
    assert_eq!((&ga, &gb), (&all, &all));
    assert_eq!(oa.stale, want.stale);
    assert_eq!(ob.stale, want.stale);
    assert_eq!((oa.stats, ob.stats), (want.stats, want.stats));
    // and the marks still work after both went back
    let mut again = TreeObs::checking();
    assert_eq!(query(&t, &keys, 0, 100, &mut again), all);
    assert_eq!(again.stale, want.stale);
}

#[test]
fn kept_neighbours_are_those_of_the_current_links() {
    // After every change (insert, erase, a key changed in place, a link overwritten by
    // hand) a checked query of the tree reports what the same query of a fresh copy
    // (whose links have a version never seen) reports.
    let mut rng = crate::tree::bench::SplitMix64(7);
    let mut keys: Vec<(u64, u64)> = Vec::new();
    let mut t = RbRoot::new();
    let mut members: Vec<NodeId> = Vec::new();
    let fresh = |t: &RbRoot| t.remap(&|n| n);
    for round in 0..3000 {
        match rng.below(10) {
            0..=3 => {
                let s = rng.below(200);
                keys.push((s, s + rng.below(20)));
                let n = keys.len() as NodeId - 1;
                insert(&mut t, &keys, n, &mut TreeObs::checking()).unwrap();
                members.push(n);
            }
            4 | 5 if !members.is_empty() => {
                let i = rng.below(members.len() as u64) as usize;
                remove(
                    &mut t,
                    &keys,
                    members.swap_remove(i),
                    &mut TreeObs::default(),
                )
                .unwrap();
            }
            6 if !keys.is_empty() => {
                let i = rng.below(keys.len() as u64) as usize;
                let s = rng.below(200);
                keys[i] = (s, s + rng.below(20));
            }
            7 if round % 97 == 0 && members.len() > 2 => {
                // swap two members' left links: a corrupted tree
                let (a, b) = (members[0], members[1]);
                let (la, lb) = (t.left_of(a), t.left_of(b));
                t.node_mut(a).unwrap().left = lb;
                t.node_mut(b).unwrap().left = la;
            }
            _ => {}
        }
        for _ in 0..3 {
            let f = rng.below(220);
            let l = f + rng.below(30);
            let (mut a, mut b) = (TreeObs::checking(), TreeObs::checking());
            let copy = fresh(&t);
            assert_eq!(
                query(&t, &keys, f, l, &mut a),
                query(&copy, &keys, f, l, &mut b)
            );
            assert_eq!(a.stale, b.stale, "round {round}");
        }
    }
}
