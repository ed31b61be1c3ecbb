//! `rmapcheck new NAME`: the starting point of a patch model, shaped like the ones under
//! `models/patches/`.
//!
//! It writes `DIR/NAME.rmap`: a header comment for the posting (Subject, Author, Date,
//! Message-ID and the rest as placeholders the author fills in; Author and Message-ID may be
//! left `unknown`, see [`super::posting`]), the `#include` of the baseline
//! model, and the baseline's `vma_complete()` copied unchanged, to be edited as the patch edits
//! it. Beside it goes `PROOFS/patch-NAME.toml`, the proof obligations the existing patch models
//! have (callers mode at the default scope and contract mode at the contract scope, expected to
//! hold, plus the walker obligations), to be changed to `violates = ...` where the checker finds
//! something. The next steps it prints check the model at `--scope contract`, the contract
//! scope the proof file uses (offsets on), not `--mode contract`, which keeps the default scope's
//! space. Until it is edited the model is the baseline: `check` holds and `diff` prints
//! `no differences`. Nothing is ever overwritten.

use super::diff::resolve_model;
use super::load_model;
use super::{CmdError, CmdResult, Exit};
use std::io::Write;
use std::path::{Component, Path, PathBuf};

/// Arguments of `rmapcheck new` (each field's doc comment is its `--help` text).
#[derive(clap::Args, Clone, Debug)]
pub struct NewArgs {
    /// The patch's short name, [a-z0-9][a-z0-9_-]*.
    pub name: String,
    /// The model the patch applies to.
    #[arg(long, default_value = crate::models::BASELINE)]
    pub base: PathBuf,
    /// Directory of the new model.
    #[arg(long, default_value = "models/patches")]
    pub dir: PathBuf,
    /// Directory of the new proof file.
    #[arg(long, default_value = "proofs")]
    pub proofs: PathBuf,
}

/// The function copied into the scaffold as the example override.
const EXAMPLE: &str = "vma_complete";

/// Runs `rmapcheck new`. Exit status: 0 written, 2 bad name, existing file or bad base model.
pub fn new_patch(args: &NewArgs, out: &mut dyn Write) -> CmdResult {
    match scaffold(args) {
        Ok((model, proof)) => {
            writeln!(out, "wrote {}", model.display())?;
            writeln!(out, "wrote {}", proof.display())?;
            writeln!(
                out,
                "next: fill in the header, edit the functions as the patch does, then\n  \
                 rmapcheck diff {m}\n  rmapcheck check {m}\n  rmapcheck check {m} --scope contract\n  \
                 rmapcheck check {m} --scope walkers\n  \
                 rmapcheck prove {p}",
                m = model.display(),
                p = proof.display()
            )?;
            Ok(Exit::Ok)
        }
        Err(e) if e.ends_with('\n') => Err(CmdError::text(format_args!("rmapcheck new: {e}"))),
        Err(e) => Err(CmdError::line(format_args!("rmapcheck new: {e}"))),
    }
}

/// Checks everything, then writes the two files; returns their paths.
fn scaffold(args: &NewArgs) -> Result<(PathBuf, PathBuf), String> {
    if !valid_name(&args.name) {
        return Err(format!(
            "bad patch name `{}`: it must match [a-z0-9][a-z0-9_-]*",
            args.name
        ));
    }
    let model = args.dir.join(format!("{}.rmap", args.name));
    let proof = args.proofs.join(format!("patch-{}.toml", args.name));
    for p in [&model, &proof] {
        if p.exists() {
            return Err(format!("{} exists; not overwriting it", p.display()));
        }
    }
    let base = resolve_model(&args.base)?;
    let prog = load_model(&base).map_err(|e| e.to_string())?;
    let example = prog
        .function(EXAMPLE)
        .and_then(|id| prog.func_source(id))
        .ok_or_else(|| format!("{} defines no {EXAMPLE}()", base.display()))?
        .text
        .to_string();
    for d in [&args.dir, &args.proofs] {
        std::fs::create_dir_all(d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
    }
    let include = include_path(&args.dir, &base);
    write_new(&model, &model_text(&args.name, &include, &example))?;
    if let Err(e) = write_new(&proof, &proof_text(&args.name, &model)) {
        let _ = std::fs::remove_file(&model);
        return Err(e);
    }
    Ok((model, proof))
}

/// `[a-z0-9][a-z0-9_-]*`.
pub(crate) fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

/// Creates `path` with `text`; fails when it exists.
fn write_new(path: &Path, text: &str) -> Result<(), String> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    f.write_all(text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// How the model in `dir` names `base` in its `#include`: a relative path when the two share
/// more than the root directory, else the absolute path.
fn include_path(dir: &Path, base: &Path) -> String {
    let (Ok(d), Ok(b)) = (std::fs::canonicalize(dir), std::fs::canonicalize(base)) else {
        return base.display().to_string();
    };
    let dc: Vec<Component> = d.components().collect();
    let bc: Vec<Component> = b.components().collect();
    let common = dc.iter().zip(&bc).take_while(|(x, y)| x == y).count();
    if common <= 1 {
        return b.display().to_string();
    }
    let mut rel = PathBuf::new();
    for _ in common..dc.len() {
        rel.push("..");
    }
    for c in &bc[common..] {
        rel.push(c);
    }
    rel.display().to_string()
}

/// The model file: header template, include, and the example override.
fn model_text(name: &str, include: &str, example: &str) -> String {
    format!(
        r#"/*
 * Patch, as posted to linux-mm:
 *   Subject:    SUBJECT of the posting, as its Subject: header gives it
 *   Author:     AUTHOR NAME <address>, or unknown (why)
 *   Date:       DATE of the posting, as its Date: header gives it
 *   Message-ID: <MESSAGE-ID of the posting>, or unknown (why)
 *   Kept at:    where the posting is kept (with its diff, or only replies quoting it)
 * (Author and Message-ID may be `unknown` when the copy you have does not give them, e.g. a
 * posting known only through replies that quote it: `unknown (only quoted in a reply)`.)
 *
 * What it does, in our words: (the change, and why it is meant to be safe)
 *
 * Assumptions: (what the model takes that the posting does not say; none if it has the diff)
 *
 * Replaces: {EXAMPLE}(). Adds: nothing yet. (Keep in step with the functions below; delete
 * the copy of any function the patch does not change.)
 *
 * Checker findings: (after `rmapcheck check` and `--scope contract`; keep
 * proofs/patch-{name}.toml in step)
 */
#include "{include}"

/* {EXAMPLE}(): the baseline's, copied unchanged; edit it as the patch does. */
{example}"#
    )
}

/// The proof file, modelled on the existing patch proofs.
fn proof_text(name: &str, model: &Path) -> String {
    let model = model.display().to_string();
    let quoted = toml::Value::String(model.clone()).to_string();
    format!(
        r#"# Proof obligations for {model}
model = {quoted}
about = "{name}: SUBJECT of the patch, in a line."

# A finding is written as violates = "<invariant>" with a note saying what fails and why.
[[obligation]]
scope = "default"
mode = "callers"
expect = "holds"

[[obligation]]
scope = "contract"
mode = "contract"
expect = "holds"

[[obligation]]
mode = "callers"
expect = "holds"
note = "munmap in the middle of a file VMA against every single walker"
[obligation.interleave]
ops = "examples/interleave/munmap-middle.toml"
count = 1

[[obligation]]
scope = "walkers"
mode = "callers"
expect = "holds"
note = "every call from depth < 2 against every single walker, in every interleaving"
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in ["a", "0", "split-skip_reinsert2"] {
            assert!(valid_name(ok), "{ok}");
        }
        for bad in ["", "-a", "_a", "A", "a.b", "a/b", "a b", "é"] {
            assert!(!valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn proof_template_parses() {
        let t = proof_text("x", Path::new("models/patches/x.rmap"));
        let pf = crate::explore::proof::ProofFile::parse(&t).unwrap();
        assert_eq!(pf.model, Path::new("models/patches/x.rmap"));
        assert_eq!(pf.obligation.len(), 4);
    }
}
