//! How `rmapcheck check` prints a counterexample's consequence: the production-kernel note under
//! each trace, the worst consequence's own trace, and the JSON fields that name the violated
//! invariants, the first finding, the worst one and the bound of the consequence search
//! (`explore::consequence`).

use crate::explore::consequence::{calls_of, class_of, invariant_of, ClassResult, Report};
use crate::explore::search::Outcome;
use crate::invariant::Violation;
use crate::lang::Program;
use crate::trace::production::{production, which_config};

/// The violations an outcome shows (the failing call's, in the order found).
pub(crate) fn violations(o: &Outcome) -> &[Violation] {
    match o {
        Outcome::Counterexample(t) => t.failure.as_ref().map_or(&[], |f| &f.violations[..]),
        Outcome::Interleaving(t) => &t.violations,
        _ => &[],
    }
}

/// The note printed under a trace: what a production kernel does after its first violation,
/// and which configuration shows it.
pub(crate) fn production_note(o: &Outcome) -> String {
    let Some(v) = violations(o).first() else {
        return String::new();
    };
    let first = format!(
        "On a production kernel ({}, {}): {}",
        v.invariant.name(),
        crate::trace::production::consequence_of(v),
        production(v)
    );
    wrap(&first) + &wrap(&format!("Which kernel shows it: {}", which_config(v)))
}

/// `text` in lines of at most 80 columns, broken at spaces, continuation lines indented by 4
/// (as the traces are).
fn wrap(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for w in text.split_whitespace() {
        if !line.trim().is_empty() && line.len() + 1 + w.len() > 80 {
            out.push_str(line.trim_end());
            out.push('\n');
            line = "    ".to_string();
        }
        if !line.trim().is_empty() {
            line.push(' ');
        }
        line.push_str(w);
    }
    if !line.trim().is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The trace of the worst consequence, rendered (with the plain field reads when `reads`),
/// under a heading.
pub(crate) fn worst_text(rep: &Report, prog: &Program, reads: bool) -> Option<String> {
    let (inv, class, o) = rep.worst()?;
    let rendered = match o {
        Outcome::Counterexample(t) => crate::trace::text::render_with(t, prog, reads),
        Outcome::Interleaving(t) => crate::trace::interleaved::render(t, prog),
        _ => return None,
    };
    let head = wrap(&format!(
        "Worst consequence found by the same bug: {} ({class}), {} calls, first found as {} \
         (the same scope, checking only the {class} invariants, to depth {}):",
        inv.name(),
        calls_of(o),
        rep.first.name(),
        rep.bound.depth,
    ));
    Some(format!("{head}\n{rendered}\n{}", production_note(o)))
}

/// The JSON object of an outcome's finding: the invariant and its class.
fn finding_json(o: &Outcome) -> serde_json::Value {
    match invariant_of(o) {
        Some(i) => serde_json::json!({
            "invariant": i.name(),
            "consequence": class_of(o).map_or("", |c| c.name()),
            "calls": calls_of(o),
        }),
        None => serde_json::Value::Null,
    }
}

/// The fields a counterexample's result object carries beside its trace: `violations` (every
/// invariant the failing call broke, first first), `first` (the first finding), `worst` (the
/// worst consequence found, with its trace) and `consequence_search` (its bound and what each
/// class's search found).
pub(crate) fn json_fields(
    o: &Outcome,
    rep: Option<&Report>,
    prog: &Program,
) -> serde_json::Map<String, serde_json::Value> {
    let mut m = serde_json::Map::new();
    let vs: Vec<serde_json::Value> = violations(o)
        .iter()
        .map(|v| {
            serde_json::json!({
                "invariant": v.invariant.name(),
                "consequence": crate::trace::production::consequence_of(v).name(),
                "message": v.message,
            })
        })
        .collect();
    m.insert("violations".into(), vs.into());
    m.insert("first".into(), finding_json(o));
    let worst = match rep.and_then(Report::worst) {
        Some((_, _, w)) => {
            let mut f = finding_json(w);
            let trace = match w {
                Outcome::Counterexample(t) => t.to_json_value(),
                Outcome::Interleaving(t) => serde_json::json!({
                    "interleaving": crate::trace::interleaved::render(t, prog),
                }),
                _ => serde_json::Value::Null,
            };
            if let Some(obj) = f.as_object_mut() {
                obj.insert("trace".into(), trace);
            }
            f
        }
        // the first finding is the worst found
        None => finding_json(o),
    };
    m.insert("worst".into(), worst);
    let search = rep.map(|r| {
        let searched: Vec<serde_json::Value> = r
            .searched
            .iter()
            .map(|(c, res)| {
                let (result, detail) = match res {
                    ClassResult::Found(o, _) => (
                        "found",
                        invariant_of(o).map_or(String::new(), |i| i.name().to_string()),
                    ),
                    ClassResult::NotReached(_) => ("not reached", String::new()),
                    ClassResult::Incomplete(reason, d) => {
                        ("incomplete", format!("up to depth {d}: {reason}"))
                    }
                };
                serde_json::json!({ "class": c.name(), "result": result, "detail": detail })
            })
            .collect();
        serde_json::json!({
            "depth": r.bound.depth,
            "seconds_per_class": r.bound.seconds,
            "searched": searched,
            "line": r.line(),
        })
    });
    m.insert(
        "consequence_search".into(),
        search.unwrap_or(serde_json::Value::Null),
    );
    m
}

#[cfg(test)]
mod tests {
    #[test]
    fn notes_wrap_within_80_columns() {
        let long = "word ".repeat(60);
        let w = super::wrap(&long);
        assert!(w.lines().all(|l| l.len() <= 80), "{w}");
        assert!(w.lines().skip(1).all(|l| l.starts_with("    ")), "{w}");
        assert_eq!(w.split_whitespace().count(), 60);
    }
}
