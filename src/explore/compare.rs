//! Patch against baseline: (a) equivalence — both models run the same call sequences (a joint
//! breadth-first search over pairs of states) and must give the same VMA layout and the same
//! rmap walker answers after every call; (b) the work done inside the i_mmap_rwsem and anon_vma
//! write-side critical sections (tree nodes visited, rotations, augment recomputations, tree
//! operations), per kind of call, baseline against patch. The `execl` scenario measures the same
//! on a large file tree: a shared library mapped by many processes, and the splits an exec
//! performs on its own mapping of it.
//!
//! Walker answers leave out anonymous VMAs that carry a file (private /dev/zero): their pages are
//! anonymous and never found through the file rmap, and whether they sit in the file tree is
//! exactly what the /dev/zero patch changes.

use super::alphabet;
use super::op::{apply, CheckOpts};
use super::search::fingerprint;
use crate::check::membership::vma_live;
use crate::check::Invariant;
use crate::checker::budget::Budget;
use crate::checker::{
    self, Config, Expansion, FrontierTuning, OnProgress, Start, TransitionSystem, Verdict as Ended,
};
use crate::lang::Program;
use crate::scope::Scope;
use crate::tree::{interval, TreeObs, TreeStats};
use crate::world::scenario::Call;
use crate::world::{AnonKeys, CriticalWork, FileKeys, World};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

/// One VMA as compared: (start, end, pgoff, file, flags, has anon_vma).
pub(crate) type VmaShape = (u64, u64, u64, u64, Option<u32>, i64, bool);
/// A VMA named by (mm, start), stable across models where ids may differ.
pub(crate) type VmaName = (u32, u64);

/// What a reviewer compares after each call: each mm's layout and every walker answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observation {
    /// Per mm: (start, end, pgoff, anon pgoff, file, flags, has anon_vma).
    pub layout: Vec<Vec<VmaShape>>,
    /// File walks: (mapping, pgoff) -> VMAs found, named (mm, start).
    pub file_walks: BTreeMap<(u32, u64), BTreeSet<VmaName>>,
    /// Anon walks: for each VMA (mm, start) and each pgoff it maps, which VMAs the walk of each
    /// of its anon_vmas finds.
    pub anon_walks: BTreeSet<(VmaName, u64, BTreeSet<VmaName>)>,
}

fn name(w: &World, v: u32) -> (u32, u64) {
    let x = &w.vmas[v as usize];
    (x.vm_mm.unwrap_or(u32::MAX), x.vm_start)
}

/// Observe a world.
pub fn observe(w: &World) -> Observation {
    let layout = (0..w.mms.len() as u32)
        .map(|m| {
            w.mm_vmas(m)
                .into_iter()
                .map(|v| {
                    let x = &w.vmas[v as usize];
                    (
                        x.vm_start,
                        x.vm_end,
                        x.vm_pgoff,
                        x.vm_anon_pgoff,
                        x.vm_file,
                        x.vm_flags,
                        x.anon_vma.is_some(),
                    )
                })
                .collect()
        })
        .collect();
    let live: Vec<u32> = (0..w.vmas.len() as u32)
        .filter(|&v| vma_live(w, v))
        .collect();
    let bound = live
        .iter()
        .map(|&v| w.vmas[v as usize].last_pgoff() + 1)
        // the file walks only: anon walks below go over each VMA's anonymous pgoffs
        .max()
        .unwrap_or(0);
    let fk = FileKeys { vmas: &w.vmas };
    let mut file_walks = BTreeMap::new();
    for (m, a) in w.mappings.iter().enumerate() {
        for p in 0..bound {
            let found: BTreeSet<(u32, u64)> =
                interval::query_iter(&a.i_mmap, &fk, p, p, &mut TreeObs::default())
                    .filter(|&v| !w.vmas[v as usize].is_anonymous())
                    .map(|v| name(w, v))
                    .collect();
            if !found.is_empty() {
                file_walks.insert((m as u32, p), found);
            }
        }
    }
    let ak = AnonKeys {
        vmas: &w.vmas,
        avcs: &w.avcs,
    };
    let mut anon_walks = BTreeSet::new();
    for &v in &live {
        let x = &w.vmas[v as usize];
        for &c in &x.anon_vma_chain {
            let Some(a) = w.avcs[c as usize].anon_vma else {
                continue;
            };
            for p in x.start_anon_pgoff()..=x.last_anon_pgoff() {
                let found: BTreeSet<(u32, u64)> = interval::query_iter(
                    &w.anon_vmas[a as usize].rb_root,
                    &ak,
                    p,
                    p,
                    &mut TreeObs::default(),
                )
                .filter_map(|c| w.avcs[c as usize].vma)
                .map(|v| name(w, v))
                .collect();
                anon_walks.insert((name(w, v), p, found));
            }
        }
    }
    Observation {
        layout,
        file_walks,
        anon_walks,
    }
}

/// Work in the critical sections for one kind of call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    pub calls: u64,
    pub base: CriticalWork,
    pub patch: CriticalWork,
}

/// How the comparison ended.
#[derive(Debug)]
pub enum Verdict {
    /// Same observations after every call of every sequence within the scope.
    Equivalent { states: usize, calls: usize },
    /// A time, memory or state bound (or a stop request) ended the comparison before the
    /// scope's depth: no difference up to `complete_depth`.
    Incomplete {
        reason: String,
        complete_depth: u32,
        states: usize,
    },
    /// The first sequence after which the two differ, and how.
    Differs { calls: Vec<Call>, what: String },
    /// One of the models violated an invariant (`which` is "baseline" or "patch").
    Violation {
        which: &'static str,
        calls: Vec<Call>,
        invariant: crate::check::Invariant,
        message: String,
    },
}

pub struct Report {
    pub verdict: Verdict,
    /// Kind of call -> work.
    pub work: BTreeMap<String, Work>,
}

/// The kind a call is counted under: its entry point, with the side of a split when the call
/// says it.
pub fn kind(call: &Call) -> String {
    let split = crate::entry::EntryPoint::ContractSplit.name();
    match call.args.get(3) {
        Some(nb) if call.func == split => format!("{split} new_below={nb}"),
        _ => call.func.clone(),
    }
}

fn add(a: &mut CriticalWork, b: &CriticalWork) {
    let sum = |x: &mut TreeStats, y: &TreeStats| {
        x.visits += y.visits;
        x.rotations += y.rotations;
        x.augment_computes += y.augment_computes;
    };
    sum(&mut a.file, &b.file);
    sum(&mut a.anon, &b.anon);
    a.file_ops += b.file_ops;
    a.anon_ops += b.anon_ops;
}

/// The first difference between two observations, in words; `None` when they are equal.
pub fn diff(a: &Observation, b: &Observation) -> Option<String> {
    (a != b).then(|| describe_difference(a, b))
}

fn describe_difference(a: &Observation, b: &Observation) -> String {
    if a.layout != b.layout {
        return format!(
            "VMA layout differs: baseline {:?}, patch {:?}",
            a.layout, b.layout
        );
    }
    for (k, v) in &a.file_walks {
        if b.file_walks.get(k) != Some(v) {
            return format!(
                "file walk of mapping#{} at pgoff {}: baseline finds {v:?}, patch {:?}",
                k.0,
                k.1,
                b.file_walks.get(k)
            );
        }
    }
    for (k, v) in &b.file_walks {
        if !a.file_walks.contains_key(k) {
            return format!(
                "file walk of mapping#{} at pgoff {}: baseline finds nothing, patch {v:?}",
                k.0, k.1
            );
        }
    }
    "anon walks differ".to_string()
}

/// Compare `base` and `patch` over every call sequence of `scope`, within the scope's bounds.
pub fn compare(base: &Program, patch: &Program, scope: &Scope) -> Report {
    let budget = scope.budget();
    compare_within(base, patch, scope, &budget, &mut |_| {})
}

/// The base x patch product as a [`TransitionSystem`]: a state is the pair of canonical
/// worlds, an action a call both make; a step fails when either model violates an invariant or
/// the two observations differ. The critical-section work of every call is summed on the side.
struct Product<'a> {
    base: &'a Program,
    patch: &'a Program,
    scope: &'a Scope,
    opts: CheckOpts,
    work: Mutex<BTreeMap<String, Work>>,
}

/// How the product failed.
enum ProductFailure {
    Differs(String),
    Violation {
        which: &'static str,
        invariant: Invariant,
        message: String,
    },
}

impl TransitionSystem for Product<'_> {
    type State = (World, World);
    type Action = Call;
    type Failure = ProductFailure;

    fn initial(&self) -> Result<(World, World), Start<ProductFailure>> {
        let w0 = self
            .scope
            .initial_scenario()
            .build()
            .map_err(|e| Start::Error(format!("bad initial world: {e}")))?
            .canonical();
        Ok((w0.clone(), w0))
    }

    fn fingerprint(&self, (b, p): &(World, World)) -> u64 {
        crate::world::fingerprint::stable_hash(&(fingerprint(b), fingerprint(p)))
    }

    fn expand(
        &self,
        (wb, wp): &(World, World),
        _: u32,
        budget: &Budget,
    ) -> Expansion<Call, (World, World), ProductFailure> {
        let mut ex = Expansion::default();
        if wb.mms.iter().any(|m| m.vmas.len() > self.scope.max_vmas) {
            ex.cut = true;
            return ex;
        }
        for call in alphabet::calls(self.scope, self.base, wb) {
            if let Some(reason) = budget.poll() {
                ex.stopped = Some(reason);
                return ex;
            }
            let (mut b, mut p) = (wb.clone(), wp.clone());
            b.scratch = Default::default();
            p.scratch = Default::default();
            let ob = apply(self.base, &mut b, &call, self.opts);
            let op = apply(self.patch, &mut p, &call, self.opts);
            for (which, out) in [("baseline", &ob), ("patch", &op)] {
                if let Some(f) = &out.failure {
                    let v = &f.violations[0];
                    let failure = ProductFailure::Violation {
                        which,
                        invariant: v.invariant,
                        message: v.message.clone(),
                    };
                    ex.failure = Some((Some(call), failure));
                    return ex;
                }
            }
            if let Ok(mut work) = self.work.lock() {
                let e = work.entry(kind(&call)).or_default();
                e.calls += 1;
                add(&mut e.base, &b.scratch.work);
                add(&mut e.patch, &p.scratch.work);
            }
            let (b, p) = (b.canonical(), p.canonical());
            let (oa, ob2) = (observe(&b), observe(&p));
            if oa != ob2 {
                let what = describe_difference(&oa, &ob2);
                ex.failure = Some((Some(call), ProductFailure::Differs(what)));
                return ex;
            }
            ex.succs.push((call, (b, p)));
        }
        ex
    }
}

/// Whole states in the frontier, as by default.
impl FrontierTuning for Product<'_> {}

/// [`compare`] within `budget` (polled at every call pair), reporting progress about once a
/// second. One thread, one state at a time: the work table sums exactly the calls made up to
/// the first difference, the same on every run.
pub(crate) fn compare_within(
    base: &Program,
    patch: &Program,
    scope: &Scope,
    budget: &Budget,
    progress: OnProgress<'_>,
) -> Report {
    let sys = Product {
        base,
        patch,
        scope,
        opts: CheckOpts {
            record: false,
            per_step: true,
            invariants: scope.invariant_set(),
        },
        work: Mutex::new(BTreeMap::new()),
    };
    let cfg = Config {
        max_depth: scope.max_depth,
        max_states: scope.max_states,
        // one state at a time: the work of calls after a failing one is never counted
        threads: 1,
        batch: 1,
    };
    let (verdict, st) = checker::bfs(&sys, &cfg, budget, progress);
    let verdict = match verdict {
        Ended::Holds { .. } => Verdict::Equivalent {
            states: st.states,
            calls: st.transitions,
        },
        Ended::Incomplete {
            reason,
            complete_depth,
        } => Verdict::Incomplete {
            reason,
            complete_depth,
            states: st.states,
        },
        Ended::Error(what) | Ended::FailedInitial(ProductFailure::Differs(what)) => {
            Verdict::Differs {
                calls: Vec::new(),
                what,
            }
        }
        Ended::FailedInitial(ProductFailure::Violation { message, .. }) => Verdict::Differs {
            calls: Vec::new(),
            what: message,
        },
        Ended::Failed { path, failure } => match failure {
            ProductFailure::Differs(what) => Verdict::Differs { calls: path, what },
            ProductFailure::Violation {
                which,
                invariant,
                message,
            } => Verdict::Violation {
                which,
                calls: path,
                invariant,
                message,
            },
        },
    };
    Report {
        verdict,
        work: sys.work.into_inner().unwrap_or_default(),
    }
}

/// The `execl` scenario: a shared library (8 pages) mapped by `procs` processes, three VMAs
/// each (text, read-only data, data), all in one file tree; then a fresh process maps the
/// library and makes the calls exec's loader makes. Returns each call's critical-section work
/// on base and patch, or the first violation.
pub fn execl(base: &Program, patch: &Program, procs: u32) -> Result<Vec<(String, Work)>, String> {
    let mut text = String::from("[[file]]\nname = \"libc.so\"\n");
    for _ in 0..procs {
        text += "[[mm]]\n";
        for (s, e, w) in [(0, 4, false), (4, 6, false), (6, 8, true)] {
            text += &format!(
                "[[mm.vma]]\nstart = {s}\nend = {e}\npgoff = {s}\nfile = \"libc.so\"\nwritable = {w}\n"
            );
        }
    }
    text += "[[mm]]\n";
    let sc = crate::world::scenario::Scenario::parse(&text).map_err(|e| e.to_string())?;
    let w0 = sc.build().map_err(|e| e.to_string())?.canonical();
    let me = procs; // the exec'ing process's mm
    let calls = [
        (
            "map the library",
            format!("sys_mmap(mm#{me}, file#0, 0, 8, 0, false)"),
        ),
        (
            "mprotect head [0,4): split new_below=0",
            format!("sys_mprotect(mm#{me}, 0, 4, false)"),
        ),
        (
            "mprotect [5,6): splits new_below=1, =0",
            format!("sys_mprotect(mm#{me}, 5, 6, false)"),
        ),
        (
            "munmap tail [7,8): split new_below=1",
            format!("sys_munmap(mm#{me}, 7, 8)"),
        ),
    ];
    let (mut wb, mut wp) = (w0.clone(), w0);
    let mut out = Vec::new();
    for (label, c) in calls {
        let call = Call::parse(&c).map_err(|e| e.to_string())?;
        wb.scratch = Default::default();
        wp.scratch = Default::default();
        for (which, prog, w) in [("baseline", base, &mut wb), ("patch", patch, &mut wp)] {
            let r = apply(prog, w, &call, CheckOpts::default());
            if let Some(f) = r.failure {
                return Err(format!("{which}: {call}: {}", f.violations[0]));
            }
        }
        let mut wk = Work {
            calls: 1,
            ..Default::default()
        };
        add(&mut wk.base, &wb.scratch.work);
        add(&mut wk.patch, &wp.scratch.work);
        out.push((label.to_string(), wk));
        wb = wb.canonical();
        wp = wp.canonical();
    }
    Ok(out)
}
