//! Marks: counting how often chosen source lines of a model run, for the coverage of a patch
//! model's changed lines (src/explore/cover.rs). [`Program::with_marks`] returns a copy of
//! the program with an [`Op::Mark`] before the first instruction of each run of instructions
//! compiled from a marked line (and before each such instruction a jump lands on); both
//! engines count a mark in the program's shared counters when they run it. A program loaded
//! as usual has no marks, so the engines' loops run no mark and count nothing.
//!
//! A mark is a purely local instruction: it touches no world and counts as one local
//! instruction towards the endless-loop bound, in both engines alike.

use super::diag::SrcLoc;
use super::program::{FuncId, Instr, Op, Program};
pub use super::program::{Line, Marks};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

impl Program {
    /// A copy of the program with the lines `lines` marked (lines that hold no instruction are
    /// left out: see [`Program::executable_lines`]). Its counters start at zero and are shared
    /// by its clones.
    pub fn with_marks(&self, lines: &BTreeSet<Line>) -> Program {
        let mut out = self.clone();
        let marked: Vec<Line> = lines.iter().copied().collect();
        let id: BTreeMap<Line, u32> = marked
            .iter()
            .enumerate()
            .map(|(i, l)| (*l, i as u32))
            .collect();
        for f in &mut out.funcs {
            f.code = mark_code(&f.code, &id);
        }
        out.marks = Marks {
            counts: Arc::new(marked.iter().map(|_| AtomicU64::new(0)).collect()),
            lines: marked,
        };
        out
    }

    /// How often each marked line ran since the marks were made or last reset.
    pub fn mark_counts(&self) -> BTreeMap<Line, u64> {
        self.marks
            .lines
            .iter()
            .zip(self.marks.counts.iter())
            .map(|(l, c)| (*l, c.load(Ordering::Relaxed)))
            .collect()
    }

    /// Set every mark's count back to zero.
    pub fn reset_marks(&self) {
        for c in self.marks.counts.iter() {
            c.store(0, Ordering::Relaxed);
        }
    }

    /// The lines of function `id` that some instruction was compiled from: where a line
    /// count means something (a comment, a brace or a blank line holds none).
    /// The line the function's name is on is left out: what is compiled from it is the
    /// return the compiler adds after the body, which a function that always returns never
    /// runs.
    pub fn executable_lines(&self, id: FuncId) -> BTreeSet<Line> {
        let f = self.func(id);
        f.code
            .iter()
            .filter(|i| !matches!(i.op, Op::Mark(_)) && line_of(i.loc) != line_of(f.loc))
            .map(|i| (i.loc.file, i.loc.line))
            .collect()
    }

    /// The index of the source file called `name`, if the program was loaded from it.
    pub fn source_index(&self, name: &str) -> Option<u16> {
        self.sources
            .files()
            .iter()
            .position(|f| f.name == name)
            .map(|i| i as u16)
    }
}

fn line_of(loc: SrcLoc) -> Line {
    (loc.file, loc.line)
}

/// `code` with a mark before each instruction of a marked line that starts a run of that line
/// or that a jump lands on; jumps retargeted (to the mark before their old target).
fn mark_code(code: &[Instr], id: &BTreeMap<Line, u32>) -> Vec<Instr> {
    if id.is_empty() {
        return code.to_vec();
    }
    let targets: BTreeSet<u32> = code
        .iter()
        .filter_map(|i| match i.op {
            Op::Jump(t) | Op::JumpIfFalse(t) => Some(t),
            _ => None,
        })
        .collect();
    let marked: Vec<Option<u32>> = code
        .iter()
        .enumerate()
        .map(|(k, i)| {
            let l = line_of(i.loc);
            let starts = k == 0 || line_of(code[k - 1].loc) != l || targets.contains(&(k as u32));
            id.get(&l).copied().filter(|_| starts)
        })
        .collect();
    // before[k]: the marks before instruction k, so that its mark (if any) is at k + before[k]
    let mut before = Vec::with_capacity(code.len() + 1);
    let mut n = 0u32;
    for m in &marked {
        before.push(n);
        n += u32::from(m.is_some());
    }
    before.push(n);
    let at = |t: u32| t + before.get(t as usize).copied().unwrap_or(n);
    let mut out = Vec::with_capacity(code.len() + n as usize);
    for (i, m) in code.iter().zip(&marked) {
        if let Some(m) = m {
            out.push(Instr {
                op: Op::Mark(*m),
                loc: i.loc,
            });
        }
        let op = match i.op {
            Op::Jump(t) => Op::Jump(at(t)),
            Op::JumpIfFalse(t) => Op::JumpIfFalse(at(t)),
            ref other => other.clone(),
        };
        out.push(Instr { op, loc: i.loc });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32) -> SrcLoc {
        SrcLoc {
            file: 0,
            line,
            col: 1,
        }
    }

    #[test]
    fn marks_go_before_each_run_of_a_marked_line_and_jumps_land_on_them() {
        // 0-1 line 3, 2 line 4 (a jump back to 0), 3 line 5
        let code = vec![
            Instr {
                op: Op::Const(crate::value::Value::Int(1)),
                loc: at(3),
            },
            Instr {
                op: Op::JumpIfFalse(3),
                loc: at(3),
            },
            Instr {
                op: Op::Jump(0),
                loc: at(4),
            },
            Instr {
                op: Op::Return,
                loc: at(5),
            },
        ];
        let id: BTreeMap<Line, u32> = [((0, 3), 0), ((0, 5), 1)].into();
        let out = mark_code(&code, &id);
        let ops: Vec<Op> = out.iter().map(|i| i.op.clone()).collect();
        assert_eq!(
            ops,
            vec![
                Op::Mark(0),
                Op::Const(crate::value::Value::Int(1)),
                Op::JumpIfFalse(4),
                Op::Jump(0),
                Op::Mark(1),
                Op::Return,
            ]
        );
        assert_eq!(mark_code(&code, &BTreeMap::new()), code);
    }
}
