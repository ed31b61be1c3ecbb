//! One test per kind of load-time diagnostic: exact position, message, and caret placement.

use crate::common::*;
use rmapcheck::lang::{load_file, load_str, render_diagnostics, Diagnostic};
use std::path::Path;

fn errors(text: &str) -> Vec<Diagnostic> {
    match load_str("m.rmap", text, Path::new("."), &schema()) {
        Ok(_) => panic!("expected diagnostics for:\n{text}"),
        Err(d) => d,
    }
}

/// Asserts that some diagnostic is at `line:col` with `fragment` in its message, and that its
/// rendering has the caret under that column.
fn expect(text: &str, line: u32, col: u32, fragment: &str) {
    let ds = errors(text);
    let d = ds
        .iter()
        .find(|d| d.line == line && d.col == col && d.message.contains(fragment))
        .unwrap_or_else(|| {
            panic!(
                "no `{fragment}` at {line}:{col}; got:\n{}",
                render_diagnostics(&ds)
            )
        });
    let shown = d.to_string();
    let mut lines = shown.lines();
    assert_eq!(
        lines.next().unwrap(),
        format!("m.rmap:{line}:{col}: error: {}", d.message)
    );
    let src = lines.next().unwrap();
    assert_eq!(src, text.lines().nth(line as usize - 1).unwrap());
    let caret = lines.next().unwrap();
    assert_eq!(caret.chars().count(), col as usize, "caret line {caret:?}");
    assert!(caret.ends_with('^'));
}

#[test]
fn syntax_error() {
    expect(
        "void f(void)\n{\n\tlong x = ;\n}\n",
        3,
        11,
        "expected an expression",
    );
    expect("void f(void) { record(1) }", 1, 26, "expected `;`");
}

#[test]
fn unknown_identifier() {
    expect(
        "long f(void)\n{\n\treturn nope + 1;\n}\n",
        3,
        9,
        "unknown identifier `nope`",
    );
}

#[test]
fn unknown_type() {
    expect(
        "void f(void) {\n  foo_t x;\n}",
        2,
        3,
        "unknown type `foo_t`",
    );
    expect(
        "void f(struct nosuch *p) {}",
        1,
        23,
        "unknown struct `nosuch`",
    );
    expect(
        "void f(void) { struct vm_area_struct v; }",
        1,
        38,
        "only be used through a pointer",
    );
}

#[test]
fn unknown_field_names_the_struct() {
    expect(
        "long f(struct vm_area_struct *vma)\n{\n\treturn vma->vm_nope;\n}\n",
        3,
        14,
        "struct `vm_area_struct` has no field `vm_nope`",
    );
}

#[test]
fn unknown_function() {
    expect(
        "void f(void) {\n    frobnicate(1);\n}",
        2,
        5,
        "unknown function `frobnicate`",
    );
}

#[test]
fn wrong_number_of_arguments() {
    expect(
        "void g(long a, long b) {}\nvoid f(void) { g(1); }",
        2,
        16,
        "wrong number of arguments: `g` takes 2 but 1 were given",
    );
    expect(
        "void f(void) { record(); }",
        1,
        16,
        "wrong number of arguments",
    );
}

#[test]
fn type_mismatches() {
    // argument
    expect(
        "void f(struct vm_area_struct *v) { i_mmap_lock_write(v); }",
        1,
        54,
        "argument 1 of `i_mmap_lock_write` must be `struct address_space *`",
    );
    // assignment
    expect(
        "void f(struct vm_area_struct *v) {\n\tlong x;\n\tx = v;\n}",
        3,
        6,
        "assigning `struct vm_area_struct *` to `x`",
    );
    // initialiser
    expect(
        "void f(struct vm_area_struct *v) { struct file *f = v; }",
        1,
        53,
        "initialising `f`",
    );
    // return value
    expect(
        "long f(struct file *p) { return p; }",
        1,
        33,
        "returning `struct file *`",
    );
    // arithmetic on a pointer
    expect(
        "long f(struct vm_area_struct *v) { return v + 1; }",
        1,
        43,
        "arithmetic on a pointer",
    );
    // -> on a non-pointer
    expect(
        "long f(long x) { return x->vm_start; }",
        1,
        25,
        "`->` applied to `int`",
    );
    // . on a non-struct-value
    expect(
        "long f(struct vm_area_struct *v) { return v.vm_start; }",
        1,
        43,
        "`.` applied to a pointer",
    );
    // void value used
    expect(
        "void g(void) {}\nlong f(void) { return g() + 1; }",
        2,
        23,
        "operand of type `void`",
    );
}

#[test]
fn assignment_to_read_only_kernel_field() {
    expect(
        "void f(struct vm_area_struct *v) {\n\tv->vm_mm = NULL;\n}",
        2,
        5,
        "field `vm_mm` of struct `vm_area_struct` is not writable",
    );
}

#[test]
fn break_and_continue_outside_loops() {
    expect(
        "void f(void) {\n\tbreak;\n}",
        2,
        2,
        "`break` outside a loop",
    );
    expect(
        "void f(void) { if (1) continue; }",
        1,
        23,
        "`continue` outside a loop",
    );
}

#[test]
fn missing_return_value() {
    expect("long f(void) {\n\treturn;\n}", 2, 2, "missing return value");
    expect("void f(void) { return 1; }", 1, 23, "cannot return a value");
}

#[test]
fn duplicate_local_in_same_scope() {
    expect(
        "void f(long a) {\n\tlong b;\n\tlong b;\n}",
        3,
        7,
        "redeclaration of `b`",
    );
    expect("void f(long a) { long a; }", 1, 23, "redeclaration of `a`");
    // shadowing in an inner scope is fine
    assert!(load_str(
        "ok.rmap",
        "void f(long a) { { long a = 2; record(a); } }",
        Path::new("."),
        &schema()
    )
    .is_ok());
}

#[test]
fn include_not_found_and_cycle() {
    expect(
        "void f(void) {}\n  #include \"missing.rmap\"\n",
        2,
        3,
        "include file `missing.rmap` not found",
    );
    let dir = scratch_dir("cycle");
    std::fs::write(dir.join("a.rmap"), "#include \"b.rmap\"\nvoid a(void) {}\n").unwrap();
    std::fs::write(dir.join("b.rmap"), "void b(void) {}\n#include \"a.rmap\"\n").unwrap();
    let ds = load_file(&dir.join("a.rmap"), &schema()).unwrap_err();
    assert_eq!(ds.len(), 1, "{}", render_diagnostics(&ds));
    assert!(ds[0].file.ends_with("b.rmap"));
    assert_eq!((ds[0].line, ds[0].col), (2, 1));
    assert!(ds[0].message.contains("include cycle"));
}

#[test]
fn redefining_kernel_structs_and_builtins() {
    expect(
        "struct file { long x; };",
        1,
        8,
        "cannot redeclare kernel struct `file`",
    );
    expect("void record(long x) {}", 1, 6, "`record`: it is a builtin");
}

#[test]
fn several_errors_are_collected_in_order() {
    let ds = errors("void f(void) {\n\tnope1;\n\tnope2();\n\tbreak;\n}\n");
    let at: Vec<(u32, u32)> = ds.iter().map(|d| (d.line, d.col)).collect();
    assert_eq!(at, vec![(2, 2), (3, 2), (4, 2)]);
}

#[test]
fn caret_keeps_tabs() {
    let ds = errors("void f(void) {\n\t\tnope;\n}");
    let r = render_diagnostics(&ds);
    assert!(r.contains("\n\t\tnope;\n\t\t^\n"), "{r:?}");
}

#[test]
fn lexical_errors() {
    expect(
        "void f(void) { long x = 1 @ 2; }",
        1,
        27,
        "unexpected character `@`",
    );
    expect(
        "void f(void) {}\n/* never closed",
        2,
        1,
        "unterminated comment",
    );
    expect("#define X 12abc\n", 1, 11, "invalid integer literal");
}
