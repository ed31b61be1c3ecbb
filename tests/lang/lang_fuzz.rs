//! Loading arbitrary text, or valid models with random edits, must never panic: every problem is
//! a diagnostic.

use crate::common::schema;
use proptest::prelude::*;
use rmapcheck::lang::{load_str, render_diagnostics};
use std::path::Path;

const VALID: &str = r#"#define N 3
struct vma_prepare { struct vm_area_struct *vma; struct address_space *mapping; bool b; };
static void prep(struct vma_prepare *vp)
{
	struct anon_vma_chain *avc, *tmp;
	long i;
	if (vp->mapping && !vp->b) {
		i_mmap_lock_write(vp->mapping);
		mapping_rmap_tree_remove(vp->vma, vp->mapping);
	}
	for (i = 0; i < N; i++) { if (i == 1) continue; record(i << 2); }
	list_for_each_entry_safe(avc, tmp, &vp->vma->anon_vma_chain, same_vma)
		anon_vma_lock_write(avc->anon_vma);
	if (VM_WARN_ON_ONCE(vp->vma->vm_start > vp->vma->vm_end)) return;
}
long entry(struct vm_area_struct *vma)
{
	struct vma_prepare vp = { .vma = vma };
	vp.mapping = vma->vm_file ? vma->vm_file->f_mapping : NULL;
	prep(&vp);
	return vma->vm_end - vma->vm_start;
}
"#;

fn try_load(text: &str) {
    if let Err(d) = load_str("fuzz.rmap", text, Path::new("/nonexistent"), &schema()) {
        assert!(!d.is_empty());
        let _ = render_diagnostics(&d);
    }
}

#[test]
fn the_valid_sample_loads() {
    load_str("v.rmap", VALID, Path::new("."), &schema()).unwrap();
}

#[test]
fn deep_nesting_is_a_diagnostic() {
    let deep = format!(
        "long f(void) {{ return {}1{}; }}",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    assert!(load_str("d.rmap", &deep, Path::new("."), &schema()).is_err());
    let deep = format!("void f(void) {{ {} }}", "if (1) ".repeat(5000) + ";");
    assert!(load_str("d.rmap", &deep, Path::new("."), &schema()).is_err());
    let deep = format!("long f(void) {{ return {}1; }}", "-!~".repeat(3000));
    assert!(load_str("d.rmap", &deep, Path::new("."), &schema()).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,200}") {
        try_load(&s);
    }

    #[test]
    fn c_like_token_soup_never_panics(
        toks in proptest::collection::vec(
            proptest::sample::select(vec![
                "void", "long", "bool", "struct", "vma_prepare", "vm_area_struct", "*", "f", "x",
                "(", ")", "{", "}", ";", ",", "=", "->", ".", "&", "if", "else", "while", "for",
                "return", "break", "continue", "1", "0x7", "NULL", "true", "+", "<<", "?", ":",
                "#define", "#include", "\"x\"", "VM_WARN_ON(", "list_for_each_entry(", "record(",
                "&&", "||", "!", "\n", "/*", "*/", "//",
            ]),
            0..60,
        )
    ) {
        try_load(&toks.join(" "));
    }

    #[test]
    fn mutated_valid_programs_never_panic(
        edits in proptest::collection::vec((0usize..2000, 0usize..20, "\\PC{0,6}"), 1..6)
    ) {
        let mut text = VALID.to_string();
        for (pos, del, ins) in edits {
            let mut at = pos % (text.len() + 1);
            while !text.is_char_boundary(at) { at -= 1; }
            let mut end = (at + del).min(text.len());
            while !text.is_char_boundary(end) { end -= 1; }
            text.replace_range(at..end, &ins);
        }
        try_load(&text);
    }
}
