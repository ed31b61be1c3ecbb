//! `check --kernel --format html`: the C search's report as one self-contained HTML page
//! (inline CSS, no scripts, nothing fetched), with the text output's content: the run's header
//! lines, the verdict, and for a counterexample the calls in kernel form, the violation, the C
//! world after the failing call beside the model's after the same calls, and what the model
//! says (cdiff at the failing sequence). The escaping and the style sheet are the model
//! report's ([`crate::report::html`]).

use super::report::{model_says, KernelCall};
use super::system::CFailure;
use crate::report::html::{document, esc, pre};
use crate::textbuf::PushFmt;

/// The page: `head` the run's header lines (tree, scope, invariants, harness), `notes` the
/// calls left out and known findings, `verdict` the verdict line, `cex` the counterexample.
pub fn page(
    head: &[String],
    notes: &[String],
    verdict: &str,
    cex: Option<(&[KernelCall], &CFailure)>,
) -> String {
    let what = match cex {
        Some((_, f)) => format!(
            "COUNTEREXAMPLE in the C: {}",
            f.invariant.map_or("the C crashed", |i| i.name())
        ),
        None => verdict.split(';').next().unwrap_or(verdict).to_string(),
    };
    let mut b = String::new();
    b.push_line(format_args!(
        "<h1>rmapcheck check --kernel: {}</h1>",
        esc(&what)
    ));
    b.push_str("<h2>Run</h2>\n");
    b.push_str(&pre(&head.join("\n")));
    if !notes.is_empty() {
        b.push_str("<ul>\n");
        for n in notes {
            b.push_line(format_args!("<li>{}</li>", esc(n.trim())));
        }
        b.push_str("</ul>\n");
    }
    b.push_line(format_args!(
        "<p class=\"{}\">{}</p>",
        if cex.is_some() { "violation" } else { "note" },
        esc(verdict)
    ));
    if let Some((calls, f)) = cex {
        counterexample(&mut b, calls, f);
    }
    document(&format!("rmapcheck check --kernel: {what}"), &b)
}

fn counterexample(b: &mut String, calls: &[KernelCall], f: &CFailure) {
    let inv = f.invariant.map_or("the C crashed", |i| i.name());
    b.push_line(format_args!(
        "<h2>Counterexample: <code class=\"violation\">{}</code> after call {} of {}</h2>",
        esc(inv),
        calls.len(),
        calls.len()
    ));
    b.push_str("<h3>Calls (model call, harness request, kernel path)</h3>\n<ol class=\"calls\">\n");
    for (i, c) in calls.iter().enumerate() {
        let last = i + 1 == calls.len();
        b.push_line(format_args!(
            "<li{}><code>{}</code>{}<br><code>{}</code>: <code>{}</code></li>",
            if last { " class=\"fail\"" } else { "" },
            esc(&c.call),
            if last { " &larr; fails" } else { "" },
            esc(&c.request),
            esc(&c.path)
        ));
    }
    b.push_str("</ol>\n");
    b.push_line(format_args!(
        "<h3>Violation</h3>\n<p class=\"violation\">{}</p>",
        esc(&f.what)
    ));
    b.push_str("<h3>Worlds after the failing call</h3>\n<div class=\"pair\">\n");
    let c = if f.c.is_empty() {
        "(the C crashed: no world)".to_string()
    } else {
        f.c.join("\n")
    };
    for (caption, text) in [("the C", c), ("the model", f.model.join("\n"))] {
        b.push_line(format_args!(
            "<figure><figcaption>{}</figcaption>{}</figure>",
            esc(caption),
            pre(&text).trim_end()
        ));
    }
    b.push_str("</div>\n");
    b.push_str("<h3>The model on the same calls</h3>\n");
    b.push_str(&pre(&model_says(f).1));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::invariant::Invariant;

    #[test]
    fn a_counterexample_page_escapes_and_names_the_invariant() {
        let calls = [KernelCall {
            call: "sys_mmap(mm#0, file#0, 0, 1, 0, false)".into(),
            request: "mmap 0 0 1".into(),
            path: "mmap_region()".into(),
        }];
        let f = CFailure {
            invariant: Some(Invariant::LockDiscipline),
            what: "insert <without> lock".into(),
            c: vec!["mm#0 & more".into()],
            model: vec!["mm#0".into()],
            model_failed: None,
        };
        let p = page(
            &["head <1>".into()],
            &[],
            "COUNTEREXAMPLE: x",
            Some((&calls, &f)),
        );
        assert!(p.starts_with("<!DOCTYPE html>"), "{p}");
        assert!(p.contains("lock-discipline"), "{p}");
        assert!(p.contains("insert &lt;without&gt; lock"), "{p}");
        assert!(p.contains("head &lt;1&gt;"), "{p}");
        assert!(p.contains("mm#0 &amp; more"), "{p}");
        assert!(!p.contains("<without>"), "{p}");
        assert!(p.ends_with("</html>\n"), "{p}");
    }
}
