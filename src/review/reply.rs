//! The replies of `rmapcheck review`: one plain-text mail per patch, threaded under it
//! (`In-Reply-To:`/`References:` from its Message-ID, `Subject: Re: [PATCH ...]`), and a
//! summary under the cover letter with one line per patch, written as one mbox. Each reply
//! says the tree and release checked, the scope and what it left out, and the verdict; a
//! counterexample comes with its shortest calls in kernel terms, the invariant it breaks and
//! what that does to a production kernel, the reproducer and the commands that re-derive it;
//! a `holds` with one paragraph on what was covered. Every line is at most [`WIDTH`]
//! columns. Replies are signed as the tool, with its version, never as a person.

use super::mail::Posting;

use super::text::{fill, pre, shell};
pub use super::text::{mbox, WIDTH};

/// What every reply of a run shares.
#[derive(Clone, Debug, Default)]
pub struct Run {
    /// `rmapcheck VERSION`.
    pub tool: String,
    pub tree: String,
    pub release: String,
    /// The series as given on the command line.
    pub series: String,
    /// The scope's summary line.
    pub scope: String,
    /// The invariants line: what is checked on the C and what not.
    pub invariants: String,
    pub model: String,
    /// Flags given to `review` that the re-deriving commands repeat (`--max-depth 2`).
    pub flags: Vec<String>,
}

/// A counterexample found after a patch.
#[derive(Clone, Debug)]
pub struct Cex {
    /// The search's verdict line.
    pub line: String,
    /// The invariant's name, description and production consequence; None: the C crashed.
    pub invariant: Option<(String, String, String)>,
    /// What the C did.
    pub violation: String,
    /// The calls: (model call, harness request, kernel path).
    pub calls: Vec<(String, String, String)>,
    /// What the model says after the same calls.
    pub model: String,
    /// The reproducer's C, or why there is none.
    pub repro: Result<String, String>,
}

/// The verdict on one patch.
#[derive(Clone, Debug)]
pub enum Verdict {
    Holds(String),
    Counterexample(Box<Cex>),
    /// The search stopped early (its verdict line).
    Incomplete(String),
    /// The patch touches no file the harness builds.
    NotInScope,
    /// The patch does not apply (what `patch` said, the hunk named).
    DoesNotApply(String),
    /// An earlier patch (this 1-based index) did not apply or could not be built.
    NotChecked(usize),
    /// The harness could not be built from the patched tree.
    BuildFailed(String),
    /// The harness was built, and the C check could not run on it (a search that made no
    /// call, a harness that would not start): no verdict.
    CheckFailed(String),
}

impl Verdict {
    /// A few words, for the summary.
    pub fn short(&self) -> String {
        match self {
            Verdict::Holds(_) => "holds".into(),
            Verdict::Counterexample(c) => match &c.invariant {
                Some((n, ..)) => format!("COUNTEREXAMPLE ({n})"),
                None => "COUNTEREXAMPLE (the C crashed)".into(),
            },
            Verdict::Incomplete(_) => "incomplete".into(),
            Verdict::NotInScope => "not in scope".into(),
            Verdict::DoesNotApply(_) => "does not apply".into(),
            Verdict::NotChecked(k) => format!("not checked (patch {k} stopped the series)"),
            Verdict::BuildFailed(_) => "harness build failed".into(),
            Verdict::CheckFailed(_) => "no verdict (the C check could not run)".into(),
        }
    }
}

/// One patch reviewed.
#[derive(Clone, Debug)]
pub struct Review {
    pub posting: Posting,
    /// The files the patch touches that the harness builds.
    pub built: Vec<String>,
    /// The files it touches that the harness does not build: applied, or left out, and why.
    pub outside: Vec<String>,
    /// The userland tests' stubs that gave way to the real functions.
    pub superseded: Vec<String>,
    pub verdict: Verdict,
}

fn threading(p: &Posting) -> String {
    let mut h = String::new();
    if let Some(id) = &p.message_id {
        let mut refs = p.references.clone();
        if !refs.contains(id) {
            refs.push(id.clone());
        }
        h += &format!("In-Reply-To: {id}\n");
        h += &pre(&format!("References: {}", refs.join(" ")), " ");
    }
    if let Some(f) = &p.from {
        h += &pre(&format!("To: {f}"), " ");
    }
    h
}

fn headers(p: &Posting) -> String {
    let subject = if p
        .subject
        .get(..3)
        .is_some_and(|r| r.eq_ignore_ascii_case("re:"))
    {
        p.subject.clone()
    } else {
        format!("Re: {}", p.subject)
    };
    format!(
        "{}{}MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n\
         Content-Transfer-Encoding: 8bit\n\n",
        fill_header(&format!("Subject: {subject}")),
        threading(p)
    )
}

/// A header folded (RFC 5322) at spaces to fit [`WIDTH`].
fn fill_header(h: &str) -> String {
    let o = textwrap::Options::new(WIDTH)
        .subsequent_indent(" ")
        .break_words(false);
    textwrap::fill(h, o) + "\n"
}

fn quote(p: &Posting) -> String {
    let who = p.from.clone().unwrap_or_else(|| "the patch".into());
    let on = p
        .date
        .as_ref()
        .map_or(String::new(), |d| format!("On {d}, "));
    fill(&format!("{on}{who} wrote:"), "", "") + &pre(&format!("> {}", p.subject), "> ")
}

fn signature(run: &Run) -> String {
    format!(
        "\n-- \n{}\n",
        fill(
            &format!(
                "{}, a bounded model checker of the Linux kernel's rmap tree updates. This \
                 reply was written by the tool, not by a person; its verdicts are bounded by \
                 the scope above.",
                run.tool
            ),
            "",
            ""
        )
        .trim_end()
    )
}

/// The lines naming the tree, the scope and what was left out.
fn scope_block(run: &Run, r: &Review) -> String {
    let mut s = String::new();
    s += &fill(
        &format!("{}, the tree at:", run.release),
        "Tree:    ",
        "         ",
    );
    s += &pre(&run.tree, "");
    s += &fill(&run.scope, "Scope:   ", "         ");
    s += &fill(&run.invariants, "Checks:  ", "         ");
    if !r.built.is_empty() {
        s += &fill(&r.built.join(", "), "Built:   ", "         ");
    }
    for o in &r.outside {
        s += &fill(o, "Outside: ", "         ");
    }
    for o in &r.superseded {
        s += &fill(
            &format!("{o} (a stub; the harness compiles the real function)"),
            "Stubs:   ",
            "         ",
        );
    }
    s
}

/// The commands that re-derive the verdict of patch `k` (1-based).
fn commands(run: &Run, k: usize, with_repro: bool) -> String {
    let w = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let mut s = fill(
        "With tree set to the tree above and series to the series as received (an mbox, or \
         a directory of git format-patch files):",
        "",
        "",
    );
    s += "\n";
    let mut review = w(&[
        "rmapcheck",
        "review",
        "\"$series\"",
        "--kernel",
        "\"$tree\"",
    ]);
    review.extend(run.flags.iter().cloned());
    review.extend(w(&["-o", "replies.mbox"]));
    s += &shell(&review);
    let mut check = w(&["rmapcheck", "check", "--kernel", "\"$tree\""]);
    for i in 1..=k {
        check.extend(["--patch".to_string(), format!("{i}.patch")]);
    }
    check.extend(run.flags.iter().cloned());
    check.extend(w(&["--format", "json", ">", "cex.json"]));
    s += &shell(&check);
    if with_repro {
        s += &shell(&w(&["rmapcheck", "repro", "cex.json", "-o", "repro.c"]));
    }
    s += "\n";
    let which = if k == 1 {
        "patch 1 is".to_string()
    } else {
        format!("patches 1 to {k} are")
    };
    s += &fill(
        &format!(
            "(N.patch: patch N of this series as a file, as git format-patch writes it; \
             {which} applied in order.)"
        ),
        "",
        "",
    );
    s
}

/// The reply to patch `r` (the `k`-th, 1-based).
pub fn patch_reply(run: &Run, r: &Review, k: usize) -> String {
    let p = &r.posting;
    let mut b = headers(p);
    b += &quote(p);
    b += "\n";
    let applied = if k == 1 {
        "this patch".to_string()
    } else {
        format!("patches 1 to {k} of the series, in order")
    };
    match &r.verdict {
        Verdict::NotChecked(stop) => {
            b += &fill(
                &format!(
                    "rmapcheck did not check this patch: patch {stop} of the series stopped it \
                     (see the reply to it), and this patch applies on top of it."
                ),
                "",
                "",
            );
            b += &format!("\nVerdict: {}\n", r.verdict.short());
            b += &signature(run);
            return b;
        }
        Verdict::DoesNotApply(e) => {
            b += &fill(
                &format!(
                    "rmapcheck could not check this patch: it does not apply to the {} tree \
                     below after the patches before it. `patch -p1` refused this hunk:",
                    run.release
                ),
                "",
                "",
            );
            b += "\n";
            for l in e.lines() {
                b += &pre(&format!("  {l}"), "    ");
            }
            b += "\n";
            b += &fill(
                &format!("{}, the tree at:", run.release),
                "Tree:    ",
                "         ",
            );
            b += &pre(&run.tree, "");
            b += "\n";
            b += &fill(
                "The patches after it were not checked. Rebased on this tree, the series \
                 can be checked again with the same command:",
                "",
                "",
            );
            b += "\n";
            b += &commands(run, k, false);
            b += &format!("\nVerdict: {}\n", r.verdict.short());
            b += &signature(run);
            return b;
        }
        _ => {}
    }
    b += &fill(
        &format!(
            "rmapcheck checked {applied}, as C: applied to a copy of the {} tree below, the \
             kernel's own mm/vma.c, interval trees and anon_vma paths built from that copy in \
             user space, and every call sequence of the scope below searched, the invariants \
             checked on the C after every call.",
            run.release
        ),
        "",
        "",
    );
    b += "\n";
    b += &scope_block(run, r);
    b += "\n";
    match &r.verdict {
        Verdict::NotInScope => {
            b += &fill(
                "This patch touches no file the harness builds, so no search ran for it: \
                 the verdict of the patch before it stands for the tree it leaves.",
                "",
                "",
            );
        }
        Verdict::BuildFailed(e) => {
            b += &fill(
                "The harness could not be built from the patched tree, so nothing was \
                 searched:",
                "",
                "",
            );
            for l in e.lines().take(20) {
                b += &pre(&format!("  {l}"), "    ");
            }
        }
        Verdict::CheckFailed(e) => {
            b += &fill(
                "The harness was built from the patched tree, but the C check could not run \
                 on it, so there is no verdict:",
                "",
                "",
            );
            for l in e.lines().take(20) {
                b += &pre(&format!("  {l}"), "    ");
            }
        }
        Verdict::Holds(line) => {
            b += &fill(line, "Result:  ", "         ");
            b += "\n";
            b += &fill(
                "Nothing found. Every sequence of the calls above, up to the scope's depth, \
                 was run on the patched C from the empty world, and after every call the \
                 trees were checked node by node (red-black shape, order on the current \
                 keys, exact rb_subtree_last), each VMA and anon_vma_chain was found in \
                 exactly the trees it belongs to, the locks were checked around every tree \
                 change, and a WARN, a BUG or a sanitizer report in the C would have been a \
                 counterexample, and the file and anon rmap walks ran at every lock moment \
                 of every call. What the scope leaves out is listed above; a longer \
                 sequence, or a walker thread racing the call, was not tried on the C.",
                "",
                "",
            );
            b += "\n";
            b += &commands(run, k, false);
        }
        Verdict::Incomplete(line) => {
            b += &fill(line, "Result:  ", "         ");
            b += "\n";
            b += &fill(
                "The search stopped before it covered the scope: no counterexample was \
                 found in what it reached, and this is not a holds.",
                "",
                "",
            );
        }
        Verdict::Counterexample(c) => b += &cex_block(run, c, k),
        Verdict::NotChecked(_) | Verdict::DoesNotApply(_) => {}
    }
    b += &format!("\nVerdict: {}\n", r.verdict.short());
    b += &signature(run);
    b
}

fn cex_block(run: &Run, c: &Cex, k: usize) -> String {
    let mut b = String::new();
    b += &fill(&c.line, "Result:  ", "         ");
    b += "\nCounterexample\n--------------\n";
    b += &fill(
        "The shortest call sequence that breaks it (the search is breadth-first, so \
         there is none shorter in this scope), each call with the harness request and \
         the kernel path it takes:",
        "",
        "",
    );
    b += "\n";
    for (i, (call, req, path)) in c.calls.iter().enumerate() {
        b += &pre(&format!("  {}. {call}", i + 1), "       ");
        b += &pre(&format!("     -> {req}: {path}"), "        ");
    }
    b += "\n";
    match &c.invariant {
        Some((name, desc, cons)) => {
            b += &fill(&format!("{name}: {desc}"), "Broken:  ", "         ");
            b += &fill(cons, "Effect:  ", "         ");
        }
        None => b += "Broken:  the C crashed (a BUG, a sanitizer report or a hang)\n",
    }
    b += &fill(&c.violation, "The C:   ", "         ");
    let mut model = c.model.lines();
    b += &fill(model.next().unwrap_or(""), "Model:   ", "         ");
    for l in model {
        b += &pre(&format!("  {}", l.trim_start()), "      ");
    }
    b += "\n";
    match &c.repro {
        Ok(code) => {
            b += &fill(
                "A reproducer: the same calls as system calls, for a kernel with these \
                 patches applied (cc -o repro repro.c && ./repro):",
                "",
                "",
            );
            b += "\n8<--- repro.c ---\n";
            for l in code.lines() {
                // a comment line goes on as a comment line
                b += &pre(l, if l.starts_with(" *") { " * " } else { "" });
            }
            b += "8<--- end of repro.c ---\n";
        }
        Err(why) => b += &fill(why, "No reproducer: ", "  "),
    }
    b += "\nTo re-derive it:\n\n";
    b += &commands(run, k, c.repro.is_ok());
    b
}

/// The summary reply to the cover letter (or, with no cover letter, a mail of its own), one
/// line per patch.
pub fn cover_reply(run: &Run, cover: Option<&Posting>, reviews: &[Review]) -> String {
    let mut b = match cover {
        Some(p) => headers(p) + &quote(p) + "\n",
        None => "Subject: rmapcheck: review of a series\nMIME-Version: 1.0\n\
                 Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n\n"
            .to_string(),
    };
    b += &fill(
        &format!(
            "rmapcheck checked this series as C, patch by patch, each applied on top of the \
             ones before it to a copy of the {} tree below. One reply per patch follows; in \
             short:",
            run.release
        ),
        "",
        "",
    );
    b += "\n";
    for r in reviews {
        let title = r.posting.subject.clone();
        b += &pre(
            &format!(
                "  {:<8} {}: {}",
                r.posting.numbered(),
                r.verdict.short(),
                title
            ),
            "             ",
        );
    }
    b += "\n";
    b += &fill(
        &format!("{}, the tree at:", run.release),
        "Tree:    ",
        "         ",
    );
    b += &pre(&run.tree, "");
    b += &fill(&run.scope, "Scope:   ", "         ");
    b += &fill(&run.invariants, "Checks:  ", "         ");
    b += &signature(run);
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn review(v: Verdict) -> Review {
        Review {
            posting: Posting {
                index: 2,
                total: 3,
                version: 2,
                subject: "[PATCH v2 2/3] mm/vma: a subject long enough to need folding once it has Re: in front"
                    .into(),
                message_id: Some("<two@x>".into()),
                references: vec!["<zero@x>".into()],
                from: Some("A Tester <t@x>".into()),
                ..Posting::default()
            },
            built: vec!["mm/vma.c".into()],
            outside: vec![],
            superseded: vec![],
            verdict: v,
        }
    }

    fn run() -> Run {
        Run {
            tool: "rmapcheck 0.1.0".into(),
            tree: "/a/tree".into(),
            release: "7.3.0-rc7".into(),
            series: "s.mbox".into(),
            scope: "scope default: depth 2 ".repeat(8),
            invariants: "checked on the C: rb-shape".into(),
            model: "m".into(),
            flags: vec!["--max-depth".into(), "2".into()],
        }
    }

    #[test]
    fn long_preformatted_lines_break_at_spaces() {
        let l = format!(" * /{}", "r".repeat(78));
        assert_eq!(pre(&l, ""), format!(" *\n/{}\n", "r".repeat(78)));
        let l = format!("  1. {}", "word ".repeat(30));
        for x in pre(&l, "     ").lines() {
            assert!(x.chars().count() <= WIDTH && !x.ends_with(' '), "{x:?}");
        }
        assert_eq!(pre(&"x".repeat(100), "").lines().count(), 2);
    }

    #[test]
    fn a_reply_is_threaded_and_fits_80_columns() {
        let cex = Cex {
            line: "COUNTEREXAMPLE".into(),
            invariant: Some(("augment".into(), "d".into(), "c".into())),
            violation: "x ".repeat(100),
            calls: vec![("sys_mmap(f, 0, 1)".into(), "r".repeat(120), "p".into())],
            model: "m".into(),
            repro: Ok("int main(void)\n{\n}\n".into()),
        };
        let t = patch_reply(&run(), &review(Verdict::Counterexample(Box::new(cex))), 2);
        assert!(t.starts_with("Subject: Re: [PATCH v2 2/3] mm/vma:"), "{t}");
        assert!(
            t.contains("\nIn-Reply-To: <two@x>\nReferences: <zero@x> <two@x>\n"),
            "{t}"
        );
        assert!(t.contains("--patch 1.patch --patch 2.patch"), "{t}");
        assert!(
            t.contains("  $ rmapcheck review \"$series\" --kernel \"$tree\" --max-depth 2 -o replies.mbox\n"),
            "{t}"
        );
        assert!(t.contains("2.patch \\\n        --max-depth 2"), "{t}");
        assert!(t.contains("\n-- \nrmapcheck 0.1.0,"), "{t}");
        for l in t.lines() {
            assert!(l.chars().count() <= WIDTH, "{l:?}");
        }
        let m = mbox(&[t]);
        assert!(m.starts_with("From rmapcheck "), "{m}");
    }
}
