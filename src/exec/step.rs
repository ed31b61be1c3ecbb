//! What one interpreter step reports: the event it performed, a block, the end of the thread,
//! or a fault with its kind and source location.

use crate::exec::host::Value;
use crate::lang::{Program, SrcLoc};
use std::fmt;

/// One instruction that ran.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    /// Source position of the instruction.
    pub loc: SrcLoc,
    /// Whether the instruction touched the world (builtin call, kernel field read or write,
    /// list walk). Only shared events matter to other threads.
    pub shared: bool,
    /// Short text for traces, e.g. `vma#1->vm_end = 4`. Empty for most local instructions.
    pub what: String,
}

/// Why a thread stopped with an error.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// A `VM_WARN_ON_ONCE(cond)`-style macro whose condition held.
    Assertion { macro_name: String, cond: String },
    /// The world refused an operation.
    Host,
    /// Calls nested deeper than [`crate::exec::MAX_CALL_DEPTH`].
    StackOverflow,
    /// NULL dereference, division by zero, bad shift, runaway local loop, ...
    Runtime,
}

/// A stopped thread's error, with the location of the instruction that failed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fault {
    pub loc: SrcLoc,
    pub kind: FaultKind,
    pub message: String,
}

impl Fault {
    /// `file:line:col: fault: message` followed by the source line and a caret.
    pub fn render(&self, prog: &Program) -> String {
        let (file, line, col, text) = prog.source_line(self.loc);
        let pad: String = text
            .chars()
            .take(col.saturating_sub(1) as usize)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        format!(
            "{file}:{line}:{col}: fault: {}\n{text}\n{pad}^\n",
            self.message
        )
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.loc.line, self.loc.col, self.message)
    }
}

/// The outcome of one [`crate::exec::Thread::step`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// An instruction ran.
    Ran(Event),
    /// The world said the instruction must wait; nothing changed.
    Blocked,
    /// The entry function returned this value (also returned by every later step).
    Finished(Value),
    /// The thread stopped with a fault (also returned by every later step).
    Failed(Fault),
}
