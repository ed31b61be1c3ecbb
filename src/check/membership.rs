//! `membership`: each VMA is in exactly the file tree it belongs to, and each anon_vma_chain in
//! exactly its anon_vma's tree, and nothing freed, detached or unlisted remains in a tree.
//!
//! Assumption: an anonymous VMA that has a `vm_file` (a private /dev/zero mapping) may be in its
//! file's tree or not: the baseline links it, the /dev/zero patch does not. Either is accepted
//! here; a path that disagrees with itself is caught by `tree-precondition` (removing a VMA that is
//! not there) or by this check (a freed VMA left behind).

use super::{Invariant, Violation};
use crate::world::World;

/// Whether a VMA is live: [`World::vma_live`], under the name the checks use.
pub(crate) fn vma_live(w: &World, v: u32) -> bool {
    w.vma_live(v)
}

fn state(w: &World, v: u32) -> &'static str {
    let vma = &w.vmas[v as usize];
    if vma.freed {
        "freed"
    } else if vma.detached {
        "detached"
    } else {
        "not in its mm"
    }
}

pub(crate) fn check_membership(w: &World) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut bad = |m: String| out.push(Violation::new(Invariant::Membership, m));

    // File trees.
    for (m, a) in w.mappings.iter().enumerate() {
        for v in a.i_mmap.members() {
            let own = w.vma_mapping(v);
            if own != Some(m as u32) {
                bad(format!("vma#{v} is in mapping#{m}'s tree but maps {own:?}"));
            } else if !vma_live(w, v) {
                bad(format!(
                    "vma#{v} is {} but still in mapping#{m}'s tree",
                    state(w, v)
                ));
            }
        }
    }
    for v in 0..w.vmas.len() as u32 {
        if !vma_live(w, v) {
            continue;
        }
        let vma = &w.vmas[v as usize];
        if let Some(m) = w.vma_mapping(v) {
            if !vma.is_anonymous() && !w.mappings[m as usize].i_mmap.contains(v) {
                bad(format!(
                    "vma#{v} maps file#{} but is not in mapping#{m}'s tree",
                    vma.vm_file.unwrap_or(0)
                ));
            }
        }
    }

    // Anon trees.
    for (a, av) in w.anon_vmas.iter().enumerate() {
        for c in av.rb_root.members() {
            let avc = &w.avcs[c as usize];
            if avc.freed {
                bad(format!("avc#{c} is freed but still in anon_vma#{a}'s tree"));
                continue;
            }
            if avc.anon_vma != Some(a as u32) {
                bad(format!(
                    "avc#{c} is in anon_vma#{a}'s tree but links {:?}",
                    avc.anon_vma
                ));
            }
            match avc.vma {
                None => bad(format!("avc#{c} in anon_vma#{a}'s tree has no VMA")),
                Some(v) if !vma_live(w, v) => bad(format!(
                    "avc#{c} of vma#{v} is in anon_vma#{a}'s tree but vma#{v} is {}",
                    state(w, v)
                )),
                Some(v) if !w.vmas[v as usize].anon_vma_chain.contains(&c) => bad(format!(
                    "avc#{c} is in anon_vma#{a}'s tree but not on vma#{v}'s chain"
                )),
                _ => {}
            }
        }
    }
    for v in 0..w.vmas.len() as u32 {
        if !vma_live(w, v) {
            continue;
        }
        let vma = &w.vmas[v as usize];
        for &c in &vma.anon_vma_chain {
            let avc = &w.avcs[c as usize];
            if avc.freed || avc.vma != Some(v) {
                bad(format!(
                    "vma#{v}'s chain holds avc#{c}, which is freed or not its own"
                ));
                continue;
            }
            match avc.anon_vma {
                None => bad(format!("avc#{c} on vma#{v}'s chain links no anon_vma")),
                Some(a) => {
                    let av = &w.anon_vmas[a as usize];
                    if av.freed {
                        bad(format!("avc#{c} of vma#{v} links freed anon_vma#{a}"));
                    } else if !av.rb_root.contains(c) {
                        bad(format!("avc#{c} of vma#{v} is not in anon_vma#{a}'s tree"));
                    }
                }
            }
        }
        if let Some(a) = vma.anon_vma {
            let linked = vma
                .anon_vma_chain
                .iter()
                .any(|&c| w.avcs[c as usize].anon_vma == Some(a));
            if !linked {
                bad(format!(
                    "vma#{v} has anon_vma#{a} but no anon_vma_chain links them"
                ));
            }
        }
    }
    out
}
