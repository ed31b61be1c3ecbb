//! The model checked against the C after every call of the C search. The calls the search
//! offers are chosen in the model's world, so they are calls the C world can take only while
//! the two worlds agree; a search that went on past a disagreement would make calls the kernel
//! never makes, on worlds it never has, and report what follows as the kernel's bug.
//!
//! So after every call the C's world is compared with the model's, with cdiff's canonical
//! lines, and a state where they differ is never expanded:
//! - on the unpatched tree every line is compared (the C's own notes aside): a difference is a
//!   fidelity failure of the model ([`Divergence`]), reported as such, never as a
//!   counterexample;
//! - on a patched tree the rmap trees may differ from the baseline model by design (a patch
//!   that re-keys in place keeps a different but valid tree shape), so only the layout that
//!   decides the calls offered is compared: each mm's VMAs with their range, offsets, file,
//!   flags and anon_vma (not the chains or tree nodes). When it differs, the same calls are
//!   replayed on the unpatched tree's C: if that C agrees with the model, the patch itself
//!   changed the layout, which the search reports as `equivalent` (two builds of the kernel's
//!   own C disagree, no model involved); if it does not, the model has left the kernel.

use crate::world::scenario::Call;

/// What is compared after each call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compared {
    /// Every canonical line (the unpatched tree).
    Whole,
    /// Each mm's VMAs (a patched tree).
    Layout,
}

impl Compared {
    /// The lines of `lines` this comparison looks at. `notes`: how many lines at the end are
    /// the C's own notes (lock records, WARNs), which the model has no counterpart of.
    pub fn lines(self, lines: &[String], notes: usize) -> Vec<String> {
        self.iter(lines, notes).map(str::to_string).collect()
    }

    /// Whether the C's `c` (its last `notes` lines its own notes) and the model's `model`
    /// differ in what this comparison looks at; nothing is copied (it runs after every call).
    pub fn differ(self, c: &[String], notes: usize, model: &[String]) -> bool {
        !self.iter(c, notes).eq(self.iter(model, 0))
    }

    /// The compared part of each line, borrowed.
    fn iter(self, lines: &[String], notes: usize) -> impl Iterator<Item = &str> {
        let body = &lines[..lines.len().saturating_sub(notes)];
        let layout = self == Compared::Layout;
        body.iter()
            .filter(move |l| !layout || l.starts_with("mm#") || l.starts_with("  vma "))
            .map(move |l| match l.find(" chain [").filter(|_| layout) {
                Some(k) => &l[..k],
                None => l.as_str(),
            })
    }
}

/// A state where the model's world left the C's: the calls that reached it and both worlds.
#[derive(Clone, Debug)]
pub struct Divergence {
    pub calls: Vec<Call>,
    /// The C world's canonical lines (the unpatched tree's C on a patched tree).
    pub c: Vec<String>,
    /// The model's canonical lines after the same calls.
    pub model: Vec<String>,
}

impl Divergence {
    /// The first line where the two worlds differ, as (line number from 1, C, model).
    pub fn first_difference(&self) -> (usize, &str, &str) {
        let k = self
            .c
            .iter()
            .zip(&self.model)
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| self.c.len().min(self.model.len()));
        (
            k + 1,
            self.c.get(k).map_or("(none)", String::as_str),
            self.model.get(k).map_or("(none)", String::as_str),
        )
    }

    /// The divergence in cdiff's form: the calls, then both worlds with the lines the other
    /// does not have marked.
    pub fn render(&self) -> String {
        let sides = crate::charness::worlds_text::Sides {
            calls: &self.calls,
            at: self.calls.len().saturating_sub(1),
            what: "the model's world and the C's differ (lines marked <-)",
            model: &self.model,
            c: Some(&self.c),
        };
        crate::charness::worlds_text::text("  after", &sides)
    }
}

/// The divergences a search met: the first few kept whole, all counted.
#[derive(Debug, Default)]
pub struct Divergences {
    pub count: usize,
    pub kept: Vec<Divergence>,
}

impl Divergences {
    /// Keep `d` (the shortest first, up to three), and count it.
    pub fn add(&mut self, d: Divergence) {
        self.count += 1;
        self.kept.push(d);
        self.kept.sort_by_key(|d| d.calls.len());
        self.kept.truncate(3);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_layout_keeps_vmas_without_their_chains() {
        let l = lines(&[
            "mm#0 map_count 1",
            "  vma mm0:0 [0, 2) pgoff 0 anon_pgoff 0 anonymous rw account anon_vma av0 chain [avc(mm0:0,av0)]",
            "av0 root av0 parent av0 refcount 1",
            "  avc(mm0:0,av0) black last 1",
            "C lock note",
        ]);
        assert_eq!(
            Compared::Layout.lines(&l, 1),
            lines(&[
                "mm#0 map_count 1",
                "  vma mm0:0 [0, 2) pgoff 0 anon_pgoff 0 anonymous rw account anon_vma av0",
            ])
        );
        assert_eq!(Compared::Whole.lines(&l, 1).len(), 4);
        let mut other = l.clone();
        other[3] = "  avc(mm0:0,av0) red last 1".to_string();
        assert!(Compared::Whole.differ(&l, 1, &other[..4]));
        assert!(!Compared::Layout.differ(&l, 1, &other[..4]));
        assert!(!Compared::Whole.differ(&l, 1, &l[..4]));
    }

    #[test]
    fn the_first_difference_is_named() {
        let d = Divergence {
            calls: vec![Call::parse("sys_munmap(mm#0, 0, 1)").expect("call")],
            c: lines(&["mm#0 map_count 2", "a"]),
            model: lines(&["mm#0 map_count 1", "a"]),
        };
        assert_eq!(
            d.first_difference(),
            (1, "mm#0 map_count 2", "mm#0 map_count 1")
        );
        let r = d.render();
        assert!(
            r.contains("after call 1 of 1: the model's world and the C's differ"),
            "{r}"
        );
        assert!(r.contains("mm#0 map_count 2   <- differs"), "{r}");
    }
}
