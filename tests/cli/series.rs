//! A patch series made at test time, as a reviewer receives one: edits we wrote (a short anchor
//! that must occur once in the tree's file, and its replacement), applied one patch after the
//! other to the tree's files in memory, each patch a unified diff made by `diff -u` against the
//! files as the patches before it left them, and the patches wrapped as mails in one mbox with a
//! cover letter, as `b4 am` writes one. No kernel text is stored in the repository.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// One edit: in `file`, the one occurrence of `find` becomes `replace`.
pub struct Edit {
    pub file: &'static str,
    pub find: &'static str,
    pub replace: &'static str,
}

/// One patch of a series: its subject (without the `[PATCH v2 k/n]` prefix), the commit
/// message and its edits. `raw` replaces the diff made from the edits (a patch that does not
/// apply).
pub struct Patch {
    pub subject: &'static str,
    pub body: &'static str,
    pub edits: Vec<Edit>,
    pub raw: Option<String>,
}

/// The files of `tree` as the patches edit them, in memory.
pub struct Files<'a> {
    tree: &'a Path,
    now: BTreeMap<&'static str, Option<String>>,
}

impl<'a> Files<'a> {
    pub fn new(tree: &'a Path) -> Files<'a> {
        Files {
            tree,
            now: BTreeMap::new(),
        }
    }

    fn text(&mut self, f: &'static str) -> Option<String> {
        let t = self.tree;
        self.now
            .entry(f)
            .or_insert_with(|| std::fs::read_to_string(t.join(f)).ok())
            .clone()
    }

    /// The unified diff of `edits` against the files as they are now, which the edits then
    /// change. An anchor that is not in the file exactly once panics (the test is wrong).
    pub fn diff(&mut self, edits: &[Edit]) -> String {
        let mut order: Vec<&'static str> = Vec::new();
        let mut before: BTreeMap<&'static str, String> = BTreeMap::new();
        for e in edits {
            let old = self.text(e.file).unwrap_or_default();
            before.entry(e.file).or_insert_with(|| old.clone());
            if !order.contains(&e.file) {
                order.push(e.file);
            }
            let new = if e.find.is_empty() {
                // a new file, or one the tree lacks
                format!("{old}{}", e.replace)
            } else {
                assert_eq!(old.matches(e.find).count(), 1, "{}: {:?}", e.file, e.find);
                old.replacen(e.find, e.replace, 1)
            };
            self.now.insert(e.file, Some(new));
        }
        let d = tempfile::tempdir().unwrap();
        let mut out = String::new();
        for f in order {
            let (a, b) = (d.path().join("a"), d.path().join("b"));
            std::fs::write(&a, &before[f]).unwrap();
            std::fs::write(&b, self.now[f].as_deref().unwrap()).unwrap();
            let o = Command::new("diff")
                .arg("-u")
                .arg(format!("--label=a/{f}"))
                .arg(format!("--label=b/{f}"))
                .arg(&a)
                .arg(&b)
                .output()
                .unwrap();
            assert_eq!(o.status.code(), Some(1), "{f}: the edits change nothing");
            out.push_str(&format!("diff --git a/{f} b/{f}\n"));
            out.push_str(&String::from_utf8(o.stdout).unwrap());
        }
        out
    }
}

/// The Message-ID of patch `k` of a series (0: the cover letter).
pub fn message_id(k: usize) -> String {
    format!("<20261206.{k}-v2-rmapcheck-test@example.org>")
}

/// The series as an mbox: a cover letter (0/n) and one mail per patch, each in reply to the
/// cover letter, as `git send-email` threads them. The mails are written in shuffled order,
/// so that the review must order them by their `[PATCH v2 k/n]`.
pub fn mbox(tree: &Path, cover: &str, patches: &[Patch]) -> String {
    let n = patches.len();
    let mut files = Files::new(tree);
    let mut mails = vec![mail(
        0,
        n,
        "mm: a series made at test time",
        &format!("{cover}\n"),
    )];
    for (i, p) in patches.iter().enumerate() {
        let diff = match &p.raw {
            Some(r) => r.clone(),
            None => files.diff(&p.edits),
        };
        let body = format!(
            "{}\n\nSigned-off-by: A Tester <tester@example.org>\n---\n{diff}-- \n2.47.0\n",
            p.body
        );
        mails.push(mail(i + 1, n, p.subject, &body));
    }
    // the cover letter last, the patches backwards: the review must sort them
    mails.reverse();
    mails.concat()
}

fn mail(k: usize, n: usize, subject: &str, body: &str) -> String {
    let reply = if k == 0 {
        String::new()
    } else {
        format!("In-Reply-To: {0}\nReferences: {0}\n", message_id(0))
    };
    // mboxrd: a body line starting with "From " is quoted
    let body: String = body
        .lines()
        .map(|l| {
            if l.trim_start_matches('>').starts_with("From ") {
                format!(">{l}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    format!(
        "From tester@example.org Sun Dec  6 05:00:0{k} 2026\n\
         From: A Tester <tester@example.org>\n\
         Date: Sun, 6 Dec 2026 05:00:0{k} +0000\n\
         Subject: [PATCH v2 {k}/{n}] {subject}\n\
         Message-ID: {}\n\
         {reply}\
         MIME-Version: 1.0\n\
         Content-Type: text/plain; charset=UTF-8\n\
         Content-Transfer-Encoding: 8bit\n\
         \n\
         {body}\n",
        message_id(k)
    )
}
