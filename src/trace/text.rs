//! Plain-text rendering of a trace for a patch review: ASCII only, at most 80 columns, the
//! scope, the calls, the steps of the failing call with model file:line, the world before and at
//! the failure, and the invariant with what it found.

use super::Trace;
use crate::check::Invariant;
use crate::lang::Program;

/// Column limit of the rendering.
pub(crate) const WIDTH: usize = 80;

/// Steps of the failing call shown (the last ones before the failure).
pub(crate) const MAX_STEPS_SHOWN: usize = 40;

/// Where to break `s` so that the first part fits in `room` columns: after the last space, else
/// after the last punctuation that ends a token (`,`, `(`, `)`, `[`, `]`, `;`, `:`, `=`, `>`),
/// else (one token longer than the room) at the room.
pub(crate) fn break_point(s: &str, room: usize) -> usize {
    if s.len() <= room {
        return s.len();
    }
    let head = &s.as_bytes()[..=room.min(s.len() - 1)];
    if let Some(i) = head.iter().rposition(|&b| b == b' ').filter(|&i| i > 0) {
        return i;
    }
    if let Some(i) = head[..room]
        .iter()
        .rposition(|b| b",()[];:=>".contains(b))
        .filter(|&i| i > 0)
    {
        return i + 1;
    }
    room
}

/// Wrap `line` to [`WIDTH`] columns at token boundaries, continuation lines indented by 4 more
/// spaces; non-ASCII characters become `?`.
pub(crate) fn wrap(line: &str, out: &mut String) {
    let line: String = line
        .chars()
        .map(|c| {
            if c.is_ascii() && (c == '\t' || !c.is_control()) {
                c
            } else {
                '?'
            }
        })
        .collect::<String>()
        .replace('\t', "    ");
    let indent = (line.len() - line.trim_start().len() + 4).min(WIDTH / 2);
    let mut rest: &str = &line;
    let mut first = true;
    loop {
        let room = if first { WIDTH } else { WIDTH - indent };
        if !first {
            out.push_str(&" ".repeat(indent));
        }
        if rest.len() <= room {
            out.push_str(rest);
            out.push('\n');
            return;
        }
        let cut = break_point(rest, room);
        out.push_str(rest[..cut].trim_end());
        out.push('\n');
        rest = rest[cut..].trim_start();
        first = false;
    }
}

/// A path relative to the current directory when it lies under it (traces travel by email).
fn relative(path: &str) -> String {
    let p = std::path::Path::new(path);
    std::env::current_dir()
        .ok()
        .and_then(|d| p.strip_prefix(d).ok().map(|r| r.display().to_string()))
        .unwrap_or_else(|| path.to_string())
}

fn section(out: &mut String, title: &str, body: &str) {
    out.push('\n');
    wrap(title, out);
    for l in body.lines() {
        wrap(&format!("  {l}"), out);
    }
}

/// Render `t`; `prog` (the same model) gives file:line and source text of steps.
pub fn render(t: &Trace, prog: &Program) -> String {
    render_with(t, prog, false)
}

/// [`render`]; with `reads`, the failing call's steps include its plain field reads (each
/// with the value read: a bug can be a read of the wrong field or of a stale one), and all of
/// its steps are shown.
pub fn render_with(t: &Trace, prog: &Program, reads: bool) -> String {
    let mut out = String::new();
    wrap(
        &format!(
            "rmapcheck counterexample: {} violates {}",
            t.model,
            t.invariant().map_or("", Invariant::name)
        ),
        &mut out,
    );
    wrap(&t.scope.summary(), &mut out);
    wrap(&format!("model hash {}", t.model_hash), &mut out);

    let init = t
        .initial
        .build()
        .map(|w| w.canonical().render())
        .unwrap_or_else(|e| format!("(cannot be built: {e})"));
    section(
        &mut out,
        "Initial world:",
        if init.is_empty() { "(empty)" } else { &init },
    );

    // the trace's own kernel forms when it has them (the explorer writes them), else each
    // call read in the initial world
    let kernel = if t.calls_kernel.len() == t.calls.len() {
        t.calls_kernel.clone()
    } else {
        let w0 = t.initial.build().ok().map(|w| w.canonical());
        t.calls
            .iter()
            .map(|c| super::calls::kernel_form(c, w0.as_ref()))
            .collect()
    };
    let mut calls = String::new();
    for (i, c) in t.calls.iter().enumerate() {
        let mark = if i + 1 == t.calls.len() {
            "   <-- fails"
        } else {
            ""
        };
        calls += &format!("{}. {}{mark}\n", i + 1, kernel[i]);
        calls += &format!("     = {c}\n");
    }
    section(
        &mut out,
        "Calls (addresses in pages; `= ...` is the form `run` and `replay` read):",
        if calls.is_empty() { "(none)" } else { &calls },
    );

    if !t.calls.is_empty() {
        section(
            &mut out,
            &format!("World before call {}:", t.calls.len()),
            &t.world_before,
        );
        // steps: skip plain reads (unless asked for), keep writes, builtins, list walks and the
        // failing one
        let fail_step = t.failure.as_ref().and_then(|f| f.step);
        let shown: Vec<(usize, &super::StepRecord)> = t
            .steps
            .iter()
            .enumerate()
            .filter(|(i, s)| {
                Some(*i) == fail_step
                    || !s.what.is_empty() && (reads || !s.what.starts_with("read "))
            })
            .collect();
        let skip = if reads {
            0
        } else {
            shown.len().saturating_sub(MAX_STEPS_SHOWN)
        };
        let hidden = t.steps.len() - shown.len();
        let mut steps = String::new();
        if hidden > 0 {
            steps += &if reads {
                format!("({hidden} steps with no description not shown)\n")
            } else {
                format!("({hidden} plain field reads not shown)\n")
            };
        }
        if skip > 0 {
            steps += &format!("... {skip} earlier steps not shown\n");
        }
        let mut in_func = "";
        for (i, s) in &shown[skip..] {
            if s.func != in_func {
                in_func = &s.func;
                steps += &match prog.kernel_ref(&s.func) {
                    Some(k) => format!("in {} (kernel: {k}):\n", s.func),
                    None => format!("in {}:\n", s.func),
                };
            }
            let (file, line, _, _) = prog.source_line(s.loc);
            let file = file.rsplit('/').next().unwrap_or(file);
            let mark = if Some(*i) == fail_step { ">>" } else { "  " };
            steps += &format!("{mark}   {file}:{line} {}\n", s.what);
        }
        if let Some(f) = &t.failure {
            if let (Some(_), Some(loc)) = (f.step, f.loc) {
                let (file, line, _, text) = prog.source_line(loc);
                let file = relative(file);
                steps += &format!("   at {file}:{line}:\n     {}\n", text.trim());
            } else {
                steps += "   (found when the call returned)\n";
            }
        }
        section(
            &mut out,
            &format!(
                "Steps of call {} (model file:line action, by function):",
                t.calls.len()
            ),
            &steps,
        );
    }
    let mut viol = String::new();
    match &t.failure {
        Some(f) => {
            for v in &f.violations {
                viol += &format!("{v}\n");
            }
        }
        None => viol += "(re-running the calls did not reproduce a failure)\n",
    }
    section(&mut out, "Violation:", &viol);
    section(&mut out, "World at the failure:", &t.world_after);
    out
}
