//! State-machine tests: random operation sequences (callers mode) run on the baseline next to a
//! reference model written in plain Rust. The reference knows nothing about VMAs, merges or
//! splits: per mm it keeps, for every mapped page, what the page maps (file, pgoff, shared,
//! writable). Whatever the model does with VMA boundaries, the pages must match after every
//! call, and every call must pass all the checks. proptest shrinks a failing sequence.

use crate::fuzz_strategy::raw_strategy;
use proptest::prelude::*;
use rmapcheck::exec::host::Value;
use rmapcheck::explore::op::{apply, CheckOpts};
use rmapcheck::fuzzing::{concretise, Mode};
use rmapcheck::lang::Program;
use rmapcheck::world::scenario::Call;
use rmapcheck::world::World;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

fn baseline() -> &'static Program {
    static P: OnceLock<Program> = OnceLock::new();
    P.get_or_init(|| {
        rmapcheck::cmd::load_model(Path::new("models/v7.3-rc4/baseline.rmap")).expect("loads")
    })
}

/// What one page maps: (file, pgoff, shared, writable); anonymous pages have no file and
/// keep the pgoff their mapping got.
type Page = (Option<u32>, u64, bool, bool);
/// Per mm, page number -> what it maps.
type Pages = Vec<BTreeMap<u64, Page>>;

fn int(v: &Value) -> u64 {
    match v {
        Value::Int(x) => *x as u64,
        Value::Bool(b) => *b as u64,
        _ => panic!("not an integer argument: {v}"),
    }
}

fn obj(v: &Value) -> Option<u32> {
    match v {
        Value::Obj(_, id) => Some(*id),
        _ => None,
    }
}

/// The pages the world maps, read from its VMAs.
fn pages_of(w: &World) -> Pages {
    (0..w.mms.len() as u32)
        .map(|m| {
            let mut out = BTreeMap::new();
            for v in w.mm_vmas(m) {
                let x = &w.vmas[v as usize];
                let file = if x.is_anonymous() { None } else { x.vm_file };
                let sh = x.vm_flags & rmapcheck::world::builtins::VM_SHARED != 0;
                let wr = x.vm_flags & rmapcheck::world::builtins::VM_WRITE != 0;
                for p in x.vm_start..x.vm_end {
                    out.insert(p, (file, x.vm_pgoff + (p - x.vm_start), sh, wr));
                }
            }
            out
        })
        .collect()
}

/// The extent [start, end) of the VMA of mm starting at addr, in the world before the call
/// (mremap and the stack shift act on one VMA; the reference takes its extent as input).
fn extent(w: &World, m: u32, addr: u64) -> (u64, u64) {
    let &(end, _) = w.mms[m as usize]
        .vmas
        .get(&addr)
        .expect("a VMA starts at addr");
    (addr, end)
}

/// The reference semantics of one call, applied to `pages` (`w` is the world before it).
fn reference(pages: &mut Pages, w: &World, c: &Call) {
    let a = &c.args;
    let m = obj(&a[0]).expect("an mm") as usize;
    match c.func.as_str() {
        // MAP_FIXED over mappings: the new pages replace whatever the range held
        "sys_mmap" | "sys_mmap_fixed" => {
            let (s, e) = (int(&a[2]), int(&a[3]));
            let file = obj(&a[1]);
            let dev_zero = file.is_some_and(|f| w.files[f as usize].dev_zero);
            let shared = int(&a[5]) == 1;
            for p in s..e {
                let page = match file {
                    None => (None, p, false, true),
                    Some(_) if dev_zero => (None, int(&a[4]) + (p - s), false, true),
                    Some(f) => (Some(f), int(&a[4]) + (p - s), shared, true),
                };
                pages[m].insert(p, page);
            }
        }
        "sys_munmap" => {
            let (s, e) = (int(&a[1]), int(&a[2]));
            pages[m].retain(|&p, _| p < s || p >= e);
        }
        "sys_mprotect" => {
            let (s, e, wr) = (int(&a[1]), int(&a[2]), int(&a[3]) == 1);
            for p in s..e {
                pages[m].get_mut(&p).expect("mprotect of a mapped page").3 = wr;
            }
        }
        "sys_mremap_expand" => {
            let (_, old_end) = extent(w, m as u32, int(&a[1]));
            let last = pages[m][&(old_end - 1)];
            for (i, p) in (old_end..int(&a[2])).enumerate() {
                pages[m].insert(p, (last.0, last.1 + 1 + i as u64, last.2, last.3));
            }
        }
        "sys_mremap_shrink" => {
            let (_, old_end) = extent(w, m as u32, int(&a[1]));
            let e = int(&a[2]);
            pages[m].retain(|&p, _| p < e || p >= old_end);
        }
        "sys_shift_down" => {
            let (s, e) = extent(w, m as u32, int(&a[1]));
            let sh = int(&a[2]);
            let moved: Vec<Page> = (s..e).map(|p| pages[m][&p]).collect();
            pages[m].retain(|&p, _| p < s || p >= e);
            for (i, pg) in moved.into_iter().enumerate() {
                pages[m].insert(s - sh + i as u64, pg);
            }
        }
        "sys_mremap_move" => {
            let (s, ol, nl, n) = (int(&a[1]), int(&a[2]), int(&a[3]), int(&a[4]));
            let (_, &(_, v)) = w.mms[m].vmas.range(..=s).next_back().expect("a VMA at s");
            let x = &w.vmas[v as usize];
            // copy_vma(): an anonymous VMA never faulted takes its new address as pgoff
            let fresh = x.is_anonymous() && x.anon_vma.is_none();
            let moved: Vec<Page> = (s..s + ol).map(|p| pages[m][&p]).collect();
            pages[m].retain(|&p, _| p < s || p >= s + ol);
            let first = moved[0];
            for i in 0..nl {
                let pg = if i < ol {
                    moved[i as usize]
                } else {
                    (first.0, first.1 + i, first.2, first.3)
                };
                let pg = if fresh { (pg.0, n + i, pg.2, pg.3) } else { pg };
                pages[m].insert(n + i, pg);
            }
        }
        "sys_mmap_growsdown" => {
            for p in int(&a[1])..int(&a[2]) {
                pages[m].insert(p, (None, p, false, true));
            }
        }
        "do_stack_fault" => {
            // the stack above the address grows down to it, its pgoff with it
            let addr = int(&a[1]);
            let (&start, _) = w.mms[m].vmas.range(addr..).next().expect("a stack above");
            let top = pages[m][&start];
            for p in addr..start {
                pages[m].insert(p, (None, top.1 - (start - p), top.2, top.3));
            }
        }
        "sys_mremap_move_shrink" | "sys_mremap_dontunmap" => {
            let (s, ol, nl, n, keep) = if c.func == "sys_mremap_dontunmap" {
                let l = int(&a[2]);
                (int(&a[1]), l, l, int(&a[3]), true)
            } else {
                (int(&a[1]), int(&a[2]), int(&a[3]), int(&a[4]), false)
            };
            let (_, &(_, v)) = w.mms[m].vmas.range(..=s).next_back().expect("a VMA at s");
            let x = &w.vmas[v as usize];
            let fresh = x.is_anonymous() && x.anon_vma.is_none();
            let moved: Vec<Page> = (s..s + nl).map(|p| pages[m][&p]).collect();
            // a shrinking move unmaps the tail, then moves the rest; DONTUNMAP keeps the source
            if !keep {
                pages[m].retain(|&p, _| p < s || p >= s + ol);
            }
            for (i, pg) in moved.into_iter().enumerate() {
                let i = i as u64;
                let pg = if fresh { (pg.0, n + i, pg.2, pg.3) } else { pg };
                pages[m].insert(n + i, pg);
            }
            // dontunmap_complete(): a wholly moved source is unfaulted again; with no file its
            // pgoff goes back to its start page
            if keep && s == x.vm_start && s + nl == x.vm_end && x.vm_file.is_none() {
                for p in s..s + nl {
                    pages[m].get_mut(&p).expect("the source stays mapped").1 = p;
                }
            }
        }
        "setup_stack_growsup" => {
            for p in int(&a[1])..int(&a[2]) {
                pages[m].insert(p, (None, p, false, true));
            }
        }
        "do_stack_fault_up" => {
            // the stack below the address grows up to cover it; its pgoff stays, and the new
            // pages take the stack's flags (mprotect keeps VM_GROWSUP on a read-only stack)
            let addr = int(&a[1]);
            let (_, &(end, _)) = w.mms[m]
                .vmas
                .range(..addr)
                .next_back()
                .expect("a stack below");
            let last = pages[m][&(end - 1)];
            for p in end..=addr {
                pages[m].insert(p, (None, last.1 + (p - end + 1), last.2, last.3));
            }
        }
        "sys_fork" => {
            let copy = pages[m].clone();
            pages.push(copy);
        }
        "sys_exit" => pages[m].clear(),
        "do_anonymous_fault" | "do_anonymous_fault_vma_lock" | "do_file_fault" => {}
        other => panic!("the reference does not model {other}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn baseline_pages_match_the_reference(raw in raw_strategy()) {
        let d = raw.decoded();
        let mut w = d.scenario.build().unwrap();
        let mut pages = pages_of(&w);
        for op in &d.ops {
            let Some(call) = concretise(op, &w, Mode::Callers) else { continue };
            let before = w.clone();
            let r = apply(baseline(), &mut w, &call, CheckOpts { record: false, per_step: true, ..CheckOpts::default() });
            prop_assert!(r.failure.is_none(), "{}: {:?}", call, r.failure.map(|f| f.violations));
            reference(&mut pages, &before, &call);
            let got = pages_of(&w);
            prop_assert_eq!(&got, &pages, "pages differ after {}\n{}", call, w.render());
        }
    }
}
