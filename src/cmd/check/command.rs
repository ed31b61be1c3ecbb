//! `rmapcheck check`: exhaustive checking of models at a scope, one verdict line per model, a
//! counterexample for each model that fails. Exit status: 0 all hold, 1 a counterexample, 2
//! usage or model errors, 3 incomplete (a bound, or SIGINT/SIGTERM).
//!
//! With a machine format (json, dot, ktap, junit, markdown) standard output holds only that
//! document; the scope and verdict lines go to standard error.
//!
//! With [`CheckArgs::cluster`] (`--workers`, `--process/--processes/--hostfile`) each model is
//! searched on timely workers (`explore::distributed`): the same verdicts and traces; a cluster
//! that cannot be set up is an error of that model (exit 2).

use super::consequence;
use super::out_files::{check_out_dir, trace_stems};
use super::scope::effective_scopes;
use super::verdict::{memory_json, no_call, sim_verdict_line, verdict_line};
use crate::checker::budget::{self, Budget};
use crate::checker::walk::WalkProgress;
use crate::checker::Progress;
use crate::cmd::formats::{self, Case, Status};
use crate::cmd::{discover_models, load_model};
use crate::cmd::{CmdError, CmdResult, Exit};
use crate::explore::search::{search_within, Outcome, Stats};
use crate::explore::simulate::simulate;
use crate::scope::Scope;
use crate::trace::text;
use std::io::Write;
use std::path::{Path, PathBuf};

pub use super::args::CheckArgs;
pub use crate::cmd::formats::TraceFormat;

pub fn check(a: &CheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> CmdResult {
    let cluster = a
        .cluster()
        .map_err(|e| CmdError::line(format_args!("rmapcheck check: {e}")))?;
    let passes = match effective_scopes(a) {
        Ok(s) => s,
        Err(e) => {
            return Err(CmdError::line(format_args!("rmapcheck check: {e}")));
        }
    };
    if let Err(e) = formats::model_search_writes(a.format) {
        return Err(CmdError::line(format_args!("rmapcheck check: {e}")));
    }
    for (flag, dir) in [("--trace-dir", &a.trace_dir), ("--repro-dir", &a.repro_dir)] {
        if let Some(Err(e)) = dir.as_deref().map(|d| check_out_dir(flag, d)) {
            return Err(CmdError::line(format_args!("rmapcheck check: {e}")));
        }
    }
    let models = if a.models.is_empty() {
        // the baseline and the patch models: an older tree's model (models/v7.2/) is checked
        // when named, and against its tree's C by `check --kernel`
        let mut found = discover_models(Path::new("models"), false);
        found.retain(|m| !crate::models::is_older_trees_model(m));
        if found.is_empty() {
            return Err(CmdError::line(format_args!(
                "rmapcheck check: no models given and none found under ./models"
            )));
        }
        found
    } else {
        match crate::cmd::expand_model_args(&a.models) {
            Ok(m) => m,
            Err(e) => {
                return Err(CmdError::line(format_args!("rmapcheck check: {e}")));
            }
        }
    };
    let accept = a
        .accept_unreached
        .iter()
        .map(|s| s.parse::<crate::cover::Accept>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| CmdError::line(format_args!("rmapcheck check: --accept-unreached {e}")))?;
    crate::cover::deepen::budget(a.deepen_budget)
        .map_err(|e| CmdError::line(format_args!("rmapcheck check: {e}")))?;
    let plan = passes.len() > 1;
    let mut run = Run {
        a,
        simulate: a.simulation(),
        cluster,
        deepen: crate::cover::deepen::Plan {
            accept,
            budget_s: a.deepen_budget,
        },
        scope: passes[0].clone(),
        plan,
        failed: Vec::new(),
        summaries: passes.iter().map(Scope::summary).collect(),
        out,
        err,
        cases: Vec::new(),
        json: Vec::new(),
        status: Exit::Ok,
        coverage: None,
    };
    if plan {
        let names: Vec<&str> = passes.iter().map(|p| p.name.as_str()).collect();
        let left = crate::explore::plan::left_out_by_all(&passes);
        let line = format!(
            "check: every path, {} passes ({}); left out by all of them (bounds aside, each \
             in its pass's scope line): {}",
            passes.len(),
            names.join(", "),
            if left.is_empty() {
                "nothing".to_string()
            } else {
                left.join("; ")
            }
        );
        run.say(&line)?;
    }
    let stems = trace_stems(&models);
    for scope in passes {
        run.scope = scope;
        run.header()?;
        for (i, m) in models.iter().enumerate() {
            if budget::stop_requested() {
                run.not_run(m)?;
                continue;
            }
            if let Some((_, pass)) = run.failed.iter().find(|(f, _)| f == m) {
                let line = format!(
                    "{} [{}]: not run: a counterexample in pass {pass} (its consequence search \
                     is above)",
                    m.display(),
                    run.scope.name
                );
                run.say(&line)?;
                continue;
            }
            run.model(m, &stems[i])?;
        }
    }
    run.finish()
}

/// The state of one `check` run: where output goes and what has been found.
pub(super) struct Run<'a> {
    pub(super) a: &'a CheckArgs,
    /// `--simulate`'s walks, if asked for.
    simulate: Option<crate::explore::simulate::Simulation>,
    /// The workers of the distributed search, if asked for.
    cluster: Option<crate::explore::distributed::Cluster>,
    /// How a patch model's search goes to its changed lines.
    deepen: crate::cover::deepen::Plan,
    /// The scope of the pass running.
    pub(super) scope: Scope,
    /// Whether the run has several passes (no flag narrowed it): verdict lines name the pass.
    plan: bool,
    /// Models with a counterexample, and the pass that found it: later passes skip them.
    failed: Vec<(PathBuf, String)>,
    /// Every pass's scope line, for the machine documents.
    summaries: Vec<String>,
    out: &'a mut dyn Write,
    pub(super) err: &'a mut dyn Write,
    /// For ktap, junit and markdown.
    cases: Vec<Case>,
    /// For json: one result object per model.
    json: Vec<serde_json::Value>,
    status: Exit,
    /// The coverage of the patch model just searched (JSON, and whether it makes the verdict
    /// incomplete).
    coverage: Option<(serde_json::Value, bool)>,
}

impl Run<'_> {
    /// A line for people: standard output in text, standard error with a machine format.
    pub(super) fn say(&mut self, line: &str) -> std::io::Result<()> {
        let w: &mut dyn Write = if self.a.format.is_machine() {
            &mut *self.err
        } else {
            &mut *self.out
        };
        writeln!(w, "{line}")
    }

    fn header(&mut self) -> std::io::Result<()> {
        let line = self.scope.summary();
        self.say(&line)
    }

    pub(super) fn worsen(&mut self, s: Exit) {
        self.status = self.status.worse(s);
    }

    fn not_run(&mut self, m: &Path) -> std::io::Result<()> {
        let line = format!("{}: incomplete: not run (interrupted)", m.display());
        self.say(&line)?;
        self.push_case(m, Status::Incomplete, line, String::new(), 0.0);
        self.push_json(
            m,
            "incomplete",
            &Stats::default(),
            None,
            Some("interrupted"),
        );
        self.worsen(Exit::Incomplete);
        Ok(())
    }

    fn push_case(&mut self, m: &Path, status: Status, summary: String, detail: String, s: f64) {
        self.cases.push(Case {
            name: m.display().to_string(),
            status,
            summary,
            detail,
            seconds: s,
        });
    }

    fn push_json(
        &mut self,
        m: &Path,
        verdict: &str,
        st: &Stats,
        trace: Option<serde_json::Value>,
        reason: Option<&str>,
    ) {
        self.json.push(serde_json::json!({
            "model": m.display().to_string(),
            "pass": self.scope.name,
            "verdict": verdict,
            "reason": reason,
            "states": st.states,
            "calls": st.transitions,
            "depth": st.depth,
            "seconds": st.seconds,
            "memory": memory_json(st),
            "trace": trace,
        }));
    }

    fn model(&mut self, m: &Path, stem: &str) -> std::io::Result<()> {
        let prog = match load_model(m) {
            Ok(p) => p,
            Err(d) => {
                write!(self.err, "{d}")?;
                self.push_case(
                    m,
                    Status::Error,
                    "the model does not load".into(),
                    d.to_string(),
                    0.0,
                );
                self.push_json(m, "error", &Stats::default(), None, Some("model error"));
                self.worsen(Exit::BadInput);
                return Ok(());
            }
        };
        let name = m.display().to_string();
        if self.scope.engine == crate::scope::Engine::Compiled {
            if let Err(e) = crate::exec::compiled::Code::new(&prog) {
                // the search falls back to the reference interpreter: the same verdict
                writeln!(self.err, "{name}: note: the reference engine runs it ({e})")?;
            }
        }
        let bar = crate::cmd::progress::Bar::new(self.a.progress, &name);
        let budget = self.scope.budget();
        // the peak resident set of this model's search, not of the models before it
        budget::reset_peak_resident();
        let mut report = |p: &Progress| bar.search(&name, p);
        let (outcome, stats, line) = match (&self.simulate, &self.cluster) {
            (None, None) => {
                let cover = match crate::explore::cover::PatchCover::of(&prog, m) {
                    Ok(c) => c,
                    Err(e) => {
                        bar.finish();
                        return self.model_error(m, &format!("{name}: {e}; no verdict"));
                    }
                };
                let start = self.a.audit.then(super::audit::begin);
                let (mut outcome, stats, deep) = match &cover {
                    None => {
                        let (o, st) =
                            search_within(&prog, &name, &self.scope, &budget, &mut report);
                        (o, st, None)
                    }
                    Some(c) => match c.search(&name, &self.scope, &self.deepen, &mut report) {
                        Ok(((o, st), d)) => (o, st, Some(d)),
                        Err(e) => {
                            bar.finish();
                            return self.model_error(m, &format!("{name}: {e}; no verdict"));
                        }
                    },
                };
                if let Some(start) = start {
                    let audit = super::audit::finding(&name, start, &mut outcome);
                    self.say(&audit)?;
                }
                let mut line = verdict_line(&self.label(m), &outcome, &stats);
                if let Some(d) = deep {
                    line = self.covered(m, &outcome, d, &line)?;
                }
                (outcome, stats, line)
            }
            (None, Some(c)) => {
                let say = |line: &str| bar.report(&format!("{name}: {line}"));
                match crate::explore::distributed::search(
                    &prog,
                    &name,
                    &self.scope,
                    &budget,
                    c,
                    &say,
                ) {
                    Ok((outcome, stats)) => {
                        let line = verdict_line(m, &outcome, &stats);
                        (outcome, stats, line)
                    }
                    Err(e) => {
                        bar.finish();
                        let e = format!("{name}: distributed search: {e}; no verdict");
                        writeln!(self.err, "rmapcheck check: {e}")?;
                        self.push_case(m, Status::Error, e.clone(), String::new(), 0.0);
                        self.push_json(m, "error", &Stats::default(), None, Some(&e));
                        self.worsen(Exit::BadInput);
                        return Ok(());
                    }
                }
            }
            (Some(sim), _) => {
                let report = |p: &WalkProgress| {
                    bar.report(&format!(
                        "{name}: {} of {} walks, {} calls, {:.0} calls/s",
                        p.walks,
                        sim.walks,
                        p.steps,
                        p.steps as f64 / p.seconds.max(1e-9)
                    ))
                };
                let r = simulate(&prog, &name, &self.scope, sim, &budget, Some(&report));
                let line = sim_verdict_line(m, sim, &r);
                (r.outcome, r.stats, line)
            }
        };
        bar.finish();
        let made_no_call = match outcome {
            Outcome::Holds { .. } => true,
            // every walk ran to its end (no stop) without making a call
            Outcome::Incomplete { ref reason, .. } => {
                self.simulate.is_some_and(|sim| *reason == sim.describe())
            }
            _ => false,
        };
        if stats.transitions == 0 && made_no_call {
            let e = no_call(m, &self.scope);
            writeln!(self.err, "rmapcheck check: {e}")?;
            self.push_case(m, Status::Error, e.clone(), String::new(), 0.0);
            self.push_json(m, "error", &stats, None, Some(&e));
            self.worsen(Exit::BadInput);
            return Ok(());
        }
        self.say(&line)?;
        let coverage = self.coverage.take();
        match &outcome {
            Outcome::Holds { .. } if coverage.as_ref().is_some_and(|c| c.1) => {
                self.push_case(m, Status::Incomplete, line, String::new(), stats.seconds);
                let why = "the change did not run, or the search did not go past it";
                self.push_json(m, "incomplete", &stats, None, Some(why));
                self.worsen(Exit::Incomplete);
            }
            Outcome::Holds { .. } => {
                self.push_case(m, Status::Pass, line, String::new(), stats.seconds);
                self.push_json(m, "holds", &stats, None, None);
            }
            Outcome::Incomplete { reason, .. } => {
                self.push_case(m, Status::Incomplete, line, String::new(), stats.seconds);
                self.push_json(m, "incomplete", &stats, None, Some(reason));
                self.worsen(Exit::Incomplete);
            }
            Outcome::Counterexample(t) => {
                self.failed.push((m.to_path_buf(), self.scope.name.clone()));
                let rep = self.consequence(&prog, &name, &outcome, &budget)?;
                let rendered = text::render_with(t, &prog, self.a.reads);
                match self.a.format {
                    TraceFormat::Text => {
                        writeln!(self.out, "\n{rendered}")?;
                        write!(self.out, "{}", consequence::production_note(&outcome))?;
                        if let Some(w) = rep
                            .as_ref()
                            .and_then(|r| consequence::worst_text(r, &prog, self.a.reads))
                        {
                            writeln!(self.out, "\n{w}")?;
                        }
                    }
                    TraceFormat::Dot => {
                        write!(self.out, "{}", t.dot)?;
                    }
                    _ => {}
                }
                self.push_case(m, Status::Fail, line, rendered, stats.seconds);
                let tj = t.to_json_value();
                self.push_json(m, "counterexample", &stats, Some(tj), None);
                self.add_json_fields(consequence::json_fields(&outcome, rep.as_ref(), &prog));
                if let Some(dir) = &self.a.trace_dir {
                    self.save_trace(t, &dir.join(format!("{stem}.trace.json")))?;
                }
                if let Some(dir) = self.a.repro_dir.clone() {
                    self.save_repro(t, stem, &dir)?;
                }
                self.save_worst(rep.as_ref(), stem)?;
                self.worsen(Exit::Found);
            }
            Outcome::Interleaving(t) => {
                self.failed.push((m.to_path_buf(), self.scope.name.clone()));
                let rep = self.consequence(&prog, &name, &outcome, &budget)?;
                let rendered = crate::trace::interleaved::render(t, &prog);
                if self.a.format == TraceFormat::Text {
                    writeln!(self.out, "\n{rendered}")?;
                    write!(self.out, "{}", consequence::production_note(&outcome))?;
                    if let Some(w) = rep
                        .as_ref()
                        .and_then(|r| consequence::worst_text(r, &prog, self.a.reads))
                    {
                        writeln!(self.out, "\n{w}")?;
                    }
                }
                if self.a.repro_dir.is_some() {
                    self.say(
                        "no reproducer: an interleaving of a writer and walkers cannot be \
                         forced from user space",
                    )?;
                }
                self.push_case(m, Status::Fail, line, rendered.clone(), stats.seconds);
                let ij = serde_json::json!({ "interleaving": rendered });
                if let Some(dir) = &self.a.trace_dir {
                    let path = dir.join(format!("{stem}.interleaving.json"));
                    self.save_interleaving(&ij, m, &path)?;
                }
                self.push_json(m, "counterexample", &stats, Some(ij), None);
                self.add_json_fields(consequence::json_fields(&outcome, rep.as_ref(), &prog));
                self.save_worst(rep.as_ref(), stem)?;
                self.worsen(Exit::Found);
            }
        }
        if let Some((j, _)) = coverage {
            let mut f = serde_json::Map::new();
            f.insert("coverage".into(), j);
            self.add_json_fields(f);
        }
        Ok(())
    }

    /// A model whose search could not be set up: an error of that model (exit 2).
    fn model_error(&mut self, m: &Path, e: &str) -> std::io::Result<()> {
        writeln!(self.err, "rmapcheck check: {e}")?;
        self.push_case(m, Status::Error, e.to_string(), String::new(), 0.0);
        self.push_json(m, "error", &Stats::default(), None, Some(e));
        self.worsen(Exit::BadInput);
        Ok(())
    }

    /// The verdict line of a patch model's search with what ran of the change (the deepening
    /// runs said first); keeps the coverage for the JSON result and the exit status.
    fn covered(
        &mut self,
        m: &Path,
        outcome: &Outcome,
        d: crate::cover::deepen::Deepened,
        line: &str,
    ) -> std::io::Result<String> {
        let label = self.label(m).display().to_string();
        let bound = self.scope.max_depth;
        for l in d.step_lines(bound) {
            self.say(&format!("{label}: {l}"))?;
        }
        let base = line.strip_prefix(&format!("{label}: ")).unwrap_or(line);
        let found = matches!(
            outcome,
            Outcome::Counterexample(_) | Outcome::Interleaving(_)
        );
        let (l, incomplete) =
            crate::cover::deepen::verdict_line(found, &d, bound, self.deepen.budget_s, base);
        self.coverage = Some((d.json(self.deepen.budget_s), incomplete));
        Ok(format!("{label}: {l}"))
    }

    /// The model's name in a verdict line: with the pass's name when the run has several.
    fn label(&self, m: &Path) -> PathBuf {
        if self.plan {
            PathBuf::from(format!("{} [{}]", m.display(), self.scope.name))
        } else {
            m.to_path_buf()
        }
    }

    /// The consequence search of a counterexample (not for a simulation or a distributed
    /// search, whose bounds are their own), and its line.
    fn consequence(
        &mut self,
        prog: &crate::lang::Program,
        name: &str,
        outcome: &Outcome,
        budget: &Budget,
    ) -> std::io::Result<Option<crate::explore::consequence::Report>> {
        if self.simulate.is_some() || self.cluster.is_some() {
            return Ok(None);
        }
        let rep = crate::explore::consequence::search(prog, name, &self.scope, outcome, budget);
        if let Some(r) = &rep {
            let line = format!("{}: {}", self.label(Path::new(name)).display(), r.line());
            self.say(&line)?;
        }
        Ok(rep)
    }

    /// Add `fields` to the last JSON result.
    fn add_json_fields(&mut self, fields: serde_json::Map<String, serde_json::Value>) {
        if let Some(serde_json::Value::Object(o)) = self.json.last_mut() {
            o.extend(fields);
        }
    }

    /// Print the machine document, if any; the exit status.
    fn finish(self) -> CmdResult {
        let header = self.summaries.join("; ");
        let doc = match self.a.format {
            TraceFormat::Text | TraceFormat::Dot | TraceFormat::Html => None,
            TraceFormat::Json => Some(
                serde_json::to_string_pretty(&serde_json::json!({
                    "rmapcheck": "check",
                    "format_version": crate::trace::TRACE_FORMAT,
                    "scope_summary": header,
                    "scope": self.scope,
                    "passes": self.summaries,
                    "status": self.status.code(),
                    "results": self.json,
                }))
                .map(|s| s + "\n")
                .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}\n")),
            ),
            TraceFormat::Ktap => Some(formats::ktap("rmapcheck check", &header, &self.cases)),
            TraceFormat::Junit => Some(formats::junit("rmapcheck check", &header, &self.cases)),
            TraceFormat::Markdown => Some(formats::markdown("check", &header, &self.cases)),
        };
        if let Some(d) = doc {
            write!(self.out, "{d}")?;
        }
        self.out.flush()?;
        Ok(self.status)
    }
}
