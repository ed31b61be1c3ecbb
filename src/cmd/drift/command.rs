//! `rmapcheck drift [MODEL] --kernel DIR`: the model's functions against a kernel source tree.
//! Each model function names the kernel function it stands for (`// kernel: FILE FUNCTION`
//! above it); for each, the report says whether FILE in the tree still defines FUNCTION (and at
//! which line), whether the definition moved to another file, or whether the tree no longer
//! defines it at all. Where it is found, its definition and the model function are compared
//! token by token (comments and whitespace dropped, `drift_text`): `in sync`, or `differs` with
//! the count of tokens that differ and, with `--diff`, a token-level unified diff. The model's
//! functions are written in our own words, so most differ; a model function whose kernel line
//! ends in `transcribed` (`// kernel: FILE FUNCTION transcribed`) claims to follow the kernel
//! text token for token, and its diff is always printed. The tree's release comes from its top
//! Makefile. Exit status: 0 no drift, 1 drift (a function moved or gone, or a transcribed one
//! differs), 2 bad input.
//!
//! Before the comparison the model function's tokens go through the model's stand-ins
//! (`drift_stand_ins`: `stand-ins.toml` beside the model, or `--stand-ins FILE`), which rewrite
//! each model builtin that stands for a kernel helper into the kernel's spelling, so that only
//! real differences count.
//!
//! A definition is recognised textually: a line that starts in column 0, names FUNCTION
//! followed by `(`, and does not end in `;` (a declaration) — the form the kernel's style
//! gives function definitions and static inlines. Macro-generated functions (for example the
//! interval tree's) are not found this way and are reported as gone; the report says so.

use super::stand_ins::StandIns;
use super::text::{c_tokens, definition_text, token_diff_tokens};
use crate::cmd::load_model;
use crate::cmd::{CmdError, CmdResult, Exit};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Options of `rmapcheck drift` (each field's doc comment is its `--help` text).
#[derive(clap::Args, Clone, Debug)]
pub struct DriftArgs {
    /// The model (a file, or a directory holding one model).
    #[arg(default_value = crate::models::BASELINE)]
    pub model: PathBuf,
    /// The kernel source tree (its top directory).
    #[arg(long)]
    pub kernel: PathBuf,
    /// Print the token-level diff of every function that differs (always printed for a
    /// function marked `transcribed`).
    #[arg(long)]
    pub diff: bool,
    /// The table of the model's stand-ins for kernel helpers (default: `stand-ins.toml`
    /// beside the model, if any).
    #[arg(long)]
    pub stand_ins: Option<PathBuf>,
}

/// The stand-ins table `drift` applies: the one given, else `stand-ins.toml` in the model's
/// directory (the directory given, or the model file's), else none.
fn stand_ins_for(a: &DriftArgs) -> Result<StandIns, String> {
    if let Some(p) = &a.stand_ins {
        return StandIns::load(p);
    }
    let dir = if a.model.is_dir() {
        Some(a.model.as_path())
    } else {
        a.model.parent()
    };
    match dir.map(|d| d.join("stand-ins.toml")) {
        Some(p) if p.is_file() => StandIns::load(&p),
        _ => Ok(StandIns::default()),
    }
}

/// Where a kernel function is now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// Defined in the file the model names, at this line.
    Same(usize),
    /// Not there, but defined in another file of the tree (path relative to the tree, line).
    Moved(String, usize),
    /// Defined nowhere the search looks.
    Gone,
}

/// The 1-based line of a definition of `func` in `text`, if any.
pub(crate) fn definition_line(text: &str, func: &str) -> Option<usize> {
    let pat = format!("{func}(");
    text.lines().enumerate().find_map(|(i, l)| {
        let starts_col0 = l.chars().next().is_some_and(|c| !c.is_whitespace());
        let names = l.match_indices(&pat).any(|(at, _)| {
            at == 0
                || !l[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        let decl = l.trim_end().ends_with(';');
        let comment = l.starts_with("/*") || l.starts_with(" *") || l.starts_with("//");
        (starts_col0 && names && !decl && !comment && !l.starts_with('#')).then_some(i + 1)
    })
}

/// Every C source and header under `dir` (sorted), skipping hidden folders and files.
fn sources(dir: &Path) -> Vec<PathBuf> {
    crate::models::files_under(
        dir,
        |d| !d.starts_with('.'),
        |f| !f.starts_with('.') && (f.ends_with(".c") || f.ends_with(".h")),
    )
}

/// The tree's release from its top Makefile (`VERSION.PATCHLEVEL.SUBLEVEL EXTRAVERSION`).
pub fn release(dir: &Path) -> Option<String> {
    let mk = std::fs::read_to_string(dir.join("Makefile")).ok()?;
    let field = |k: &str| {
        mk.lines()
            .find_map(|l| l.strip_prefix(k).map(|r| r.trim_start()))
            .and_then(|r| r.strip_prefix('='))
            .map(|v| v.trim().to_string())
    };
    let (v, p) = (field("VERSION")?, field("PATCHLEVEL")?);
    let s = field("SUBLEVEL").unwrap_or_default();
    let e = field("EXTRAVERSION").unwrap_or_default();
    Some(format!("{v}.{p}.{s}{e}"))
}

/// Kernel files read so far (`None`: unreadable), so each is read once per report.
type Texts = BTreeMap<PathBuf, Option<String>>;

/// Where each kernel function of `refs` (model function -> (file, function)) is in `dir`;
/// the files the model names are kept in `texts`.
pub(crate) fn locate(
    dir: &Path,
    refs: &BTreeMap<String, (String, String)>,
    texts: &mut Texts,
) -> BTreeMap<String, Place> {
    let mut read = |p: &Path| {
        texts
            .entry(p.to_path_buf())
            .or_insert_with(|| std::fs::read_to_string(p).ok())
            .clone()
    };
    let mut all: Option<Vec<PathBuf>> = None;
    let mut out = BTreeMap::new();
    for (model_fn, (file, func)) in refs {
        if let Some(l) = read(&dir.join(file)).and_then(|t| definition_line(&t, func)) {
            out.insert(model_fn.clone(), Place::Same(l));
            continue;
        }
        let files = all.get_or_insert_with(|| sources(dir));
        let moved = files.iter().find_map(|p| {
            let t = std::fs::read_to_string(p).ok()?;
            let l = definition_line(&t, func)?;
            let rel = p.strip_prefix(dir).unwrap_or(p).display().to_string();
            Some((rel, l))
        });
        out.insert(
            model_fn.clone(),
            match moved {
                Some((f, l)) => Place::Moved(f, l),
                None => Place::Gone,
            },
        );
    }
    out
}

pub fn drift(a: &DriftArgs, out: &mut dyn Write) -> CmdResult {
    if !a.kernel.is_dir() {
        return Err(CmdError::line(format_args!(
            "rmapcheck drift: --kernel {}: not a directory (give a kernel source tree)",
            a.kernel.display()
        )));
    }
    let prog = match load_model(&a.model) {
        Ok(p) => p,
        Err(d) => {
            return Err(CmdError::text(d));
        }
    };
    let stand_ins = match stand_ins_for(a) {
        Ok(s) => s,
        Err(e) => return Err(CmdError::line(format_args!("rmapcheck drift: {e}"))),
    };
    let mut refs = BTreeMap::new();
    let mut transcribed = std::collections::BTreeSet::new();
    let mut helpers = 0;
    let mut unannotated = Vec::new();
    for f in prog.function_names() {
        match prog.kernel_ref(f) {
            Some(k) if k.starts_with("none") => helpers += 1,
            Some(k) => {
                let mut w = k.split_whitespace();
                if let (Some(file), Some(func)) = (w.next(), w.next()) {
                    refs.insert(f.to_string(), (file.to_string(), func.to_string()));
                    if w.next() == Some("transcribed") {
                        transcribed.insert(f.to_string());
                    }
                }
            }
            None => unannotated.push(f.to_string()),
        }
    }
    writeln!(
        out,
        "drift of {} against {} (release {})",
        a.model.display(),
        a.kernel.display(),
        release(&a.kernel).unwrap_or_else(|| "unknown: no Makefile".into())
    )?;
    match &stand_ins.source {
        Some(p) => writeln!(
            out,
            "stand-ins: {} from {}, applied to the model's tokens",
            stand_ins.len(),
            p.display()
        )?,
        None => writeln!(out, "stand-ins: none (no stand-ins.toml beside the model)")?,
    }
    let mut rewritten = 0;
    let mut texts = Texts::new();
    let places = locate(&a.kernel, &refs, &mut texts);
    let (mut same, mut moved, mut gone) = (0, 0, 0);
    let (mut in_sync, mut differ, mut bad_transcriptions) = (0, 0, 0);
    for (model_fn, (file, func)) in &refs {
        let (line, at) = match &places[model_fn] {
            Place::Same(l) => {
                same += 1;
                let line = format!("ok     {model_fn:<34} {file}:{l} {func}");
                (line, Some((a.kernel.join(file), *l)))
            }
            Place::Moved(f, l) => {
                moved += 1;
                let line = format!("MOVED  {model_fn:<34} {file} -> {f}:{l} {func}");
                (line, Some((a.kernel.join(f), *l)))
            }
            Place::Gone => {
                gone += 1;
                let line = format!("GONE   {model_fn:<34} {file} {func}: no definition found");
                (line, None)
            }
        };
        let kernel_text = at.and_then(|(p, l)| {
            let t = texts
                .entry(p)
                .or_insert_with_key(|p| std::fs::read_to_string(p).ok());
            definition_text(t.as_deref()?, l).map(str::to_string)
        });
        let model_text = prog
            .function(model_fn)
            .and_then(|id| prog.func_source(id))
            .map(|s| s.text.to_string());
        let mark = transcribed.contains(model_fn);
        match (kernel_text, model_text) {
            (Some(k), Some(m)) => {
                let (mt, n) = stand_ins.apply(&c_tokens(&m));
                rewritten += n;
                let d = token_diff_tokens(&mt, &c_tokens(&k));
                if d.in_sync() {
                    in_sync += 1;
                    writeln!(out, "{line}: in sync")?;
                } else {
                    differ += 1;
                    bad_transcriptions += mark as usize;
                    writeln!(
                        out,
                        "{line}: differs, {} of {} tokens{}",
                        d.changed,
                        d.model_tokens.max(d.kernel_tokens),
                        if mark { " (marked transcribed)" } else { "" }
                    )?;
                    if a.diff || mark {
                        write!(out, "{}", d.unified)?;
                    }
                }
            }
            _ => {
                writeln!(out, "{line}")?;
            }
        }
    }
    for f in &unannotated {
        writeln!(out, "NOREF  {f:<34} (no // kernel: line)")?;
    }
    writeln!(
        out,
        "{same} in place, {moved} moved, {gone} gone, {helpers} model helpers, {} without a \
         kernel line (macro-generated kernel functions are not recognised and count as gone)",
        unannotated.len()
    )?;
    writeln!(
        out,
        "text: {in_sync} in sync, {differ} differ token by token ({bad_transcriptions} of them \
         marked transcribed; {rewritten} stand-in calls rewritten); the model is written in its own words, so a difference is a place \
         to read, not an error, unless the function is marked transcribed"
    )?;
    Ok(Exit::found_if(
        moved + gone + unannotated.len() + bad_transcriptions > 0,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_not_calls_or_declarations() {
        let c = "static void vma_complete(struct vma_prepare *vp);\n\
                 \tvma_complete(&vp);\n\
                 static void vma_complete(struct vma_prepare *vp,\n\
                 \t\t\t struct mm_struct *mm)\n{\n}\n\
                 void __vma_complete(void)\n{\n}\n";
        assert_eq!(definition_line(c, "vma_complete"), Some(3));
        assert_eq!(definition_line(c, "__vma_complete"), Some(7));
        assert_eq!(definition_line(c, "complete"), None);
    }
}
