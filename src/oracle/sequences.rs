//! The call sequences kdiff replays, built on the model with the explorer's alphabet: every
//! sequence up to a depth (only the longest ones are run, since each run compares after every
//! call and so covers its prefixes), a seeded sample of distinct sequences of one length, or
//! seeded random walks. Calls the kernel cannot be driven to are skipped and counted by reason;
//! a call the model itself fails on ends the sequence there and is counted. cdiff generates
//! its sequences here too, with its own translation of the calls ([`generate_with`]).

use super::ops::{skip_reason, translate, KOp, Translated};
use crate::check::Invariant;
use crate::explore::alphabet;
use crate::explore::op::{apply, CheckOpts};
use crate::lang::Program;
use crate::scope::Scope;
use crate::world::scenario::Call;
use crate::world::World;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::collections::{BTreeMap, HashSet};
use std::ops::ControlFlow;

/// One sequence: the calls, the model world before the first call and after each call, and the
/// kernel operation of each call (None: the call needs no system call, e.g. exit of nothing).
#[derive(Clone, Debug)]
pub struct Seq<T = KOp> {
    pub calls: Vec<Call>,
    pub worlds: Vec<World>,
    pub ops: Vec<Option<T>>,
}

/// What a model call becomes on the system compared with: skipped and counted by reason, or
/// run (with the operation, None when nothing needs doing there).
#[derive(Clone, Debug)]
pub enum Drive<T> {
    Skip(String),
    Op(Option<T>),
}

/// kdiff's translation: the system call of a model call.
fn kdiff_drive(w: &World, c: &Call) -> Result<Drive<KOp>, String> {
    if let Some(r) = skip_reason(&c.func) {
        return Ok(Drive::Skip(r));
    }
    Ok(match translate(w, c)? {
        Translated::Op(o) => Drive::Op(Some(o)),
        Translated::Skip(_) => Drive::Op(None),
    })
}

/// How a model call is driven on the other side.
pub type DriveFn<'a, T> = &'a dyn Fn(&World, &Call) -> Result<Drive<T>, String>;

impl Seq<KOp> {
    /// Processes the sequence needs: mm#0 and one per fork.
    pub fn mms(&self) -> usize {
        1 + self
            .ops
            .iter()
            .filter(|o| matches!(o, Some(KOp::Fork { .. })))
            .count()
    }
}

/// Which sequences.
#[derive(Clone, Copy, Debug)]
pub enum Gen {
    /// Every sequence of at most this many calls.
    All { depth: u32 },
    /// `count` distinct sequences of `depth` calls, each built by choosing a call uniformly at
    /// random in each state (not uniform over sequences).
    Sample { count: usize, depth: u32, seed: u64 },
    /// `count` random walks of `length` calls (repeats allowed).
    Walks {
        count: usize,
        length: u32,
        seed: u64,
    },
}

impl Gen {
    /// The generator the `--max-depth`, `--sample`, `--walks`, `--length` and `--seed` options
    /// of `kdiff` and `cdiff` ask for, with its description for the report; an error (the
    /// message alone) when the options exclude each other or ask for no call.
    pub fn from_options(
        max_depth: u32,
        sample: Option<usize>,
        walks: Option<usize>,
        length: u32,
        seed: u64,
    ) -> Result<(Gen, String), &'static str> {
        let chosen = match (sample, walks) {
            (Some(_), Some(_)) => return Err("--sample and --walks exclude each other"),
            (Some(0), _) | (_, Some(0)) => return Err("no sequence to run (count 0)"),
            (Some(count), None) => (
                Gen::Sample {
                    count,
                    depth: max_depth,
                    seed,
                },
                format!("{count} sampled sequences of depth {max_depth} (seed {seed})"),
            ),
            (None, Some(count)) => (
                Gen::Walks {
                    count,
                    length,
                    seed,
                },
                format!("{count} random walks of length {length} (seed {seed})"),
            ),
            (None, None) => (
                Gen::All { depth: max_depth },
                format!("every sequence of depth <= {max_depth}"),
            ),
        };
        if max_depth == 0 || (walks.is_some() && length == 0) {
            return Err("depth 0 makes no call");
        }
        Ok(chosen)
    }
}

/// What generation counted besides the sequences.
#[derive(Clone, Debug, Default)]
pub struct GenStats {
    /// Calls offered by the alphabet and not driven, by reason.
    pub skipped: BTreeMap<String, usize>,
    /// Calls the model failed on (an invariant violation in the model), by invariant.
    pub model_failures: BTreeMap<String, usize>,
}

/// Live figures of a run of generated sequences (kdiff's on the kernel, cdiff's on the C),
/// handed to its reporter ([`OnReplay`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Replayed {
    /// Sequences run.
    pub sequences: usize,
    /// Calls made.
    pub calls: usize,
    pub seconds: f64,
}

/// The reporter of a run's [`Replayed`] figures, called about once a second.
pub type OnReplay<'a> = &'a mut dyn FnMut(&Replayed);

/// The drivable successors of a world: (call, world after, op).
fn successors<T>(
    prog: &Program,
    scope: &Scope,
    w: &World,
    drive: DriveFn<T>,
    st: &mut GenStats,
) -> Result<Vec<(Call, World, Option<T>)>, String> {
    let mut out = Vec::new();
    for c in alphabet::calls(scope, prog, w) {
        if let Some(x) = one(prog, scope, w, c, drive, st)? {
            out.push(x);
        }
    }
    Ok(out)
}

/// Run one call on the model: None when it is not driven or the model fails on it (counted).
fn one<T>(
    prog: &Program,
    scope: &Scope,
    w: &World,
    c: Call,
    drive: DriveFn<T>,
    st: &mut GenStats,
) -> Result<Option<(Call, World, Option<T>)>, String> {
    let op = match drive(w, &c)? {
        Drive::Skip(r) => {
            *st.skipped.entry(format!("{}: {r}", c.func)).or_default() += 1;
            return Ok(None);
        }
        Drive::Op(o) => o,
    };
    let opts = CheckOpts {
        record: false,
        per_step: false,
        invariants: scope.invariant_set(),
    };
    let mut next = w.clone();
    let r = apply(prog, &mut next, &c, opts);
    if let Some(f) = r.failure {
        *st.model_failures
            .entry(f.invariant().map_or("", Invariant::name).to_string())
            .or_default() += 1;
        return Ok(None);
    }
    Ok(Some((c, next.canonical(), op)))
}

/// Generate the sequences from `w0` and hand each to `each` (which may stop the generation).
pub fn generate(
    prog: &Program,
    scope: &Scope,
    w0: &World,
    gen: Gen,
    each: &mut dyn FnMut(&Seq) -> ControlFlow<()>,
) -> Result<GenStats, String> {
    generate_with(prog, scope, w0, gen, &kdiff_drive, each)
}

/// [`generate`] with another translation of the calls (cdiff drives the C harness).
pub fn generate_with<T: Clone>(
    prog: &Program,
    scope: &Scope,
    w0: &World,
    gen: Gen,
    drive: DriveFn<T>,
    each: &mut dyn FnMut(&Seq<T>) -> ControlFlow<()>,
) -> Result<GenStats, String> {
    let mut st = GenStats::default();
    let mut seq = Seq {
        calls: Vec::new(),
        worlds: vec![w0.clone()],
        ops: Vec::new(),
    };
    match gen {
        Gen::All { depth } => {
            let _stopped = dfs(prog, scope, depth, &mut seq, drive, &mut st, each)?;
        }
        Gen::Sample { count, depth, seed } => {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            let mut seen = HashSet::new();
            let mut tries = 0;
            while seen.len() < count && tries < count * 20 + 100 {
                tries += 1;
                let s = walk(prog, scope, w0, depth, drive, &mut rng, &mut st)?;
                let key: Vec<String> = s.calls.iter().map(|c| c.to_string()).collect();
                if s.calls.is_empty() || !seen.insert(key) {
                    continue;
                }
                if each(&s).is_break() {
                    break;
                }
            }
        }
        Gen::Walks {
            count,
            length,
            seed,
        } => {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            for _ in 0..count {
                let s = walk(prog, scope, w0, length, drive, &mut rng, &mut st)?;
                if !s.calls.is_empty() && each(&s).is_break() {
                    break;
                }
            }
        }
    }
    Ok(st)
}

fn dfs<T: Clone>(
    prog: &Program,
    scope: &Scope,
    depth: u32,
    seq: &mut Seq<T>,
    drive: DriveFn<T>,
    st: &mut GenStats,
    each: &mut dyn FnMut(&Seq<T>) -> ControlFlow<()>,
) -> Result<ControlFlow<()>, String> {
    let next = if (seq.calls.len() as u32) < depth {
        let w = seq.worlds.last().expect("initial world");
        successors(prog, scope, w, drive, st)?
    } else {
        Vec::new()
    };
    if next.is_empty() {
        if seq.calls.is_empty() {
            return Ok(ControlFlow::Continue(()));
        }
        return Ok(each(seq));
    }
    for (c, w, op) in next {
        seq.calls.push(c);
        seq.worlds.push(w);
        seq.ops.push(op);
        let r = dfs(prog, scope, depth, seq, drive, st, each)?;
        seq.calls.pop();
        seq.worlds.pop();
        seq.ops.pop();
        if r.is_break() {
            return Ok(r);
        }
    }
    Ok(ControlFlow::Continue(()))
}

fn walk<T: Clone>(
    prog: &Program,
    scope: &Scope,
    w0: &World,
    length: u32,
    drive: DriveFn<T>,
    rng: &mut Xoshiro256PlusPlus,
    st: &mut GenStats,
) -> Result<Seq<T>, String> {
    let mut s = Seq {
        calls: Vec::new(),
        worlds: vec![w0.clone()],
        ops: Vec::new(),
    };
    for _ in 0..length {
        let w = s.worlds.last().expect("world").clone();
        // pick calls at random until one is driven and the model runs it
        let mut offered = alphabet::calls(scope, prog, &w);
        let mut step = None;
        while !offered.is_empty() && step.is_none() {
            let c = offered.swap_remove(rng.random_range(0..offered.len()));
            step = one(prog, scope, &w, c, drive, st)?;
        }
        let Some((c, w, op)) = step else {
            break;
        };
        s.calls.push(c);
        s.worlds.push(w);
        s.ops.push(op);
    }
    Ok(s)
}
