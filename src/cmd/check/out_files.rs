//! Where `check` writes its files (`--trace-dir`, `--repro-dir`): a file name per model, an
//! output directory refused when it is a file, and writes that never leave half a file.

use std::io::Write;
use std::path::{Path, PathBuf};

/// File names for each model's trace in one `--trace-dir`: the model's file stem, or, when two
/// models share a stem, the path's components joined with `-`.
pub(crate) fn trace_stems(models: &[PathBuf]) -> Vec<String> {
    let stem = |m: &Path| {
        m.file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("model")
            .to_string()
    };
    let stems: Vec<String> = models.iter().map(|m| stem(m)).collect();
    models
        .iter()
        .zip(&stems)
        .map(|(m, s)| {
            if stems.iter().filter(|t| *t == s).count() == 1 {
                return s.clone();
            }
            let p = m.with_extension("");
            p.components()
                .filter_map(|c| match c {
                    std::path::Component::Normal(n) => n.to_str(),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("-")
        })
        .collect()
}

/// Refuse an output directory that is an existing non-directory.
pub(crate) fn check_out_dir(flag: &str, dir: &Path) -> Result<(), String> {
    if dir.exists() && !dir.is_dir() {
        return Err(format!(
            "{flag} {}: exists and is not a directory",
            dir.display()
        ));
    }
    Ok(())
}

/// Write `text` to `path` atomically (a temporary file in the same directory, then renamed), so
/// an interrupted run never leaves half a trace.
pub(crate) fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let dir = dir.unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(text.as_bytes())?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
