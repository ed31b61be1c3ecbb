//! The footprint table of a program: every instruction's footprint, every function's static
//! footprint, and what a thread may still touch from where it stands (the rest of each
//! function from each instruction), worked out once per program for the reduction of the
//! interleaving explorer.

use super::{op_footprint, static_of, Class, Footprint, Mode};
use crate::lang::program::{FuncId, Op};
use crate::lang::Program;

/// The footprint of every instruction and the static footprint of every function of a
/// program, worked out once (by name, as [`op_footprint`] and [`static_footprint`] do) and
/// shared by the interleaving explorations of a search.
#[derive(Debug)]
pub struct Table {
    /// `ops[f][pc]`: the footprint of instruction `pc` of function `f`.
    ops: Vec<Vec<Footprint>>,
    statics: Vec<Footprint>,
    /// `rest[f][pc]`: every class an instruction reachable from instruction `pc` of `f` (in
    /// `f`'s control flow, and the functions it calls from there) may touch; `rest[f][len]` is
    /// empty (past a function's end).
    rest: Vec<Vec<Footprint>>,
}

/// The instructions control may pass to after instruction `pc` (a fault or assertion stops
/// the thread, which only takes steps away).
fn successors(op: &Op, pc: usize) -> [Option<usize>; 2] {
    match op {
        Op::Jump(t) => [Some(*t as usize), None],
        Op::JumpIfFalse(t) => [Some(pc + 1), Some(*t as usize)],
        Op::Return => [None, None],
        _ => [Some(pc + 1), None],
    }
}

/// `rest` of one function (see [`Table::rest`]): each instruction's own footprint (with the
/// whole static footprint of a function it calls) joined with its successors', to a fixed
/// point (loops jump back).
fn rest_of(prog: &Program, f: FuncId, ops: &[Footprint], statics: &[Footprint]) -> Vec<Footprint> {
    let code = &prog.func(f).code;
    let mut rest: Vec<Footprint> = code
        .iter()
        .zip(ops)
        .map(|(i, fp)| {
            let mut fp = *fp;
            if let Op::Call(g, _) = &i.op {
                fp.union(statics[g.0 as usize]);
            }
            fp
        })
        .collect();
    rest.push(Footprint::new());
    let mut changed = true;
    while changed {
        changed = false;
        for pc in (0..code.len()).rev() {
            let mut fp = rest[pc];
            for s in successors(&code[pc].op, pc).into_iter().flatten() {
                // a jump past the end is refused by verification; past it nothing runs
                if let Some(next) = rest.get(s) {
                    fp.union(*next);
                }
            }
            if fp != rest[pc] {
                rest[pc] = fp;
                changed = true;
            }
        }
    }
    rest
}

impl Table {
    pub fn new(prog: &Program) -> Table {
        Table::with_ops(prog, |_, _, fp| fp)
    }

    /// A mutant table: the footprint of every call of one of `builtins` (of every
    /// instruction, when empty) without the `dropped` (class, mode) pairs; the whole
    /// functions' and the rests are worked out from those. For the tests that show an audit
    /// of the footprints (`check::crosscheck`) catches a footprint that leaves a class out.
    pub fn dropping(prog: &Program, builtins: &[&str], dropped: &[(Class, Mode)]) -> Table {
        Table::with_ops(prog, |f, pc, mut fp| {
            let named = match &prog.func(f).code[pc].op {
                Op::Builtin(id, _) => {
                    builtins.is_empty() || builtins.contains(&prog.builtin_name(*id))
                }
                _ => builtins.is_empty(),
            };
            if named {
                for &d in dropped {
                    fp.remove(d);
                }
            }
            fp
        })
    }

    /// The table of the instruction footprints `edit(f, pc, op_footprint)`, each function's
    /// static footprint the join of its instructions' and its callees'.
    fn with_ops(prog: &Program, edit: impl Fn(FuncId, usize, Footprint) -> Footprint) -> Table {
        let ids = (0..prog.funcs.len()).map(|i| FuncId(i as u32));
        let ops: Vec<Vec<Footprint>> = ids
            .clone()
            .map(|f| {
                let code = &prog.func(f).code;
                (code.iter().enumerate())
                    .map(|(pc, i)| edit(f, pc, op_footprint(prog, &i.op)))
                    .collect()
            })
            .collect();
        let statics = ids.map(|f| static_of(prog, f, &ops)).collect();
        Table {
            ops,
            statics,
            rest: Vec::new(),
        }
        .with_rest(prog)
    }

    fn with_rest(mut self, prog: &Program) -> Table {
        self.rest = (0..prog.funcs.len())
            .map(|i| rest_of(prog, FuncId(i as u32), &self.ops[i], &self.statics))
            .collect();
        self
    }

    /// Every class a thread standing at `frames` (outermost first: each frame's function and
    /// the index of the instruction it runs next, or, for a caller, of the call it waits in)
    /// may still touch: the innermost frame's rest from its instruction, each caller's from
    /// the instruction after its call. An over-approximation of every step the thread can
    /// still take, whatever the world does.
    pub(crate) fn remaining(
        &self,
        frames: impl DoubleEndedIterator<Item = (FuncId, usize)>,
    ) -> Footprint {
        let mut out = Footprint::new();
        for (depth, (f, pc)) in frames.rev().enumerate() {
            let rest = &self.rest[f.0 as usize];
            let at = if depth == 0 { pc } else { pc + 1 };
            match rest.get(at) {
                Some(fp) => out.union(*fp),
                // not a position of this function: assume all of it
                None => out.union(self.statics[f.0 as usize]),
            }
        }
        out
    }

    /// The footprint of instruction `pc` of `func`.
    pub(crate) fn op(&self, func: FuncId, pc: usize) -> Footprint {
        self.ops[func.0 as usize][pc]
    }

    /// The static footprint of `func`.
    pub(crate) fn of_function(&self, func: FuncId) -> Footprint {
        self.statics[func.0 as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn subset(a: Footprint, b: Footprint) -> bool {
        a.read & !b.read == 0 && a.write & !b.write == 0
    }

    /// On the baseline: the rest from any position lies inside the function's static
    /// footprint; an instruction's rest holds its own footprint and its fall-through
    /// successor's; a stack's remaining footprint joins the innermost frame's rest with each
    /// caller's rest after its call; and somewhere the rest is smaller than the whole function
    /// (the refinement does something).
    #[test]
    fn the_rest_of_a_function_is_what_its_positions_can_still_reach() {
        let prog =
            crate::models::load_model(Path::new(crate::models::BASELINE)).expect("baseline loads");
        let t = Table::new(&prog);
        let mut smaller = 0;
        let mut calls = 0;
        for (i, rest) in t.rest.iter().enumerate() {
            let f = FuncId(i as u32);
            let code = &prog.func(f).code;
            assert_eq!(rest.len(), code.len() + 1);
            assert!(rest[code.len()].is_empty());
            for (pc, instr) in code.iter().enumerate() {
                assert!(subset(rest[pc], t.of_function(f)), "{i}:{pc}");
                assert!(subset(t.op(f, pc), rest[pc]), "{i}:{pc}");
                if !matches!(instr.op, Op::Jump(_) | Op::Return) {
                    assert!(subset(rest[pc + 1], rest[pc]), "{i}:{pc}");
                }
                if rest[pc] != t.of_function(f) {
                    smaller += 1;
                }
                if let Op::Call(g, _) = instr.op {
                    calls += 1;
                    assert!(subset(t.of_function(g), rest[pc]), "{i}:{pc}");
                    let stack = [(f, pc), (g, 0)];
                    let mut want = t.rest[g.0 as usize][0];
                    want.union(rest[pc + 1]);
                    assert_eq!(t.remaining(stack.into_iter()), want, "{i}:{pc}");
                }
            }
        }
        assert!(
            calls > 0 && smaller > 0,
            "{calls} calls, {smaller} smaller rests"
        );
        // a finished thread (no frames) may touch nothing more
        assert!(t.remaining(std::iter::empty()).is_empty());
    }
}
