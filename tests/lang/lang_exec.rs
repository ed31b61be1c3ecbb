//! Interpreter tests against a mock world.

use crate::common::*;
use rmapcheck::exec::host::Value;
use rmapcheck::exec::{run, FaultKind, RunError, Step, Thread};
use rmapcheck::lang::{load_file, render_diagnostics};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

const PREPARE: &str = r#"
#define VP_REMOVE 1

struct vma_prepare {
	struct vm_area_struct *vma;
	struct address_space *mapping;
	struct anon_vma *anon_vma;
	bool locked;
};

static void vma_prepare(struct vma_prepare *vp)
{
	if (vp->mapping) {
		i_mmap_lock_write(vp->mapping);
		mapping_rmap_tree_remove(vp->vma, vp->mapping);
	}
	if (vp->anon_vma)
		anon_vma_lock_write(vp->anon_vma);
	vp->locked = true;
}

int prepare(struct vm_area_struct *vma)
{
	struct vma_prepare vp = { .vma = vma };

	if (vma->vm_file)
		vp.mapping = vma->vm_file->f_mapping;
	vp.anon_vma = vma->anon_vma;
	vma_prepare(&vp);
	return vp.locked ? VP_REMOVE + 1 : 0;
}
"#;

#[test]
fn builtin_calls_happen_in_order() {
    let prog = load(PREPARE);
    let mut h = MockHost::new();
    let v = run(&prog, &mut h, 0, "prepare", &[VMA0], 10_000).unwrap();
    assert_eq!(v, Value::Int(2));
    assert_eq!(
        h.calls,
        vec![
            "i_mmap_lock_write(mapping#0)",
            "mapping_rmap_tree_remove(vma#0, mapping#0)",
            "anon_vma_lock_write(anon_vma#0)"
        ]
    );
    // vma#1 has neither a file nor an anon_vma
    let mut h = MockHost::new();
    run(&prog, &mut h, 0, "prepare", &[VMA1], 10_000).unwrap();
    assert!(h.calls.is_empty());
}

#[test]
fn short_circuit_prevents_null_dereference() {
    let prog = load(
        "int f(struct vm_area_struct *vma) {
            if (vma->vm_file && vma->vm_file->f_mapping)
                return 1;
            return vma->vm_file == NULL || vma->vm_file->f_mapping == NULL ? 2 : 3;
        }
        int g(struct vm_area_struct *vma) { return vma->vm_file->f_mapping != NULL; }",
    );
    let mut h = MockHost::new();
    assert_eq!(run(&prog, &mut h, 0, "f", &[VMA1], 1000), Ok(Value::Int(2)));
    assert_eq!(run(&prog, &mut h, 0, "f", &[VMA0], 1000), Ok(Value::Int(1)));
    match run(&prog, &mut h, 0, "g", &[VMA1], 1000) {
        Err(RunError::Fault(f)) => {
            assert_eq!(f.kind, FaultKind::Runtime);
            assert!(
                f.message.contains("NULL pointer dereference"),
                "{}",
                f.message
            );
            assert_eq!(f.loc.line, 6);
        }
        other => panic!("expected a NULL fault, got {other:?}"),
    }
}

#[test]
fn struct_locals_by_value_and_by_address_are_the_same_instance() {
    let prog = load(
        "struct pair { long a; long b; struct vm_area_struct *v; };
        void bump(struct pair *p) { p->a += 10; p->b++; }
        long f(void) {
            struct pair s = { .a = 1, .b = 2 };
            struct pair *q;
            q = &s;
            bump(q);
            bump(&s);
            (&s)->a -= 1;
            s.b = s.b * 100;
            return s.a + q->b + (s.v == NULL);
        }",
    );
    let mut h = MockHost::new();
    // a = 1 + 20 - 1 = 20, b = (2 + 2) * 100 = 400, v == NULL -> 1
    assert_eq!(run(&prog, &mut h, 0, "f", &[], 10_000), Ok(Value::Int(421)));
}

#[test]
fn list_for_each_entry_visits_every_entry() {
    let prog = load(
        "long f(struct vm_area_struct *vma) {
            struct anon_vma_chain *avc;
            long n = 0;
            list_for_each_entry(avc, &vma->anon_vma_chain, same_vma) {
                anon_vma_lock_write(avc->anon_vma);
                n++;
            }
            return n;
        }
        long g(struct vm_area_struct *vma) {
            struct anon_vma_chain *avc, *next;
            long n = 0;
            list_for_each_entry_safe(avc, next, &vma->anon_vma_chain, same_vma) {
                if (n == 1) { n += 10; continue; }
                n++;
            }
            return n;
        }",
    );
    let mut h = MockHost::new();
    assert_eq!(
        run(&prog, &mut h, 0, "f", &[VMA0], 10_000),
        Ok(Value::Int(3))
    );
    assert_eq!(h.calls.len(), 3);
    assert_eq!(
        run(&prog, &mut h, 0, "g", &[VMA0], 10_000),
        Ok(Value::Int(12))
    );
    assert_eq!(
        run(&prog, &mut h, 0, "f", &[VMA1], 10_000),
        Ok(Value::Int(0))
    );
}

#[test]
fn safe_iterator_fetches_next_before_the_body() {
    // the body removes the current entry from the list; the _safe form must still reach the rest
    let prog = load(
        "void f(struct vm_area_struct *vma) {
            struct anon_vma_chain *avc, *tmp;
            list_for_each_entry_safe(avc, tmp, &vma->anon_vma_chain, same_vma)
                anon_vma_unlock_write(avc->anon_vma);
        }",
    );
    let mut h = MockHost::new();
    let mut t = Thread::start(&prog, "f", &[VMA0]).unwrap();
    let mut reads = Vec::new();
    loop {
        match t.step_visible(&prog, &mut h, 0) {
            Step::Ran(ev) => {
                if ev.what.starts_with("anon_vma_unlock_write") {
                    // drop the entry just visited, like list_del() would
                    let l = h
                        .lists
                        .get_mut(&(VMA0, "anon_vma_chain".to_string()))
                        .unwrap();
                    l.remove(0);
                }
                reads.push(ev.what);
            }
            Step::Finished(_) => break,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        reads
            .iter()
            .filter(|w| w.starts_with("anon_vma_unlock"))
            .count(),
        3,
        "{reads:?}"
    );
}

#[test]
fn later_definition_replaces_earlier_through_include() {
    let dir = scratch_dir("replace");
    std::fs::write(
        dir.join("base.rmap"),
        "void helper(void) { record(1); }\nvoid entry(void) { helper(); record(9); }\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("patches")).unwrap();
    std::fs::write(
        dir.join("patches/fix.rmap"),
        "#include \"../base.rmap\"\n#include \"../base.rmap\"\nvoid helper(void) { record(2); }\n",
    )
    .unwrap();
    let prog = match load_file(&dir.join("patches/fix.rmap"), &schema()) {
        Ok(p) => p,
        Err(d) => panic!("{}", render_diagnostics(&d)),
    };
    let mut h = MockHost::new();
    run(&prog, &mut h, 0, "entry", &[], 1000).unwrap();
    assert_eq!(h.calls, vec!["record(2)", "record(9)"]);
}

#[test]
fn warn_macro_stops_with_assertion_at_its_line() {
    let prog = load(
        "void f(struct vm_area_struct *vma) {
            if (VM_WARN_ON_ONCE(vma->vm_start > vma->vm_end))
                return;
            record(1);
            VM_WARN_ON_ONCE(true);
            record(2);
        }",
    );
    let mut h = MockHost::new();
    match run(&prog, &mut h, 0, "f", &[VMA0], 1000) {
        Err(RunError::Fault(f)) => {
            assert_eq!(
                f.kind,
                FaultKind::Assertion {
                    macro_name: "VM_WARN_ON_ONCE".into(),
                    cond: "true".into()
                }
            );
            assert_eq!((f.loc.line, f.loc.col), (5, 13));
            assert!(f.render(&prog).contains("VM_WARN_ON_ONCE(true)"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(h.calls, vec!["record(1)"]);
}

#[test]
fn warn_condition_text_is_kept() {
    let prog = load("void f(struct vm_area_struct *v) { BUG_ON(v->vm_start  <  5); }");
    let mut h = MockHost::new();
    match run(&prog, &mut h, 0, "f", &[VMA0], 1000) {
        Err(RunError::Fault(f)) => assert_eq!(
            f.kind,
            FaultKind::Assertion {
                macro_name: "BUG_ON".into(),
                cond: "v->vm_start < 5".into()
            }
        ),
        other => panic!("{other:?}"),
    }
}

fn hash_of(t: &Thread) -> u64 {
    let mut h = DefaultHasher::new();
    t.hash(&mut h);
    h.finish()
}

#[test]
fn blocked_step_leaves_the_thread_unchanged() {
    let prog = load("long f(void) { long x = 3; record(x); x = x + gate(); return x; }");
    let mut h = MockHost::new();
    let mut t = Thread::start(&prog, "f", &[]).unwrap();
    // run until the gate call is next
    loop {
        if t.next_is_shared(&prog) && !h.calls.is_empty() {
            break;
        }
        assert!(matches!(t.step(&prog, &mut h, 0), Step::Ran(_)));
    }
    let before = t.clone();
    assert_eq!(t.step(&prog, &mut h, 0), Step::Blocked);
    assert_eq!(t.step_visible(&prog, &mut h, 0), Step::Blocked);
    assert_eq!(t, before);
    assert_eq!(hash_of(&t), hash_of(&before));
    h.gate_open = true;
    match t.step(&prog, &mut h, 0) {
        Step::Ran(ev) => {
            assert!(ev.shared);
            assert_eq!(ev.what, "gate() = 7");
        }
        other => panic!("{other:?}"),
    }
    let mut last = Step::Blocked;
    for _ in 0..100 {
        last = t.step(&prog, &mut h, 0);
        if matches!(last, Step::Finished(_)) {
            break;
        }
    }
    assert_eq!(last, Step::Finished(Value::Int(10)));
    assert!(t.is_finished());
}

#[test]
fn threads_with_the_same_history_are_equal() {
    let prog = load(PREPARE);
    let mut h1 = MockHost::new();
    let mut h2 = MockHost::new();
    let mut a = Thread::start(&prog, "prepare", &[VMA0]).unwrap();
    let mut b = Thread::start(&prog, "prepare", &[VMA0]).unwrap();
    for _ in 0..7 {
        a.step(&prog, &mut h1, 0);
        b.step(&prog, &mut h2, 0);
        assert_eq!(a, b);
        assert_eq!(hash_of(&a), hash_of(&b));
    }
    b.step(&prog, &mut h2, 0);
    assert_ne!(a, b);
}

#[test]
fn step_visible_stops_right_after_a_shared_instruction() {
    let prog = load(PREPARE);
    let mut h = MockHost::new();
    let mut t = Thread::start(&prog, "prepare", &[VMA0]).unwrap();
    let mut whats = Vec::new();
    loop {
        match t.step_visible(&prog, &mut h, 0) {
            Step::Ran(ev) => {
                assert!(ev.shared, "{ev:?}");
                whats.push(ev.what);
            }
            Step::Finished(v) => {
                assert_eq!(v, Value::Int(2));
                break;
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        whats,
        vec![
            "read vma#0->vm_file = file#0",
            "read vma#0->vm_file = file#0",
            "read file#0->f_mapping = mapping#0",
            "read vma#0->anon_vma = anon_vma#0",
            "i_mmap_lock_write(mapping#0)",
            "mapping_rmap_tree_remove(vma#0, mapping#0)",
            "anon_vma_lock_write(anon_vma#0)",
        ]
    );
}

#[test]
fn kernel_field_writes_reach_the_host() {
    let prog =
        load("void f(struct vm_area_struct *vma, long n) { vma->vm_end = n; vma->vm_pgoff += 4; }");
    let mut h = MockHost::new();
    let mut t = Thread::start(&prog, "f", &[VMA0, Value::Int(4)]).unwrap();
    let mut whats = Vec::new();
    while let Step::Ran(ev) = t.step_visible(&prog, &mut h, 0) {
        whats.push(ev.what);
    }
    assert_eq!(
        whats,
        vec![
            "vma#0->vm_end = 4",
            "read vma#0->vm_pgoff = 0",
            "vma#0->vm_pgoff = 4"
        ]
    );
    assert_eq!(h.get(VMA0, "vm_end"), Value::Int(4));
}

#[test]
fn runtime_faults_have_kinds() {
    let prog = load(
        "long rec(long n) { return rec(n + 1); }
        long div(long a) { return 10 / a; }
        bool b(long a) { bool x = a; return x; }",
    );
    let mut h = MockHost::new();
    match run(&prog, &mut h, 0, "rec", &[Value::Int(0)], 100_000) {
        Err(RunError::Fault(f)) => assert_eq!(f.kind, FaultKind::StackOverflow),
        other => panic!("{other:?}"),
    }
    match run(&prog, &mut h, 0, "div", &[Value::Int(0)], 100) {
        Err(RunError::Fault(f)) => {
            assert_eq!(f.kind, FaultKind::Runtime);
            assert!(f.message.contains("division by zero"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        run(&prog, &mut h, 0, "b", &[Value::Int(5)], 100),
        Ok(Value::Bool(true))
    );
    assert!(matches!(
        run(&prog, &mut h, 0, "nosuch", &[], 100),
        Err(RunError::Start(_))
    ));
    assert!(matches!(
        run(&prog, &mut h, 0, "div", &[VMA0], 100),
        Err(RunError::Start(_))
    ));
}

#[test]
fn loops_break_continue_and_backtrace() {
    let prog = load(
        "long f(void) {
            long i, s = 0;
            for (i = 0; i < 10; i++) {
                if (i == 2) continue;
                if (i == 5) break;
                s += i;
            }
            while (s < 100) s = s * 2;
            return s;
        }
        void inner(void) { gate(); }
        void outer(void) { inner(); }",
    );
    let mut h = MockHost::new();
    // 0+1+3+4 = 8 -> 16 -> 32 -> 64 -> 128
    assert_eq!(run(&prog, &mut h, 0, "f", &[], 10_000), Ok(Value::Int(128)));
    let mut t = Thread::start(&prog, "outer", &[]).unwrap();
    assert_eq!(t.step_visible(&prog, &mut h, 0), Step::Blocked);
    let bt = t.backtrace(&prog);
    assert_eq!(bt[0].0, "inner");
    assert_eq!(bt[1].0, "outer");
    assert_eq!(bt[0].1.line, 11);
    assert!(matches!(
        run(&prog, &mut h, 0, "outer", &[], 100),
        Err(RunError::Blocked { .. })
    ));
}

#[test]
fn the_worked_example_in_the_docs_loads_and_runs() {
    let doc = include_str!("../../docs/LANGUAGE.md");
    let start = doc.find("```c\n").unwrap() + 5;
    let end = start + doc[start..].find("```").unwrap();
    let prog = load(&doc[start..end]);
    let mut h = MockHost::new();
    assert_eq!(
        run(
            &prog,
            &mut h,
            0,
            "shrink_end",
            &[VMA0, Value::Int(5)],
            10_000
        ),
        Ok(Value::Int(0))
    );
    assert_eq!(h.get(VMA0, "vm_end"), Value::Int(5));
    assert_eq!(
        h.calls,
        vec![
            "i_mmap_lock_write(mapping#0)",
            "mapping_rmap_tree_remove(vma#0, mapping#0)",
            "anon_vma_lock_write(anon_vma#0)",
            "mapping_rmap_tree_insert(vma#0, mapping#0)",
            "i_mmap_unlock_write(mapping#0)",
            "anon_vma_unlock_write(anon_vma#0)",
        ]
    );
    let mut h = MockHost::new();
    match run(
        &prog,
        &mut h,
        0,
        "shrink_end",
        &[VMA0, Value::Int(0)],
        10_000,
    ) {
        Err(RunError::Fault(f)) => assert!(matches!(f.kind, FaultKind::Assertion { .. })),
        other => panic!("{other:?}"),
    }
}
