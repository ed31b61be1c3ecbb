//! Parser round trip: printing a parsed file and parsing the output gives the same tree, up to
//! source locations.

use rmapcheck::lang::ast::Item;
use rmapcheck::lang::parser::parse;
use rmapcheck::lang::pretty::print_items;

/// Debug form of the tree with every `SrcLoc { .. }` removed.
fn shape(items: &[Item]) -> String {
    let s = format!("{items:?}");
    let mut out = String::new();
    let mut rest = s.as_str();
    while let Some(i) = rest.find("SrcLoc {") {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        let end = after.find('}').expect("closing brace");
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

const SAMPLES: &[&str] = &[
    r#"#include "base.rmap"
#define VMA_LOCKED 0x10UL
#define NEG (-3)
struct vma_prepare {
	struct vm_area_struct *vma, *adj_next;
	struct address_space *mapping;
	bool remove;
	unsigned long flags;
};
static inline void vma_prepare(struct vma_prepare *vp)
{
	if (vp->mapping) {
		i_mmap_lock_write(vp->mapping);
		mapping_rmap_tree_remove(vp->vma, vp->mapping);
	} else if (!vp->remove)
		return;
	vp->flags |= 0;
}
"#,
    r#"long f(long a, long b, struct vm_area_struct *v)
{
	long x = a * b + -a % 3 << 2, y;
	const struct vm_area_struct *w = NULL;
	struct vma_prepare vp = { .vma = v, .remove = a > b && b != 0 || !a, };
	struct vma_prepare empty = {};
	y = a ? b : ~a ^ b | a & 4;
	x += (a + b) * (a - b);
	x--;
	++y;
	for (x = 0; x < 10; x++) { if (x == 3) continue; if (x > 7) break; }
	for (;;) break;
	while (likely(x)) x -= 1;
	list_for_each_entry(w, &v->anon_vma_chain, same_vma) record(1);
	list_for_each_entry_safe(v, w, &v->anon_vma_chain, same_vma) { }
	if (VM_WARN_ON_ONCE(a  >  b && v->vm_start)) return 0;
	WARN_ON(a);
	(&vp)->vma = vp.vma;
	return vp.vma == NULL ? y : (x >= 0) <= (y < 1);
}
void g(void);
void g(void) { ; }
"#,
    "bool h(bool b) { return b == true != false; }\nlong k(void) { return 0xffffffffffffffff + 9223372036854775807; }",
];

#[test]
fn printing_then_parsing_gives_the_same_tree() {
    for src in SAMPLES {
        let a = parse(0, src).unwrap_or_else(|e| panic!("{e:?} in\n{src}"));
        let printed = print_items(&a);
        let b = parse(0, &printed).unwrap_or_else(|e| panic!("{e:?} in printed\n{printed}"));
        assert_eq!(shape(&a), shape(&b), "printed:\n{printed}");
        // printing is stable
        assert_eq!(printed, print_items(&b));
    }
}

#[test]
fn precedence_follows_c() {
    let a = parse(
        0,
        "long f(void) { return 1 + 2 * 3 == 7 && 1 | 2 ^ 3 & 4; }",
    )
    .unwrap();
    let printed = print_items(&a);
    assert!(
        printed.contains("return ((1 + (2 * 3)) == 7) && (1 | (2 ^ (3 & 4)));"),
        "{printed}"
    );
}
