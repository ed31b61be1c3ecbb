//! The model's documented stand-ins for kernel helpers, applied by `rmapcheck drift` to a model
//! function's tokens before they are compared with the kernel's: where the model calls one of
//! its builtins for what the kernel spells another way (`page_table_lock(mm)` for
//! `spin_lock(&mm->page_table_lock)`, `mapping_rmap_tree_insert(vma, mapping)` for
//! `vma_interval_tree_insert(vma, &mapping->i_mmap)`), the model's form is rewritten into the
//! kernel's, so a transcribed function differs only where it really does.
//!
//! The table is a TOML file (`stand-ins.toml` beside the model, or `--stand-ins FILE`), one
//! `[[stand_in]]` per helper: `model` and `kernel` are C token patterns in which `$name` stands
//! for one argument, a run of tokens balanced in brackets that ends where the pattern's next
//! token appears outside any bracket. Every `$name` of `kernel` must appear in `model`, and in
//! `model` each `$name` must be followed by a plain token. Rules are tried in file order at each
//! token; the first that matches is rewritten (its arguments rewritten too) and the scan goes on
//! after it.

use super::text::c_tokens;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One token of a pattern: a C token to match, or an argument.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Pat {
    Tok(String),
    Arg(String),
}

/// The arguments a match bound: each `$name` with its tokens.
type Args = Vec<(String, Vec<String>)>;

/// One stand-in: the model's form and the kernel's.
#[derive(Clone, Debug)]
struct Rule {
    model: Vec<Pat>,
    kernel: Vec<Pat>,
}

/// The stand-ins of one table.
#[derive(Clone, Debug, Default)]
pub(crate) struct StandIns {
    rules: Vec<Rule>,
    /// Where they were read from (none: no table).
    pub source: Option<PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    #[serde(default)]
    stand_in: Vec<RawRule>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    model: String,
    kernel: String,
    /// What the stand-in is (for readers of the table; drift does not print it).
    #[serde(default, rename = "note")]
    _note: String,
}

/// The tokens of a pattern, `$name` read as an argument.
fn pattern(text: &str) -> Result<Vec<Pat>, String> {
    let toks = c_tokens(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i] == "$" {
            let name = toks.get(i + 1).filter(|t| {
                t.chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            });
            let Some(name) = name else {
                return Err(format!("{text:?}: `$` must be followed by a name"));
            };
            out.push(Pat::Arg(name.clone()));
            i += 2;
        } else {
            out.push(Pat::Tok(toks[i].clone()));
            i += 1;
        }
    }
    Ok(out)
}

impl Rule {
    fn new(r: &RawRule) -> Result<Rule, String> {
        let (model, kernel) = (pattern(&r.model)?, pattern(&r.kernel)?);
        match model.first() {
            Some(Pat::Tok(_)) => {}
            _ => {
                return Err(format!(
                    "model {:?}: must start with a plain token",
                    r.model
                ))
            }
        }
        for (i, p) in model.iter().enumerate() {
            if let Pat::Arg(a) = p {
                if !matches!(model.get(i + 1), Some(Pat::Tok(_))) {
                    return Err(format!(
                        "model {:?}: ${a} must be followed by a plain token",
                        r.model
                    ));
                }
            }
        }
        for p in &kernel {
            if let Pat::Arg(a) = p {
                if !model.contains(p) {
                    return Err(format!(
                        "kernel {:?}: ${a} does not appear in the model form {:?}",
                        r.kernel, r.model
                    ));
                }
            }
        }
        Ok(Rule { model, kernel })
    }

    /// The arguments if the rule's model form matches `toks` at `at`, and where the match ends.
    fn matches(&self, toks: &[String], at: usize) -> Option<(Args, usize)> {
        let mut args = Vec::new();
        let mut j = at;
        for (i, p) in self.model.iter().enumerate() {
            match p {
                Pat::Tok(t) => {
                    if toks.get(j) != Some(t) {
                        return None;
                    }
                    j += 1;
                }
                Pat::Arg(a) => {
                    let Some(Pat::Tok(stop)) = self.model.get(i + 1) else {
                        return None;
                    };
                    let end = argument_end(toks, j, stop)?;
                    args.push((a.clone(), toks[j..end].to_vec()));
                    j = end;
                }
            }
        }
        Some((args, j))
    }
}

/// Where an argument starting at `from` ends: the first `stop` outside any bracket, after at
/// least one token; `None` when a bracket closes first or the tokens run out.
fn argument_end(toks: &[String], from: usize, stop: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (j, t) in toks.iter().enumerate().skip(from) {
        if depth == 0 && t == stop && j > from {
            return Some(j);
        }
        match t.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth = depth.checked_sub(1)?,
            _ => {}
        }
    }
    None
}

impl StandIns {
    /// The table in `path`; `Err` reads `path:line:col: message`.
    pub(crate) fn load(path: &Path) -> Result<StandIns, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let raw: RawTable =
            crate::toml_diag::parse(&text).map_err(|e| format!("{}:{e}", path.display()))?;
        let mut rules = Vec::new();
        for r in &raw.stand_in {
            let rule = Rule::new(r).map_err(|e| {
                let at = crate::toml_diag::position_of(&text, &r.model);
                format!("{}:{at}: stand-in {e}", path.display())
            })?;
            rules.push(rule);
        }
        Ok(StandIns {
            rules,
            source: Some(path.to_path_buf()),
        })
    }

    /// How many stand-ins the table has.
    pub(crate) fn len(&self) -> usize {
        self.rules.len()
    }

    /// `toks` with every stand-in rewritten into the kernel's form, and how many were.
    pub(crate) fn apply(&self, toks: &[String]) -> (Vec<String>, usize) {
        let (mut out, mut n, mut i) = (Vec::new(), 0, 0);
        'scan: while i < toks.len() {
            for r in &self.rules {
                if let Some((args, end)) = r.matches(toks, i) {
                    for p in &r.kernel {
                        match p {
                            Pat::Tok(t) => out.push(t.clone()),
                            Pat::Arg(a) => {
                                let arg = args.iter().find(|(x, _)| x == a).map(|(_, v)| v);
                                let (inner, k) = self.apply(arg.map_or(&[][..], |v| v));
                                out.extend(inner);
                                n += k;
                            }
                        }
                    }
                    n += 1;
                    i = end;
                    continue 'scan;
                }
            }
            out.push(toks[i].clone());
            i += 1;
        }
        (out, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rules: &[(&str, &str)]) -> StandIns {
        let rules = rules
            .iter()
            .map(|(m, k)| {
                Rule::new(&RawRule {
                    model: m.to_string(),
                    kernel: k.to_string(),
                    _note: String::new(),
                })
                .unwrap()
            })
            .collect();
        StandIns {
            rules,
            source: None,
        }
    }

    #[test]
    fn arguments_are_balanced_runs_and_are_rewritten_too() {
        let t = table(&[
            ("page_table_lock($mm)", "spin_lock(&$mm->page_table_lock)"),
            ("vma_mm($v)", "$v->vm_mm"),
        ]);
        let (out, n) = t.apply(&c_tokens("page_table_lock(vma_mm(f(a, b)));"));
        assert_eq!(
            out.join(" "),
            "spin_lock ( & f ( a , b ) -> vm_mm -> page_table_lock ) ;"
        );
        assert_eq!(n, 2);
    }

    #[test]
    fn bad_patterns_are_refused() {
        let bad = |m: &str, k: &str| {
            Rule::new(&RawRule {
                model: m.into(),
                kernel: k.into(),
                _note: String::new(),
            })
            .unwrap_err()
        };
        assert!(bad("$a(x)", "f(x)").contains("plain token"));
        assert!(bad("f($a $b)", "g").contains("followed by a plain token"));
        assert!(bad("f($a)", "g($b)").contains("does not appear"));
        assert!(bad("f($)", "g").contains("followed by a name"));
    }
}
