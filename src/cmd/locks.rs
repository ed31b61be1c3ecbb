//! `rmapcheck locks MODEL [--scope S]`: build the lock-order graph from every run of a bounded
//! exploration and print it as DOT. The runs are every call of the sequential search at the
//! scope (default `tiny`), and, from the states of depth at most one, every writer call against
//! every single walker of the model (interleaved), so that lock paths only a race reaches
//! (a per-VMA reader falling back to the mmap lock) are seen too. Violations of `lock-order`
//! go to standard error. Exit status: 0 the order holds, 1 a violation, 2 bad input.

use super::load_model;
use super::{CmdError, CmdResult, Exit};
use crate::explore::alphabet;
use crate::explore::footprint::Table;
use crate::explore::interleave::{explore, Config};
use crate::explore::lockorder::LockGraph;
use crate::explore::op::{apply, CheckOpts};
use crate::explore::search::fingerprint;
use crate::explore::walkers::walker_calls;
use crate::scope::Scope;
use crate::world::conc::LockClass;
use std::collections::{BTreeSet, HashSet};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// States the sequential part visits at most.
const MAX_STATES: usize = 20_000;

/// The observed lock-order edges of `prog` at `scope`.
pub fn observe(
    prog: &crate::lang::Program,
    scope: &Scope,
) -> Result<BTreeSet<(LockClass, LockClass)>, String> {
    let w0 = scope
        .initial_scenario()
        .build()
        .map_err(|e| e.to_string())?
        .canonical();
    let mut edges = BTreeSet::new();
    let footprints = Arc::new(Table::new(prog));
    let mut seen = HashSet::new();
    seen.insert(fingerprint(&w0));
    let mut level = vec![w0];
    let opts = CheckOpts {
        record: false,
        per_step: false,
        invariants: scope.invariant_set(),
    };
    for depth in 0..scope.max_depth {
        let mut next = Vec::new();
        for w in &level {
            let calls = alphabet::calls(scope, prog, w);
            if depth <= 1 {
                let walkers = walker_calls(prog, w, &scope.walker_kinds);
                for c in &calls {
                    for k in &crate::explore::walkers::against(c, walkers.clone()) {
                        let cfg = Config {
                            max_states: 50_000,
                            footprints: Some(Arc::clone(&footprints)),
                            ..Config::default()
                        };
                        let r = explore(prog, "locks", w, &[c.clone(), k.clone()], &cfg)?;
                        edges.extend(r.lock_edges);
                    }
                }
            }
            for c in calls {
                let mut w2 = w.clone();
                let out = apply(prog, &mut w2, &c, opts);
                edges.extend(w2.take_lock_edges());
                if out.failure.is_some() {
                    continue;
                }
                let c2 = w2.canonical();
                if seen.len() < MAX_STATES && seen.insert(fingerprint(&c2)) {
                    next.push(c2);
                }
            }
        }
        level = next;
    }
    Ok(edges)
}

pub fn locks(
    model: &Path,
    scope: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> CmdResult {
    let prog = match load_model(model) {
        Ok(p) => p,
        Err(d) => {
            return Err(CmdError::text(d));
        }
    };
    let scope = match Scope::load(scope.unwrap_or("tiny")) {
        Ok(s) => s,
        Err(e) => {
            return Err(CmdError::line(format_args!("rmapcheck locks: {e}")));
        }
    };
    let edges = match observe(&prog, &scope) {
        Ok(e) => e,
        Err(e) => {
            return Err(CmdError::line(format_args!("rmapcheck locks: {e}")));
        }
    };
    let g = LockGraph::new(&edges);
    write!(out, "{}", g.dot())?;
    let v = g.check();
    for x in &v {
        writeln!(err, "{x}")?;
    }
    Ok(Exit::found_if(!v.is_empty()))
}
