//! The text op-list runner behind `rmapcheck tree`: parses lines such as `insert 10 19`,
//! `erase n2`, `rekey n1 40 49`, `query 0 15`, `validate`, runs them on one interval tree and
//! reports the results. Diagnostics read `FILE:LINE:COL: message`, followed by the offending
//! line and a caret under the offending word.
//!
//! Objects get ids 0, 1, 2, ... in the order `insert` creates them (written `n0` or `0`).
//! `insert_after ID PREV` inserts an existing object that is not in the tree, or, when ID is
//! the next unused id, a new object with PREV's interval (as fork copies a VMA). `rekey`
//! changes an object's interval without touching the tree, producing a stale key when the
//! object is in the tree. Exit status: 0 clean, 1 an invariant was reported (by `validate` or
//! a stale-descent during insert/query), 2 bad input.

use std::fmt::Write;

use super::interval;
use super::render::render;
use super::types::{IntervalKeys, NodeId, RbRoot, TreeError, TreeObs};
use super::validate::validate;

/// A word of an input line with its 1-based column (in characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    pub col: usize,
}

/// A parsed operation. Id arguments keep their word for runtime diagnostics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Insert {
        start: u64,
        last: u64,
    },
    InsertAfter {
        id: (NodeId, Word),
        prev: (NodeId, Word),
    },
    Erase {
        id: (NodeId, Word),
    },
    Rekey {
        id: (NodeId, Word),
        start: u64,
        last: u64,
    },
    Propagate {
        id: (NodeId, Word),
    },
    Query {
        first: u64,
        last: u64,
    },
    Print,
    Validate,
}

/// One operation with the 1-based line it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpLine {
    pub line: usize,
    pub op: Op,
}

/// A diagnostic anchored at a line and column (both 1-based), `len` characters wide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    pub line: usize,
    pub col: usize,
    pub len: usize,
    pub message: String,
}

impl Diag {
    fn at(line: usize, w: &Word, message: String) -> Self {
        Diag {
            line,
            col: w.col,
            len: w.text.chars().count().max(1),
            message,
        }
    }

    /// `FILE:LINE:COL: message`, then the source line and a caret line.
    pub fn render(&self, file: &str, src: &str) -> String {
        let text = src.lines().nth(self.line.saturating_sub(1)).unwrap_or("");
        let pad: String = text
            .chars()
            .take(self.col.saturating_sub(1))
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        format!(
            "{file}:{}:{}: {}\n{text}\n{pad}{}\n",
            self.line,
            self.col,
            self.message,
            "^".repeat(self.len)
        )
    }
}

/// Split a line (comment already removed) into words with their columns.
fn words(line: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut cur: Option<Word> = None;
    for (i, c) in line.chars().enumerate() {
        if c.is_whitespace() {
            if let Some(w) = cur.take() {
                out.push(w);
            }
        } else {
            match cur.as_mut() {
                Some(w) => w.text.push(c),
                None => {
                    cur = Some(Word {
                        text: c.to_string(),
                        col: i + 1,
                    })
                }
            }
        }
    }
    out.extend(cur);
    out
}

fn parse_u64(s: &str) -> Option<u64> {
    let s = s.replace('_', "");
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

fn parse_id(s: &str) -> Option<NodeId> {
    s.strip_prefix('n').unwrap_or(s).parse().ok()
}

const COMMANDS: &str = "insert, insert_after, erase, rekey, propagate, query, print, validate";

/// Parse one line; `Ok(None)` for blank and comment-only lines.
fn parse_line(lineno: usize, raw: &str) -> Result<Option<OpLine>, Diag> {
    let code = raw.split('#').next().unwrap_or("");
    let ws = words(code);
    let Some(cmd) = ws.first() else {
        return Ok(None);
    };
    let end_col = code.trim_end().chars().count() + 1;
    let arg = |i: usize, what: &str| -> Result<&Word, Diag> {
        ws.get(i).ok_or_else(|| Diag {
            line: lineno,
            col: end_col,
            len: 1,
            message: format!("`{}` expects {what} here", cmd.text),
        })
    };
    let num = |i: usize, what: &str| -> Result<u64, Diag> {
        let w = arg(i, what)?;
        parse_u64(&w.text).ok_or_else(|| {
            Diag::at(
                lineno,
                w,
                format!("expected a number for {what}, found `{}`", w.text),
            )
        })
    };
    let id = |i: usize, what: &str| -> Result<(NodeId, Word), Diag> {
        let w = arg(i, what)?;
        parse_id(&w.text).map(|n| (n, w.clone())).ok_or_else(|| {
            Diag::at(
                lineno,
                w,
                format!(
                    "expected a node id (like n3) for {what}, found `{}`",
                    w.text
                ),
            )
        })
    };
    let range = |i: usize, lo: &str, hi: &str| -> Result<(u64, u64), Diag> {
        let a = num(i, lo)?;
        let b = num(i + 1, hi)?;
        if b < a {
            return Err(Diag::at(
                lineno,
                &ws[i + 1],
                format!("{hi} ({b}) is below {lo} ({a})"),
            ));
        }
        Ok((a, b))
    };
    let (op, arity) = match cmd.text.as_str() {
        "insert" => {
            let (start, last) = range(1, "START", "LAST")?;
            (Op::Insert { start, last }, 3)
        }
        "insert_after" => (
            Op::InsertAfter {
                id: id(1, "ID")?,
                prev: id(2, "PREV")?,
            },
            3,
        ),
        "erase" => (Op::Erase { id: id(1, "ID")? }, 2),
        "rekey" => {
            let n = id(1, "ID")?;
            let (start, last) = range(2, "START", "LAST")?;
            (Op::Rekey { id: n, start, last }, 4)
        }
        "propagate" => (Op::Propagate { id: id(1, "ID")? }, 2),
        "query" => {
            let (first, last) = range(1, "FIRST", "LAST")?;
            (Op::Query { first, last }, 3)
        }
        "print" => (Op::Print, 1),
        "validate" => (Op::Validate, 1),
        other => {
            return Err(Diag::at(
                lineno,
                cmd,
                format!("unknown command `{other}` (expected one of: {COMMANDS})"),
            ))
        }
    };
    if let Some(extra) = ws.get(arity) {
        return Err(Diag::at(
            lineno,
            extra,
            format!(
                "unexpected extra argument `{}` to `{}`",
                extra.text, cmd.text
            ),
        ));
    }
    Ok(Some(OpLine { line: lineno, op }))
}

/// Parse a whole op list, collecting every syntax error.
pub fn parse_ops(src: &str) -> Result<Vec<OpLine>, Vec<Diag>> {
    let mut ops = Vec::new();
    let mut errs = Vec::new();
    for (i, raw) in src.lines().enumerate() {
        match parse_line(i + 1, raw) {
            Ok(Some(op)) => ops.push(op),
            Ok(None) => {}
            Err(d) => errs.push(d),
        }
    }
    if errs.is_empty() {
        Ok(ops)
    } else {
        Err(errs)
    }
}

/// What a run printed and how it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpsOutput {
    pub stdout: String,
    pub stderr: String,
    /// 0 clean, 1 invariant violations reported, 2 bad input.
    pub status: i32,
}

/// The objects of a run: `keys[id] = (start, last)`.
struct Objects(Vec<(u64, u64)>);

impl IntervalKeys for Objects {
    fn start(&self, n: NodeId) -> u64 {
        self.0.start(n)
    }
    fn last(&self, n: NodeId) -> u64 {
        self.0.last(n)
    }
}

impl Objects {
    fn known(&self, n: NodeId) -> bool {
        (n as usize) < self.0.len()
    }
}

fn label(n: NodeId) -> String {
    format!("n{n}")
}

/// Parse and run an op list named `file`.
pub fn run_ops(file: &str, src: &str) -> OpsOutput {
    let ops = match parse_ops(src) {
        Ok(ops) => ops,
        Err(diags) => {
            return OpsOutput {
                stdout: String::new(),
                stderr: diags.iter().map(|d| d.render(file, src)).collect(),
                status: 2,
            }
        }
    };
    let mut out = String::new();
    let mut objs = Objects(Vec::new());
    let mut t = RbRoot::new();
    let mut violations = false;
    for ol in &ops {
        let line = ol.line;
        let mut obs = TreeObs::checking();
        let fail = |w: &Word, msg: String, out: String| OpsOutput {
            stdout: out,
            stderr: Diag::at(line, w, msg).render(file, src),
            status: 2,
        };
        let unknown = |n: NodeId, count: usize| {
            format!("unknown node n{n} (only {count} object(s) created so far)")
        };
        match &ol.op {
            Op::Insert { start, last } => {
                let n = objs.0.len() as NodeId;
                objs.0.push((*start, *last));
                // A fresh id is never in the tree, so this cannot fail.
                let _ = interval::insert(&mut t, &objs, n, &mut obs);
                writeln!(out, "n{n} = insert [{start}..{last}]").expect("a String takes any text");
            }
            Op::InsertAfter {
                id: (n, nw),
                prev: (p, pw),
            } => {
                if !objs.known(*p) {
                    return fail(pw, unknown(*p, objs.0.len()), out);
                }
                if !t.contains(*p) {
                    let e = TreeError::PrevNotInTree(*p);
                    return fail(pw, e.to_string(), out);
                }
                if *n as usize == objs.0.len() {
                    let k = objs.0[*p as usize];
                    objs.0.push(k);
                    writeln!(out, "n{n} = copy of n{p} [{}..{}]", k.0, k.1)
                        .expect("a String takes any text");
                } else if !objs.known(*n) {
                    let msg = format!(
                        "unknown node n{n} (use n{} to insert a copy of n{p})",
                        objs.0.len()
                    );
                    return fail(nw, msg, out);
                }
                if let Err(e) = interval::insert_after(&mut t, &objs, *n, *p, &mut obs) {
                    let w = if matches!(e, TreeError::PrevNotInTree(_)) {
                        pw
                    } else {
                        nw
                    };
                    return fail(w, e.to_string(), out);
                }
                writeln!(out, "insert_after n{n} n{p}").expect("a String takes any text");
            }
            Op::Erase { id: (n, nw) } => {
                if !objs.known(*n) {
                    return fail(nw, unknown(*n, objs.0.len()), out);
                }
                if let Err(e) = interval::remove(&mut t, &objs, *n, &mut obs) {
                    return fail(nw, e.to_string(), out);
                }
                writeln!(out, "erase n{n}").expect("a String takes any text");
            }
            Op::Rekey {
                id: (n, nw),
                start,
                last,
            } => {
                if !objs.known(*n) {
                    return fail(nw, unknown(*n, objs.0.len()), out);
                }
                objs.0[*n as usize] = (*start, *last);
                let note = if t.contains(*n) {
                    " (in the tree: key changed in place)"
                } else {
                    ""
                };
                writeln!(out, "rekey n{n} [{start}..{last}]{note}")
                    .expect("a String takes any text");
            }
            Op::Propagate { id: (n, nw) } => {
                if !objs.known(*n) {
                    return fail(nw, unknown(*n, objs.0.len()), out);
                }
                if let Err(e) = interval::propagate(&mut t, &objs, *n, &mut obs) {
                    return fail(nw, e.to_string(), out);
                }
                writeln!(out, "propagate n{n}").expect("a String takes any text");
            }
            Op::Query { first, last } => {
                let hits = interval::query(&t, &objs, *first, *last, &mut obs);
                let list: Vec<String> = hits.iter().map(|&h| label(h)).collect();
                let shown = if list.is_empty() {
                    "none".to_string()
                } else {
                    list.join(" ")
                };
                writeln!(out, "query [{first}..{last}]: {shown}").expect("a String takes any text");
                if let Some(n) = obs.null_descent.take() {
                    violations = true;
                    writeln!(
                        out,
                        "  query went right from {} to a missing child (a stale \
                         subtree_last): the kernel dereferences NULL there",
                        label(n)
                    )
                    .expect("a String takes any text");
                }
            }
            Op::Print => out.push_str(&render(&t, &objs, &label)),
            Op::Validate => {
                let v = validate(&t, &objs);
                if v.is_empty() {
                    writeln!(out, "validate: ok").expect("a String takes any text");
                } else {
                    violations = true;
                    writeln!(out, "validate: {} violation(s)", v.len())
                        .expect("a String takes any text");
                    for x in v {
                        writeln!(out, "  {x}").expect("a String takes any text");
                    }
                }
            }
        }
        for s in &obs.stale {
            violations = true;
            writeln!(out, "  {s}").expect("a String takes any text");
        }
    }
    out.push_str("final tree:\n");
    out.push_str(&render(&t, &objs, &label));
    OpsOutput {
        stdout: out,
        stderr: String::new(),
        status: i32::from(violations),
    }
}
