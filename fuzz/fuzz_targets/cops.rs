//! The kernel's own C fuzzed: mm/vma.c, the file and anon interval trees and the anon_vma paths
//! of mm/rmap.c, built in user space from the tree in `$RMAPCHECK_KERNEL_SRC` (the C harness of
//! `check --kernel`; C mutants from `$RMAPCHECK_C_MUTANT`). An input decodes as the `ops`
//! target's does (its initial VMAs and model byte aside: the C starts from the default scope's
//! empty mm, and the baseline model chooses the calls); each abstract operation becomes a
//! callers-mode call in the model's world just before it, runs on the model and on the C, and
//! after it every check of the C search runs (tree invariants, ghost pages, walker
//! checkpoints, the glue's lock and precondition notes) and the model's world is compared with
//! the C's (`rmapcheck::ccheck::fuzz`). A violation, a divergence or a crash of the C panics
//! with the counterexample, and its calls are written to a calls file that `rmapcheck creplay`
//! runs again. libFuzzer's feedback is the C's own edge coverage: the harness is built with
//! gcc's `-fsanitize-coverage=trace-pc`, counts into a shared map (cglue/cover.c), and the map
//! is copied into libFuzzer's extra counters after each input, beside the sizes the model's
//! world reached (the VMAs of an mm, the nodes of a tree: `fuzz::run_input_marking`). See
//! docs/CHECK-C.md.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rmapcheck::ccheck::fuzz::{self, Target};
use rmapcheck::ccheck::system::CSystem;
use rmapcheck::charness::build::COVER_MAP_SIZE;
use rmapcheck::charness::edges::EdgeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// libFuzzer's extra counters (`__libfuzzer_extra_counters`, which it clears before each input
/// and reads after it): the C's edge map is copied here.
#[repr(C, align(64))]
struct Counters([u8; COVER_MAP_SIZE]);

#[used]
#[link_section = "__libfuzzer_extra_counters"]
static mut C_EDGES: Counters = Counters([0; COVER_MAP_SIZE]);

/// The sizes the model's world reached (`fuzz::run_input_marking`), in the same section: an
/// input that grows an mm or a tree past what the corpus reached is kept, as a new edge is.
#[repr(C, align(64))]
struct Sizes([u8; fuzz::STATE_FEATURES]);

#[used]
#[link_section = "__libfuzzer_extra_counters"]
static mut STATE_SIZES: Sizes = Sizes([0; fuzz::STATE_FEATURES]);

struct State {
    target: &'static Target,
    sys: CSystem<'static>,
    map: Mutex<EdgeMap>,
    start: Instant,
    inputs: AtomicU64,
    calls: AtomicU64,
    printed: AtomicU64,
}

fn fail(e: impl std::fmt::Display) -> ! {
    eprintln!("rmapcheck cops: {e}");
    std::process::exit(2)
}

fn state() -> &'static State {
    static STATE: OnceLock<State> = OnceLock::new();
    STATE.get_or_init(|| {
        let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
        let model = rmapcheck::fuzzing::models_dir(&models).join("v7.3-rc4/baseline.rmap");
        let t0 = Instant::now();
        // libFuzzer's main leaves SIGPIPE fatal: a harness that died must not take the fuzzer
        rmapcheck::charness::harness::ignore_sigpipe();
        let target: &'static Target = Box::leak(Box::new(
            Target::from_env(&model).unwrap_or_else(|e| fail(e)),
        ));
        let map = EdgeMap::new().unwrap_or_else(|e| fail(e));
        let sys = target.system(vec![map.env()]).unwrap_or_else(|e| fail(e));
        eprintln!(
            "rmapcheck cops: the C of {} ({}{}), harness {} in {:.1} s; feedback: the C's edges \
             ({COVER_MAP_SIZE} extra counters) and the world's sizes ({} more)",
            target.source.kernel.display(),
            target.prepared.built.release,
            if target.prepared.applied.is_empty() {
                String::new()
            } else {
                format!("; applied: {}", target.prepared.applied.join(", "))
            },
            if target.prepared.built.compiled {
                "built"
            } else {
                "cached"
            },
            t0.elapsed().as_secs_f64(),
            fuzz::STATE_FEATURES
        );
        State {
            target,
            sys,
            map: Mutex::new(map),
            start: Instant::now(),
            inputs: AtomicU64::new(0),
            calls: AtomicU64::new(0),
            printed: AtomicU64::new(0),
        }
    })
}

/// Inputs and C calls a second, every ten seconds.
fn pulse(s: &State, calls: usize) {
    let n = s.inputs.fetch_add(1, Ordering::Relaxed) + 1;
    let c = s.calls.fetch_add(calls as u64, Ordering::Relaxed) + calls as u64;
    let secs = s.start.elapsed().as_secs_f64();
    let tick = (secs / 10.0) as u64;
    if tick > s.printed.load(Ordering::Relaxed) {
        s.printed.store(tick, Ordering::Relaxed);
        eprintln!(
            "rmapcheck cops: {n} inputs, {c} C calls in {secs:.0} s: {:.0} inputs/s, {:.0} C calls/s",
            n as f64 / secs,
            c as f64 / secs
        );
    }
}

/// Where a finding's calls file goes: `$RMAPCHECK_CALLS_DIR`, else fuzz/artifacts/cops/.
fn calls_dir() -> PathBuf {
    match std::env::var_os("RMAPCHECK_CALLS_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("artifacts/cops"),
    }
}

fuzz_target!(|data: &[u8]| {
    let s = state();
    let mut map = s.map.lock().expect("edge map");
    map.clear();
    let mut sizes = [0u8; fuzz::STATE_FEATURES];
    let Some(ran) = fuzz::run_input_marking(&s.sys, data, &mut sizes) else {
        return;
    };
    // SAFETY: libFuzzer reads the counters only between inputs, on this thread
    unsafe {
        std::ptr::copy_nonoverlapping(
            map.counts().as_ptr(),
            std::ptr::addr_of_mut!(C_EDGES).cast::<u8>(),
            COVER_MAP_SIZE,
        );
        std::ptr::copy_nonoverlapping(
            sizes.as_ptr(),
            std::ptr::addr_of_mut!(STATE_SIZES).cast::<u8>(),
            fuzz::STATE_FEATURES,
        );
    }
    pulse(s, ran.calls.len());
    let Some(text) = fuzz::found(&s.sys, &ran) else {
        return;
    };
    let first = text.trim_start().lines().next().unwrap_or("").to_string();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::hash::Hash::hash(data, &mut h);
    let dir = calls_dir();
    let file = dir.join(format!("calls-{:016x}.txt", std::hash::Hasher::finish(&h)));
    let header = vec![
        format!("rmapcheck C fuzz target cops: {first}"),
        format!(
            "tree {} ({}), applied: {}",
            s.target.source.kernel.display(),
            s.target.prepared.built.release,
            if s.target.prepared.applied.is_empty() {
                "nothing".to_string()
            } else {
                s.target.prepared.applied.join(", ")
            }
        ),
        format!("replay: {}", s.target.replay_command(&file)),
    ];
    let written = std::fs::create_dir_all(&dir)
        .and_then(|_| std::fs::write(&file, fuzz::calls_file(&header, &ran)));
    let saved = match written {
        Ok(()) => format!(
            "the calls are in {}; run them again with\n    {}",
            file.display(),
            s.target.replay_command(&file)
        ),
        Err(e) => format!(
            "the calls file {} could not be written: {e}",
            file.display()
        ),
    };
    panic!("{text}\n{saved}");
});
