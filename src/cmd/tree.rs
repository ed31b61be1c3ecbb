//! `rmapcheck tree`: run an op list (insert, erase, rekey, query, ...) on the kernel-exact
//! interval tree from a file or standard input, and print what each op did.

use super::{CmdError, CmdResult, Exit};
use std::io::{Read, Write};
use std::path::PathBuf;

/// `rmapcheck tree`: exit status 0 ok, 1 a violation, 2 bad input.
pub fn run(file: Option<PathBuf>, out: &mut dyn Write, err: &mut dyn Write) -> CmdResult {
    let (name, src) = match file {
        Some(p) if p.as_os_str() != "-" => match std::fs::read_to_string(&p) {
            Ok(s) => (p.display().to_string(), s),
            Err(e) => {
                return Err(CmdError::line(format_args!(
                    "rmapcheck tree: cannot read {}: {e}",
                    p.display()
                )))
            }
        },
        _ => {
            let mut s = String::new();
            if let Err(e) = std::io::stdin().read_to_string(&mut s) {
                return Err(CmdError::line(format_args!(
                    "rmapcheck tree: cannot read standard input: {e}"
                )));
            }
            ("<stdin>".to_string(), s)
        }
    };
    let r = crate::tree::ops::run_ops(&name, &src);
    out.write_all(r.stdout.as_bytes())?;
    err.write_all(r.stderr.as_bytes())?;
    Ok(match r.status {
        0 => Exit::Ok,
        1 => Exit::Found,
        // the op list did not parse; the message is in r.stderr
        _ => Exit::BadInput,
    })
}
