//! A posted series as rmapcheck reads it: an mbox (what `b4 am` writes, or a mailbox export), a
//! directory of `git format-patch` files, or one diff. The mbox is cut into mails at its
//! `From ` separator lines (and `>From ` unquoted, as mboxrd writes body lines); each mail's
//! headers and body are read by the `mailparse` crate (folded headers, encoded words,
//! quoted-printable and base64 bodies, MIME parts). Patches are ordered by the `k/n` of their
//! `[PATCH vN k/n]` subject prefix; the cover letter (0/n) is kept apart; replies (`Re:`) and
//! older versions of the series in the same mailbox are left out, and said so.

use mailparse::MailHeaderMap;
use std::path::Path;

/// One mail of the series.
#[derive(Clone, Debug, Default)]
pub struct Posting {
    /// k of `k/n` (0: the cover letter; 1 for a patch with no `k/n`).
    pub index: usize,
    /// n of `k/n` (1 for a patch with no `k/n`).
    pub total: usize,
    /// N of `vN` (1 when the subject has none).
    pub version: u32,
    /// The subject as posted, unfolded.
    pub subject: String,
    pub message_id: Option<String>,
    /// The mail's own `References:` ids, in order.
    pub references: Vec<String>,
    pub from: Option<String>,
    pub date: Option<String>,
    /// The decoded text body.
    pub body: String,
}

impl Posting {
    /// The body's diff: from its first `diff --git` line, or its first `--- ` line followed by
    /// a `+++ ` line. Empty when the mail has none.
    pub fn diff(&self) -> String {
        let lines: Vec<&str> = self.body.lines().collect();
        let start = lines.iter().enumerate().position(|(i, l)| {
            l.starts_with("diff --git ")
                || (l.starts_with("--- ")
                    && lines.get(i + 1).is_some_and(|n| n.starts_with("+++ ")))
        });
        match start {
            None => String::new(),
            Some(s) => lines[s..].join("\n") + "\n",
        }
    }

    /// The `k/n` of the subject as `[PATCH vN k/n]` writes it.
    pub fn numbered(&self) -> String {
        if self.version > 1 {
            format!("v{} {}/{}", self.version, self.index, self.total)
        } else {
            format!("{}/{}", self.index, self.total)
        }
    }
}

/// The series: its cover letter, its patches in order, and what was left out of the input.
#[derive(Debug, Default)]
pub struct Series {
    pub cover: Option<Posting>,
    pub patches: Vec<Posting>,
    pub left_out: Vec<String>,
}

/// The `[...]` prefix of a patch subject: (version, k, n), or None when the subject is not a
/// patch's (no `PATCH` in its first bracket).
pub fn prefix(subject: &str) -> Option<(u32, Option<(usize, usize)>)> {
    let s = subject.trim_start();
    let inner = s.strip_prefix('[')?.split_once(']')?.0;
    let words: Vec<&str> = inner.split_whitespace().collect();
    if !words.iter().any(|w| w.eq_ignore_ascii_case("PATCH")) {
        return None;
    }
    let mut version = 1;
    let mut kn = None;
    for w in words {
        if let Some(v) = w.strip_prefix(['v', 'V']).and_then(|v| v.parse().ok()) {
            version = v;
        } else if let Some((k, n)) = w.split_once('/') {
            if let (Ok(k), Ok(n)) = (k.parse(), n.parse()) {
                kn = Some((k, n));
            }
        }
    }
    Some((version, kn))
}

/// Cut an mbox into its mails: a new mail at each `From ` line that opens the file or follows
/// a blank line; `>From ` lines (any number of `>`) lose one `>`, as mboxrd quotes them.
pub fn split_mbox(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur: Option<String> = None;
    let mut blank = true;
    for l in text.split_inclusive('\n') {
        if l.starts_with("From ") && blank {
            if let Some(m) = cur.take() {
                out.push(m);
            }
            cur = Some(String::new());
            blank = false;
            continue;
        }
        blank = l.trim_end_matches(['\n', '\r']).is_empty();
        let unquoted = match l.strip_prefix('>') {
            Some(rest) if rest.trim_start_matches('>').starts_with("From ") => rest,
            _ => l,
        };
        cur.get_or_insert_with(String::new).push_str(unquoted);
    }
    out.extend(cur);
    out
}

/// Angle-bracketed ids in a header value, in order.
fn ids(v: &str) -> Vec<String> {
    v.split('<')
        .skip(1)
        .filter_map(|p| p.split_once('>').map(|(id, _)| format!("<{}>", id.trim())))
        .collect()
}

/// One mail, read by `mailparse`; `what` names it in errors.
pub fn parse(raw: &str, what: &str) -> Result<Posting, String> {
    let m = mailparse::parse_mail(raw.as_bytes()).map_err(|e| format!("{what}: {e}"))?;
    let get = |h: &str| m.headers.get_first_value(h);
    let subject = get("Subject").ok_or_else(|| format!("{what}: no Subject: header"))?;
    let body = text_body(&m).map_err(|e| format!("{what}: {e}"))?;
    let mut p = Posting {
        subject: subject.split_whitespace().collect::<Vec<_>>().join(" "),
        message_id: get("Message-ID").and_then(|v| ids(&v).into_iter().next()),
        references: get("References").map(|v| ids(&v)).unwrap_or_default(),
        from: get("From"),
        date: get("Date"),
        body,
        index: 1,
        total: 1,
        version: 1,
    };
    if let Some((v, kn)) = prefix(&p.subject) {
        p.version = v;
        if let Some((k, n)) = kn {
            p.index = k;
            p.total = n;
        }
    }
    Ok(p)
}

/// The first text/plain part's decoded text (the whole body when the mail is not multipart).
fn text_body(m: &mailparse::ParsedMail) -> Result<String, String> {
    if m.subparts.is_empty() {
        return m.get_body().map_err(|e| e.to_string());
    }
    for p in &m.subparts {
        if p.ctype.mimetype.eq_ignore_ascii_case("text/plain") || !p.subparts.is_empty() {
            let t = text_body(p)?;
            if !t.is_empty() {
                return Ok(t);
            }
        }
    }
    Err("no text/plain part".into())
}

/// Whether `text` reads as mail (an mbox `From ` line, or a header line first) rather than a
/// bare diff.
fn is_mail(text: &str) -> bool {
    let first = text.lines().next().unwrap_or("");
    first.starts_with("From ")
        || first.split_once(':').is_some_and(|(k, _)| {
            !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
}

/// Read the series at `path` (an mbox, a directory of format-patch files, or one diff).
pub fn read(path: &Path) -> Result<Series, String> {
    let mut mails: Vec<(String, String)> = Vec::new();
    if path.is_dir() {
        let mut files: Vec<_> = std::fs::read_dir(path)
            .map_err(|e| format!("{}: {e}", path.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.is_file()
                    && p.extension().is_some_and(|x| {
                        ["patch", "eml", "mbx", "mbox"].contains(&&*x.to_string_lossy())
                    })
            })
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(format!(
                "{}: no *.patch, *.eml, *.mbx or *.mbox file in the directory",
                path.display()
            ));
        }
        for f in files {
            let t = read_text(&f)?;
            for (i, m) in split_mbox(&t).into_iter().enumerate() {
                mails.push((format!("{} (mail {})", f.display(), i + 1), m));
            }
        }
    } else {
        let t = read_text(path)?;
        if !is_mail(&t) {
            if !t.lines().any(|l| l.starts_with("+++ ")) {
                return Err(format!(
                    "{}: neither mail (an mbox or a format-patch file) nor a unified diff",
                    path.display()
                ));
            }
            let name = path
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into());
            return Ok(Series {
                cover: None,
                patches: vec![Posting {
                    index: 1,
                    total: 1,
                    version: 1,
                    subject: format!("[PATCH] {name}"),
                    body: t,
                    ..Posting::default()
                }],
                left_out: Vec::new(),
            });
        }
        for (i, m) in split_mbox(&t).into_iter().enumerate() {
            mails.push((format!("{} (mail {})", path.display(), i + 1), m));
        }
    }
    let mut postings = Vec::new();
    for (what, raw) in &mails {
        postings.push((what.clone(), parse(raw, what)?));
    }
    order(postings)
}

fn read_text(p: &Path) -> Result<String, String> {
    let b = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
    Ok(String::from_utf8_lossy(&b).into_owned())
}

/// The series from its mails (`what` names each in errors): the newest version's patches in
/// `k/n` order.
pub fn order(postings: Vec<(String, Posting)>) -> Result<Series, String> {
    let mut s = Series::default();
    let mut kept = Vec::new();
    for (what, p) in postings {
        let reply = p
            .subject
            .get(..3)
            .is_some_and(|r| r.eq_ignore_ascii_case("re:"));
        if reply || prefix(&p.subject).is_none() {
            s.left_out
                .push(format!("{what}: not a patch ({:?})", p.subject));
        } else {
            kept.push((what, p));
        }
    }
    let newest = kept.iter().map(|(_, p)| p.version).max();
    let Some(newest) = newest else {
        return Err(
            "no patch in the series (no mail whose subject starts with [PATCH ...])".into(),
        );
    };
    let mut total = None;
    for (what, p) in kept {
        if p.version != newest {
            s.left_out.push(format!(
                "{what}: v{} (the series is read at v{newest})",
                p.version
            ));
            continue;
        }
        if *total.get_or_insert(p.total) != p.total {
            return Err(format!(
                "{what}: {:?} says the series has {} patches, another mail says {}",
                p.subject,
                p.total,
                total.unwrap_or(0)
            ));
        }
        if p.index == 0 {
            s.cover = Some(p);
        } else if s.patches.iter().any(|q: &Posting| q.index == p.index) {
            return Err(format!("{what}: a second patch {}", p.numbered()));
        } else {
            s.patches.push(p);
        }
    }
    s.patches.sort_by_key(|p| p.index);
    let n = total.unwrap_or(0);
    for k in 1..=n {
        if !s.patches.iter().any(|p| p.index == k) {
            return Err(format!(
                "patch {k}/{n} of v{newest} is not in the series: every patch is needed to apply \
                 the ones after it"
            ));
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subject_prefixes() {
        assert_eq!(prefix("[PATCH v2 3/7] mm: x"), Some((2, Some((3, 7)))));
        assert_eq!(prefix("[RFC PATCH 0/2] mm: x"), Some((1, Some((0, 2)))));
        assert_eq!(
            prefix("[PATCH mm-unstable v3 01/10] x"),
            Some((3, Some((1, 10))))
        );
        assert_eq!(prefix("[PATCH] x"), Some((1, None)));
        assert_eq!(prefix("Re: [PATCH 1/2] x"), None);
        assert_eq!(prefix("[GIT PULL] x"), None);
    }

    const MBOX: &str = "From a@b Sun Dec  6 00:00:00 2026\n\
Subject: [PATCH v2 2/2] second\n Folded\nMessage-ID: <two@x>\nReferences: <zero@x>\n\n\
body two\n>From the quoted line\n\nFrom a@b Sun Dec  6 00:00:00 2026\n\
Subject: [PATCH v2 1/2] first\nMessage-ID: <one@x>\nContent-Transfer-Encoding: quoted-printable\n\n\
a=3Db\n--- a/mm/vma.c\n+++ b/mm/vma.c\n@@ -1 +1 @@\n-x\n+y\n\n\
From a@b Sun Dec  6 00:00:00 2026\nSubject: Re: [PATCH v2 1/2] first\nMessage-ID: <r@x>\n\nok\n\n\
From a@b Sun Dec  6 00:00:00 2026\nSubject: [PATCH 1/1] old\nMessage-ID: <old@x>\n\nold\n";

    #[test]
    fn an_mbox_is_read_in_order_without_replies_and_older_versions() {
        let ms = split_mbox(MBOX);
        assert_eq!(ms.len(), 4);
        let ps: Vec<(String, Posting)> = ms
            .iter()
            .enumerate()
            .map(|(i, m)| (format!("mail {i}"), parse(m, "m").unwrap()))
            .collect();
        let s = order(ps).unwrap();
        assert_eq!(s.patches.len(), 2);
        assert_eq!(s.patches[0].subject, "[PATCH v2 1/2] first");
        assert_eq!(s.patches[0].body.lines().next(), Some("a=b"));
        assert_eq!(s.patches[0].diff().lines().next(), Some("--- a/mm/vma.c"));
        assert_eq!(s.patches[1].subject, "[PATCH v2 2/2] second Folded");
        assert_eq!(s.patches[1].message_id.as_deref(), Some("<two@x>"));
        assert_eq!(s.patches[1].references, vec!["<zero@x>".to_string()]);
        assert!(
            s.patches[1].body.contains("\nFrom the quoted line"),
            "{:?}",
            s.patches[1].body
        );
        assert_eq!(s.left_out.len(), 2, "{:?}", s.left_out);
    }

    #[test]
    fn a_missing_patch_is_an_error() {
        let ps = vec![(
            "m".to_string(),
            parse("Subject: [PATCH 2/2] x\n\nb\n", "m").unwrap(),
        )];
        let e = order(ps).unwrap_err();
        assert!(e.contains("patch 1/2 of v1 is not in the series"), "{e}");
    }
}
