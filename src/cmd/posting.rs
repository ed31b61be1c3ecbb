//! The posting header of a patch model: the comment at the top of `models/patches/NAME.rmap`
//! that says which linux-mm posting the model stands for, as a kernel developer would cite it.
//!
//! The header names the posting by four fields, each on a comment line of its own
//! (`Subject:`, `Author:`, `Date:`, `Message-ID:`; `rmapcheck new` writes them as placeholders).
//! Subject and Date are required: every posting has them. A posting known only through replies
//! that quote it may lack an author's address or a Message-ID, so `Author:` and `Message-ID:`
//! may say `unknown`, optionally followed by why (`unknown (only quoted in a reply)`). A known
//! Message-ID is written in angle brackets. Only the first occurrence of each field counts (a
//! header may cite several messages of a thread; the first is the posting).

/// The fields of a posting header, in the order the template writes them.
pub const FIELDS: &[&str] = &["Subject", "Author", "Date", "Message-ID"];

/// The fields that may be `unknown`.
pub const MAY_BE_UNKNOWN: &[&str] = &["Author", "Message-ID"];

/// Placeholders of `rmapcheck new`'s template: a field that still holds one is not filled in.
pub const PLACEHOLDERS: &[&str] = &[
    "SUBJECT of the posting",
    "AUTHOR NAME",
    "DATE of the posting",
    "MESSAGE-ID of the posting",
];

/// The value of the first `FIELD:` line of the model's opening comment, if any.
fn field<'a>(comment: &'a str, name: &str) -> Option<&'a str> {
    comment.lines().find_map(|l| {
        let l = l.trim_start().trim_start_matches('*').trim_start();
        let rest = l.strip_prefix(name)?.strip_prefix(':')?;
        Some(rest.trim())
    })
}

/// Whether `v` is the unknown form: `unknown`, or `unknown (why)`.
pub fn is_unknown(v: &str) -> bool {
    v == "unknown" || (v.starts_with("unknown (") && v.ends_with(')'))
}

/// What is wrong with the posting header of a model's text: empty when it names the posting.
pub fn check(text: &str) -> Vec<String> {
    let t = text.trim_start();
    let Some(comment) = t
        .strip_prefix("/*")
        .and_then(|rest| rest.split_once("*/"))
        .map(|(c, _)| c)
    else {
        return vec!["the model does not start with a header comment".into()];
    };
    let mut bad = Vec::new();
    for &name in FIELDS {
        let Some(v) = field(comment, name) else {
            bad.push(format!("no `{name}:` line in the header"));
            continue;
        };
        if v.is_empty() {
            bad.push(format!("`{name}:` is empty"));
        } else if PLACEHOLDERS.iter().any(|p| v.contains(p)) {
            bad.push(format!(
                "`{name}:` still holds the template's placeholder: {v}"
            ));
        } else if is_unknown(v) {
            if !MAY_BE_UNKNOWN.contains(&name) {
                bad.push(format!("`{name}:` may not be unknown"));
            }
        } else if v.starts_with("unknown") {
            bad.push(format!("`{name}: {v}`: write `unknown` or `unknown (why)`"));
        } else if name == "Message-ID"
            && !(v.starts_with('<') && v.contains('@') && v.ends_with('>'))
        {
            bad.push(format!(
                "`Message-ID: {v}`: a Message-ID is `<local@domain>`, or `unknown`"
            ));
        }
    }
    bad
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(author: &str, mid: &str) -> String {
        format!(
            "/*\n * Patch, as posted to linux-mm:\n *   Subject:    [PATCH] mm: a change\n \
             *   Author:     {author}\n *   Date:       Thu, 6 Mar 2025 13:49:48 -0800\n \
             *   Message-ID: {mid}\n *\n * What it does.\n */\n#include \"x.rmap\"\n"
        )
    }

    #[test]
    fn a_full_header_and_the_unknown_forms_pass() {
        assert!(check(&header("A Developer <a@example.org>", "<1@example.org>")).is_empty());
        assert!(check(&header("unknown", "unknown")).is_empty());
        assert!(check(&header(
            "unknown (quoted in a reply)",
            "unknown (not in the copy we have)"
        ))
        .is_empty());
    }

    #[test]
    fn a_missing_placeholder_or_malformed_field_fires() {
        let bad = check(&header("A <a@b>", "20250306.example.org"));
        assert_eq!(bad.len(), 1, "{bad:?}");
        assert!(bad[0].contains("Message-ID"), "{bad:?}");
        let bad = check(&header("unknown, probably", "<1@b>"));
        assert!(bad[0].contains("unknown (why)"), "{bad:?}");
        let no_date = header("A <a@b>", "<1@b>").replace("Date:", "When:");
        assert_eq!(check(&no_date), vec!["no `Date:` line in the header"]);
        let unknown_date =
            header("A <a@b>", "<1@b>").replace("Thu, 6 Mar 2025 13:49:48 -0800", "unknown");
        assert_eq!(check(&unknown_date), vec!["`Date:` may not be unknown"]);
        assert_eq!(
            check("#include \"x\"\n"),
            vec!["the model does not start with a header comment"]
        );
    }
}
