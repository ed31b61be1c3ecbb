//! `rmapcheck repro` on the JSON of a C counterexample (`check --kernel ... --format json`):
//! the same kind of C reproducer as for a model trace ([`crate::oracle::repro`]), making the
//! counterexample's calls as system calls, with a header naming the (patched) tree the C search
//! ran on and the invariant the C broke. A call with no system call (a contract-level entry
//! point) is bad input, named.

use crate::invariant::{Invariant, Violation};
use crate::lang::Program;
use crate::oracle::repro::{header_end, program, unmakeable, wrap, Unmakeable};
use crate::scope::Scope;
use crate::textbuf::PushFmt;
use crate::trace::production;
use crate::world::scenario::Call;
use serde_json::Value;

/// A C counterexample read back from `check --kernel --format json`.
pub struct CCounterexample {
    pub kernel: String,
    pub release: String,
    /// The diffs and C mutants applied to the tree's copy (empty: the tree as it is).
    pub applied: Vec<String>,
    pub scope: Scope,
    /// `None`: the C crashed.
    pub invariant: Option<Invariant>,
    pub what: String,
    pub calls: Vec<Call>,
    /// The kernel path of each call, as the search named it.
    pub paths: Vec<String>,
}

/// Why there is no reproducer.
#[derive(Debug)]
pub enum Refusal {
    /// Bad input (exit 2): not a C counterexample, a call with no system call.
    Input(String),
    /// The reproducer cannot be made (exit 1), e.g. the baseline model fails on the calls.
    None(String),
}

/// Whether `v` is the document of `check --kernel --format json`.
pub fn is_c_document(v: &Value) -> bool {
    v.get("kernel").is_some() && v.get("counterexample").is_some() && v.get("invariants").is_some()
}

fn field<'a>(v: &'a Value, k: &str) -> Result<&'a Value, String> {
    v.get(k).ok_or_else(|| format!("no `{k}` field"))
}

fn string(v: &Value, k: &str) -> Result<String, String> {
    Ok(field(v, k)?.as_str().unwrap_or_default().to_string())
}

/// Read a C counterexample from the document `v` ([`is_c_document`]).
pub fn parse(v: &Value) -> Result<CCounterexample, String> {
    let cex = field(v, "counterexample")?;
    if cex.is_null() {
        return Err(format!(
            "the C search found no counterexample (its verdict: {})",
            v.get("verdict").and_then(Value::as_str).unwrap_or("?")
        ));
    }
    let scope: Scope = serde_json::from_value(field(v, "scope_spec")?.clone())
        .map_err(|e| format!("`scope_spec`: {e}"))?;
    let invariant = match cex.get("invariant").and_then(Value::as_str) {
        Some(n) => Some(Invariant::from_name(n).ok_or(format!("unknown invariant `{n}`"))?),
        None => None,
    };
    let mut calls = Vec::new();
    let mut paths = Vec::new();
    for (i, c) in field(cex, "calls")?
        .as_array()
        .ok_or("`calls` is not a list")?
        .iter()
        .enumerate()
    {
        let text = string(c, "call")?;
        calls.push(Call::parse(&text).map_err(|e| format!("call {}: {e}", i + 1))?);
        paths.push(string(c, "kernel_path").unwrap_or_default());
    }
    let applied = field(v, "applied")?
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    Ok(CCounterexample {
        kernel: string(v, "kernel")?,
        release: string(v, "release")?,
        applied,
        scope,
        invariant,
        what: string(cex, "what")?,
        calls,
        paths,
    })
}

/// The reproducer of `x`; `baseline` (named `base_name`) gives the layout an unpatched kernel
/// shows.
pub fn reproducer(
    x: &CCounterexample,
    baseline: &Program,
    base_name: &str,
) -> Result<String, Refusal> {
    let initial = x.scope.initial_scenario();
    match unmakeable(&initial, &x.calls) {
        None => {}
        Some(Unmakeable::Call { index, reason }) => {
            return Err(Refusal::Input(format!(
                "call {} ({}) cannot be made as a system call: {reason}",
                index + 1,
                x.calls[index]
            )))
        }
        Some(Unmakeable::World(r)) => return Err(Refusal::None(format!("no reproducer: {r}"))),
        Some(Unmakeable::NoCalls) => {
            return Err(Refusal::None(
                "no reproducer: the counterexample has no calls".into(),
            ))
        }
    }
    let mut head = String::new();
    header(&mut head, x, base_name);
    program(
        &initial,
        &x.calls,
        x.scope.pages,
        baseline,
        base_name,
        &head,
    )
    .map_err(Refusal::None)
}

fn header(c: &mut String, x: &CCounterexample, base_name: &str) {
    let inv = x.invariant.map_or("the C crashed", Invariant::name);
    let tree = if x.applied.is_empty() {
        "unpatched".to_string()
    } else {
        format!("with {} applied", x.applied.join(", "))
    };
    c.push_line(format_args!("/*"));
    wrap(
        c,
        &format!(
            "Reproducer generated by `rmapcheck repro` for a counterexample of the C search \
             (`rmapcheck check --kernel`) of the kernel tree {} ({}), {tree}: `{inv}` after \
             call {} of {} ({}).",
            x.kernel,
            x.release,
            x.calls.len(),
            x.calls.len(),
            x.scope.summary()
        ),
    );
    wrap(
        c,
        &format!("The C's violation: {}", x.what.replace("*/", "* /")),
    );
    for (i, (call, path)) in x.calls.iter().zip(&x.paths).enumerate() {
        wrap(c, &format!("call {}: {call} -> {path}", i + 1));
    }
    c.push_line(format_args!(" *"));
    match x.invariant {
        Some(i) => {
            let v = Violation::new(i, x.what.clone());
            wrap(
                c,
                &format!(
                    "On a kernel built from that tree the last call breaks `{inv}` ({}). What a \
                     production kernel does then:",
                    production::consequence_of(&v).name()
                ),
            );
            wrap(c, &production::production(&v));
            wrap(
                c,
                "Nothing visible in user space need go wrong. Which kernel shows it:",
            );
            wrap(c, &production::which_config(&v));
        }
        None => wrap(
            c,
            "On a kernel built from that tree the last call crashed the C (a BUG, a sanitizer \
             report or a hang in the harness).",
        ),
    }
    header_end(c, base_name, "change");
}
