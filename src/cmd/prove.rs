//! `rmapcheck prove proofs/X.toml ...`: run proof obligations and print their certificates.
//! Exit status: 0 when every verdict is the expected one, 1 otherwise, 2 on bad input.

use super::load_model;
use crate::explore::proof::{prove as run_proofs, ProofFile};
use crate::explore::search::Outcome;
use crate::trace::{interleaved, text};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The repository root for a proof file: the parent of its `proofs/` directory, else the
/// current directory.
pub fn root_of(proof: &Path) -> PathBuf {
    let dir = proof.parent().unwrap_or(Path::new("."));
    if dir.file_name().and_then(|n| n.to_str()) == Some("proofs") {
        dir.parent()
            .map(Path::to_path_buf)
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or_else(|| PathBuf::from("."))
    } else {
        PathBuf::from(".")
    }
}

pub fn prove(files: &[PathBuf], verbose: bool, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let mut status = 0;
    for f in files {
        let parsed = std::fs::read_to_string(f)
            .map_err(|e| e.to_string())
            .and_then(|t| ProofFile::parse(&t).map_err(|e| format!("{}:{e}", f.display())));
        let pf = match parsed {
            Ok(p) => p,
            Err(e) => {
                let _ = writeln!(err, "{e}");
                status = 2;
                continue;
            }
        };
        let root = root_of(f);
        match run_proofs(&pf, &root, &|p| load_model(p)) {
            Ok(certs) => {
                for c in certs {
                    let _ = writeln!(out, "== {}", f.display());
                    let _ = write!(out, "{}", c.render());
                    if !c.passed() && status == 0 {
                        status = 1;
                    }
                    if verbose || !c.passed() {
                        if let Ok(prog) = load_model(&root.join(&pf.model)) {
                            match &c.outcome {
                                Outcome::Counterexample(t) => {
                                    let _ = writeln!(out, "\n{}", text::render(t, &prog));
                                }
                                Outcome::Interleaving(t) => {
                                    let _ = writeln!(out, "\n{}", interleaved::render(t, &prog));
                                }
                                _ => {}
                            }
                        }
                    }
                    let _ = writeln!(out);
                }
            }
            Err(e) => {
                let _ = write!(err, "{}: {e}", f.display());
                status = 2;
            }
        }
    }
    status
}
