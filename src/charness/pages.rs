//! Ghost pages in the compared worlds: each mm's ptes and the folios they map, as the C
//! harness keeps them (cglue/pages.c) and as the model keeps them (`src/world/pages.rs`), so
//! that cdiff compares the two paraphrases of mm/memory.c and mm/mremap.c page by page.
//!
//! Canonical lines, after the trees: one per pte, mms in order, addresses ascending:
//! `pte mm0:3 file#0 index 3` for a page-cache folio, `pte mm0:6 folio0 av1 index 6` for an
//! anonymous one (`folioN` numbered by first appearance, so ptes that share a folio share its
//! name; the anon_vma by its canonical name, `FREED` when the folio's anon_vma was freed).
//! The C side also dumps, per folio, what the rmap walk from it returns on the kernel's own
//! iterators; that is checked (src/ccheck/pages.rs), not compared.

use std::collections::HashMap;

/// What a folio is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RawFolioKind {
    /// An anonymous folio: `folio->mapping` is this anon_vma (an id of the world's anon_vmas).
    Anon { anon_vma: u64, freed: bool },
    /// A page-cache folio of this file (index into the world's files).
    File { file: usize },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawFolio {
    pub id: u64,
    pub kind: RawFolioKind,
    pub index: u64,
}

/// The ghost pages of a world.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawPages {
    pub folios: Vec<RawFolio>,
    /// (mm index, address in pages, folio id).
    pub ptes: Vec<(usize, u64, u64)>,
    /// The C only: per folio id, the VMAs its rmap walk returns, or `None` when the walk
    /// cannot start (its anon_vma is freed).
    pub walks: HashMap<u64, Option<Vec<u64>>>,
    /// The C only: walker checkpoints run and skipped over the per-call bound since reset.
    pub checkpoints: (u64, u64),
}

impl RawPages {
    /// The folio of an id.
    pub fn folio(&self, id: u64) -> Option<&RawFolio> {
        self.folios.iter().find(|f| f.id == id)
    }

    /// The canonical pte lines; `anon` names an anon_vma id.
    pub fn lines(&self, anon: &mut dyn FnMut(u64) -> String) -> Vec<String> {
        let mut ptes = self.ptes.clone();
        ptes.sort();
        let mut names: HashMap<u64, String> = HashMap::new();
        let mut out = Vec::new();
        for (mm, addr, id) in ptes {
            let what = match self.folio(id) {
                None => format!("unknown folio {id}"),
                Some(f) => match &f.kind {
                    RawFolioKind::File { file } => format!("file#{file} index {}", f.index),
                    RawFolioKind::Anon { anon_vma, freed } => {
                        let k = names.len();
                        let name = names.entry(id).or_insert_with(|| format!("folio{k}"));
                        let av = if *freed {
                            "FREED".to_string()
                        } else {
                            anon(*anon_vma)
                        };
                        format!("{name} {av} index {}", f.index)
                    }
                },
            };
            out.push(format!("pte mm{mm}:{addr} {what}"));
        }
        out
    }
}

fn num(s: &str) -> Result<u64, String> {
    s.parse().map_err(|_| format!("bad number {s:?}"))
}

fn hex(s: &str) -> Result<u64, String> {
    u64::from_str_radix(s, 16).map_err(|_| format!("bad address {s:?}"))
}

/// One page line of the harness's dump (docs/CDIFF.md, "Protocol"):
/// `folio ID a ANON_VMA INDEX FREED`, `folio ID f FILE INDEX 0`, `pte MM ADDR FOLIO`,
/// `walk FOLIO VMA...` or `walk FOLIO freed`, `checkpoints RUN OVER`.
pub fn parse_line(p: &mut RawPages, w: &[&str]) -> Result<(), String> {
    let need = |n: usize| {
        if w.len() < n {
            Err(format!("expected at least {n} words"))
        } else {
            Ok(())
        }
    };
    match w[0] {
        "folio" => {
            need(6)?;
            let kind = match w[2] {
                "a" => RawFolioKind::Anon {
                    anon_vma: hex(w[3])?,
                    freed: w[5] != "0",
                },
                "f" => RawFolioKind::File {
                    file: usize::try_from(num(w[3])?).map_err(|e| e.to_string())?,
                },
                k => return Err(format!("bad folio kind {k:?}")),
            };
            p.folios.push(RawFolio {
                id: num(w[1])?,
                kind,
                index: num(w[4])?,
            });
        }
        "pte" => {
            need(4)?;
            let mm = usize::try_from(num(w[1])?).map_err(|e| e.to_string())?;
            p.ptes.push((mm, num(w[2])?, num(w[3])?));
        }
        "walk" => {
            need(2)?;
            let found = if w.get(2) == Some(&"freed") {
                None
            } else {
                Some(w[2..].iter().map(|x| hex(x)).collect::<Result<_, _>>()?)
            };
            p.walks.insert(num(w[1])?, found);
        }
        "checkpoints" => {
            need(3)?;
            p.checkpoints = (num(w[1])?, num(w[2])?);
        }
        x => return Err(format!("not a page line: {x:?}")),
    }
    Ok(())
}

/// The model world's ghost pages, numbered as [`super::model::raw`] numbers the rest: mms by
/// their position among the live ones, files by index, anon_vmas by their arena id, anonymous
/// folios by theirs and file folios after them.
pub fn model_pages(w: &crate::world::World) -> RawPages {
    use crate::world::Folio;
    let mut p = RawPages::default();
    let file_of = |mapping: u32| {
        w.files
            .iter()
            .position(|f| f.f_mapping == mapping)
            .unwrap_or(usize::MAX)
    };
    let anon_ids = w.anon_folios.len() as u64;
    let mut file_ids: Vec<(u32, u64)> = Vec::new();
    for (m, mm) in w.mms.iter().filter(|m| !m.freed).enumerate() {
        for (&addr, &f) in &mm.ptes {
            let id = match f {
                Folio::Anon(a) => u64::from(a),
                Folio::File { mapping, index } => {
                    let k = match file_ids.iter().position(|&x| x == (mapping, index)) {
                        Some(k) => k,
                        None => {
                            file_ids.push((mapping, index));
                            p.folios.push(RawFolio {
                                id: anon_ids + (file_ids.len() - 1) as u64,
                                kind: RawFolioKind::File {
                                    file: file_of(mapping),
                                },
                                index,
                            });
                            file_ids.len() - 1
                        }
                    };
                    anon_ids + k as u64
                }
            };
            if let Folio::Anon(a) = f {
                if p.folio(id).is_none() {
                    let x = &w.anon_folios[a as usize];
                    p.folios.push(RawFolio {
                        id,
                        kind: RawFolioKind::Anon {
                            anon_vma: u64::from(x.anon_vma),
                            freed: w.anon_vmas[x.anon_vma as usize].freed,
                        },
                        index: x.index,
                    });
                }
            }
            p.ptes.push((m, addr, id));
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folios_are_named_by_first_appearance_and_shared() {
        let p = RawPages {
            folios: vec![
                RawFolio {
                    id: 7,
                    kind: RawFolioKind::Anon {
                        anon_vma: 1,
                        freed: false,
                    },
                    index: 6,
                },
                RawFolio {
                    id: 3,
                    kind: RawFolioKind::File { file: 0 },
                    index: 1,
                },
            ],
            ptes: vec![(1, 6, 7), (0, 6, 7), (0, 1, 3)],
            ..RawPages::default()
        };
        let l = p.lines(&mut |a| format!("av{a}"));
        assert_eq!(
            l,
            [
                "pte mm0:1 file#0 index 1",
                "pte mm0:6 folio0 av1 index 6",
                "pte mm1:6 folio0 av1 index 6"
            ]
        );
    }
}
