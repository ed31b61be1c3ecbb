//! The interval tree against a brute-force oracle: streams of insert (by key descent),
//! insert_after (fork's successor insert of a copy), erase and query. After every operation the
//! tree must validate (`rb-shape`, `tree-order`, `augment`), hold exactly the oracle's nodes in
//! start order, and a query must return exactly the overlapping nodes, in start order, with no
//! stale descent reported (keys never change here).
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use rmapcheck::tree::{interval, validate, RbRoot, TreeObs};
use std::collections::BTreeMap;

#[derive(Arbitrary, Debug)]
enum Op {
    Insert { start: u8, len: u8 },
    InsertAfter { prev: u8 },
    Erase { which: u8 },
    Query { first: u8, len: u8 },
}

fuzz_target!(|ops: Vec<Op>| {
    let mut t = RbRoot::new();
    // keys[id] = (start, last); ids are never reused
    let mut keys: Vec<(u64, u64)> = Vec::new();
    // the oracle: live ids and their intervals
    let mut live: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
    for op in ops.iter().take(512) {
        let mut obs = TreeObs::checking();
        match *op {
            Op::Insert { start, len } => {
                let id = keys.len() as u32;
                let s = u64::from(start);
                keys.push((s, s + u64::from(len % 32)));
                interval::insert(&mut t, &keys, id, &mut obs).expect("fresh id inserts");
                live.insert(id, keys[id as usize]);
            }
            Op::InsertAfter { prev } => {
                let Some(&p) = live.keys().nth(prev as usize % live.len().max(1)) else {
                    continue;
                };
                let id = keys.len() as u32;
                keys.push(keys[p as usize]);
                interval::insert_after(&mut t, &keys, id, p, &mut obs).expect("prev is in");
                live.insert(id, keys[id as usize]);
            }
            Op::Erase { which } => {
                let Some(&n) = live.keys().nth(which as usize % live.len().max(1)) else {
                    continue;
                };
                interval::remove(&mut t, &keys, n, &mut obs).expect("member erases");
                live.remove(&n);
            }
            Op::Query { first, len } => {
                let (f, l) = (u64::from(first), u64::from(first) + u64::from(len % 64));
                let got = interval::query(&t, &keys, f, l, &mut obs);
                let mut want: Vec<u32> = live
                    .iter()
                    .filter(|(_, &(s, e))| s <= l && f <= e)
                    .map(|(&id, _)| id)
                    .collect();
                let mut sorted = got.clone();
                sorted.sort_unstable();
                want.sort_unstable();
                assert_eq!(sorted, want, "query [{f}, {l}]");
                assert!(
                    got.windows(2)
                        .all(|w| keys[w[0] as usize].0 <= keys[w[1] as usize].0),
                    "query results out of start order: {got:?}"
                );
            }
        }
        assert!(
            obs.stale.is_empty(),
            "stale descent with unchanged keys: {:?}",
            obs.stale
        );
        let v = validate(&t, &keys);
        assert!(v.is_empty(), "after {op:?}: {v:?}");
        assert_eq!(t.len(), live.len());
        let order = t.inorder();
        assert_eq!(order.len(), live.len());
        assert!(order.iter().all(|n| live.contains_key(n)));
        assert!(order
            .windows(2)
            .all(|w| keys[w[0] as usize].0 <= keys[w[1] as usize].0));
    }
});
