//! Prints a syntax tree back as model source. Parsing the output gives the same tree (apart
//! from locations); expressions are fully parenthesised so precedence never changes.

use super::ast::*;
use crate::textbuf::PushFmt;

/// Prints a list of items as source text.
pub fn print_items(items: &[Item]) -> String {
    let mut out = String::new();
    for item in items {
        match item {
            Item::Include { path, .. } => {
                out.push_line(format_args!("#include \"{path}\""));
            }
            Item::Define { name, value, .. } => {
                if *value < 0 {
                    out.push_line(format_args!(
                        "#define {name} (-{})",
                        (*value as i128).unsigned_abs()
                    ));
                } else {
                    out.push_line(format_args!("#define {name} {value}"));
                }
            }
            Item::Struct(s) => {
                out.push_line(format_args!("struct {} {{", s.name));
                for f in &s.fields {
                    out.push_line(format_args!("\t{};", decl_text(&f.ty, &f.name)));
                }
                out.push_str("};\n");
            }
            Item::Func(f) => {
                let params = if f.params.is_empty() {
                    "void".to_string()
                } else {
                    f.params
                        .iter()
                        .map(|p| decl_text(&p.ty, &p.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                out.push_line(format_args!("{}({params})", decl_text(&f.ret, &f.name)));
                block(&mut out, &f.body, 0);
                out.push('\n');
            }
        }
    }
    out
}

fn type_text(t: &TypeName) -> String {
    match t {
        TypeName::Void => "void".into(),
        TypeName::Bool => "bool".into(),
        TypeName::Int => "long".into(),
        TypeName::Ptr(s) => format!("struct {s} *"),
        TypeName::Struct(s) => format!("struct {s}"),
    }
}

fn decl_text(t: &TypeName, name: &str) -> String {
    let ty = type_text(t);
    if ty.ends_with('*') {
        format!("{ty}{name}")
    } else {
        format!("{ty} {name}")
    }
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push('\t');
    }
}

fn block(out: &mut String, stmts: &[Stmt], depth: usize) {
    indent(out, depth);
    out.push_str("{\n");
    for s in stmts {
        stmt(out, s, depth + 1);
    }
    indent(out, depth);
    out.push_str("}\n");
}

/// A statement that fits on one line, without `;` (used in `for` headers too).
fn simple_text(s: &Stmt) -> String {
    match &s.kind {
        StmtKind::Decl(ds) => {
            let mut parts = Vec::new();
            for (i, d) in ds.iter().enumerate() {
                let mut t = if i == 0 {
                    decl_text(&d.ty, &d.name)
                } else if matches!(d.ty, TypeName::Ptr(_)) {
                    format!("*{}", d.name)
                } else {
                    d.name.clone()
                };
                match &d.init {
                    None => {}
                    Some(Init::Expr(e)) => {
                        t.push_fmt(format_args!(" = {}", expr_text(e)));
                    }
                    Some(Init::Struct(fs)) => {
                        let fields: Vec<String> = fs
                            .iter()
                            .map(|(n, e, _)| format!(".{n} = {}", expr_text(e)))
                            .collect();
                        t.push_fmt(format_args!(" = {{ {} }}", fields.join(", ")));
                    }
                }
                parts.push(t);
            }
            parts.join(", ")
        }
        StmtKind::Expr(e) => expr_text(e),
        StmtKind::Assign { lhs, op, rhs } => {
            let op = match op {
                AssignOp::Set => String::from("="),
                AssignOp::With(b) => format!("{}=", b.text()),
            };
            format!("{} {op} {}", expr_text(lhs), expr_text(rhs))
        }
        StmtKind::IncDec { lhs, inc } => {
            format!("{}{}", expr_text(lhs), if *inc { "++" } else { "--" })
        }
        _ => String::new(),
    }
}

fn stmt(out: &mut String, s: &Stmt, depth: usize) {
    match &s.kind {
        StmtKind::Block(b) => block(out, b, depth),
        StmtKind::If { cond, then, els } => {
            indent(out, depth);
            out.push_line(format_args!("if ({})", expr_text(cond)));
            stmt(out, then, depth + 1);
            if let Some(e) = els {
                indent(out, depth);
                out.push_str("else\n");
                stmt(out, e, depth + 1);
            }
        }
        StmtKind::While { cond, body } => {
            indent(out, depth);
            out.push_line(format_args!("while ({})", expr_text(cond)));
            stmt(out, body, depth + 1);
        }
        StmtKind::For {
            init,
            cond,
            step,
            body,
        } => {
            indent(out, depth);
            out.push_line(format_args!(
                "for ({}; {}; {})",
                init.as_deref().map(simple_text).unwrap_or_default(),
                cond.as_ref().map(expr_text).unwrap_or_default(),
                step.as_deref().map(simple_text).unwrap_or_default()
            ));
            stmt(out, body, depth + 1);
        }
        StmtKind::Return(e) => {
            indent(out, depth);
            match e {
                Some(e) => {
                    out.push_line(format_args!("return {};", expr_text(e)));
                }
                None => out.push_str("return;\n"),
            }
        }
        StmtKind::Break => {
            indent(out, depth);
            out.push_str("break;\n");
        }
        StmtKind::Continue => {
            indent(out, depth);
            out.push_str("continue;\n");
        }
        StmtKind::ListForEach {
            reverse,
            it,
            tmp,
            head,
            list,
            member,
            body,
        } => {
            indent(out, depth);
            match tmp {
                Some(t) => {
                    out.push_line(format_args!(
                        "list_for_each_entry_safe({it}, {t}, &{}->{list}, {member})",
                        expr_text(head)
                    ));
                }
                None => {
                    let rev = if *reverse { "_reverse" } else { "" };
                    out.push_line(format_args!(
                        "list_for_each_entry{rev}({it}, &{}->{list}, {member})",
                        expr_text(head)
                    ));
                }
            }
            stmt(out, body, depth + 1);
        }
        _ => {
            indent(out, depth);
            out.push_line(format_args!("{};", simple_text(s)));
        }
    }
}

/// Prints an expression, parenthesising every compound subexpression.
pub(crate) fn expr_text(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(v) => {
            if *v < 0 {
                // `-N` reparses as a negation of `N`; print the literal in hex so it stays one
                format!("0x{:x}", *v as u64)
            } else {
                v.to_string()
            }
        }
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Null => "NULL".into(),
        ExprKind::Ident(s) => s.clone(),
        ExprKind::Field {
            base, field, arrow, ..
        } => {
            format!("{}{}{field}", atom(base), if *arrow { "->" } else { "." })
        }
        ExprKind::AddrOf(x) => format!("&{}", atom(x)),
        ExprKind::Call { name, args } => {
            let a: Vec<String> = args.iter().map(expr_text).collect();
            format!("{name}({})", a.join(", "))
        }
        ExprKind::Unary(op, x) => {
            let o = match op {
                UnOp::Not => "!",
                UnOp::Neg => "-",
                UnOp::BitNot => "~",
            };
            format!("{o}{}", atom(x))
        }
        ExprKind::Binary(op, a, b) => format!("{} {} {}", atom(a), op.text(), atom(b)),
        ExprKind::Cond(c, a, b) => format!("{} ? {} : {}", atom(c), atom(a), atom(b)),
        ExprKind::Warn {
            macro_name, text, ..
        } => format!("{macro_name}({text})"),
    }
}

/// An expression as an operand: parenthesised unless it is a leaf or postfix form.
fn atom(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(v) if *v >= 0 => expr_text(e),
        ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Null
        | ExprKind::Ident(_)
        | ExprKind::Field { .. }
        | ExprKind::Call { .. }
        | ExprKind::Warn { .. } => expr_text(e),
        _ => format!("({})", expr_text(e)),
    }
}
