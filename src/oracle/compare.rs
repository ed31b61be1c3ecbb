//! Comparing one mm's layout: the model's VMAs against the kernel's, shape first (range,
//! file, offset, protection, sharing), then anonymous memory. The kernel's anonymous pages must
//! be exactly the pages the calls wrote into the VMA; a written VMA must have an anon_vma in
//! the model; a model anon_vma over a VMA with no written page is the named expected
//! difference `anon-vma-without-pages` (the kernel cannot show it).

use super::expected::{Release, ANON_VMA_WITHOUT_PAGES};
use super::layout::LVma;
use std::collections::BTreeSet;

/// The verdict on one layout.
#[derive(Debug, Default)]
pub struct Verdict {
    /// Why the layouts differ, with the starts of the VMAs that differ; None when they agree.
    pub mismatch: Option<(String, Vec<u64>)>,
    /// Expected differences used, by name.
    pub expected: Vec<&'static str>,
}

/// Compare `model` with `kernel`; `written` are the pages of this mm the calls wrote to.
pub fn compare(model: &[LVma], kernel: &[LVma], written: &BTreeSet<u64>, rel: &Release) -> Verdict {
    let mut v = Verdict::default();
    let n = model.len().max(kernel.len());
    for i in 0..n {
        match (model.get(i), kernel.get(i)) {
            (Some(m), Some(k)) if m.same_shape(k) => {}
            (m, k) => {
                let at: Vec<u64> = m.iter().chain(k.iter()).map(|x| x.start).collect();
                let why = match (m, k) {
                    (Some(_), None) => "the kernel has fewer VMAs".to_string(),
                    (None, Some(_)) => "the kernel has more VMAs".to_string(),
                    _ => "a VMA differs in range, file, offset, protection or sharing".to_string(),
                };
                v.mismatch = Some((why, at));
                return v;
            }
        }
    }
    for (m, k) in model.iter().zip(kernel) {
        let w = written.range(m.start..m.end).count() as u64;
        if k.anon_pages != w {
            v.mismatch = Some((
                format!(
                    "the kernel's VMA [{}, {}) has {} anonymous page(s) where the calls wrote {w}",
                    k.start, k.end, k.anon_pages
                ),
                vec![m.start],
            ));
            return v;
        }
        if w > 0 && !m.anon {
            v.mismatch = Some((
                format!(
                    "pages were written in [{}, {}) but the model's VMA has no anon_vma",
                    m.start, m.end
                ),
                vec![m.start],
            ));
            return v;
        }
        if m.anon && w == 0 && (ANON_VMA_WITHOUT_PAGES.applies)(rel) {
            v.expected.push(ANON_VMA_WITHOUT_PAGES.name);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::layout::Backing;

    fn v(start: u64, end: u64, anon: bool, pages: u64) -> LVma {
        LVma {
            start,
            end,
            backing: Backing::Anon,
            pgoff: 0,
            writable: true,
            shared: false,
            account: true,
            anon,
            anon_pages: pages,
            anon_id: None,
        }
    }

    fn rel() -> Release {
        Release::parse("6.18.0")
    }

    #[test]
    fn shapes_and_anonymous_pages() {
        let written: BTreeSet<u64> = [0].into();
        // agree: the written page is in the VMA with the anon_vma
        let ok = compare(&[v(0, 2, true, 0)], &[v(0, 2, false, 1)], &written, &rel());
        assert!(ok.mismatch.is_none() && ok.expected.is_empty(), "{ok:?}");
        // split after the write: the other half keeps the anon_vma without pages (named)
        let m = [v(0, 1, true, 0), v(1, 2, true, 0)];
        let k = [v(0, 1, true, 1), v(1, 2, false, 0)];
        let x = compare(&m, &k, &written, &rel());
        assert!(x.mismatch.is_none(), "{x:?}");
        assert_eq!(x.expected, vec!["anon-vma-without-pages"]);
        // written but no anon_vma in the model: a mismatch
        let x = compare(&[v(0, 2, false, 0)], &[v(0, 2, true, 1)], &written, &rel());
        assert!(x.mismatch.unwrap().0.contains("no anon_vma"));
        // kernel pages the calls did not write
        let x = compare(&[v(0, 2, true, 0)], &[v(0, 2, true, 2)], &written, &rel());
        assert!(x
            .mismatch
            .unwrap()
            .0
            .contains("2 anonymous page(s) where the calls wrote 1"));
        // a different range
        let x = compare(
            &[v(0, 2, false, 0)],
            &[v(0, 3, false, 0)],
            &BTreeSet::new(),
            &rel(),
        );
        assert_eq!(x.mismatch.unwrap().1, vec![0, 0]);
        let x = compare(&[v(0, 2, false, 0)], &[], &BTreeSet::new(), &rel());
        assert!(x.mismatch.unwrap().0.contains("fewer VMAs"));
    }
}
