//! Running one model thread alone to completion, for tests and single-threaded checks.

use super::host::{Host, ThreadId, Value};
use super::step::{Fault, Step};
use super::thread::Thread;
use crate::lang::{Program, SrcLoc};
use std::fmt;

/// Why [`run`] did not produce a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// The entry function is missing or the arguments do not fit.
    Start(String),
    /// The thread faulted.
    Fault(Fault),
    /// The world blocked the thread; alone, nothing can ever unblock it.
    Blocked { loc: Option<SrcLoc> },
    /// More than `max_steps` instructions ran.
    StepLimit(u64),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Start(m) => write!(f, "cannot start: {m}"),
            RunError::Fault(x) => write!(f, "fault at {x}"),
            RunError::Blocked { .. } => write!(f, "blocked forever"),
            RunError::StepLimit(n) => write!(f, "no result after {n} steps"),
        }
    }
}

/// Runs `entry(args)` as thread `tid` until it returns, faults, blocks or exceeds `max_steps`
/// instructions.
pub fn run<H: Host + ?Sized>(
    prog: &Program,
    host: &mut H,
    tid: ThreadId,
    entry: &str,
    args: &[Value],
    max_steps: u64,
) -> Result<Value, RunError> {
    let mut t = Thread::start(prog, entry, args).map_err(RunError::Start)?;
    for _ in 0..max_steps {
        match t.step(prog, host, tid) {
            Step::Ran(_) => {}
            Step::Blocked => return Err(RunError::Blocked { loc: t.loc(prog) }),
            Step::Finished(v) => return Ok(v),
            Step::Failed(f) => return Err(RunError::Fault(f)),
        }
    }
    Err(RunError::StepLimit(max_steps))
}
