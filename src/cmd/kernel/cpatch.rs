//! `rmapcheck cpatch --kernel DIR SPEC`: a C patch's edit spec (cpatches/*.toml) as a unified
//! diff against the tree, for `check --kernel --patch`.

use crate::cmd::{CmdError, CmdResult, Exit};
use std::io::Write;

/// `rmapcheck cpatch --kernel DIR SPEC`: the C patch's edit spec as a unified diff on `out`.
pub fn cpatch(kernel: &std::path::Path, spec: &std::path::Path, out: &mut dyn Write) -> CmdResult {
    match crate::ccheck::cpatch::diff(kernel, spec) {
        Ok(text) => {
            out.write_all(text.as_bytes())?;
            Ok(Exit::Ok)
        }
        Err(e) => Err(CmdError::line(format_args!("rmapcheck cpatch: {e}"))),
    }
}
