//! The C harness as a child process speaking the line protocol of docs/CDIFF.md: one
//! request line, one reply line (`ok RC`, `error TEXT`), or for `dump` the dump's lines up to
//! `end`. Every reply is awaited for a bounded time. A harness that dies (a crash, a kernel
//! `BUG`, AddressSanitizer) or hangs is reported as [`Died`] with what it printed last, and
//! [`Harness::restart`] gives a fresh process for the next sequence.

use crate::world::World;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::Duration;

/// The harness process ended or stopped answering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Died {
    /// What happened, with the last lines it printed (a `bug FILE:LINE COND` line for a kernel
    /// BUG, an AddressSanitizer report, or a timeout).
    pub what: String,
}

impl std::fmt::Display for Died {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.what)
    }
}

/// Ignore SIGPIPE in this process, as a Rust `main` does, so that a write to a harness that
/// has died is an error to report and not the end of this process. For a process whose `main`
/// is not Rust's: the C fuzz target, whose `main` is libFuzzer's.
pub fn ignore_sigpipe() {
    // SAFETY: setting a signal's disposition to SIG_IGN installs no handler
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}

/// A running harness.
pub struct Harness {
    binary: PathBuf,
    timeout: Duration,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    errors: Receiver<String>,
}

impl Harness {
    /// Start the harness `binary`; each reply is awaited for at most `timeout`.
    pub fn start(binary: &Path, timeout: Duration) -> Result<Harness, Died> {
        Self::start_env(binary, timeout, &[])
    }

    /// [`Harness::start`] with `env` added to the process's environment (`GCOV_PREFIX` for a
    /// harness built with coverage).
    pub fn start_env(
        binary: &Path,
        timeout: Duration,
        env: &[(String, String)],
    ) -> Result<Harness, Died> {
        let mut child = Command::new(binary)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0")
            .env("UBSAN_OPTIONS", "print_stacktrace=1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Died {
                what: format!("cannot start {}: {e}", binary.display()),
            })?;
        let stdin = child.stdin.take().expect("piped stdin");
        let lines = pump(child.stdout.take().expect("piped stdout"));
        let errors = pump(child.stderr.take().expect("piped stderr"));
        let mut h = Harness {
            binary: binary.to_path_buf(),
            timeout,
            child,
            stdin,
            lines,
            errors,
        };
        let first = h.line()?;
        if !first.starts_with("ready rmapcheck-cglue 1") {
            return Err(h.died(&format!("unexpected greeting {first:?}")));
        }
        Ok(h)
    }

    /// A fresh process in place of this one (after a death).
    pub fn restart(&mut self) -> Result<(), Died> {
        let fresh = Harness::start(&self.binary, self.timeout)?;
        let old = std::mem::replace(self, fresh);
        drop(old);
        Ok(())
    }

    fn line(&mut self) -> Result<String, Died> {
        match self.lines.recv_timeout(self.timeout) {
            Ok(l) => Ok(l),
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                Err(self.died(&format!(
                    "no reply within {} s (killed)",
                    self.timeout.as_secs()
                )))
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.died("the harness exited")),
        }
    }

    fn died(&mut self, what: &str) -> Died {
        let _ = self.child.kill();
        let status = self.child.wait().ok();
        let mut err: Vec<String> = Vec::new();
        while let Ok(l) = self.errors.recv_timeout(Duration::from_millis(200)) {
            err.push(l);
        }
        let tail = crash_lines(&err);
        let mut s = what.to_string();
        if let Some(st) = status {
            s += &format!(" ({st})");
        }
        if !tail.is_empty() {
            s += &format!("; its last output:\n    {}", tail.join("\n    "));
        }
        Died { what: s }
    }

    /// Send one request and read its one-line reply. A `bug` line is the kernel's BUG: the
    /// process has exited.
    pub fn request(&mut self, line: &str) -> Result<String, Died> {
        if writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .is_err()
        {
            return Err(self.died("the harness closed its input"));
        }
        let r = self.line()?;
        if let Some(bug) = r.strip_prefix("bug ") {
            let what = format!("kernel BUG: {bug}");
            return Err(self.died(&what));
        }
        Ok(r)
    }

    /// Send several request lines at once without reading their replies (read them in order
    /// with [`Harness::reply`] and [`Harness::dump_reply`]): a pipelined batch.
    pub fn send(&mut self, lines: &str) -> Result<(), Died> {
        if self
            .stdin
            .write_all(lines.as_bytes())
            .and_then(|_| self.stdin.flush())
            .is_err()
        {
            return Err(self.died("the harness closed its input"));
        }
        Ok(())
    }

    /// The next one-line reply of a batch sent with [`Harness::send`].
    pub fn reply(&mut self) -> Result<String, Died> {
        let r = self.line()?;
        if let Some(b) = r.strip_prefix("bug ") {
            return Err(self.died(&format!("kernel BUG: {b}")));
        }
        Ok(r)
    }

    /// The lines of the next `dump` of a batch (without the final `end`).
    pub fn dump_reply(&mut self) -> Result<Vec<String>, Died> {
        let mut out = Vec::new();
        let mut l = self.reply()?;
        while l != "end" {
            out.push(l);
            l = self.line()?;
        }
        Ok(out)
    }

    /// `reset` the harness to the (empty) world `w` and await its `ok 0`.
    pub fn reset(&mut self, w: &World) -> Result<(), Died> {
        let r = self.request(&super::calls::reset(w))?;
        Self::reset_done(r)
    }

    /// The reply to a pipelined `reset` ([`super::calls::reset`]): `ok 0`, else the harness
    /// is unusable.
    pub fn reset_reply(&mut self) -> Result<(), Died> {
        let r = self.reply()?;
        Self::reset_done(r)
    }

    fn reset_done(r: String) -> Result<(), Died> {
        if r == "ok 0" {
            Ok(())
        } else {
            Err(Died {
                what: format!("reset refused: {r}"),
            })
        }
    }

    /// Make the call `req` and await its `ok RC` (the reply); any other reply is a refusal.
    pub fn call(&mut self, req: &str) -> Result<String, Died> {
        let r = self.request(req)?;
        Self::accepted(req, r)
    }

    /// The reply to a pipelined call `req`, as [`Harness::call`] takes it.
    pub fn call_reply(&mut self, req: &str) -> Result<String, Died> {
        let r = self.reply()?;
        Self::accepted(req, r)
    }

    /// `r` when it is the `ok RC` of the call `req`, else the harness's refusal as an error.
    pub fn accepted(req: &str, r: String) -> Result<String, Died> {
        if r.starts_with("ok ") {
            Ok(r)
        } else {
            Err(Died {
                what: format!("the harness refused `{req}`: {r}"),
            })
        }
    }

    /// `dump`: the dump's lines (without the final `end`).
    pub fn dump(&mut self) -> Result<Vec<String>, Died> {
        let mut out = Vec::new();
        let mut l = self.request("dump")?;
        while l != "end" {
            out.push(l);
            l = self.line()?;
        }
        Ok(out)
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        // a harness that quits exits at once: give it a moment to do so, so that a harness
        // built with coverage writes its counts at exit
        for _ in 0..100 {
            if !matches!(self.child.try_wait(), Ok(None)) {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A thread that sends each line of `r` down a channel (ends with the stream).
fn pump(r: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for l in BufReader::new(r).lines() {
            let Ok(l) = l else { break };
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    rx
}

/// What to show of a dead harness's standard error: for an AddressSanitizer or
/// UndefinedBehaviorSanitizer report, its error line, the first frames of its stack and its
/// summary (the report's tail is only the shadow-byte legend); otherwise the last 12 lines.
fn crash_lines(err: &[String]) -> Vec<String> {
    const FRAMES: usize = 8;
    let start = err
        .iter()
        .position(|l| l.contains("ERROR: AddressSanitizer") || l.contains("runtime error:"));
    let Some(start) = start else {
        return err.iter().rev().take(12).rev().cloned().collect();
    };
    let mut out = vec![err[start].clone()];
    out.extend(
        err[start + 1..]
            .iter()
            .skip_while(|l| !l.trim_start().starts_with('#'))
            .take_while(|l| l.trim_start().starts_with('#'))
            .take(FRAMES)
            .cloned(),
    );
    if let Some(summary) = err[start..].iter().find(|l| l.starts_with("SUMMARY:")) {
        out.push(summary.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::crash_lines;

    fn lines(s: &str) -> Vec<String> {
        s.lines().map(str::to_string).collect()
    }

    #[test]
    fn an_asan_report_shows_its_error_its_first_frames_and_its_summary() {
        let mut err = lines(
            "noise\n==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x1\n\
             READ of size 8\n    #0 0x1 in glue_vma_mm glue.c:180\n    #1 0x2 in caller glue.c:125\n\
             \nfreed by thread T0 here:\n    #0 0x3 in free\n\
             SUMMARY: AddressSanitizer: heap-use-after-free glue.c:180 in glue_vma_mm",
        );
        err.extend((0..20).map(|i| format!("  legend {i}")));
        let shown = crash_lines(&err);
        assert_eq!(shown.len(), 4, "{shown:#?}");
        assert!(shown[0].contains("heap-use-after-free"));
        assert!(shown[1].contains("#0") && shown[1].contains("glue_vma_mm"));
        assert!(shown[2].contains("#1 0x2 in caller"));
        assert!(shown[3].starts_with("SUMMARY:"));
    }

    #[test]
    fn other_output_shows_its_last_twelve_lines() {
        let err: Vec<String> = (0..30).map(|i| format!("line {i}")).collect();
        let shown = crash_lines(&err);
        assert_eq!(shown.len(), 12);
        assert_eq!(shown[0], "line 18");
        assert_eq!(shown[11], "line 29");
    }
}
