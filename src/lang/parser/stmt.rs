//! Statements: blocks, `if`, `while`, `for`, `return`, `break`/`continue`, the kernel's
//! `list_for_each_entry` family, declarations with their initialisers, and simple statements
//! (assignments, `++`/`--`, expression statements).

use super::{PResult, ParseError, Parser};
use crate::lang::ast::{AssignOp, BinOp, Declarator, Expr, ExprKind, Init, Stmt, StmtKind};
use crate::lang::diag::SrcLoc;
use crate::lang::lexer::Tok;

impl Parser<'_> {
    pub(super) fn block_body(&mut self) -> PResult<Vec<Stmt>> {
        self.expect_punct("{")?;
        let mut stmts = Vec::new();
        while !self.eat_punct("}") {
            if self.at_eof() {
                return self.err("expected `}`, found end of file");
            }
            stmts.push(self.stmt()?);
        }
        Ok(stmts)
    }

    pub(super) fn stmt(&mut self) -> PResult<Stmt> {
        self.enter()?;
        let r = self.stmt_inner();
        self.depth -= 1;
        r
    }

    fn stmt_inner(&mut self) -> PResult<Stmt> {
        let loc = self.loc();
        let mk = |kind| Ok(Stmt { kind, loc });
        if self.is_punct("{") {
            return mk(StmtKind::Block(self.block_body()?));
        }
        if self.eat_punct(";") {
            return mk(StmtKind::Block(Vec::new()));
        }
        let word = match &self.tok().tok {
            Tok::Ident(s) => s.clone(),
            _ => String::new(),
        };
        match word.as_str() {
            "if" => {
                self.advance();
                let cond = self.paren_expr()?;
                let then = Box::new(self.stmt()?);
                let els = if self.is_word("else") {
                    self.advance();
                    Some(Box::new(self.stmt()?))
                } else {
                    None
                };
                mk(StmtKind::If { cond, then, els })
            }
            "while" => {
                self.advance();
                let cond = self.paren_expr()?;
                let body = Box::new(self.stmt()?);
                mk(StmtKind::While { cond, body })
            }
            "for" => mk(self.for_stmt()?),
            "return" => {
                self.advance();
                let e = if self.is_punct(";") {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect_punct(";")?;
                mk(StmtKind::Return(e))
            }
            "break" | "continue" => {
                self.advance();
                self.expect_punct(";")?;
                mk(if word == "break" {
                    StmtKind::Break
                } else {
                    StmtKind::Continue
                })
            }
            "list_for_each_entry" | "list_for_each_entry_safe" | "list_for_each_entry_reverse"
                if matches!(self.peek_tok(1), Tok::Punct("(")) =>
            {
                let reverse = word == "list_for_each_entry_reverse";
                self.list_iter(word == "list_for_each_entry_safe", reverse, loc)
            }
            "else" => self.err("`else` without a matching `if`"),
            _ => {
                let s = self.simple_or_decl()?;
                self.expect_punct(";")?;
                Ok(s)
            }
        }
    }

    /// `for (init; cond; step) body`, at the `for`.
    fn for_stmt(&mut self) -> PResult<StmtKind> {
        self.advance();
        self.expect_punct("(")?;
        let init = if self.eat_punct(";") {
            None
        } else {
            let s = self.simple_or_decl()?;
            self.expect_punct(";")?;
            Some(Box::new(s))
        };
        let cond = if self.is_punct(";") {
            None
        } else {
            Some(self.expr()?)
        };
        self.expect_punct(";")?;
        let step = if self.is_punct(")") {
            None
        } else {
            Some(Box::new(self.simple()?))
        };
        self.expect_punct(")")?;
        let body = Box::new(self.stmt()?);
        Ok(StmtKind::For {
            init,
            cond,
            step,
            body,
        })
    }

    fn list_iter(&mut self, safe: bool, reverse: bool, loc: SrcLoc) -> PResult<Stmt> {
        self.advance();
        self.expect_punct("(")?;
        let (it, _) = self.ident("the iterator variable")?;
        self.expect_punct(",")?;
        let tmp = if safe {
            let (t, _) = self.ident("the temporary variable")?;
            self.expect_punct(",")?;
            Some(t)
        } else {
            None
        };
        let head_loc = self.loc();
        let e = self.expr()?;
        let (head, list) = match e.kind {
            ExprKind::AddrOf(inner) => match inner.kind {
                ExprKind::Field {
                    base,
                    field,
                    arrow: true,
                    ..
                } => (*base, field),
                _ => {
                    return Err(ParseError {
                        loc: head_loc,
                        message: "the list head must be written `&object->list`".into(),
                    })
                }
            },
            _ => {
                return Err(ParseError {
                    loc: head_loc,
                    message: "the list head must be written `&object->list`".into(),
                })
            }
        };
        self.expect_punct(",")?;
        let (member, _) = self.ident("the list member name")?;
        self.expect_punct(")")?;
        let body = Box::new(self.stmt()?);
        Ok(Stmt {
            kind: StmtKind::ListForEach {
                reverse,
                it,
                tmp,
                head,
                list,
                member,
                body,
            },
            loc,
        })
    }

    fn paren_expr(&mut self) -> PResult<Expr> {
        self.expect_punct("(")?;
        let e = self.expr()?;
        self.expect_punct(")")?;
        Ok(e)
    }

    /// A declaration or a simple statement, without the final `;`.
    fn simple_or_decl(&mut self) -> PResult<Stmt> {
        let loc = self.loc();
        if self.is_type_start() {
            return self.decl(loc);
        }
        if let (Tok::Ident(a), Tok::Ident(_)) = (&self.tok().tok, self.peek_tok(1)) {
            return self.err(format!("unknown type `{a}`"));
        }
        if let (Tok::Ident(a), Tok::Punct("*"), Tok::Ident(_), Tok::Punct(p)) = (
            &self.tok().tok,
            self.peek_tok(1),
            self.peek_tok(2),
            self.peek_tok(3),
        ) {
            if matches!(*p, ";" | "=" | ",") {
                return self.err(format!("unknown type `{a}`"));
            }
        }
        self.simple()
    }

    fn decl(&mut self, loc: SrcLoc) -> PResult<Stmt> {
        let base = match self.base_type()? {
            Some(b) => b,
            None => return self.err(format!("expected a type, found {}", self.describe())),
        };
        let mut decls = Vec::new();
        loop {
            let ty = self.pointer(base.clone())?;
            let (name, nloc) = self.ident("a variable name")?;
            let init = if self.eat_punct("=") {
                Some(self.init()?)
            } else {
                None
            };
            decls.push(Declarator {
                ty,
                name,
                init,
                loc: nloc,
            });
            if !self.eat_punct(",") {
                break;
            }
        }
        Ok(Stmt {
            kind: StmtKind::Decl(decls),
            loc,
        })
    }

    fn init(&mut self) -> PResult<Init> {
        if !self.eat_punct("{") {
            return Ok(Init::Expr(self.expr()?));
        }
        let mut fields = Vec::new();
        while !self.eat_punct("}") {
            let loc = self.loc();
            if !self.eat_punct(".") {
                return self.err("expected `.field = value` in a struct initialiser");
            }
            let (name, _) = self.ident("a field name")?;
            self.expect_punct("=")?;
            let e = self.expr()?;
            fields.push((name, e, loc));
            if !self.eat_punct(",") {
                self.expect_punct("}")?;
                break;
            }
        }
        Ok(Init::Struct(fields))
    }

    /// Assignment, increment/decrement or expression statement, without the `;`.
    fn simple(&mut self) -> PResult<Stmt> {
        let loc = self.loc();
        if self.is_punct("++") || self.is_punct("--") {
            let inc = self.is_punct("++");
            self.advance();
            let lhs = self.unary()?;
            return Ok(Stmt {
                kind: StmtKind::IncDec { lhs, inc },
                loc,
            });
        }
        let lhs = self.expr()?;
        let assign = match &self.tok().tok {
            Tok::Punct("=") => Some(AssignOp::Set),
            Tok::Punct(p) if p.len() >= 2 && p.ends_with('=') => {
                BinOp::from_text(&p[..p.len() - 1])
                    .filter(|_| !matches!(*p, "==" | "!=" | "<=" | ">="))
                    .map(AssignOp::With)
            }
            _ => None,
        };
        let kind = if let Some(op) = assign {
            self.advance();
            let rhs = self.expr()?;
            StmtKind::Assign { lhs, op, rhs }
        } else if self.is_punct("++") || self.is_punct("--") {
            let inc = self.is_punct("++");
            self.advance();
            StmtKind::IncDec { lhs, inc }
        } else {
            StmtKind::Expr(lhs)
        };
        Ok(Stmt { kind, loc })
    }
}
