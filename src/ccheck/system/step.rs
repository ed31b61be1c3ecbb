//! One successor of a C state made and judged: the model's call turned into its harness
//! request, the C world read back and checked, the model's world compared with it. The
//! breadth-first search makes a state's successors in one batch ([`super`]); the random walks
//! (`checker::walk`) make one at a time, through the [`Walk`] impl here.

use super::{drive, hash_lines, CFailure, CState, CSystem, Class, Next};
use crate::charness::{model_lines, Died};
use crate::checker::budget::Budget;
use crate::checker::walk::{Step, Walk};
use crate::explore::alphabet;
use crate::invariant::Invariant;
use crate::oracle::sequences::Drive;
use crate::world::scenario::Call;
use crate::world::World;

/// What became of one successor made on the C.
pub(super) enum Made {
    /// A state to go on from.
    Next(CState),
    Failed(CFailure),
    /// A state never gone on from: the model left the C there, or the patch changed the
    /// layout in a search that does not check equivalence.
    Left,
    Stopped(String),
}

impl CSystem<'_> {
    /// The successor of the model's world `w` under `call`, ready to be made on the C; `None`
    /// for a call the harness cannot reach (counted by reason).
    pub(super) fn next(&self, w: &World, call: Call) -> Result<Option<Next>, String> {
        let req = match drive(w, &call) {
            Ok(Drive::Op(r)) => r,
            Ok(Drive::Skip(why)) => {
                *self
                    .counts
                    .skipped
                    .lock()
                    .expect("counts")
                    .entry(why)
                    .or_default() += 1;
                return Ok(None);
            }
            Err(err) => return Err(format!("{call}: cannot make its harness request: {err}")),
        };
        let mut next = w.clone();
        let out = self.model.apply(&mut next, &call);
        let model_failed = out.failure.map(|f| {
            f.invariant()
                .map_or("a model fault", |i| i.name())
                .to_string()
        });
        Ok(Some(Next {
            call,
            req,
            model: self.model.canonical(&next),
            model_failed,
        }))
    }

    /// Judge the C world `r` made by the successor `n` of `s`: every check, then the model's
    /// world against the C's.
    pub(super) fn judge_next(&self, s: &CState, n: Next, r: Result<Vec<String>, Died>) -> Made {
        let dump = match r {
            Ok(d) => d,
            Err(d) => {
                let what = format!("the C crashed: {d}");
                return Made::Failed(self.fail(None, what, Vec::new(), &n));
            }
        };
        let j = match self.judge(&dump) {
            Ok(x) => x,
            Err(why) => return Made::Stopped(why),
        };
        let lines = j.lines;
        if let Some(v) = j.v {
            return Made::Failed(self.fail(Some(v.invariant), v.what, lines, &n));
        }
        let model = model_lines(&n.model);
        if self.compared.differ(&lines, j.notes, &model) {
            let mut calls = s.calls.clone();
            calls.push(n.call.clone());
            return match self.classify(&s.reqs, &n, calls, (lines, j.notes), model) {
                Ok(Class::Diverged(d)) => {
                    // never expanded: its calls would be chosen in a world the C lacks
                    self.counts.divergences.lock().expect("counts").add(d);
                    Made::Left
                }
                Ok(Class::PatchChanged(f)) => {
                    let equivalence = self.model.scope.invariant_set();
                    if equivalence.contains(Invariant::Equivalent) {
                        Made::Failed(f)
                    } else {
                        // a search of other invariants only (a consequence search): a layout
                        // the patch changed is still not one the model can offer calls in
                        Made::Left
                    }
                }
                Err(why) => Made::Stopped(why),
            };
        }
        let mut reqs = s.reqs.clone();
        reqs.push(n.req);
        let mut calls = s.calls.clone();
        calls.push(n.call);
        let fp = hash_lines(&lines, Self::model_fp(&n.model));
        self.counts.note_edge(s.fp, fp);
        Made::Next(CState { calls, reqs, fp })
    }
}

/// Random walks on the C: a step is one successor made and judged as the search makes it.
impl Walk for CSystem<'_> {
    fn actions(&self, s: &CState) -> Vec<Call> {
        let w = self.model_world(&s.calls);
        if self.model.cut(&w) {
            return Vec::new();
        }
        alphabet::calls(self.model.scope, self.model.prog, &w)
            .into_iter()
            .filter(|c| matches!(drive(&w, c), Ok(Drive::Op(_))))
            .collect()
    }

    fn step(
        &self,
        s: &CState,
        call: &Call,
        _depth: u32,
        budget: &Budget,
    ) -> Step<CState, CFailure> {
        if let Some(why) = budget.spent() {
            return Step::Stopped(why);
        }
        let w = self.model_world(&s.calls);
        let n = match self.next(&w, call.clone()) {
            Ok(Some(n)) => n,
            Ok(None) => return Step::End,
            Err(why) => return Step::Stopped(why),
        };
        let r = match self.run_batch(&s.reqs, std::slice::from_ref(&n)) {
            Ok(r) => r,
            Err(why) => return Step::Stopped(why),
        };
        let Some(r) = r.into_iter().next() else {
            return Step::Stopped("the harness answered nothing".into());
        };
        match self.judge_next(s, n, r) {
            Made::Next(next) => Step::Next(next),
            Made::Failed(f) => Step::Failed(f),
            Made::Left => Step::End,
            Made::Stopped(why) => Step::Stopped(why),
        }
    }

    /// A call with smaller arguments (as `replay --minimise` shrinks a model trace).
    fn simpler(&self, c: &Call) -> Vec<Call> {
        crate::explore::shrink::candidates(c)
    }
}
