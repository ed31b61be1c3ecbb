//! `rmapcheck cdiff --kernel DIR`: the model's call sequences run on the model and on the
//! kernel tree's own C (mm/vma.c with the real rmap trees), the worlds compared after every
//! call, trees included (docs/CDIFF.md).

use crate::cdiff::render;
use crate::cdiff::run::{self, Options, Report};
use crate::charness::build;
use crate::charness::calls::{skip_reason, COMPARED};
use crate::cmd::load_model;
use crate::cmd::{CmdError, CmdResult, Exit};
use crate::entry::EntryPoint;
use crate::oracle::sequences::Gen;
use crate::scope::Scope;
use crate::world::scenario::Call;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// Options of `rmapcheck cdiff` (each field's doc comment is its `--help` text).
#[derive(clap::Args, Clone, Debug)]
pub struct CdiffArgs {
    /// The model (default: the model of the tree's generation, models/v7.3-rc4/baseline.rmap
    /// for a v7.3 tree, models/v7.2/v7.2.rmap for a 7.2 tree).
    pub model: Option<PathBuf>,
    /// A kernel source tree, v7.3 or v7.2 (scripts/fetch-kernel.sh fetches one).
    #[arg(long)]
    pub kernel: PathBuf,
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
    /// Run only this sequence: model calls separated by `;`.
    #[arg(long)]
    pub sequence: Option<String>,
    /// Mismatches printed in full.
    #[arg(long, default_value_t = 3)]
    pub show: usize,
    /// Exit 0 when the only mismatches are known findings (still reported).
    #[arg(long)]
    pub tolerate_known: bool,
    /// Only build the harness (or find it cached) and print where it is.
    #[arg(long)]
    pub build_only: bool,
    /// Apply this unified diff (-p1) to a copy of the tree first, as `check --kernel
    /// --patch` does (repeatable, in order); compare a patch model with the patched C.
    #[arg(id = "patch", long = "patch", value_name = "PATCH")]
    pub patches: Vec<PathBuf>,
    /// Test hook: corrupt the C world after every call (`file N` or `anon N`: the root
    /// node's rb_subtree_last of that tree gains 1), to show that cdiff sees it.
    // (see [`Options::corrupt`])
    #[arg(
        id = "corrupt_c",
        long = "corrupt-c",
        value_name = "CORRUPT_C",
        hide = true
    )]
    pub corrupt: Option<String>,
    /// Do not show progress.
    #[arg(long = "quiet", action = clap::ArgAction::SetFalse)]
    pub progress: bool,
}

fn bad(e: impl std::fmt::Display) -> CmdError {
    CmdError::line(format_args!("rmapcheck cdiff: {e}"))
}

/// The calls of `--sequence`: `call; call; ...`.
fn parse_sequence(s: &str) -> Result<Vec<Call>, CmdError> {
    let mut out = Vec::new();
    for (i, part) in s.split(';').map(str::trim).enumerate() {
        if part.is_empty() {
            continue;
        }
        out.push(Call::parse(part).map_err(|e| bad(format!("--sequence call {}: {e}", i + 1)))?);
    }
    if out.is_empty() {
        return Err(bad("--sequence names no call"));
    }
    Ok(out)
}

fn summary(
    out: &mut dyn Write,
    r: &Report,
    gen: &str,
    a: &CdiffArgs,
    scope: &Scope,
    b: &build::Built,
) -> std::io::Result<()> {
    writeln!(
        out,
        "cdiff: kernel tree {} ({}){} against model {}",
        a.kernel.display(),
        b.release,
        a.patches
            .iter()
            .map(|p| format!(" with patch {}", p.display()))
            .collect::<String>(),
        model_line(a, b.generation)
    )?;
    writeln!(out, "  {}; {gen}", scope.summary())?;
    writeln!(
        out,
        "  harness {} ({} in {:.1} s)",
        b.binary.display(),
        if b.compiled { "built" } else { "cached" },
        b.seconds
    )?;
    let per = if r.sequences > 0 {
        r.seconds * 1000.0 / r.sequences as f64
    } else {
        0.0
    };
    writeln!(
        out,
        "  sequences {}, calls compared {}, {:.1} s ({per:.2} ms per sequence), harness processes {}",
        r.sequences, r.calls, r.seconds, r.harness_starts
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
    for k in crate::cdiff::known::ALL {
        let n = r.known.get(k.name).copied().unwrap_or(0);
        writeln!(out, "  known finding {}: {n} sequence(s)", k.name)?;
    }
    Ok(())
}

/// Ok when the C agrees on every sequence, Found on a mismatch, an error on bad input (no
/// tree, a tree the harness cannot be built from), Incomplete when the run broke off.
pub fn cdiff_cmd(a: &CdiffArgs, out: &mut dyn Write, err: &mut dyn Write) -> CmdResult {
    let model = model_path(a);
    let prog = load_model(&model).map_err(CmdError::text)?;
    let mut scope = Scope::load(a.scope.as_deref().unwrap_or("default")).map_err(bad)?;
    if let Some(d) = a.max_depth {
        scope.max_depth = d;
    }
    let (gen, text) =
        Gen::from_options(scope.max_depth, a.sample, a.walks, a.length, a.seed).map_err(bad)?;
    let sequence = a.sequence.as_deref().map(parse_sequence).transpose()?;
    let b = if a.patches.is_empty() {
        build::build(&a.kernel).map_err(bad)?
    } else {
        let src = crate::ccheck::Source {
            kernel: a.kernel.clone(),
            patches: a.patches.clone(),
            mutants: Vec::new(),
        };
        crate::ccheck::prepare(&src).map_err(bad)?.built
    };
    if a.build_only {
        writeln!(
            out,
            "harness {} for {}{} ({} in {:.1} s)",
            b.binary.display(),
            b.release,
            a.patches
                .iter()
                .map(|p| format!(" with patch {}", p.display()))
                .collect::<String>(),
            if b.compiled { "built" } else { "cached" },
            b.seconds
        )?;
        return Ok(Exit::Ok);
    }
    let opts = Options {
        gen,
        timeout: Duration::from_secs(10),
        stop_after: 0,
        corrupt: a.corrupt.clone(),
    };
    if let Some(calls) = sequence {
        let run::OneSequence {
            seq,
            mismatch: m,
            notes,
        } = run::one_sequence(&prog, &scope, &b.binary, &calls, &opts).map_err(bad)?;
        writeln!(
            out,
            "cdiff: kernel tree {} ({}) against model {}: one sequence of {} calls",
            a.kernel.display(),
            b.release,
            model_line(a, b.generation),
            seq.calls.len()
        )?;
        for n in notes {
            writeln!(out, "  {n}")?;
        }
        return Ok(match m {
            None => {
                writeln!(
                    out,
                    "AGREES: the C's worlds are the model's after every call"
                )?;
                Exit::Ok
            }
            Some(m) => {
                write!(out, "{}", render::mismatch(1, &m))?;
                Exit::Found
            }
        });
    }
    let bar = crate::cmd::progress::Bar::new(a.progress, "cdiff");
    let r = run::cdiff(&prog, &scope, &b.binary, &opts, &mut |p| {
        bar.report(&format!(
            "cdiff: {} sequences, {} calls, {:.0}s",
            p.sequences, p.calls, p.seconds
        ))
    });
    bar.finish();
    let r = match r {
        Ok(r) => r,
        Err(e) => {
            writeln!(err, "rmapcheck cdiff: {e}")?;
            return Ok(Exit::Incomplete);
        }
    };
    summary(out, &r, &text, a, &scope, &b)?;
    if r.sequences == 0 {
        return Err(bad("no sequence was run"));
    }
    for (i, m) in r.mismatches.iter().take(a.show).enumerate() {
        write!(out, "{}", render::mismatch(i + 1, m))?;
    }
    let known: usize = r.known.values().sum();
    if let Some(m) = r.known_examples.first().filter(|_| a.show > 0) {
        write!(
            out,
            "\nKNOWN FINDING {} (first of {known}):",
            m.known.unwrap_or("")
        )?;
        write!(out, "{}", render::mismatch(1, m))?;
    }
    if r.mismatches.is_empty() && (known == 0 || a.tolerate_known) {
        let tail = if known > 0 {
            format!(" except {known} sequence(s) of known findings (tolerated)")
        } else {
            String::new()
        };
        writeln!(
            out,
            "AGREES: the C's worlds are the model's after every call of every sequence{tail}"
        )?;
        Ok(Exit::Ok)
    } else {
        writeln!(
            out,
            "\nMISMATCHES: {} of {} sequences unexplained ({} shown), {known} of known findings",
            r.mismatches.len(),
            r.sequences,
            r.mismatches.len().min(a.show)
        )?;
        version_differences(out, &r.mismatches, b.generation, &model)?;
        Ok(Exit::Found)
    }
}

/// The model named, else the model of the tree's generation.
fn model_path(a: &CdiffArgs) -> PathBuf {
    crate::charness::generation::model_or_default(a.model.as_deref(), &a.kernel)
}

/// The model in use and why: `PATH (the model of a v7.2 tree ...)`.
fn model_line(a: &CdiffArgs, g: &crate::charness::generation::Generation) -> String {
    let m = model_path(a);
    format!(
        "{} ({})",
        m.display(),
        g.model_origin(&m, a.model.is_some())
    )
}

/// How many of the mismatches first differ in a field where the tree's generation is known to
/// differ from the v7.3 model (a line per version difference; nothing on a v7.3 tree, nor with
/// the tree generation's own model). They stay mismatches: the model is not compared with that
/// tree's C past them.
fn version_differences(
    out: &mut dyn Write,
    mismatches: &[crate::cdiff::mismatch::Mismatch],
    g: &crate::charness::generation::Generation,
    model: &std::path::Path,
) -> std::io::Result<()> {
    if g.is_own_model(model) {
        return Ok(());
    }
    for v in g.differences {
        let n = mismatches
            .iter()
            .filter(|m| {
                let first = m.c.iter().zip(&m.model).find(|(c, mo)| c != mo);
                first.and_then(|(c, mo)| g.explain(c, mo)).map(|x| x.name) == Some(v.name)
            })
            .count();
        if n > 0 {
            writeln!(
                out,
                "  {n} of them first differ in `{}` alone: the version difference `{}` of this {} \
                 tree (read in {}): {}",
                v.field, v.name, g.name, g.read_in, v.what
            )?;
        }
    }
    Ok(())
}

/// The entry points and what each becomes, for `--list` style documentation and tests.
pub fn entry_points() -> Vec<(EntryPoint, String)> {
    EntryPoint::all()
        .map(|p| {
            let how = COMPARED
                .iter()
                .find(|(q, _)| *q == p)
                .map(|(_, h)| format!("compared: {h}"))
                .or_else(|| skip_reason(p).map(|r| format!("not compared: {r}")))
                .unwrap_or_else(|| "not compared".into());
            (p, how)
        })
        .collect()
}
