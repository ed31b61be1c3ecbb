//! `rmapcheck report`: a counterexample trace as one self-contained HTML page for a reviewer
//! (inline CSS, inline SVG, no scripts, nothing fetched). The page shows the header (model,
//! scope, the invariant and its message), the calls, the steps of the failing call with model
//! file:line, every rmap tree drawn before the last call and at the failure with the nodes that
//! changed highlighted, and the two worlds as text. The worlds come from re-running the trace's
//! calls on the model ([`crate::explore::replay::rerun`]), so the trees are exact, not parsed back from
//! the rendered text.
//!
//! It names nothing of the fuzzing harness, the oracle, the C harness or the commands.

pub mod diff;
pub mod html;
pub mod snap;
pub mod svg;

use crate::check::Invariant;
use crate::explore::op::StepRecord;
use crate::explore::replay::{rerun, ReplayError, Rerun};
use crate::lang::Program;
use crate::textbuf::PushFmt;
use crate::trace::{model_hash, text::MAX_STEPS_SHOWN, Trace};
use crate::world::World;
use diff::{Change, Changes};
use html::{esc, pre};
use snap::TreeSnap;

/// One rmap tree on both sides of the last call.
#[derive(Clone, Debug)]
pub(crate) struct TreePair {
    /// `mapping#M` or `anon_vma#A`.
    pub name: String,
    /// Heading: the name with the file or the root anon_vma.
    pub title: String,
    /// `None`: no such tree on that side (an anon_vma not yet made, or freed).
    pub before: Option<TreeSnap>,
    pub after: Option<TreeSnap>,
    /// A note for the failure side, e.g. a freed anon_vma that still has nodes.
    pub after_note: String,
    pub changes: Changes,
}

impl TreePair {
    /// The tree drawn on one side: it exists there and is not empty.
    pub(crate) fn drawn_before(&self) -> Option<&TreeSnap> {
        self.before.as_ref().filter(|t| !t.is_empty())
    }

    pub(crate) fn drawn_after(&self) -> Option<&TreeSnap> {
        self.after.as_ref().filter(|t| !t.is_empty())
    }
}

/// Every rmap tree of the two worlds, in page order: each mapping's `i_mmap`, then each
/// anon_vma that is live on at least one side.
pub(crate) fn tree_pairs(before: &World, after: &World) -> Vec<TreePair> {
    let mut out = Vec::new();
    let mappings = before.mappings.len().max(after.mappings.len());
    for m in 0..mappings {
        let (b, a) = (snap::file_tree(before, m), snap::file_tree(after, m));
        let w = if m < after.mappings.len() {
            after
        } else {
            before
        };
        out.push(TreePair {
            name: format!("mapping#{m}"),
            title: format!("{} i_mmap", snap::mapping_title(w, m)),
            changes: diff::diff(b.as_ref(), a.as_ref()),
            before: b,
            after: a,
            after_note: String::new(),
        });
    }
    let anons = before.anon_vmas.len().max(after.anon_vmas.len());
    for i in 0..anons {
        let (b, a) = (snap::anon_tree(before, i), snap::anon_tree(after, i));
        if b.is_none() && a.is_none() {
            continue;
        }
        let after_note = match after.anon_vmas.get(i) {
            Some(av) if av.freed && !av.rb_root.is_empty() => {
                format!("freed, with {} node(s) still in its tree", av.rb_root.len())
            }
            Some(av) if av.freed => "freed".to_string(),
            None => "not allocated".to_string(),
            Some(_) => String::new(),
        };
        let root = after
            .anon_vmas
            .get(i)
            .or(before.anon_vmas.get(i))
            .map_or(i as u32, |a| a.root);
        out.push(TreePair {
            name: format!("anon_vma#{i}"),
            title: format!("anon_vma#{i} (root anon_vma#{root}) tree of AVCs"),
            changes: diff::diff(b.as_ref(), a.as_ref()),
            before: b,
            after: a,
            after_note,
        });
    }
    out
}

/// Re-run `t` on `prog` and build the page; `model` is the path `prog` was loaded from.
pub fn build(t: &Trace, prog: &Program, model: &str) -> Result<String, ReplayError> {
    let r = rerun(prog, &t.initial, &t.calls, t.scope.invariant_set())?;
    Ok(page(t, prog, model, &r))
}

/// The page of `t` from its re-run `r`.
pub fn page(t: &Trace, prog: &Program, model: &str, r: &Rerun) -> String {
    let mut body = String::new();
    header(&mut body, t, prog, model, r);
    calls(&mut body, t);
    if !t.calls.is_empty() {
        steps(&mut body, t, prog, r);
    }
    trees(&mut body, t, r);
    worlds(&mut body, t, r);
    html::document(
        &format!(
            "rmapcheck: {} violates {}",
            t.model,
            t.invariant().map_or("", Invariant::name)
        ),
        &body,
    )
}

/// A path relative to the current directory when it lies under it.
fn relative(path: &str) -> String {
    let p = std::path::Path::new(path);
    std::env::current_dir()
        .ok()
        .and_then(|d| p.strip_prefix(d).ok().map(|r| r.display().to_string()))
        .unwrap_or_else(|| path.to_string())
}

fn row(out: &mut String, name: &str, value_html: &str) {
    out.push_line(format_args!(
        "<tr><th>{}</th><td>{value_html}</td></tr>",
        esc(name)
    ));
}

/// Title, the header table and notes on a re-run that differs from the trace.
fn header(out: &mut String, t: &Trace, prog: &Program, model: &str, r: &Rerun) {
    out.push_line(format_args!(
        "<h1>rmapcheck counterexample: <code>{}</code> violates <code>{}</code></h1>",
        esc(&t.model),
        esc(t.invariant().map_or("", Invariant::name))
    ));
    out.push_str("<table class=\"head\">\n");
    row(out, "Model", &format!("<code>{}</code>", esc(&t.model)));
    if model != t.model {
        row(out, "Re-run on", &format!("<code>{}</code>", esc(model)));
    }
    row(
        out,
        "Model hash",
        &format!("<code>{}</code>", esc(&t.model_hash)),
    );
    row(out, "Scope", &esc(&t.scope.summary()));
    row(
        out,
        "Invariant",
        &format!(
            "<code class=\"violation\">{}</code>",
            esc(t.invariant().map_or("", Invariant::name))
        ),
    );
    let msgs = match &t.failure {
        Some(f) => f
            .violations
            .iter()
            .map(|v| format!("<div class=\"violation\">{}</div>", esc(&v.to_string())))
            .collect::<String>(),
        None => "(the trace records no failure)".to_string(),
    };
    row(out, "Message", &msgs);
    if let Some(c) = t.calls.last() {
        row(
            out,
            "Failing call",
            &format!(
                "{} of {}: <code>{}</code>",
                t.calls.len(),
                t.calls.len(),
                esc(&c.to_string())
            ),
        );
    }
    if let Some(f) = &r.failure {
        let at = match (f.step, f.loc) {
            (Some(_), Some(loc)) => {
                let (file, line, _, text) = prog.source_line(loc);
                format!(
                    "<code>{}:{line}</code>: <code>{}</code>",
                    esc(&relative(file)),
                    esc(text.trim())
                )
            }
            _ => "when the call returned".to_string(),
        };
        row(out, "Found", &at);
    }
    out.push_str("</table>\n");
    for n in notes(t, prog, model, r) {
        out.push_line(format_args!("<p class=\"note\">{}</p>", esc(&n)));
    }
}

/// Ways the re-run differs from what the trace recorded.
fn notes(t: &Trace, prog: &Program, model: &str, r: &Rerun) -> Vec<String> {
    let mut out = Vec::new();
    if model_hash(prog) != t.model_hash {
        out.push(format!(
            "{model} differs from the model the trace was found on (hash {} here, {} in the trace)",
            model_hash(prog),
            t.model_hash
        ));
    }
    let got = r.failure.as_ref().and_then(|f| f.invariant());
    let want_call = t.calls.len().checked_sub(1);
    let same_call = t.calls.is_empty() || r.failed_call == want_call;
    if got != t.invariant() || !same_call {
        let what = match (r.failure.as_ref(), r.failed_call) {
            (None, _) => "no violation".to_string(),
            (Some(_), Some(c)) => format!("{} at call {}", got.map_or("", Invariant::name), c + 1),
            (Some(_), None) => got.map_or("", Invariant::name).to_string(),
        };
        out.push(format!(
            "Re-running the calls on {model} gives {what}, not {} at call {}; the steps, trees \
             and worlds below are those of the re-run.",
            t.invariant().map_or("", Invariant::name),
            t.calls.len()
        ));
    }
    out
}

fn calls(out: &mut String, t: &Trace) {
    out.push_str("<h2>Calls</h2>\n");
    if t.calls.is_empty() {
        out.push_str("<p>(none: the initial world already violates the invariant)</p>\n");
        return;
    }
    out.push_str("<ol class=\"calls\">\n");
    for (i, c) in t.calls.iter().enumerate() {
        let last = i + 1 == t.calls.len();
        out.push_line(format_args!(
            "<li{}><code>{}</code>{}</li>",
            if last { " class=\"fail\"" } else { "" },
            esc(&c.to_string()),
            if last { " &larr; fails" } else { "" }
        ));
    }
    out.push_str("</ol>\n");
}

/// One row of the steps table.
fn step_row(out: &mut String, prog: &Program, s: &StepRecord, failing: bool) {
    let (file, line, _, _) = prog.source_line(s.loc);
    let file = file.rsplit('/').next().unwrap_or(file);
    out.push_line(format_args!(
        "<tr{}><td class=\"mono\">{}</td><td class=\"mono\">{}:{line}</td>\
         <td class=\"mono\">{}</td><td class=\"mono\">{}</td></tr>",
        if failing { " class=\"fail\"" } else { "" },
        if failing { "&gt;&gt;" } else { "" },
        esc(file),
        esc(&s.func),
        esc(&s.what)
    ));
}

/// The steps of the failing call, filtered as the text trace does (plain reads dropped, the
/// failing step kept); steps beyond the text trace's limit go in a collapsed block.
fn steps(out: &mut String, t: &Trace, prog: &Program, r: &Rerun) {
    let call = r.failed_call.map_or(t.calls.len(), |c| c + 1);
    out.push_line(format_args!(
        "<h2>Steps of call {call} (file:line, function, action)</h2>"
    ));
    let fail_step = r.failure.as_ref().and_then(|f| f.step);
    let shown: Vec<(usize, &StepRecord)> = r
        .steps
        .iter()
        .enumerate()
        .filter(|(i, s)| {
            Some(*i) == fail_step || !(s.what.is_empty() || s.what.starts_with("read "))
        })
        .collect();
    let skip = shown.len().saturating_sub(MAX_STEPS_SHOWN);
    if skip > 0 {
        out.push_line(format_args!(
            "<details><summary>{skip} earlier steps</summary><table class=\"steps\">"
        ));
        for (i, s) in &shown[..skip] {
            step_row(out, prog, s, Some(*i) == fail_step);
        }
        out.push_str("</table></details>\n");
    }
    out.push_str("<table class=\"steps\">\n");
    for (i, s) in &shown[skip..] {
        step_row(out, prog, s, Some(*i) == fail_step);
    }
    out.push_str("</table>\n");
    if r.failure.as_ref().is_some_and(|f| f.step.is_none()) {
        out.push_str("<p>(found when the call returned)</p>\n");
    }
}

/// Caption and drawing (or why there is none) of one side of a tree.
fn side(out: &mut String, pair: &TreePair, side: &str, caption: &str) {
    let (tree, drawn, note) = if side == "before" {
        (pair.before.as_ref(), pair.drawn_before(), "")
    } else {
        (
            pair.after.as_ref(),
            pair.drawn_after(),
            pair.after_note.as_str(),
        )
    };
    let count = tree.map_or(String::new(), |t| format!(", {} node(s)", t.len()));
    let note = if note.is_empty() {
        String::new()
    } else {
        format!(", {note}")
    };
    out.push_line(format_args!(
        "<figure><figcaption>{}{count}{}</figcaption>",
        esc(caption),
        esc(&note)
    ));
    match (tree, drawn) {
        (_, Some(t)) => out.push_str(&svg::draw(t, &pair.changes, &pair.name, side)),
        (Some(_), None) => out.push_str("<p>(empty tree)</p>\n"),
        (None, _) => out.push_str("<p>(no tree)</p>\n"),
    }
    out.push_str("</figure>\n");
}

/// The list of changed nodes under a pair of drawings.
fn change_list(out: &mut String, pair: &TreePair) {
    if pair.changes.is_empty() {
        out.push_str("<p>No node changed.</p>\n");
        return;
    }
    out.push_str("<ul class=\"changes\">\n");
    for (id, details) in &pair.changes {
        let label = pair
            .after
            .as_ref()
            .and_then(|t| t.nodes.get(id))
            .or_else(|| pair.before.as_ref().and_then(|t| t.nodes.get(id)))
            .map_or(format!("#{id}"), |n| n.label.clone());
        let what: Vec<String> = details
            .iter()
            .map(|d| format!("{} ({})", d.change.name(), d.text))
            .collect();
        out.push_line(format_args!(
            "<li>{}: {}</li>",
            esc(&label),
            esc(&what.join("; "))
        ));
    }
    out.push_str("</ul>\n");
}

fn trees(out: &mut String, t: &Trace, r: &Rerun) {
    let call = r.failed_call.map_or(t.calls.len(), |c| c + 1);
    out.push_str("<h2>Rmap trees</h2>\n");
    out.push_str(&html::legend());
    let pairs = tree_pairs(&r.before, &r.after);
    let mut empty = Vec::new();
    for pair in &pairs {
        if pair.drawn_before().is_none() && pair.drawn_after().is_none() && pair.changes.is_empty()
        {
            empty.push(pair.title.clone());
            continue;
        }
        out.push_line(format_args!(
            "<section class=\"tree\" id=\"{}\"><h3>{}</h3><div class=\"pair\">",
            esc(&pair.name),
            esc(&pair.title)
        ));
        let before = if t.calls.is_empty() {
            "initial world".to_string()
        } else {
            format!("before call {call}")
        };
        side(out, pair, "before", &before);
        let after = if r.failure.is_some() {
            "at the failure"
        } else {
            "after the last call (no failure)"
        };
        side(out, pair, "after", after);
        out.push_str("</div>\n");
        change_list(out, pair);
        out.push_str("</section>\n");
    }
    if !empty.is_empty() {
        out.push_line(format_args!(
            "<p>Empty before and at the failure: {}.</p>",
            esc(&empty.join("; "))
        ));
    }
    let changed: usize = pairs.iter().map(|p| p.changes.len()).sum();
    let added = count_kind(&pairs, Change::Added);
    let removed = count_kind(&pairs, Change::Removed);
    out.push_line(format_args!(
        "<p>{changed} node(s) changed in all trees ({added} added, {removed} removed).</p>"
    ));
}

fn count_kind(pairs: &[TreePair], kind: Change) -> usize {
    pairs
        .iter()
        .flat_map(|p| p.changes.values())
        .filter(|d| d.iter().any(|d| d.change == kind))
        .count()
}

fn worlds(out: &mut String, t: &Trace, r: &Rerun) {
    let call = r.failed_call.map_or(t.calls.len(), |c| c + 1);
    if !t.calls.is_empty() {
        out.push_line(format_args!("<h2>World before call {call}</h2>"));
        out.push_str(&pre(&r.before.render()));
    }
    out.push_str("<h2>World at the failure</h2>\n");
    out.push_str(&pre(&r.after.render()));
    let init = t
        .initial
        .build()
        .map(|w| w.canonical().render())
        .unwrap_or_else(|e| format!("(cannot build: {e})"));
    out.push_str("<details><summary>Initial world</summary>\n");
    out.push_str(&pre(&init));
    out.push_str("</details>\n");
}
