//! Where `check` saves a counterexample: its trace (`--trace-dir`), the trace of its worst
//! consequence, a walker counterexample's interleaving, and its C reproducer (`--repro-dir`);
//! a file that cannot be written is reported and makes the run exit 2.

use super::command::Run;
use super::out_files::write_atomic;
use crate::cmd::Exit;
use crate::explore::search::Outcome;
use std::path::Path;

impl Run<'_> {
    /// Save the worst consequence's trace (`STEM.worst.trace.json`) and reproducer
    /// (`STEM.worst.repro.c`) beside the first one's, when it is a call sequence.
    pub(super) fn save_worst(
        &mut self,
        rep: Option<&crate::explore::consequence::Report>,
        stem: &str,
    ) -> std::io::Result<()> {
        let Some((_, _, Outcome::Counterexample(t))) = rep.and_then(|r| r.worst()) else {
            return Ok(());
        };
        if let Some(dir) = &self.a.trace_dir {
            self.save_trace(t, &dir.join(format!("{stem}.worst.trace.json")))?;
        }
        if let Some(dir) = self.a.repro_dir.clone() {
            self.save_repro(t, &format!("{stem}.worst"), &dir)?;
        }
        Ok(())
    }

    /// Save a walker counterexample (an interleaving of a writer and walkers) as JSON: the
    /// rendered schedule with its model and pass. It is not a call trace, and `replay` and
    /// `repro` do not read it: the line saying where it went says so.
    pub(super) fn save_interleaving(
        &mut self,
        ij: &serde_json::Value,
        m: &Path,
        path: &Path,
    ) -> std::io::Result<()> {
        let doc = serde_json::json!({
            "model": m.display().to_string(),
            "pass": self.scope.name,
            "interleaving": ij["interleaving"],
        });
        let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        match write_atomic(path, &text) {
            Ok(()) => self.say(&format!(
                "interleaving saved to {} (a writer-and-walkers schedule, not a call trace: \
                 replay and repro do not read it)",
                path.display()
            )),
            Err(e) => {
                self.worsen(Exit::BadInput);
                writeln!(self.err, "cannot write {}: {e}", path.display())
            }
        }
    }

    pub(super) fn save_trace(
        &mut self,
        t: &crate::trace::Trace,
        path: &Path,
    ) -> std::io::Result<()> {
        match write_atomic(path, &t.to_json()) {
            Ok(()) => self.say(&format!("trace saved to {}", path.display())),
            Err(e) => {
                self.worsen(Exit::BadInput);
                writeln!(self.err, "cannot write {}: {e}", path.display())
            }
        }
    }

    /// Write `dir/STEM.repro.c` for a counterexample, or say why there is none.
    pub(super) fn save_repro(
        &mut self,
        t: &crate::trace::Trace,
        stem: &str,
        dir: &Path,
    ) -> std::io::Result<()> {
        let path = dir.join(format!("{stem}.repro.c"));
        if let Err(e) = std::fs::create_dir_all(dir) {
            writeln!(self.err, "cannot create {}: {e}", dir.display())?;
            self.worsen(Exit::BadInput);
            return Ok(());
        }
        let base = Path::new(crate::models::BASELINE);
        let mut said = Vec::new();
        let model = Path::new(&t.model);
        // the exit status stays the counterexample's: a missing reproducer is only reported
        match crate::cmd::kernel::repro::write_repro(
            t,
            model,
            Some(&path),
            base,
            &mut said,
            self.err,
        ) {
            Ok(_) => {}
            Err(crate::cmd::CmdError::Input(text)) => self.err.write_all(text.as_bytes())?,
            Err(crate::cmd::CmdError::Io(e)) => return Err(e),
        }
        let said = String::from_utf8_lossy(&said).into_owned();
        for l in said.lines() {
            self.say(l)?;
        }
        Ok(())
    }
}
