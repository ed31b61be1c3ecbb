//! Implementations of the command-line subcommands, in the library so tests can drive them.
//! Each takes its arguments, writes its report to the given writers and returns how it ended:
//! a [`Exit`] when it reached a verdict, a [`CmdError`] when it could not. [`exit_status`]
//! turns either into the process's exit status, the one place the numbers are chosen:
//!
//! | status | meaning |
//! | --- | --- |
//! | 0 | holds / ok / written / agrees ([`Exit::Ok`]) |
//! | 1 | a counterexample, difference, mismatch or drift ([`Exit::Found`]) |
//! | 2 | bad input or usage: no verdict ([`CmdError`]), or some inputs not checked ([`Exit::BadInput`]) |
//! | 3 | incomplete: a bound or the first signal stopped the search ([`Exit::Incomplete`]) |
//! | 130 | a second SIGINT/SIGTERM (the signal handler exits at once) |
//! | 141 | standard output or error was closed (a reader such as `head` went away) |
//!
//! Only the binary (src/main/) names it; the library never calls the command line.

pub mod check;
pub mod diff;
pub mod drift;
pub mod formats;
pub mod fuzz;
pub mod interleave;
pub mod kernel;
pub mod list;
pub mod locks;
pub mod new;
pub mod posting;
pub mod progress;
pub mod replay;
pub mod report;
pub mod run;
pub mod tree;

pub use crate::models::{discover_models, expand_model_args, load_model, resolve_model};

use std::io::Write;

/// How a command that ran to its end ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Everything holds, agrees, or was written (exit 0).
    Ok,
    /// A counterexample, difference, mismatch or drift (exit 1).
    Found,
    /// Some of its inputs could not be checked (a model that does not load among several);
    /// each was reported where it occurred (exit 2).
    BadInput,
    /// A bound or a signal stopped the search before it finished (exit 3).
    Incomplete,
    /// The model the search took its calls from diverged from the kernel's C: a fidelity
    /// failure of the tool, neither a verdict on the C nor a counterexample (exit 4).
    Diverges,
}

impl Exit {
    /// The exit status.
    pub fn code(self) -> i32 {
        match self {
            Exit::Ok => 0,
            Exit::Found => 1,
            Exit::BadInput => 2,
            Exit::Incomplete => 3,
            Exit::Diverges => 4,
        }
    }

    /// `Found` when `found`, else `Ok`.
    pub(crate) fn found_if(found: bool) -> Exit {
        if found {
            Exit::Found
        } else {
            Exit::Ok
        }
    }

    /// The one of two that a run over several inputs reports: bad input over a finding over
    /// incomplete over ok.
    pub(crate) fn worse(self, other: Exit) -> Exit {
        let rank = |e: Exit| match e {
            Exit::Ok => 0,
            Exit::Incomplete => 1,
            Exit::Found => 2,
            Exit::Diverges => 3,
            Exit::BadInput => 4,
        };
        if rank(other) > rank(self) {
            other
        } else {
            self
        }
    }
}

/// Exit status of a command whose own writer closed the pipe.
pub(crate) const EXIT_CLOSED_OUTPUT: i32 = 141;

/// Why a command stopped without a verdict.
#[derive(Debug, thiserror::Error)]
pub enum CmdError {
    /// Bad input or usage, no verdict: the text for standard error, as printed (exit 2).
    #[error("{}", .0.trim_end())]
    Input(String),
    /// Standard output, standard error or an output file could not be written.
    #[error("cannot write: {0}")]
    Io(#[from] std::io::Error),
}

impl CmdError {
    /// Bad input, reported as the one line `msg`.
    pub fn line(msg: impl std::fmt::Display) -> CmdError {
        CmdError::Input(format!("{msg}\n"))
    }

    /// Bad input, reported as `text` exactly (a diagnostic that ends its own lines).
    pub fn text(text: impl std::fmt::Display) -> CmdError {
        CmdError::Input(text.to_string())
    }
}

/// What every subcommand returns.
pub type CmdResult = Result<Exit, CmdError>;

/// The exit status of a command's result; an error is written to `err` first. A closed pipe
/// ends the command quietly with [`EXIT_CLOSED_OUTPUT`].
pub fn exit_status(r: CmdResult, err: &mut dyn Write) -> i32 {
    let e = match r {
        Ok(s) => return s.code(),
        Err(e) => e,
    };
    let written = match &e {
        CmdError::Io(io) if io.kind() == std::io::ErrorKind::BrokenPipe => {
            return EXIT_CLOSED_OUTPUT;
        }
        CmdError::Input(text) => err.write_all(text.as_bytes()),
        CmdError::Io(_) => writeln!(err, "rmapcheck: {e}"),
    };
    // standard error itself gone: the status is all that is left to say it
    let _ = written;
    2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worse_of_two_exits() {
        use Exit::*;
        let order = [Ok, Incomplete, Found, BadInput];
        for (i, a) in order.iter().enumerate() {
            for (j, b) in order.iter().enumerate() {
                assert_eq!(a.worse(*b), order[i.max(j)], "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn each_result_has_its_status_and_message() {
        let mut err = Vec::new();
        assert_eq!(exit_status(Ok(Exit::Ok), &mut err), 0);
        assert_eq!(exit_status(Ok(Exit::Found), &mut err), 1);
        assert_eq!(exit_status(Ok(Exit::Incomplete), &mut err), 3);
        assert_eq!(exit_status(Ok(Exit::BadInput), &mut err), 2);
        assert!(err.is_empty());
        assert_eq!(exit_status(Err(CmdError::line("x: bad")), &mut err), 2);
        assert_eq!(exit_status(Err(CmdError::text("a:1:2: d\n")), &mut err), 2);
        assert_eq!(String::from_utf8(err).unwrap(), "x: bad\na:1:2: d\n");
        let pipe = std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        let mut err = Vec::new();
        assert_eq!(exit_status(Err(pipe.into()), &mut err), EXIT_CLOSED_OUTPUT);
        assert!(err.is_empty());
        let full = std::io::Error::other("disk full");
        assert_eq!(exit_status(Err(full.into()), &mut err), 2);
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "rmapcheck: cannot write: disk full\n"
        );
    }
}
