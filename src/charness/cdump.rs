//! The C harness's raw dump (docs/CDIFF.md, "Protocol") read into a [`Raw`] world. Objects
//! are named by their addresses in hex (`0` is NULL), counts in pages.

use super::canon::{Raw, RawAnon, RawMm, RawNode, RawTree, RawVma};

fn hex(s: &str) -> Result<Option<u64>, String> {
    let v = u64::from_str_radix(s, 16).map_err(|_| format!("bad address {s:?}"))?;
    Ok((v != 0).then_some(v))
}

fn int<T: std::str::FromStr>(s: &str) -> Result<T, String> {
    s.parse().map_err(|_| format!("bad number {s:?}"))
}

fn flag(s: &str) -> Result<bool, String> {
    Ok(int::<i64>(s)? != 0)
}

fn node_line(w: &[&str], cached: bool) -> Result<RawNode, String> {
    // fnode PTR PARENT LEFT RIGHT c LAST | anode AVC VMA AV PARENT LEFT RIGHT c LAST CS CL
    let (id, rest) = if cached {
        (w[1], &w[4..])
    } else {
        (w[1], &w[2..])
    };
    Ok(RawNode {
        id: hex(id)?.ok_or("a NULL node")?,
        parent: hex(rest[0])?,
        left: hex(rest[1])?,
        right: hex(rest[2])?,
        black: rest[3] == "b",
        last: int(rest[4])?,
        cached: if cached {
            Some((int(rest[5])?, int(rest[6])?))
        } else {
            None
        },
    })
}

/// The harness error of an `overflow GLUE_MAX_NOTES MAX violations V warnings W` line: the
/// glue kept only MAX notes of a kind and counted the rest, so the world's notes are not all
/// there to compare or judge.
fn overflow(w: &[&str]) -> String {
    let at = |k: &str| {
        w.iter()
            .position(|x| *x == k)
            .and_then(|i| w.get(i + 1))
            .copied()
            .unwrap_or("?")
    };
    format!(
        "a harness error: the C harness keeps at most GLUE_MAX_NOTES = {} notes of each kind \
         and had {} more violation(s) and {} more warning(s); raise GLUE_MAX_NOTES in \
         cglue/glue.c",
        at("GLUE_MAX_NOTES"),
        at("violations"),
        at("warnings")
    )
}

/// Parse a dump (its lines without the final `end`). A dump whose notes overflowed the
/// glue's table is an error (a harness error, never a world).
pub fn parse(lines: &[String]) -> Result<Raw, String> {
    let mut r = Raw::default();
    // where node lines go: a file tree or an anon_vma tree
    enum Into {
        None,
        File,
        Anon,
    }
    let mut into = Into::None;
    for (i, l) in lines.iter().enumerate() {
        let w: Vec<&str> = l.split_whitespace().collect();
        let bad = |e: String| format!("harness dump line {}: {e}: {l:?}", i + 1);
        let need = |n: usize| {
            if w.len() < n {
                Err(bad(format!("expected at least {n} words")))
            } else {
                Ok(())
            }
        };
        match w.first().copied().unwrap_or("") {
            "mm" => {
                need(3)?;
                r.mms.push(RawMm {
                    map_count: int(w[2]).map_err(bad)?,
                    vmas: Vec::new(),
                });
            }
            "vma" => {
                need(14)?;
                let f = |k: usize| int::<u64>(w[k]).map_err(bad);
                let file: i64 = int(w[6]).map_err(bad)?;
                let v = RawVma {
                    id: hex(w[1]).map_err(bad)?.ok_or_else(|| bad("NULL".into()))?,
                    start: f(2)?,
                    end: f(3)?,
                    pgoff: f(4)?,
                    anon_pgoff: f(5)?,
                    file: usize::try_from(file).ok(),
                    anonymous: flag(w[7]).map_err(bad)?,
                    write: flag(w[8]).map_err(bad)?,
                    shared: flag(w[9]).map_err(bad)?,
                    growsdown: flag(w[10]).map_err(bad)?,
                    account: Some(flag(w[11]).map_err(bad)?),
                    anon_vma: hex(w[12]).map_err(bad)?,
                    chain: w[14..]
                        .iter()
                        .map(|c| hex(c).map(|x| x.unwrap_or(0)))
                        .collect::<Result<_, _>>()
                        .map_err(bad)?,
                };
                if w[13] != "chain" {
                    return Err(bad("no chain".into()));
                }
                r.mms
                    .last_mut()
                    .ok_or_else(|| bad("vma before mm".into()))?
                    .vmas
                    .push(v);
            }
            "file" => {
                need(5)?;
                r.files.push(RawTree {
                    root: hex(w[3]).map_err(bad)?,
                    leftmost: hex(w[4]).map_err(bad)?,
                    nodes: Vec::new(),
                });
                into = Into::File;
            }
            "fnode" => {
                need(7)?;
                let n = node_line(&w, false).map_err(bad)?;
                match into {
                    Into::File => r.files.last_mut().expect("file").nodes.push(n),
                    _ => return Err(bad("fnode outside a file".into())),
                }
            }
            "anon_vma" => {
                need(9)?;
                r.anons.push(RawAnon {
                    id: hex(w[1]).map_err(bad)?.unwrap_or(0),
                    root: hex(w[2]).map_err(bad)?.unwrap_or(0),
                    parent: hex(w[3]).map_err(bad)?.unwrap_or(0),
                    refcount: int(w[4]).map_err(bad)?,
                    num_children: int(w[5]).map_err(bad)?,
                    num_active_vmas: int(w[6]).map_err(bad)?,
                    tree: RawTree {
                        root: hex(w[7]).map_err(bad)?,
                        leftmost: hex(w[8]).map_err(bad)?,
                        nodes: Vec::new(),
                    },
                });
                into = Into::Anon;
            }
            "anode" => {
                need(11)?;
                let n = node_line(&w, true).map_err(bad)?;
                match into {
                    Into::Anon => r.anons.last_mut().expect("anon").tree.nodes.push(n),
                    _ => return Err(bad("anode outside an anon_vma".into())),
                }
            }
            "avc" => {
                need(4)?;
                let h = |k: usize| hex(w[k]).map(|x| x.unwrap_or(0)).map_err(bad);
                r.avcs.push((h(1)?, h(2)?, h(3)?));
            }
            "folio" | "pte" | "walk" | "checkpoints" => {
                super::pages::parse_line(&mut r.pages, &w).map_err(bad)?
            }
            "held" | "violation" | "warn" => r.notes.push(format!("C {l}")),
            "overflow" => return Err(overflow(&w)),
            _ => return Err(bad("unknown line".into())),
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dump_whose_notes_overflowed_is_a_harness_error_naming_the_limit() {
        let mut lines: Vec<String> = vec!["mm 0 0".into(), "warn mm/vma.c:1 x".into()];
        assert!(parse(&lines).is_ok());
        lines.push("overflow GLUE_MAX_NOTES 64 violations 0 warnings 3".into());
        let e = parse(&lines).expect_err("an overflow is refused");
        assert!(e.contains("GLUE_MAX_NOTES = 64"), "{e}");
        assert!(e.contains("3 more warning(s)"), "{e}");
        assert!(e.starts_with("a harness error"), "{e}");
    }

    #[test]
    fn reads_a_dump() {
        let d: Vec<String> = [
            "mm 0 1",
            "vma 60d000000040 0 2 0 0 -1 1 1 0 0 1 606000000020 chain 607000000100",
            "file 0 0 0 0",
            "anon_vma 606000000020 606000000020 606000000020 1 1 1 607000000100 607000000100",
            "anode 607000000100 60d000000040 606000000020 0 0 0 b 1 0 1",
            "avc 607000000100 60d000000040 606000000020",
            "warn mm/vma.c:12 x",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let r = parse(&d).unwrap();
        let c = r.canonical().join("\n");
        assert!(c.contains("vma mm0:0 [0, 2) pgoff 0 anon_pgoff 0 anonymous rw account anon_vma av0 chain [avc(mm0:0,av0)]"), "{c}");
        assert!(
            c.contains("avc(mm0:0,av0) black last 1 parent - left - right - cached [0, 1]"),
            "{c}"
        );
        assert!(c.contains("C warn mm/vma.c:12 x"), "{c}");
        let e = parse(&["vma 1 2".to_string()]).unwrap_err();
        assert!(e.contains("line 1"), "{e}");
    }
}
