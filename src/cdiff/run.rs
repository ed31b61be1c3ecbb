//! Running call sequences on the model and on the C harness and comparing the two worlds
//! after every call ([`cdiff`]), or one named sequence ([`one_sequence`]). A sequence starts
//! from `reset` in the harness; a harness that dies or hangs is a mismatch of that sequence
//! (the C crashed), and a fresh harness runs the next one.

use super::known;
pub use super::mismatch::Mismatch;
use crate::charness::calls::drive;
use crate::charness::canon::Raw;
use crate::charness::{initial_world, Died, Harness};
use crate::explore::op::{apply, CheckOpts};
use crate::lang::Program;
use crate::oracle::sequences::{generate_with, Drive, Gen, GenStats, OnReplay, Replayed, Seq};
use crate::scope::Scope;
use crate::world::scenario::Call;
use std::ops::ControlFlow;
use std::path::Path;
use std::time::{Duration, Instant};

/// Options of a cdiff run.
#[derive(Clone, Debug)]
pub struct Options {
    pub gen: Gen,
    /// Longest wait for one reply of the harness.
    pub timeout: Duration,
    /// Stop after this many unexplained mismatches (0: never).
    pub stop_after: usize,
    /// Test hook: after every call, add 1 to the `rb_subtree_last` of the root node of this
    /// tree of the C world (`file N` or `anon N`) when it has one.
    pub corrupt: Option<String>,
}

/// What a run found.
#[derive(Debug, Default)]
pub struct Report {
    pub sequences: usize,
    /// Calls made on both sides and compared after.
    pub calls: usize,
    pub mismatches: Vec<Mismatch>,
    pub known: std::collections::BTreeMap<&'static str, usize>,
    pub known_examples: Vec<Mismatch>,
    pub gen: GenStats,
    pub seconds: f64,
    /// Harness processes started (1 + restarts after a death).
    pub harness_starts: usize,
}

fn corrupt(h: &mut Harness, what: &Option<String>) -> Result<(), Died> {
    if let Some(w) = what {
        // "error nothing to corrupt" while the tree is empty: the hook waits for a node
        let _ = h.request(&format!("corrupt {w}"))?;
    }
    Ok(())
}

/// Run one sequence (its model worlds already computed) on the harness; Some on the first
/// difference.
fn run_seq(
    h: &mut Harness,
    seq: &Seq<String>,
    opts: &Options,
    calls: &mut usize,
) -> Result<Option<Mismatch>, Died> {
    h.reset(&seq.worlds[0])?;
    for (i, op) in seq.ops.iter().enumerate() {
        let model_raw = crate::charness::model::raw(&seq.worlds[i + 1]);
        let mismatch = |what: String, c_raw: Option<Raw>| Mismatch {
            calls: seq.calls.clone(),
            at: i,
            what,
            model: model_raw.canonical(),
            c: c_raw.as_ref().map_or_else(Vec::new, Raw::canonical),
            model_raw: model_raw.clone(),
            c_raw,
            known: None,
        };
        if let Some(req) = op {
            let r = match h.request(req) {
                Ok(r) => r,
                Err(d) => {
                    return Ok(Some(mismatch(
                        format!("the C harness died in `{req}`: {d}"),
                        None,
                    )))
                }
            };
            Harness::accepted(req, r)?;
        }
        corrupt(h, &opts.corrupt)?;
        *calls += 1;
        let dump = match h.dump() {
            Ok(d) => d,
            Err(d) => {
                return Ok(Some(mismatch(
                    format!("the C harness died dumping its world: {d}"),
                    None,
                )))
            }
        };
        // a dump that cannot be read (notes past the glue's limit) is the harness's error
        let c = crate::charness::cdump::parse(&dump).map_err(|what| Died { what })?;
        if model_raw.canonical() != c.canonical() {
            let mut m = mismatch("the worlds differ (lines marked <-)".to_string(), Some(c));
            m.known = known::explain(&m);
            return Ok(Some(m));
        }
    }
    Ok(None)
}

/// Run the sequences `opts.gen` of `scope` on the model and on the harness `binary`.
pub fn cdiff(
    prog: &Program,
    scope: &Scope,
    binary: &Path,
    opts: &Options,
    progress: OnReplay<'_>,
) -> Result<Report, String> {
    let t0 = Instant::now();
    let mut last = Instant::now();
    let w0 = initial_world(scope)?;
    let mut h = Harness::start(binary, opts.timeout).map_err(|d| d.what)?;
    let mut rep = Report {
        harness_starts: 1,
        ..Report::default()
    };
    let mut fatal = None;
    let gen = generate_with(prog, scope, &w0, opts.gen, &drive, &mut |seq| {
        if crate::checker::budget::stop_requested() {
            fatal = Some(format!(
                "interrupted after {} sequences: the comparison is incomplete",
                rep.sequences
            ));
            return ControlFlow::Break(());
        }
        if last.elapsed().as_secs_f64() >= 1.0 {
            progress(&Replayed {
                sequences: rep.sequences,
                calls: rep.calls,
                seconds: t0.elapsed().as_secs_f64(),
            });
            last = Instant::now();
        }
        rep.sequences += 1;
        match run_seq(&mut h, seq, opts, &mut rep.calls) {
            Ok(None) => {}
            Ok(Some(m)) => {
                let died = m.c_raw.is_none();
                if let Some(k) = m.known {
                    *rep.known.entry(k).or_default() += 1;
                    if rep.known_examples.len() < 3 {
                        rep.known_examples.push(m);
                    }
                } else {
                    rep.mismatches.push(m);
                }
                if died {
                    rep.harness_starts += 1;
                    if let Err(d) = h.restart() {
                        fatal = Some(format!("cannot restart the harness: {d}"));
                        return ControlFlow::Break(());
                    }
                }
                if opts.stop_after > 0 && rep.mismatches.len() >= opts.stop_after {
                    return ControlFlow::Break(());
                }
            }
            Err(d) => {
                let calls: Vec<String> = seq.calls.iter().map(|c| c.to_string()).collect();
                fatal = Some(format!("{d} (sequence: {})", calls.join("; ")));
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    })?;
    if let Some(e) = fatal {
        return Err(e);
    }
    rep.gen = gen;
    rep.seconds = t0.elapsed().as_secs_f64();
    Ok(rep)
}

/// What [`one_sequence`] found.
pub struct OneSequence {
    /// The sequence run, with its model worlds.
    pub seq: Seq<String>,
    /// The first mismatch.
    pub mismatch: Option<Mismatch>,
    /// The calls the model's own checks failed on.
    pub notes: Vec<String>,
}

/// Run the named `calls` from the scope's initial world on both sides, applying each call on
/// the model even when the model's own checks fail on it (they are reported in `notes`).
pub fn one_sequence(
    prog: &Program,
    scope: &Scope,
    binary: &Path,
    calls: &[Call],
    opts: &Options,
) -> Result<OneSequence, String> {
    let w0 = initial_world(scope)?;
    let mut seq = Seq {
        calls: Vec::new(),
        worlds: vec![w0],
        ops: Vec::new(),
    };
    let mut notes = Vec::new();
    for c in calls {
        let w = seq.worlds.last().expect("world");
        let op = match drive(w, c)? {
            Drive::Skip(r) => return Err(format!("{c}: not compared: {r}")),
            Drive::Op(o) => o,
        };
        let mut next = w.clone();
        let r = apply(
            prog,
            &mut next,
            c,
            CheckOpts {
                record: false,
                per_step: false,
                invariants: scope.invariant_set(),
            },
        );
        if let Some(f) = r.failure {
            notes.push(format!(
                "the model's own checks fail on {c}: {}",
                f.invariant().map_or("a model fault", |i| i.name())
            ));
        }
        seq.calls.push(c.clone());
        seq.worlds.push(next.canonical());
        seq.ops.push(op);
    }
    let mut h = Harness::start(binary, opts.timeout).map_err(|d| d.what)?;
    let mut n = 0;
    let mismatch = run_seq(&mut h, &seq, opts, &mut n).map_err(|d| d.what)?;
    Ok(OneSequence {
        seq,
        mismatch,
        notes,
    })
}
