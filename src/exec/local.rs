//! The purely local instructions of the interpreter: those that only move values between a
//! frame's locals and its operand stack and cannot fail. [`run_local`] runs one of them in place;
//! `Thread::step_visible` runs them back to back without building a step for each, and falls
//! back to the general path for everything else (world accesses, calls, returns, local struct
//! fields, and an operator that faults).

use super::frame::Frame;
use super::host::Value;
use crate::lang::ast::{BinOp, UnOp};
use crate::lang::program::Op;

pub(super) fn as_int(v: Value) -> i64 {
    match v {
        Value::Int(i) => i,
        Value::Bool(b) => b as i64,
        _ => 0,
    }
}

/// `a op b`, or the message of the runtime fault it raises.
pub(super) fn binary(op: BinOp, a: Value, b: Value) -> Result<Value, String> {
    use BinOp::*;
    if matches!(op, Eq | Ne) {
        let same = match (a, b) {
            (Value::Int(_) | Value::Bool(_), Value::Int(_) | Value::Bool(_)) => {
                as_int(a) == as_int(b)
            }
            _ => a == b,
        };
        return Ok(Value::Bool(same == (op == Eq)));
    }
    let (x, y) = (as_int(a), as_int(b));
    Ok(match op {
        Mul => Value::Int(x.wrapping_mul(y)),
        Div | Rem if y == 0 => return Err("division by zero".into()),
        Div => Value::Int(x.wrapping_div(y)),
        Rem => Value::Int(x.wrapping_rem(y)),
        Add => Value::Int(x.wrapping_add(y)),
        Sub => Value::Int(x.wrapping_sub(y)),
        Shl | Shr if !(0..64).contains(&y) => return Err(format!("shift by {y} is out of range")),
        Shl => Value::Int(x << y),
        Shr => Value::Int(x >> y),
        Lt => Value::Bool(x < y),
        Le => Value::Bool(x <= y),
        Gt => Value::Bool(x > y),
        Ge => Value::Bool(x >= y),
        BitAnd => Value::Int(x & y),
        BitXor => Value::Int(x ^ y),
        BitOr => Value::Int(x | y),
        And => Value::Bool(a.truthy() && b.truthy()),
        Or => Value::Bool(a.truthy() || b.truthy()),
        Eq | Ne => unreachable!("handled above"),
    })
}

/// Runs `op` on frame `fr` when it is a purely local instruction that succeeds, and says
/// whether it did; otherwise leaves the frame untouched.
#[inline(always)]
pub(super) fn run_local(fr: &mut Frame, op: &Op) -> bool {
    let n = fr.stack.len();
    let top = fr.stack.last().copied().unwrap_or(Value::Void);
    match op {
        Op::Const(v) => fr.stack.push(*v),
        Op::Load(s) => {
            let v = fr.locals.get(*s as usize).copied().unwrap_or(Value::Void);
            fr.stack.push(v);
        }
        Op::Store(s) => {
            let v = fr.stack.pop().unwrap_or(Value::Void);
            if let Some(slot) = fr.locals.get_mut(*s as usize) {
                *slot = v;
            }
        }
        Op::Pop => {
            fr.stack.pop();
        }
        Op::Dup => fr.stack.push(top),
        Op::Truth => {
            fr.stack.pop();
            fr.stack.push(Value::Bool(top.truthy()));
        }
        Op::ToInt => {
            fr.stack.pop();
            fr.stack.push(Value::Int(as_int(top)));
        }
        Op::Unary(u) => {
            let v = match u {
                UnOp::Not => Value::Bool(!top.truthy()),
                UnOp::Neg => Value::Int(as_int(top).wrapping_neg()),
                UnOp::BitNot => Value::Int(!as_int(top)),
            };
            fr.stack.pop();
            fr.stack.push(v);
        }
        Op::Binary(b) => {
            let second = if n >= 2 { fr.stack[n - 2] } else { Value::Void };
            let Ok(v) = binary(*b, second, top) else {
                return false;
            };
            fr.stack.truncate(n.saturating_sub(2));
            fr.stack.push(v);
        }
        Op::Jump(t) => {
            fr.pc = *t;
            return true;
        }
        Op::JumpIfFalse(t) => {
            fr.stack.pop();
            if top.truthy() {
                fr.pc += 1;
            } else {
                fr.pc = *t;
            }
            return true;
        }
        _ => return false,
    }
    fr.pc += 1;
    true
}
