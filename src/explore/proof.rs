//! Bounded proof obligations (`proofs/*.toml`): a model, and for each obligation a scope, a mode
//! and the expected verdict (`expect = "holds"` or `violates = "<invariant>"`). Running one gives
//! a certificate: the numbers that say what "holds" means (states, depth, exhausted or not,
//! fingerprint collision estimate, model hash).
//!
//! ```toml
//! model = "models/patches/split-skip-reinsert.rmap"
//!
//! [[obligation]]
//! scope = "default"       # built-in scope name or a scope file
//! mode = "callers"
//! expect = "holds"
//!
//! [[obligation]]
//! scope = "contract"
//! mode = "contract"
//! violates = "stale-descent"
//! ```

use super::footprint::Table;
use super::search::{search, Outcome, Stats};
use crate::check::Invariant;
use crate::lang::Program;
use crate::models::ModelError;
use crate::scope::ScopeError;
use crate::scope::{Mode, Scope};
use crate::trace::{model_hash, Trace};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a proof file cannot be read or one of its obligations cannot be run.
#[derive(Debug, thiserror::Error)]
pub enum ProofError {
    /// The text is not a proof file's TOML: `line:col: message`.
    #[error("{0}")]
    Syntax(String),
    /// A bad value, placed in the file at `at` (`line:col`).
    #[error("{at}: {error}")]
    At { at: String, error: Box<ProofError> },
    /// A proof file without obligations.
    #[error("1:1: no [[obligation]]")]
    NoObligation,
    /// An obligation with neither or both of `expect` and `violates`.
    #[error("give either expect = \"holds\" or violates = \"<invariant>\"")]
    NoVerdict,
    /// An invariant name that is none (the message lists the known ones).
    #[error("{0}")]
    UnknownInvariant(String),
    /// The obligation's scope cannot be loaded.
    #[error("{0}")]
    Scope(#[from] ScopeError),
    /// The obligation's overrides make the scope unusable.
    #[error("{0}")]
    ScopeValue(String),
    /// The model cannot be loaded.
    #[error("{0}")]
    Model(#[from] ModelError),
    /// The scenario of an interleaving obligation cannot be read.
    #[error("{}: {error}", .path.display())]
    Unreadable {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The interleaving obligation's scenario, walkers or exploration failed.
    #[error("{0}")]
    Interleave(String),
    /// No walker of the obligation's kinds can run in its world.
    #[error(
        "{}: no walker of kinds {kinds:?} can run in this world: nothing would be explored",
        .path.display()
    )]
    NoWalkers { path: PathBuf, kinds: Vec<String> },
    /// Obligation `n` (1-based) made no call: a vacuous "holds".
    #[error(
        "obligation {0}: the search made no call: nothing was checked (no entry point of the \
         scope is offered from the initial world)"
    )]
    NothingChecked(usize),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProofFile {
    /// Model path, relative to the repository root (the directory holding `proofs/`).
    pub model: PathBuf,
    /// Why this model is here, for the reader.
    #[serde(default)]
    pub about: String,
    pub obligation: Vec<Obligation>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Obligation {
    #[serde(default = "default_scope")]
    pub scope: String,
    pub mode: Mode,
    #[serde(default)]
    pub max_depth: Option<u32>,
    /// Invariants checked (all when empty).
    #[serde(default)]
    pub invariants: Vec<String>,
    /// `"holds"` (give this or `violates`).
    #[serde(default)]
    pub expect: Option<String>,
    /// The invariant a counterexample must violate.
    #[serde(default)]
    pub violates: Option<String>,
    /// Why this verdict is expected (a finding, a gap).
    #[serde(default)]
    pub note: String,
    /// Check interleavings of a writer call against concurrent walkers instead of call
    /// sequences.
    #[serde(default)]
    pub interleave: Option<InterleaveSpec>,
}

/// An interleaving obligation: the scenario's calls but the last set up the world, the last
/// is the writer; it runs against each set of walkers.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InterleaveSpec {
    /// Scenario file (relative to the repository root).
    pub ops: PathBuf,
    /// Walker calls, one thread each; when empty, every set of `count` walkers of `kinds`
    /// generated for the world.
    #[serde(default)]
    pub walkers: Vec<String>,
    #[serde(default)]
    pub kinds: Vec<String>,
    #[serde(default = "one")]
    pub count: usize,
}

fn one() -> usize {
    1
}

fn default_scope() -> String {
    "default".into()
}

/// The expected verdict of an obligation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    Holds,
    Violates(Invariant),
}

impl Obligation {
    pub fn expected(&self) -> Result<Expected, ProofError> {
        match (&self.expect, &self.violates) {
            (Some(e), None) if e == "holds" => Ok(Expected::Holds),
            (None, Some(v)) => Ok(Expected::Violates(
                v.parse().map_err(ProofError::UnknownInvariant)?,
            )),
            _ => Err(ProofError::NoVerdict),
        }
    }

    /// The scope to search: the named one with this obligation's mode and overrides.
    pub fn scope(&self, root: &Path) -> Result<Scope, ProofError> {
        let spec = if Scope::builtin(&self.scope).is_some() {
            self.scope.clone()
        } else {
            root.join(&self.scope).display().to_string()
        };
        let mut s = Scope::load(&spec)?;
        s.mode = self.mode;
        if let Some(d) = self.max_depth {
            s.max_depth = d;
        }
        if !self.invariants.is_empty() {
            s.invariants = self
                .invariants
                .iter()
                .map(|n| n.parse())
                .collect::<Result<_, _>>()
                .map_err(ProofError::UnknownInvariant)?;
        }
        s.validate().map_err(ProofError::ScopeValue)?;
        Ok(s)
    }
}

impl ProofFile {
    /// Parse a proof file; errors read `line:col: message`.
    pub fn parse(text: &str) -> Result<ProofFile, ProofError> {
        let p: ProofFile = crate::toml_diag::parse(text).map_err(ProofError::Syntax)?;
        for o in &p.obligation {
            // an unknown invariant is placed at its name
            for name in o.violates.iter().chain(&o.invariants) {
                if let Err(e) = name.parse::<Invariant>() {
                    return Err(ProofError::At {
                        at: crate::toml_diag::position_of(text, &format!("{name:?}")),
                        error: Box::new(ProofError::UnknownInvariant(e)),
                    });
                }
            }
            o.expected().map_err(|e| ProofError::At {
                at: "1:1".into(),
                error: Box::new(e),
            })?;
        }
        if p.obligation.is_empty() {
            return Err(ProofError::NoObligation);
        }
        Ok(p)
    }
}

/// The result of one obligation.
pub struct Certificate {
    pub model: PathBuf,
    pub model_hash: String,
    pub scope: Scope,
    pub expected: Expected,
    pub outcome: Outcome,
    pub stats: Stats,
    /// What an interleaving obligation covered (the writer, the scenario, the walker sets and
    /// the invariants), printed instead of the scope line: such an obligation searches no call
    /// sequences, so the scope's depth and bounds say nothing about it. `None` for a search of
    /// call sequences.
    pub interleavings: Option<String>,
}

impl Certificate {
    /// Whether the verdict is the expected one.
    pub fn passed(&self) -> bool {
        match (&self.expected, &self.outcome) {
            (Expected::Holds, Outcome::Holds { .. }) => true,
            (Expected::Violates(inv), Outcome::Counterexample(t)) => t.invariant() == Some(*inv),
            (Expected::Violates(inv), Outcome::Interleaving(t)) => t.invariant() == Some(*inv),
            _ => false,
        }
    }

    pub fn trace(&self) -> Option<&Trace> {
        match &self.outcome {
            Outcome::Counterexample(t) => Some(t),
            _ => None,
        }
    }

    /// The certificate as text.
    pub fn render(&self) -> String {
        let verdict = match &self.outcome {
            Outcome::Holds { exhausted } => format!(
                "holds ({})",
                if *exhausted {
                    "state space exhausted"
                } else {
                    "bounded: all call sequences up to the depth"
                }
            ),
            Outcome::Counterexample(t) => {
                format!(
                    "violates {} after {} calls",
                    t.invariant().map_or("", Invariant::name),
                    t.calls.len()
                )
            }
            Outcome::Interleaving(t) => format!(
                "violates {} in an interleaving of {} threads",
                t.invariant().map_or("", Invariant::name),
                t.calls.len()
            ),
            // an interleaving obligation has no depth: its bound cut one exploration
            Outcome::Incomplete { reason, .. } if self.interleavings.is_some() => {
                format!("incomplete: {reason}")
            }
            Outcome::Incomplete {
                reason,
                complete_depth,
            } => format!("incomplete up to depth {complete_depth}: {reason}"),
        };
        let expected = match &self.expected {
            Expected::Holds => "holds".to_string(),
            Expected::Violates(i) => format!("violates {i}"),
        };
        let (covered, states) = match &self.interleavings {
            Some(what) => (
                format!("covered    {what}"),
                format!(
                    "{} interleaving states ({} steps taken)",
                    self.stats.states, self.stats.transitions
                ),
            ),
            None => (
                self.scope.summary(),
                format!(
                    "{} ({} calls applied), depth {}",
                    self.stats.states, self.stats.transitions, self.stats.depth
                ),
            ),
        };
        format!(
            "model      {}\nmodel hash {}\n{covered}\nverdict    {verdict}\nexpected   {expected}\n\
             states     {states}\n\
             exhaustive {}\ncollision  p <= {:.1e} (64-bit fingerprints)\nresult     {}\n",
            self.model.display(),
            self.model_hash,
            match &self.outcome {
                Outcome::Holds { exhausted: true } => "yes",
                Outcome::Holds { exhausted: false } => "up to the depth bound",
                Outcome::Counterexample(_) | Outcome::Interleaving(_) => "n/a (counterexample)",
                Outcome::Incomplete { .. } => "no",
            },
            self.stats.collision_probability(),
            if self.passed() { "PASS" } else { "FAIL" }
        )
    }
}

/// Explore every interleaving of the spec's writer against each walker set.
fn interleavings(
    prog: &Program,
    name: &str,
    root: &Path,
    spec: &InterleaveSpec,
    scope: &Scope,
) -> Result<(Outcome, Stats, String), ProofError> {
    use super::interleave::{explore, Config, IOutcome};
    use crate::world::scenario::Call;
    let path = root.join(&spec.ops);
    let text = std::fs::read_to_string(&path).map_err(|error| ProofError::Unreadable {
        path: path.clone(),
        error,
    })?;
    let (world, writer) = super::interleave::setup(prog, &text).map_err(ProofError::Interleave)?;
    let sets: Vec<Vec<Call>> = if spec.walkers.is_empty() {
        super::walkers::check_kinds(&spec.kinds).map_err(ProofError::Interleave)?;
        let cands = super::walkers::walker_calls(prog, &world, &spec.kinds);
        let cands = super::walkers::against(&writer, cands);
        super::walkers::combinations(&cands, spec.count.clamp(1, 8))
    } else {
        vec![spec
            .walkers
            .iter()
            .map(|c| Call::parse(c))
            .collect::<Result<_, _>>()
            .map_err(|e| ProofError::Interleave(e.to_string()))?]
    };
    if sets.is_empty() {
        return Err(ProofError::NoWalkers {
            path,
            kinds: spec.kinds.clone(),
        });
    }
    let covered = format!(
        "every interleaving of {writer} (the last call of {}) against {} walker set(s): {}; \
         invariants {}",
        spec.ops.display(),
        sets.len(),
        if spec.walkers.is_empty() {
            format!(
                "every {} of kinds {} the world offers",
                match spec.count.clamp(1, 8) {
                    1 => "single walker".to_string(),
                    n => format!("set of {n} walkers"),
                },
                if spec.kinds.is_empty() {
                    "all".to_string()
                } else {
                    spec.kinds.join(",")
                }
            )
        } else {
            spec.walkers.join(", ")
        },
        if scope.invariants.is_empty() {
            "all".to_string()
        } else {
            let names: Vec<&str> = scope.invariants.iter().map(|i| i.name()).collect();
            names.join(",")
        }
    );
    let cfg = Config {
        invariants: scope.invariant_set(),
        footprints: Some(Arc::new(Table::new(prog))),
        ..Config::default()
    };
    let mut stats = Stats::default();
    for set in sets {
        let mut calls = vec![writer.clone()];
        calls.extend(set);
        let r = explore(prog, name, &world, &calls, &cfg).map_err(ProofError::Interleave)?;
        stats.states += r.stats.states;
        stats.transitions += r.stats.transitions;
        stats.seconds += r.stats.seconds;
        match r.outcome {
            IOutcome::Holds => {}
            IOutcome::Violation(t) => return Ok((Outcome::Interleaving(t), stats, covered)),
            IOutcome::Incomplete(reason) => {
                return Ok((
                    Outcome::Incomplete {
                        reason,
                        complete_depth: 0,
                    },
                    stats,
                    covered,
                ))
            }
        }
    }
    Ok((Outcome::Holds { exhausted: true }, stats, covered))
}

/// Run every obligation of a proof file. `root` is the directory model paths are relative to.
pub fn prove(
    file: &ProofFile,
    root: &Path,
    load: &dyn Fn(&Path) -> Result<Program, ModelError>,
) -> Result<Vec<Certificate>, ProofError> {
    prove_with(file, root, load, &mut |_| {})
}

/// [`prove`], reporting progress lines (about once a second during each search).
pub(crate) fn prove_with(
    file: &ProofFile,
    root: &Path,
    load: &dyn Fn(&Path) -> Result<Program, ModelError>,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<Certificate>, ProofError> {
    let model = root.join(&file.model);
    let prog = load(&model)?;
    let mut out = Vec::new();
    for o in &file.obligation {
        let scope = o.scope(root)?;
        let expected = o.expected()?;
        let name = file.model.display().to_string();
        let n = out.len() + 1;
        progress(&format!("{name}: obligation {n}"));
        let (outcome, stats, interleavings) = match &o.interleave {
            None => {
                let (outcome, stats) = search(&prog, &name, &scope, &mut |p| {
                    progress(&format!(
                        "{name}: obligation {n}: {} states, depth {}",
                        p.states, p.depth
                    ))
                });
                (outcome, stats, None)
            }
            Some(spec) => {
                let (outcome, stats, covered) = interleavings(&prog, &name, root, spec, &scope)?;
                (outcome, stats, Some(covered))
            }
        };
        if o.interleave.is_none()
            && stats.transitions == 0
            && matches!(outcome, super::search::Outcome::Holds { .. })
        {
            return Err(ProofError::NothingChecked(out.len() + 1));
        }
        out.push(Certificate {
            model: file.model.clone(),
            model_hash: model_hash(&prog),
            scope,
            expected,
            outcome,
            stats,
            interleavings,
        });
    }
    Ok(out)
}
