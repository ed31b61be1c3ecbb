//! `rmapcheck kdiff`: the model's call sequences replayed on the running kernel, every live
//! mm's layout compared with the model's after each call.

use crate::cmd::load_model;
use crate::cmd::{CmdError, CmdResult, Exit};
use crate::oracle::expected::ALL;
use crate::oracle::kdiff::{Mismatch, Options, Report};
use crate::oracle::layout::render_pair;
use crate::oracle::sequences::Gen;
use crate::oracle::{BASE, PAGE};
use crate::scope::Scope;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Options of `rmapcheck kdiff` (each field's doc comment is its `--help` text).
#[derive(clap::Args, Clone, Debug)]
pub struct KdiffArgs {
    /// The model (default: the baseline).
    #[arg(default_value = crate::models::BASELINE)]
    pub model: PathBuf,
    /// A built-in scope or a scope TOML file (default: default).
    #[arg(long)]
    pub scope: Option<String>,
    /// Longest sequence (every sequence up to it, or the length of sampled ones).
    #[arg(long)]
    pub max_depth: Option<u32>,
    /// Run this many distinct random sequences of --max-depth calls instead of all.
    #[arg(long)]
    pub sample: Option<usize>,
    /// Run this many random walks of --length calls instead of all sequences.
    #[arg(long)]
    pub walks: Option<usize>,
    // the calls of each of --walks' walks
    #[arg(long, default_value_t = 8)]
    pub length: u32,
    /// Seed of --sample and --walks.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Mismatches printed in full.
    #[arg(long, default_value_t = 3)]
    pub show: usize,
    /// Exit 0 when the only mismatches are known model findings (still reported).
    #[arg(long)]
    pub tolerate_known: bool,
    /// Do not show progress.
    #[arg(long = "quiet", action = clap::ArgAction::SetFalse)]
    pub progress: bool,
}

fn print_mismatch(
    out: &mut dyn Write,
    n: usize,
    m: &Mismatch,
    names: &[String],
) -> std::io::Result<()> {
    writeln!(
        out,
        "\nMISMATCH {n}: after call {} of {}, mm#{}: {}",
        m.at + 1,
        m.calls.len(),
        m.mm,
        m.what
    )?;
    writeln!(out, "  calls:")?;
    for (i, c) in m.calls.iter().enumerate().take(m.at + 1) {
        let mark = if i == m.at {
            "   <- compared after this call"
        } else {
            ""
        };
        writeln!(out, "    {}. {c}{mark}", i + 1)?;
    }
    write!(out, "{}", render_pair(&m.model, &m.kernel, names, &m.bad))
}

fn summary(
    out: &mut dyn Write,
    r: &Report,
    gen: &str,
    model: &Path,
    scope: &Scope,
) -> std::io::Result<()> {
    writeln!(
        out,
        "kdiff: kernel {} against model {}",
        r.release,
        model.display()
    )?;
    writeln!(out, "  {}; {gen}", scope.summary())?;
    writeln!(
        out,
        "  base address {BASE:#x}, one model page = {PAGE} bytes"
    )?;
    let per = if r.sequences > 0 {
        r.seconds * 1000.0 / r.sequences as f64
    } else {
        0.0
    };
    writeln!(
        out,
        "  sequences {}, calls compared {}, mm layouts compared {}, {:.1} s ({per:.2} ms per sequence)",
        r.sequences, r.calls, r.layouts, r.seconds
    )?;
    if r.gen.skipped.is_empty() {
        writeln!(out, "  skipped calls: none")?;
    }
    for (why, n) in &r.gen.skipped {
        writeln!(out, "  skipped calls: {n} x {why}")?;
    }
    for (inv, n) in &r.gen.model_failures {
        writeln!(out, "  calls the model fails on (not run): {n} x {inv}")?;
    }
    for e in ALL {
        let n = r.expected.get(e.name).copied().unwrap_or(0);
        writeln!(
            out,
            "  expected difference {} ({}): {n} VMA(s)",
            e.name, e.kernels
        )?;
    }
    for k in crate::oracle::known::ALL {
        let n = r.known.get(k.name).copied().unwrap_or(0);
        writeln!(out, "  known model finding {}: {n} sequence(s)", k.name)?;
    }
    Ok(())
}

/// Ok when the kernel agrees on every sequence, Found on a mismatch, an error on bad input or
/// when the kernel cannot be driven (base address refused), Incomplete when the run broke off.
pub fn kdiff_cmd(a: &KdiffArgs, out: &mut dyn Write, err: &mut dyn Write) -> CmdResult {
    let prog = match load_model(&a.model) {
        Ok(p) => p,
        Err(d) => {
            return Err(CmdError::text(d));
        }
    };
    let mut scope = match Scope::load(a.scope.as_deref().unwrap_or("default")) {
        Ok(s) => s,
        Err(e) => {
            return Err(CmdError::line(format_args!("rmapcheck kdiff: {e}")));
        }
    };
    if let Some(d) = a.max_depth {
        scope.max_depth = d;
    }
    let (gen, text) = Gen::from_options(scope.max_depth, a.sample, a.walks, a.length, a.seed)
        .map_err(|e| CmdError::line(format_args!("rmapcheck kdiff: {e}")))?;
    let opts = Options {
        gen,
        timeout: Duration::from_secs(10),
        stop_after: 0,
    };
    let bar = crate::cmd::progress::Bar::new(a.progress, "kdiff");
    let r = crate::oracle::kdiff::kdiff_with(&prog, &scope, &opts, &mut |p| {
        bar.report(&format!(
            "kdiff: {} sequences, {} calls on the kernel, {:.0}s",
            p.sequences, p.calls, p.seconds
        ))
    });
    bar.finish();
    let r = match r {
        Ok(r) => r,
        Err(e) => {
            if e.contains("refuses the base address") {
                return Err(CmdError::line(format_args!("rmapcheck kdiff: {e}")));
            }
            writeln!(err, "rmapcheck kdiff: {e}")?;
            return Ok(Exit::Incomplete);
        }
    };
    summary(out, &r, &text, &a.model, &scope)?;
    if r.sequences == 0 {
        return Err(CmdError::line(format_args!(
            "rmapcheck kdiff: no sequence was run"
        )));
    }
    let names = scope_file_names(&scope);
    for (i, m) in r.mismatches.iter().take(a.show).enumerate() {
        print_mismatch(out, i + 1, m, &names)?;
    }
    let known: usize = r.known.values().sum();
    if let Some(m) = r.known_examples.first().filter(|_| a.show > 0) {
        write!(
            out,
            "\nKNOWN MODEL FINDING {} (first of {known}):",
            m.known.unwrap_or("")
        )?;
        print_mismatch(out, 1, m, &names)?;
    }
    if r.mismatches.is_empty() && (known == 0 || a.tolerate_known) {
        let tail = if known > 0 {
            format!(" except {known} sequence(s) of known model findings (tolerated)")
        } else {
            String::new()
        };
        writeln!(
            out,
            "AGREES: the kernel's layouts are the model's on every sequence{tail}"
        )?;
        Ok(Exit::Ok)
    } else {
        writeln!(
            out,
            "\nMISMATCHES: {} of {} sequences unexplained ({} shown), {known} of known model findings",
            r.mismatches.len(),
            r.sequences,
            r.mismatches.len().min(a.show)
        )?;
        Ok(Exit::Found)
    }
}

fn scope_file_names(scope: &Scope) -> Vec<String> {
    scope
        .initial_scenario()
        .file
        .iter()
        .map(|f| f.name.clone())
        .collect()
}
