//! Plain-text rendering of an interleaving counterexample: the threads and their calls, the
//! world they started on, then the steps side by side, one column per thread (the writer on the
//! left, walkers on the right), each step numbered in the order it ran; ASCII, at most 80
//! columns. Plain field reads are left out unless they are the failing step.

use super::text::{wrap, WIDTH};
use crate::check::{Invariant, Violation};
use crate::exec::host::ThreadId;
use crate::lang::{Program, SrcLoc};
use crate::world::scenario::Call;

/// One step of an interleaving, for traces.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IStep {
    pub tid: ThreadId,
    pub loc: Option<SrcLoc>,
    pub func: String,
    pub what: String,
}

/// A counterexample: the threads' calls, the steps in the order they ran, what failed.
#[derive(Clone, Debug)]
pub struct ITrace {
    pub model: String,
    /// Calls that built the world the threads started on, from the scope's initial world
    /// (empty when the world came from a scenario).
    pub prefix: Vec<Call>,
    /// The world the threads started on, rendered.
    pub world_before: String,
    /// Thread `i` runs `calls[i]`; thread 0 is the writer.
    pub calls: Vec<Call>,
    pub steps: Vec<IStep>,
    pub violations: Vec<Violation>,
    pub world_after: String,
}

impl ITrace {
    /// The invariant that failed first.
    pub fn invariant(&self) -> Option<Invariant> {
        self.violations.first().map(|v| v.invariant)
    }
}

/// Width of the step-number gutter ("123 ").
const GUTTER: usize = 4;

fn chunks(s: &str, width: usize) -> Vec<String> {
    let s: String = s
        .chars()
        .map(|c| {
            if c.is_ascii() && !c.is_control() {
                c
            } else {
                '?'
            }
        })
        .collect();
    let mut out = Vec::new();
    let mut rest = s.as_str();
    while rest.len() > width {
        let cut = super::text::break_point(rest, width);
        out.push(rest[..cut].trim_end().to_string());
        rest = rest[cut..].trim_start();
    }
    out.push(rest.to_string());
    out
}

/// Render `t`; `prog` gives file:line of steps.
pub fn render(t: &ITrace, prog: &Program) -> String {
    let mut out = String::new();
    wrap(
        &format!(
            "rmapcheck interleaving counterexample: {} violates {}",
            t.model,
            t.invariant().map_or("", Invariant::name)
        ),
        &mut out,
    );
    out.push('\n');
    if !t.prefix.is_empty() {
        wrap(
            "Calls that built the world (one at a time, from the scope's initial world):",
            &mut out,
        );
        for (i, c) in t.prefix.iter().enumerate() {
            wrap(
                &format!("  {}. {}", i + 1, super::calls::kernel_form(c, None)),
                &mut out,
            );
        }
        out.push('\n');
    }
    for (i, c) in t.calls.iter().enumerate() {
        let role = if i == 0 { "writer" } else { "walker" };
        wrap(
            &format!("T{i} ({role}): {}", super::calls::kernel_form(c, None)),
            &mut out,
        );
    }
    out.push('\n');
    wrap("World before:", &mut out);
    for l in t.world_before.lines() {
        wrap(&format!("  {l}"), &mut out);
    }
    let n = t.calls.len().max(1);
    let col = (WIDTH - GUTTER) / n - 1;
    out.push('\n');
    let last = t.steps.len().saturating_sub(1);
    let hidden = t
        .steps
        .iter()
        .enumerate()
        .filter(|(k, s)| *k != last && (s.what.is_empty() || s.what.starts_with("read ")))
        .count();
    wrap(
        "Steps (file:line function: action), one column per thread:",
        &mut out,
    );
    if hidden > 0 {
        wrap(
            &format!(
                "(numbers count every step in the order it ran; {hidden} plain field reads are \
                 not shown, so some numbers are skipped)"
            ),
            &mut out,
        );
    }
    let mut head = " ".repeat(GUTTER);
    for i in 0..n {
        let h = format!("T{i}");
        head += &format!("{h:<col$} ");
    }
    out += head.trim_end();
    out.push('\n');
    out += &format!("{}\n", "-".repeat(GUTTER + n * (col + 1) - 1));
    for (k, s) in t.steps.iter().enumerate() {
        if k != last && (s.what.is_empty() || s.what.starts_with("read ")) {
            continue;
        }
        let place = s.loc.map_or(String::new(), |l| {
            let (file, line, _, _) = prog.source_line(l);
            format!("{}:{line} ", file.rsplit('/').next().unwrap_or(file))
        });
        let func = if s.func.is_empty() {
            String::new()
        } else {
            format!("{}: ", s.func)
        };
        let mark = if k == last { ">>" } else { "" };
        let text = format!("{mark}{place}{func}{}", s.what);
        let lines = chunks(&text, col);
        for (j, l) in lines.iter().enumerate() {
            let num = if j == 0 {
                format!("{:>3} ", k + 1)
            } else {
                " ".repeat(GUTTER)
            };
            let pad = (col + 1) * s.tid as usize;
            out += &format!("{num}{}{l}\n", " ".repeat(pad));
        }
    }
    out.push('\n');
    wrap("Violation:", &mut out);
    for v in &t.violations {
        wrap(&format!("  {v}"), &mut out);
    }
    out.push('\n');
    wrap("World at the failure:", &mut out);
    for l in t.world_after.lines() {
        wrap(&format!("  {l}"), &mut out);
    }
    out
}
