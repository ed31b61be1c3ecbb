//! Verdicts in the formats CI systems and review comments read: KTAP (as kselftest and KUnit
//! print it), JUnit XML, and a Markdown summary. `check` and `prove` turn each model or proof
//! obligation into a [`Case`] and render the list at the end of the run.

use crate::textbuf::PushFmt;

/// How results are printed (the command line's `--format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum TraceFormat {
    /// Plain text for a patch review (80 columns, ASCII).
    #[default]
    Text,
    /// One JSON document: the scope and every model's verdict with its trace (replayable).
    Json,
    /// The rmap trees at each failure as Graphviz DOT.
    Dot,
    /// KTAP version 1, as kselftest and KUnit print it.
    Ktap,
    /// JUnit XML.
    Junit,
    /// A Markdown summary for a review comment.
    Markdown,
    /// One self-contained HTML page (`check --kernel`; a model trace goes through
    /// `rmapcheck report`).
    Html,
}

impl TraceFormat {
    /// Whether standard output holds one machine-readable document.
    pub(crate) fn is_machine(self) -> bool {
        self != TraceFormat::Text
    }
}

/// The model search's formats: html is the C search's (a model trace becomes a page through
/// `rmapcheck report TRACE.json`).
pub(crate) fn model_search_writes(f: TraceFormat) -> Result<(), String> {
    if f == TraceFormat::Html {
        return Err(
            "--format html is for `check --kernel`; a model counterexample becomes an \
                    HTML page through `rmapcheck report TRACE.json` (save it with --trace-dir)"
                .into(),
        );
    }
    Ok(())
}

/// How one model or obligation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Holds (or, for a proof, the expected verdict).
    Pass,
    /// A counterexample (or, for a proof, not the expected verdict).
    Fail,
    /// Stopped by a bound or a stop request: neither pass nor fail.
    Incomplete,
    /// The model or obligation could not be run (bad input).
    Error,
}

/// One test case: a model checked at a scope, or a proof obligation.
#[derive(Clone, Debug)]
pub struct Case {
    pub name: String,
    pub status: Status,
    /// The verdict line.
    pub summary: String,
    /// The trace or diagnostics, plain text (may be empty).
    pub detail: String,
    pub seconds: f64,
}

/// KTAP version 1: a plan line, one result line per case, the detail as `# ` diagnostic lines.
/// An incomplete case is `not ok` with the TIMEOUT directive when a bound ended it; a case that
/// could not run is `not ok` with ERROR.
pub fn ktap(suite: &str, header: &str, cases: &[Case]) -> String {
    let mut s = String::from("KTAP version 1\n");
    s.push_line(format_args!("# {suite}: {}", one_line(header)));
    s.push_line(format_args!("1..{}", cases.len()));
    for (i, c) in cases.iter().enumerate() {
        for l in c.detail.lines() {
            s.push_line(format_args!("# {l}"));
        }
        s.push_line(format_args!("# {}", one_line(&c.summary)));
        let name = ktap_name(&c.name);
        let line = match c.status {
            Status::Pass => format!("ok {} {name}", i + 1),
            Status::Fail => format!("not ok {} {name}", i + 1),
            Status::Incomplete => format!("not ok {} {name} # TIMEOUT incomplete", i + 1),
            Status::Error => format!("not ok {} {name} # ERROR", i + 1),
        };
        s.push_line(format_args!("{line}"));
    }
    let count = |st| cases.iter().filter(|c| c.status == st).count();
    s.push_line(format_args!(
        "# totals: pass:{} fail:{} incomplete:{} error:{}",
        count(Status::Pass),
        count(Status::Fail),
        count(Status::Incomplete),
        count(Status::Error)
    ));
    s
}

/// KTAP test names may not contain `#`; keep them on one line too.
fn ktap_name(n: &str) -> String {
    one_line(n).replace('#', "_")
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// JUnit XML: one testsuite, one testcase per case; a counterexample is a `<failure>`, an
/// incomplete or broken run an `<error>` (never a pass).
pub fn junit(suite: &str, header: &str, cases: &[Case]) -> String {
    let count = |st| cases.iter().filter(|c| c.status == st).count();
    let total: f64 = cases.iter().map(|c| c.seconds).sum();
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    s.push_line(format_args!("<testsuites name=\"rmapcheck\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{total:.3}\">",
        cases.len(),
        count(Status::Fail),
        count(Status::Incomplete) + count(Status::Error)));
    s.push_line(format_args!(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{total:.3}\">",
        xml(suite),
        cases.len(),
        count(Status::Fail),
        count(Status::Incomplete) + count(Status::Error)
    ));
    s.push_line(format_args!(
        "    <properties><property name=\"scope\" value=\"{}\"/></properties>",
        xml(&one_line(header))
    ));
    for c in cases {
        s.push_fmt(format_args!(
            "    <testcase name=\"{}\" classname=\"{}\" time=\"{:.3}\"",
            xml(&c.name),
            xml(suite),
            c.seconds
        ));
        let body = format!("{}\n{}", c.summary, c.detail);
        match c.status {
            Status::Pass => {
                s.push_line(format_args!(
                    ">\n      <system-out>{}</system-out>\n    </testcase>",
                    xml(&c.summary)
                ));
            }
            Status::Fail | Status::Incomplete | Status::Error => {
                let tag = if c.status == Status::Fail {
                    "failure"
                } else {
                    "error"
                };
                s.push_line(format_args!(
                    ">\n      <{tag} message=\"{}\">{}</{tag}>\n    </testcase>",
                    xml(&one_line(&c.summary)),
                    xml(&body)
                ));
            }
        }
    }
    s.push_str("  </testsuite>\n</testsuites>\n");
    s
}

/// Escape text for XML content and attributes.
pub fn xml(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            c if c.is_control() && c != '\n' && c != '\t' => o.push('?'),
            c => o.push(c),
        }
    }
    o
}

/// A Markdown summary for a review comment: the scope, a table of verdicts, and each failing
/// case's trace in a collapsed block.
pub fn markdown(suite: &str, header: &str, cases: &[Case]) -> String {
    let mut s = format!("### rmapcheck {suite}\n\n`{}`\n\n", one_line(header));
    s.push_str("| | model | verdict |\n|---|---|---|\n");
    for c in cases {
        let mark = match c.status {
            Status::Pass => "pass",
            Status::Fail => "**FAIL**",
            Status::Incomplete => "incomplete",
            Status::Error => "error",
        };
        s.push_line(format_args!(
            "| {mark} | `{}` | {} |",
            c.name.replace('|', "\\|"),
            one_line(&c.summary).replace('|', "\\|")
        ));
    }
    for c in cases.iter().filter(|c| !c.detail.is_empty()) {
        s.push_fmt(format_args!(
            "\n<details><summary>{}</summary>\n\n```\n{}\n```\n\n</details>\n",
            xml(&c.name),
            c.detail.trim_end().replace("```", "'''")
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cases() -> Vec<Case> {
        vec![
            Case {
                name: "a.rmap".into(),
                status: Status::Pass,
                summary: "holds".into(),
                detail: String::new(),
                seconds: 1.0,
            },
            Case {
                name: "b#1.rmap".into(),
                status: Status::Fail,
                summary: "COUNTEREXAMPLE membership".into(),
                detail: "1. split <x>\n2. merge".into(),
                seconds: 0.5,
            },
            Case {
                name: "c.rmap".into(),
                status: Status::Incomplete,
                summary: "incomplete up to depth 2 (time bound 1s reached)".into(),
                detail: String::new(),
                seconds: 1.0,
            },
        ]
    }

    #[test]
    fn ktap_has_a_plan_and_one_result_per_case() {
        let k = ktap("check", "scope default", &cases());
        let lines: Vec<&str> = k.lines().collect();
        assert_eq!(lines[0], "KTAP version 1");
        assert!(lines.contains(&"1..3"));
        assert!(lines.contains(&"ok 1 a.rmap"));
        assert!(lines.contains(&"not ok 2 b_1.rmap"));
        assert!(lines.contains(&"not ok 3 c.rmap # TIMEOUT incomplete"));
        assert!(lines.contains(&"# 1. split <x>"));
        // every line is a KTAP line: version, plan, result or diagnostic
        for l in &lines {
            assert!(
                l.starts_with("KTAP")
                    || l.starts_with("1..")
                    || l.starts_with("ok ")
                    || l.starts_with("not ok ")
                    || l.starts_with('#'),
                "{l}"
            );
        }
    }

    #[test]
    fn junit_counts_and_escapes() {
        let j = junit("check", "scope", &cases());
        assert!(j.contains("tests=\"3\" failures=\"1\" errors=\"1\""), "{j}");
        assert!(j.contains("<failure message=\"COUNTEREXAMPLE membership\">"));
        assert!(j.contains("split &lt;x&gt;"));
        assert!(j.contains("<error message=\"incomplete"));
        assert!(!j.contains("<x>"));
    }

    #[test]
    fn markdown_has_a_row_per_case_and_the_trace() {
        let m = markdown("check", "scope", &cases());
        assert!(m.contains("| **FAIL** | `b#1.rmap` | COUNTEREXAMPLE membership |"));
        assert!(m.contains("<details><summary>b#1.rmap</summary>"));
        assert!(m.contains("| incomplete | `c.rmap` |"));
    }
}
