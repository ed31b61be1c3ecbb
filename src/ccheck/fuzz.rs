//! The C fuzz target's library side (`fuzz/fuzz_targets/cops.rs`; docs/CHECK-C.md, "Fuzzing
//! the C"): its set-up from the environment (the tree in `$RMAPCHECK_KERNEL_SRC`, C mutants in
//! `$RMAPCHECK_C_MUTANT`), one fuzzer input decoded as the `ops` target decodes it
//! (`fuzzing::decode`, each abstract operation made a callers-mode call in the model's world
//! just before it runs, `fuzzing::concretise`) and run on the model and the C with every check
//! of the C search ([`CSystem::run_sequence`]), and the calls file of what it found, which
//! `rmapcheck creplay` runs again on the C ([`read_calls`]).

use super::system::{CSystem, Ended, Ran};
use super::{cmutant, report, Prepared, Source};
use crate::explore::search::CallSystem;
use crate::fuzzing::{self, Mode};
use crate::lang::Program;
use crate::scope::Scope;
use crate::world::scenario::Call;
use crate::world::World;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The environment variable naming the kernel tree.
pub const KERNEL_ENV: &str = "RMAPCHECK_KERNEL_SRC";
/// The environment variable naming C mutants to inject (a spec or a directory of them;
/// several separated by `:`).
pub const MUTANT_ENV: &str = "RMAPCHECK_C_MUTANT";

/// The C fuzz target: the baseline model, the default scope's checks and initial world, and the
/// harness built from the tree (with the mutants) with edge counts for libFuzzer.
pub struct Target {
    pub prog: Program,
    pub scope: Scope,
    pub source: Source,
    pub prepared: Prepared,
}

impl Target {
    /// The target of `$RMAPCHECK_KERNEL_SRC` (an error when it is unset) and
    /// `$RMAPCHECK_C_MUTANT`, the calls chosen by the model `model` (the baseline).
    pub fn from_env(model: &Path) -> Result<Target, String> {
        let kernel = std::env::var_os(KERNEL_ENV)
            .filter(|k| !k.is_empty())
            .ok_or_else(|| {
                format!(
                    "{KERNEL_ENV} is not set: the C fuzz target builds the harness from a kernel \
                 tree (scripts/fetch-kernel.sh fetches one)"
                )
            })?;
        let mut mutants = Vec::new();
        if let Some(m) = std::env::var_os(MUTANT_ENV).filter(|m| !m.is_empty()) {
            for p in std::env::split_paths(&m) {
                mutants.extend(load_mutants(&p)?);
            }
        }
        Target::new(
            model,
            Source {
                kernel: PathBuf::from(kernel),
                patches: Vec::new(),
                mutants,
            },
        )
    }

    /// The target of `source`, built for fuzzing ([`super::prepare_fuzz`]).
    pub fn new(model: &Path, source: Source) -> Result<Target, String> {
        let prog = crate::models::load_model(model).map_err(|e| e.to_string())?;
        let scope = Scope::builtin("default").expect("the default scope");
        let prepared = super::prepare_fuzz(&source)?;
        Ok(Target {
            prog,
            scope,
            source,
            prepared,
        })
    }

    /// The C system of the target; `env` is added to the harness's environment (the edge map).
    pub fn system(&self, env: Vec<(String, String)>) -> Result<CSystem<'_>, String> {
        system(&self.prog, &self.scope, &self.prepared, env)
    }

    /// The `rmapcheck creplay` command that runs `file` again on the same C.
    pub fn replay_command(&self, file: &Path) -> String {
        let mut s = format!(
            "rmapcheck creplay {} --kernel {}",
            file.display(),
            self.source.kernel.display()
        );
        for m in &self.source.mutants {
            s += &format!(" --c-mutant {}", m.path.display());
        }
        s
    }
}

/// A spec, or every spec of a directory.
fn load_mutants(p: &Path) -> Result<Vec<cmutant::Spec>, String> {
    if p.is_dir() {
        cmutant::load_dir(p)
    } else {
        Ok(vec![cmutant::load(p)?])
    }
}

/// The C system of `prepared` in `scope` (the calls chosen by `prog`), with no time bound:
/// the fuzz target and `creplay` run one sequence at a time.
pub fn system<'a>(
    prog: &'a Program,
    scope: &'a Scope,
    prepared: &Prepared,
    env: Vec<(String, String)>,
) -> Result<CSystem<'a>, String> {
    let budget = Arc::new(crate::checker::budget::Budget::new(
        f64::MAX,
        scope.max_memory_mb,
    ));
    let model = CallSystem::new(prog, scope, budget);
    Ok(CSystem::new(
        model,
        prepared.built.binary.clone(),
        Duration::from_secs(20),
        prepared.baseline.as_ref().map(|b| b.binary.clone()),
    )?
    .with_env(env))
}

/// Run the fuzzer input `data` on `sys`: `None` when it does not decode.
pub fn run_input(sys: &CSystem, data: &[u8]) -> Option<Ran> {
    run_input_marking(sys, data, &mut [0; STATE_FEATURES])
}

/// The size of the state-feature map [`run_input_marking`] fills.
pub const STATE_FEATURES: usize = 6 * FEATURE_VALUES;
/// The values a state feature tells apart (larger ones count as the largest).
const FEATURE_VALUES: usize = 64;

/// [`run_input`], marking in `marks` the sizes the model's world reached before each call and
/// after the last: the VMAs of the fullest mm, the live mms, the live anon_vmas, the AVCs of
/// the fullest anon_vma tree, the VMAs in the fullest file rmap tree and the anonymous folios,
/// one byte per (size kind, value). Edge coverage alone does not tell a world of three VMAs
/// from one of twelve, since the same code runs on both; fed to libFuzzer beside the C's edges,
/// these marks keep the inputs that grow the trees and the mms (limits, batch sizes, deeper
/// rotations), as state-aware fuzzers do.
pub fn run_input_marking(
    sys: &CSystem,
    data: &[u8],
    marks: &mut [u8; STATE_FEATURES],
) -> Option<Ran> {
    let d = fuzzing::decode(data).ok()?;
    let mut ops = d.ops.iter();
    let mut next = |w: &World| {
        mark_sizes(w, marks);
        ops.by_ref()
            .find_map(|op| fuzzing::concretise(op, w, Mode::Callers))
    };
    // an operation makes at most one call: one more than there are operations lets `next` see
    // (and mark) the world after the last call, then end the sequence
    Some(sys.run_sequence(d.ops.len() + 1, &mut next))
}

/// Mark the sizes of `w` ([`run_input_marking`]).
fn mark_sizes(w: &World, marks: &mut [u8; STATE_FEATURES]) {
    let live_mms = || w.mms.iter().filter(|m| m.map_count > 0);
    let live_avs = || w.anon_vmas.iter().filter(|a| !a.freed);
    let sizes = [
        live_mms().map(|m| m.vmas.len()).max().unwrap_or(0),
        live_mms().count(),
        live_avs().count(),
        live_avs().map(|a| a.rb_root.len()).max().unwrap_or(0),
        w.mappings.iter().map(|m| m.i_mmap.len()).max().unwrap_or(0),
        w.anon_folios.len(),
    ];
    for (kind, n) in sizes.into_iter().enumerate() {
        marks[kind * FEATURE_VALUES + n.min(FEATURE_VALUES - 1)] = 1;
    }
}

/// What a run found, in words: the verdict line and the C's report (`None` when it passed).
pub fn found(sys: &CSystem, ran: &Ran) -> Option<String> {
    let kcalls = report::kernel_calls(sys.initial_world(), &ran.calls, &|w, c| {
        let _ = sys.model.apply(w, c);
        *w = sys.model.canonical(w);
    });
    match &ran.ended {
        Ended::Passed => None,
        Ended::Failed(f) => Some(report::text(&kcalls, f)),
        Ended::Diverged(d) => Some(format!(
            "\nDIVERGES: the model diverges from the kernel's C after call {}\n{}",
            d.calls.len(),
            d.render()
        )),
        Ended::Stopped(why) => Some(format!(
            "\nerror: the sequence could not be judged: {why}\n"
        )),
    }
}

/// The calls file of `ran`: a header of `#` comments (`header`, one line each), then one model
/// call per line, as `rmapcheck creplay` reads it.
pub fn calls_file(header: &[String], ran: &Ran) -> String {
    let mut s = String::new();
    for h in header {
        for l in h.lines() {
            s += &format!("# {l}\n");
        }
    }
    for c in &ran.calls {
        s += &format!("{c}\n");
    }
    s
}

/// The calls of a calls file: one model call per line; blank lines and `#` comments skipped.
/// An error names the line.
pub fn read_calls(text: &str) -> Result<Vec<Call>, String> {
    let mut out = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let l = l.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        out.push(Call::parse(l).map_err(|e| format!("line {}: {e}", i + 1))?);
    }
    if out.is_empty() {
        return Err("no call in the file".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The marks of a world: one per size kind, at its value; a second VMA in the mm moves the
    /// first kind's mark, so libFuzzer sees a new feature.
    #[test]
    fn the_sizes_of_a_world_are_marked_one_per_kind() {
        use crate::checker::TransitionSystem;
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let prog = crate::models::load_model(&root.join(crate::models::BASELINE)).unwrap();
        let scope = Scope::builtin("default").unwrap();
        let budget = Arc::new(crate::checker::budget::Budget::new(f64::MAX, 0));
        let sys = CallSystem::new(&prog, &scope, budget);
        let Ok(mut w) = sys.initial() else {
            panic!("no initial world")
        };
        let marked = |w: &World| {
            let mut m = [0u8; STATE_FEATURES];
            mark_sizes(w, &mut m);
            m.iter()
                .enumerate()
                .filter(|(_, &b)| b == 1)
                .map(|(i, _)| (i / FEATURE_VALUES, i % FEATURE_VALUES))
                .collect::<Vec<_>>()
        };
        let empty = marked(&w);
        assert_eq!(empty.len(), 6, "{empty:?}");
        assert!(empty.contains(&(0, 0)), "{empty:?}");
        for c in [
            "sys_mmap(mm#0, file#0, 0, 2, 0, false)",
            "sys_mmap(mm#0, NULL, 2, 3, 0, false)",
        ] {
            let _ = sys.apply(&mut w, &Call::parse(c).unwrap());
        }
        let two = marked(&w);
        assert!(
            two.contains(&(0, 2)),
            "the fullest mm has two VMAs: {two:?}"
        );
        assert!(two.contains(&(1, 1)), "one live mm: {two:?}");
        assert!(two.contains(&(4, 1)), "one VMA in i_mmap: {two:?}");
    }

    #[test]
    fn a_calls_file_reads_back_its_calls_and_names_a_bad_line() {
        let calls = vec![
            Call::parse("sys_mmap(mm#0, file#0, 0, 2, 0, false)").unwrap(),
            Call::parse("sys_munmap(mm#0, 1, 2)").unwrap(),
        ];
        let ran = Ran {
            calls: calls.clone(),
            skipped: Vec::new(),
            ended: Ended::Passed,
        };
        let text = calls_file(&["found: something\nsecond line".into()], &ran);
        assert!(
            text.starts_with("# found: something\n# second line\n"),
            "{text}"
        );
        let back = read_calls(&text).unwrap();
        assert_eq!(
            back.iter().map(ToString::to_string).collect::<Vec<_>>(),
            calls.iter().map(ToString::to_string).collect::<Vec<_>>()
        );
        let e = read_calls("# x\nsys_mmap(mm#0,\n").unwrap_err();
        assert!(e.starts_with("line 2: "), "{e}");
        assert_eq!(read_calls("# only\n").unwrap_err(), "no call in the file");
    }
}
