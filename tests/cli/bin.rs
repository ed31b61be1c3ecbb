//! Running the rmapcheck binary from a test: the one helper every test file uses.

use std::ffi::OsStr;
use std::process::{Command, Output, Stdio};

fn run<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run rmapcheck")
}

/// `rmapcheck ARGS` in the crate's directory, with nothing on standard input: the exit
/// status (-1 for a signal), standard output and standard error.
pub(super) fn rmapcheck<S: AsRef<OsStr>>(args: &[S]) -> (i32, String, String) {
    let o = run(args);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// [`rmapcheck`] with standard error after standard output, in one text.
pub(super) fn rmapcheck_joined<S: AsRef<OsStr>>(args: &[S]) -> (i32, String) {
    let (rc, mut out, err) = rmapcheck(args);
    out.push_str(&err);
    (rc, out)
}
