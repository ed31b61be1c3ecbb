//! The text side of `rmapcheck drift`: a kernel function's definition cut out of its file, both
//! it and the model function reduced to C tokens (comments and whitespace dropped), and a
//! token-level unified diff of the two. The kernel text is read as plain C: identifiers,
//! numbers, string and character literals, and punctuation (the multi-character operators as
//! one token); preprocessor lines inside a body are kept as tokens too.

use similar::{ChangeTag, TextDiff};

/// Where the comment starting at byte `i` of `text` ends (past its end), if one starts there.
fn comment_end(text: &str, i: usize) -> Option<usize> {
    let rest = &text[i..];
    if rest.starts_with("//") {
        return Some(i + rest.find('\n').unwrap_or(rest.len()));
    }
    rest.strip_prefix("/*")
        .map(|body| i + body.find("*/").map_or(rest.len(), |e| e + 4))
}

/// The C tokens of `text`, without comments and whitespace.
pub(crate) fn c_tokens(text: &str) -> Vec<String> {
    const OPS: [&str; 19] = [
        "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
        "+=", "-=", "*=", "|=", "&=",
    ];
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if let Some(end) = comment_end(text, i) {
            i = end;
        } else if c == b'"' || c == b'\'' {
            let mut j = i + 1;
            while j < b.len() && b[j] != c {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(b.len());
            out.push(text[i..end].to_string());
            i = end;
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            out.push(text[i..j].to_string());
            i = j;
        } else {
            let op = OPS.iter().find(|o| text[i..].starts_with(*o));
            let n = op.map_or_else(
                || text[i..].chars().next().map_or(1, char::len_utf8),
                |o| o.len(),
            );
            out.push(text[i..i + n].to_string());
            i += n;
        }
    }
    out
}

/// The definition starting at 1-based `line` of `text`, up to the brace that closes its body
/// (comments are skipped when counting braces); `None` when no body follows.
pub(crate) fn definition_text(text: &str, line: usize) -> Option<&str> {
    let start = text
        .split_inclusive('\n')
        .take(line - 1)
        .map(str::len)
        .sum::<usize>();
    let b = text.as_bytes();
    let (mut i, mut depth, mut opened) = (start, 0usize, false);
    while i < b.len() {
        if let Some(end) = comment_end(text, i) {
            i = end;
            continue;
        }
        match b[i] {
            b'{' => {
                depth += 1;
                opened = true;
            }
            b'}' if opened => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[start..=i]);
                }
            }
            b';' if !opened => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

/// A token-level comparison of a model function with its kernel counterpart.
pub(crate) struct TokenDiff {
    /// Tokens of the model and of the kernel text.
    pub model_tokens: usize,
    pub kernel_tokens: usize,
    /// Tokens only in one of them.
    pub changed: usize,
    /// Unified diff, one token per line (`-` model, `+` kernel), with 3 tokens of context.
    pub unified: String,
}

impl TokenDiff {
    pub(crate) fn in_sync(&self) -> bool {
        self.changed == 0
    }
}

/// Compare `model` with `kernel` token by token.
#[cfg(test)]
pub(crate) fn token_diff(model: &str, kernel: &str) -> TokenDiff {
    token_diff_tokens(&c_tokens(model), &c_tokens(kernel))
}

/// Compare the tokens of a model function (stand-ins already rewritten) with the kernel's.
pub(crate) fn token_diff_tokens(m: &[String], k: &[String]) -> TokenDiff {
    let (mt, kt) = (m.join("\n") + "\n", k.join("\n") + "\n");
    let d = TextDiff::from_lines(&mt, &kt);
    let changed = d
        .iter_all_changes()
        .filter(|c| c.tag() != ChangeTag::Equal)
        .count();
    let unified = d
        .unified_diff()
        .context_radius(3)
        .header("model", "kernel")
        .to_string();
    TokenDiff {
        model_tokens: m.len(),
        kernel_tokens: k.len(),
        changed,
        unified,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_drop_comments_and_keep_operators() {
        let t = c_tokens("a->b += 1; /* x */ // y\n if (p && q) \"s;\" 'c'");
        assert_eq!(
            t,
            ["a", "->", "b", "+=", "1", ";", "if", "(", "p", "&&", "q", ")", "\"s;\"", "'c'"]
        );
    }

    #[test]
    fn definition_text_ends_at_the_closing_brace() {
        let c = "int f(int a);\nint f(int a)\n{\n\tif (a) { /* } */ return 1; }\n\treturn 0;\n}\nint g;\n";
        assert_eq!(definition_text(c, 1), None);
        let d = definition_text(c, 2).unwrap();
        assert!(
            d.starts_with("int f(int a)\n{") && d.ends_with("return 0;\n}"),
            "{d}"
        );
    }

    #[test]
    fn whitespace_and_comments_do_not_count_a_changed_token_does() {
        let same = token_diff(
            "int f(void) { return 1; }",
            "int\nf(void)\n{\n\t/* c */ return 1;\n}",
        );
        assert!(same.in_sync());
        let other = token_diff("int f(void) { return 1; }", "int f(void) { return 2; }");
        assert_eq!(other.changed, 2);
        assert!(other.unified.contains("-1\n+2\n"), "{}", other.unified);
    }
}
