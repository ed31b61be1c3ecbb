//! Text surgery on a kernel tree's C files, done at build time on copies in the harness's
//! build directory (the tree itself is never written): find a top-level definition by name,
//! cut it out of a copy (a stub the harness replaces), or take it out of the tree's file to
//! compile it (a kernel function the harness builds). Every lookup that fails is an error
//! naming the file and the definition, so a future tree that no longer matches fails loudly.

use std::path::Path;

/// What kind of top-level definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Def {
    /// A function definition whose first line (at column 0) names `NAME(`; the return type may
    /// sit on the lines before it.
    Function,
    /// `struct NAME {` at column 0, through its closing `};`.
    Struct,
}

/// Lines `[first, last]` (0-based, inclusive) of the definition of `name` in `text`.
pub fn find(text: &str, name: &str, kind: Def) -> Option<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let head = |l: &str| match kind {
        Def::Struct => l.starts_with(&format!("struct {name} {{")),
        Def::Function => {
            !l.starts_with(|c: char| c.is_whitespace() || c == '#' || c == '/' || c == '*')
                && !l.trim_end().ends_with(';')
                && names_call(l, name)
        }
    };
    let at = lines.iter().position(|l| head(l))?;
    // the return type and attributes on the lines before (a function's declaration head)
    let first = if kind == Def::Function {
        head_start(&lines, at)
    } else {
        at
    };
    let mut depth = 0i64;
    let mut opened = false;
    for (i, l) in lines.iter().enumerate().skip(at) {
        for c in l.chars() {
            match c {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        if opened && depth == 0 {
            return Some((first, i));
        }
    }
    None
}

/// Whether line `l` contains `name(` as a whole identifier.
fn names_call(l: &str, name: &str) -> bool {
    let pat = format!("{name}(");
    l.match_indices(&pat).any(|(i, _)| {
        i == 0 || {
            let b = l.as_bytes()[i - 1];
            !(b.is_ascii_alphanumeric() || b == b'_')
        }
    })
}

/// The text of the definitions `names` of `file`, in that order, separated by blank lines.
pub fn extract(file: &Path, names: &[&str], kind: Def) -> Result<String, String> {
    let text = read(file)?;
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for n in names {
        let (a, b) = find(&text, n, kind).ok_or_else(|| missing(file, n, kind))?;
        out.push(lines[a..=b].join("\n"));
    }
    Ok(out.join("\n\n"))
}

/// [`extract`], each definition under a `#line` directive naming its line in `shown` (the
/// file's path in the tree), so that `__FILE__` and `__LINE__` in it name the kernel's line
/// (the walker checkpoints name the kernel function and line of each lock operation).
pub fn extract_lined(
    file: &Path,
    shown: &str,
    names: &[&str],
    kind: Def,
) -> Result<String, String> {
    let text = read(file)?;
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for n in names {
        let (a, b) = find(&text, n, kind).ok_or_else(|| missing(file, n, kind))?;
        out.push(format!(
            "#line {} \"{shown}\"\n{}",
            a + 1,
            lines[a..=b].join("\n")
        ));
    }
    Ok(out.join("\n\n"))
}

/// `text` without the definitions `names` (each replaced by a one-line comment); `what`
/// names the file in errors.
pub fn remove(text: &str, what: &str, names: &[&str], kind: Def) -> Result<String, String> {
    let mut t = text.to_string();
    for n in names {
        let (a, b) = find(&t, n, kind).ok_or_else(|| missing(Path::new(what), n, kind))?;
        let mut lines: Vec<String> = t.lines().map(str::to_string).collect();
        lines.splice(
            a..=b,
            [format!(
                "/* rmapcheck: {n} removed here, see cglue/glue.h */"
            )],
        );
        t = lines.join("\n") + "\n";
    }
    Ok(t)
}

/// `text` with the one occurrence of `from` replaced by `to`; an error when `from` occurs
/// other than once.
pub fn replace_once(text: &str, what: &str, from: &str, to: &str) -> Result<String, String> {
    match text.matches(from).count() {
        1 => Ok(text.replacen(from, to, 1)),
        n => Err(format!(
            "{what}: expected {from:?} once, found it {n} times: this tree's harness no longer \
             matches the one rmapcheck's glue was written for"
        )),
    }
}

/// The non-`static` functions `text` defines in kernel style (the body's `{` alone on a
/// column-0 line), except those named in `skip`: each one's name and head (return type,
/// name and parameters, as written, without the `;`).
pub fn exported(text: &str, skip: &[&str]) -> Vec<(String, String)> {
    definitions(text)
        .into_iter()
        .filter(|(name, head)| !head.starts_with("static") && !skip.contains(&name.as_str()))
        .collect()
}

/// Every function `text` defines in kernel style (the body's `{` alone on a column-0 line),
/// `static` or not: each one's name and head, as [`exported`] gives them.
pub fn definitions(text: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.trim_end() != "{" || i == 0 {
            continue;
        }
        let first = head_start(&lines, i);
        let head = lines[first..i].join("\n");
        let name = head.split('(').next().and_then(|h| {
            h.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .rfind(|w| !w.is_empty())
        });
        let Some(name) = name else { continue };
        if first == i || !head.contains('(') {
            continue;
        }
        out.push((name.to_string(), head));
    }
    out
}

/// Prototypes (`HEAD;`, one per line group) of the functions [`exported`] finds: the
/// declarations a file compiled later needs to be called before it, whatever functions a
/// patch adds to it.
pub fn prototypes(text: &str, skip: &[&str]) -> String {
    exported(text, skip)
        .into_iter()
        .map(|(_, head)| format!("{head};"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` without its `#include` lines.
pub fn drop_includes(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("#include"))
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) fn read(file: &Path) -> Result<String, String> {
    std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))
}

fn missing(file: &Path, name: &str, kind: Def) -> String {
    let k = match kind {
        Def::Function => "function",
        Def::Struct => "struct",
    };
    format!(
        "{}: no {k} {name} found: this tree no longer matches what rmapcheck's C harness \
         expects (the harness cannot be built from it)",
        file.display()
    )
}

/// The first line of the declaration head that ends above line `at`: back over the lines of
/// the return type and attributes, up to a blank line, a statement, a closing brace, a
/// comment or a preprocessor line.
fn head_start(lines: &[&str], at: usize) -> usize {
    let mut first = at;
    while first > 0 {
        let p = lines[first - 1].trim_end();
        if p.is_empty()
            || p.ends_with(';')
            || p.ends_with('}')
            || p.ends_with("*/")
            || p.starts_with('#')
            || p.starts_with("/*")
            || p.starts_with(" *")
        {
            break;
        }
        first -= 1;
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prototypes_of_the_exported_functions() {
        let t = "static int hidden(void)\n{\n}\n\nvoid shown(int a,\n\t   int b)\n{\n}\n\nstruct s *\nptr(void)\n{\n}\n\nvoid skipped(void)\n{\n}\n";
        assert_eq!(
            prototypes(t, &["skipped"]),
            "void shown(int a,\n\t   int b);\nstruct s *\nptr(void);"
        );
    }

    const C: &str = "/* c */\nstruct anon_vma {\n\tint a;\n};\n\nstatic inline void\nfoo(int x)\n{\n\tif (x) {\n\t\tbar(x);\n\t}\n}\nvoid bar(int y);\nint xfoo(void) { return 1; }\n";

    #[test]
    fn finds_functions_with_their_head_and_structs() {
        assert_eq!(find(C, "foo", Def::Function), Some((5, 11)));
        assert_eq!(find(C, "xfoo", Def::Function), Some((13, 13)));
        assert_eq!(find(C, "anon_vma", Def::Struct), Some((1, 3)));
        // a declaration is not a definition
        assert_eq!(find(C, "bar", Def::Function), None);
    }

    #[test]
    fn removes_and_fails_loudly() {
        let t = remove(C, "x.h", &["foo"], Def::Function).unwrap();
        assert!(!t.contains("bar(x)") && t.contains("foo removed"), "{t}");
        let e = remove(C, "x.h", &["nothere"], Def::Function).unwrap_err();
        assert!(e.contains("x.h: no function nothere"), "{e}");
        let e = replace_once(C, "x.h", "int", "long").unwrap_err();
        assert!(e.contains("found it 4 times"), "{e}");
    }
}
