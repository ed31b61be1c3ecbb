//! `rmapcheck interleave MODEL --ops SCENARIO`: the scenario's calls but the last set up the
//! world (one after the other); the last call is the writer (thread 0); walkers (threads 1..)
//! are the `--walker` calls, or every multiset of `--walkers N` walker calls of the `--kinds`
//! offered in that world. Every interleaving of each thread set is explored; the first
//! violation is printed as an interleaved trace. `cargo bench --bench interleave` measures the
//! explorer with and without the partial-order reduction. Exit status: 0 holds, 1 a
//! counterexample, 2 bad input, 3 incomplete.

use super::load_model;
use super::{CmdError, CmdResult, Exit};
use crate::check::Invariant;
use crate::explore::footprint::Table;
use crate::explore::interleave::{explore, setup, Config, IOutcome};
use crate::explore::walkers::{check_kinds, combinations, walker_calls};
use crate::lang::Program;
use crate::trace::interleaved;
use crate::world::scenario::Call;
use crate::world::World;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// Options of `rmapcheck interleave` (each field's doc comment is its `--help` text). Explicit
/// `walker` calls, or else generated ones: `walkers` of the `kinds` (both, when not given, the
/// scope's: [`InterleaveArgs::generated`]).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct InterleaveArgs {
    /// The model file.
    pub model: PathBuf,
    /// Scenario file (TOML): initial world and calls; the last call is the writer.
    #[arg(long)]
    pub ops: PathBuf,
    /// A walker call (repeatable), e.g. `rmap_walk_file(mapping#0, 101)`; when none is
    /// given, every set of --walkers walkers of --kinds is tried.
    #[arg(long)]
    pub walker: Vec<String>,
    /// Number of walker threads for generated walkers (default: the scope's, at least 1).
    #[arg(long)]
    pub walkers: Option<usize>,
    /// Walker kinds to generate: file, anon, flush, madv, and, only when named, fault (a write
    /// fault under the per-VMA lock) and uprobe (uprobe registration's file-tree walk)
    /// (comma-separated; default file, anon, flush, madv).
    #[arg(long, value_delimiter = ',')]
    pub kinds: Vec<String>,
    /// A built-in scope or scope TOML giving `walkers` and `walker_kinds` defaults.
    #[arg(long)]
    pub scope: Option<String>,
    /// Explore without the partial-order reduction.
    #[arg(long)]
    pub no_reduction: bool,
    /// Audit the run (slower): every step's changes against its footprint, every
    /// independence claim of the reduction in both orders, every incremental tree check
    /// against the whole one. A difference makes `holds` `incomplete` (exit 3).
    #[arg(long)]
    pub audit: bool,
    /// Stop (incomplete) after this many states per thread set.
    #[arg(long, default_value_t = 0)]
    pub max_states: usize,
    /// Do not show progress.
    #[arg(long = "quiet", action = clap::ArgAction::SetFalse)]
    pub progress: bool,
}

impl InterleaveArgs {
    /// How many walkers run next to the writer and of which kinds, for generated walkers:
    /// `--walkers` and `--kinds`, else the scope's (`--scope`, or the default scope; at least
    /// one walker; an empty list of kinds is file, anon, flush and madv).
    fn generated(&self) -> Result<(usize, Vec<String>), CmdError> {
        let sc = crate::scope::Scope::load(self.scope.as_deref().unwrap_or("default"))
            .map_err(|e| CmdError::line(format_args!("rmapcheck interleave: {e}")))?;
        let walkers = self.walkers.unwrap_or(sc.walkers.max(1) as usize);
        let kinds = if self.kinds.is_empty() {
            sc.walker_kinds
        } else {
            self.kinds.clone()
        };
        Ok((walkers, kinds))
    }
}

/// Parse `--walker` calls and check that each names a walker the model defines, with the
/// right arguments, on objects that exist in `w`.
fn parse_walkers(prog: &Program, w: &World, texts: &[String]) -> Result<Vec<Call>, String> {
    let mut out = Vec::new();
    for t in texts {
        let c = Call::parse(t).map_err(|e| format!("{t:?}: {e}"))?;
        crate::exec::thread::Thread::start(prog, &c.func, &c.args)
            .map_err(|e| format!("{c}: {e}"))?;
        for a in &c.args {
            if let crate::exec::host::Value::Obj(k, id) = *a {
                if !w.object_live(k, id) {
                    return Err(format!(
                        "{c}: {a} does not exist in the world after the setup calls"
                    ));
                }
            }
        }
        out.push(c);
    }
    Ok(out)
}

pub fn interleave(a: &InterleaveArgs, out: &mut dyn Write) -> CmdResult {
    let (walkers, kinds) = a.generated()?;
    let prog = match load_model(&a.model) {
        Ok(p) => p,
        Err(d) => {
            return Err(CmdError::text(d));
        }
    };
    let text = match std::fs::read_to_string(&a.ops) {
        Ok(t) => t,
        Err(e) => {
            return Err(CmdError::line(format_args!("{}: {e}", a.ops.display())));
        }
    };
    let (world, writer) = match setup(&prog, &text) {
        Ok(x) => x,
        Err(e) => {
            return Err(CmdError::line(format_args!("{}: {e}", a.ops.display())));
        }
    };
    if let Err(e) = check_kinds(&kinds) {
        return Err(CmdError::line(format_args!("rmapcheck interleave: {e}")));
    }
    if let Err(e) = crate::fuzzing::validate_call(&prog, &world, &writer) {
        return Err(CmdError::line(format_args!(
            "{}: the writer {writer}: {e}",
            a.ops.display()
        )));
    }
    let sets: Vec<Vec<Call>> = if a.walker.is_empty() {
        let cands = crate::explore::walkers::against(&writer, walker_calls(&prog, &world, &kinds));
        combinations(&cands, walkers.clamp(1, 8))
    } else {
        match parse_walkers(&prog, &world, &a.walker) {
            Ok(v) => vec![v],
            Err(e) => {
                return Err(CmdError::line(format_args!(
                    "rmapcheck interleave: --walker {e}"
                )));
            }
        }
    };
    if sets.is_empty() {
        return Err(CmdError::line(format_args!(
            "rmapcheck interleave: no walker of kinds {:?} can run in the world of {}: nothing \
             would be explored",
            kinds,
            a.ops.display()
        )));
    }
    let cfg = Config {
        reduction: !a.no_reduction,
        max_states: if a.max_states == 0 {
            Config::default().max_states
        } else {
            a.max_states
        },
        footprints: Some(Arc::new(Table::new(&prog))),
        ..Config::default()
    };
    let name = a.model.display().to_string();
    let start = a.audit.then(super::check::audit::begin);
    let ran = run_sets(a, &prog, &name, &world, &writer, &sets, &cfg, out);
    let audit = start.map(super::check::audit::take);
    let (status, states) = ran?;
    let held = format!(
        "{name}: holds; writer {writer} against {} walker set(s), {states} states",
        sets.len()
    );
    match audit {
        None => {
            if status == Exit::Ok {
                writeln!(out, "{held}")?;
            }
            Ok(status)
        }
        Some((compared, d)) => audited(&name, &held, status, compared, &d, out),
    }
}

/// The verdict of an audited run: a counterexample stands (its steps are a real
/// interleaving, whatever the reduction skipped), but `holds` rests on the footprints and the
/// incremental checks, so a difference the audit found makes it `incomplete` (and `held`, the
/// holds line, is not printed).
fn audited(
    name: &str,
    held: &str,
    status: Exit,
    compared: u64,
    d: &[String],
    out: &mut dyn Write,
) -> CmdResult {
    if status == Exit::Ok && d.is_empty() {
        writeln!(out, "{held}")?;
    }
    writeln!(out, "{}", super::check::audit::describe(name, compared, d))?;
    if d.is_empty() || status != Exit::Ok {
        return Ok(status);
    }
    writeln!(
        out,
        "{name}: incomplete: {}",
        super::check::audit::reason(d.len())
    )?;
    Ok(Exit::Incomplete)
}

/// Explore the writer against each walker set in turn: the exit status so far (a
/// counterexample or an incomplete exploration printed) and the states explored.
#[allow(clippy::too_many_arguments)]
fn run_sets(
    a: &InterleaveArgs,
    prog: &Program,
    name: &str,
    world: &World,
    writer: &Call,
    sets: &[Vec<Call>],
    cfg: &Config,
    out: &mut dyn Write,
) -> Result<(Exit, usize), CmdError> {
    let (mut states, mut status) = (0usize, Exit::Ok);
    let bar = super::progress::Bar::new(a.progress, name);
    for (i, set) in sets.iter().enumerate() {
        if crate::checker::budget::stop_requested() {
            writeln!(
                out,
                "{name}: incomplete (interrupted) after {i} of {} walker sets",
                sets.len()
            )?;
            return Ok((Exit::Incomplete, states));
        }
        bar.report(&format!(
            "{name}: walker set {}/{}, {states} states",
            i + 1,
            sets.len()
        ));
        let mut calls = vec![writer.clone()];
        calls.extend(set.iter().cloned());
        let r = match explore(prog, name, world, &calls, cfg) {
            Ok(r) => r,
            Err(e) => {
                return Err(CmdError::line(format_args!("rmapcheck interleave: {e}")));
            }
        };
        states += r.stats.states;
        match r.outcome {
            IOutcome::Holds => {}
            IOutcome::Violation(t) => {
                writeln!(
                    out,
                    "{name}: COUNTEREXAMPLE {}\n",
                    t.invariant().map_or("", Invariant::name)
                )?;
                write!(out, "{}", interleaved::render(&t, prog))?;
                return Ok((Exit::Found, states));
            }
            IOutcome::Incomplete(m) => {
                let list: Vec<String> = calls.iter().map(|c| c.to_string()).collect();
                writeln!(out, "{name}: incomplete for {}: {m}", list.join(" | "))?;
                status = Exit::Incomplete;
            }
        }
    }
    Ok((status, states))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A difference the audit found turns `holds` into `incomplete` and is named; a
    /// counterexample's exit status stays.
    #[test]
    fn a_difference_makes_holds_incomplete() {
        let d = vec!["a claim that failed".to_string()];
        let run = |status, d: &[String]| {
            let mut out = Vec::new();
            let exit = audited("m", "m: holds; ...", status, 7, d, &mut out).unwrap();
            (exit, String::from_utf8(out).unwrap())
        };
        let (exit, out) = run(Exit::Ok, &d);
        assert_eq!(exit, Exit::Incomplete, "{out}");
        assert!(!out.contains("holds;"), "{out}");
        assert!(
            out.contains("1 differences (1 distinct) in 7 cross-checks"),
            "{out}"
        );
        assert!(out.contains("  a claim that failed"), "{out}");
        assert!(
            out.contains("m: incomplete: the audit found 1 differences"),
            "{out}"
        );
        let (exit, out) = run(Exit::Found, &d);
        assert_eq!(exit, Exit::Found, "{out}");
        assert!(
            !out.contains("incomplete") && !out.contains("holds;"),
            "{out}"
        );
        let (exit, out) = run(Exit::Ok, &[]);
        assert_eq!(exit, Exit::Ok);
        assert!(
            out.starts_with("m: holds; ...\n") && out.ends_with("7 cross-checks, no difference\n"),
            "{out}"
        );
    }
}
