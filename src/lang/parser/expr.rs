//! Expressions, by precedence climbing: `?:`, the binary operators (`BinOp::prec`), unary
//! operators and `&`, field access (`->`, `.`), and primaries: literals, names, parentheses,
//! calls, `likely`/`unlikely` (transparent) and the `WARN_ON` family (which keep the text of
//! their condition).

use super::{PResult, ParseError, Parser};
use crate::lang::ast::{BinOp, Expr, ExprKind, UnOp, WARN_MACROS};
use crate::lang::lexer::Tok;

impl Parser<'_> {
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.cond_expr();
        self.depth -= 1;
        r
    }

    fn cond_expr(&mut self) -> PResult<Expr> {
        let c = self.binary(1)?;
        if !self.eat_punct("?") {
            return Ok(c);
        }
        let a = self.expr()?;
        self.expect_punct(":")?;
        let b = self.expr()?;
        let loc = c.loc;
        Ok(Expr {
            kind: ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
            loc,
        })
    }

    /// The binary operator at the cursor, if it binds at least as tightly as `min_prec`.
    fn binary_op(&self, min_prec: u8) -> Option<BinOp> {
        match &self.tok().tok {
            Tok::Punct(p) => BinOp::from_text(p).filter(|op| op.prec() >= min_prec),
            _ => None,
        }
    }

    fn binary(&mut self, min_prec: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        while let Some(op) = self.binary_op(min_prec) {
            self.advance();
            let rhs = self.binary(op.prec() + 1)?;
            let loc = lhs.loc;
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                loc,
            };
        }
        Ok(lhs)
    }

    pub(super) fn unary(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.unary_inner();
        self.depth -= 1;
        r
    }

    fn unary_inner(&mut self) -> PResult<Expr> {
        let loc = self.loc();
        let op = match &self.tok().tok {
            Tok::Punct("!") => Some(UnOp::Not),
            Tok::Punct("-") => Some(UnOp::Neg),
            Tok::Punct("~") => Some(UnOp::BitNot),
            _ => None,
        };
        if let Some(op) = op {
            self.advance();
            let e = self.unary()?;
            return Ok(Expr {
                kind: ExprKind::Unary(op, Box::new(e)),
                loc,
            });
        }
        if self.eat_punct("&") {
            let e = self.unary()?;
            return Ok(Expr {
                kind: ExprKind::AddrOf(Box::new(e)),
                loc,
            });
        }
        if self.is_punct("*") {
            return self.err("`*` dereference is not supported; use `->`");
        }
        self.postfix()
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        loop {
            let arrow = if self.is_punct("->") {
                true
            } else if self.is_punct(".") {
                false
            } else {
                break;
            };
            self.advance();
            let (field, field_loc) = self.ident("a field name")?;
            let loc = e.loc;
            e = Expr {
                kind: ExprKind::Field {
                    base: Box::new(e),
                    field,
                    arrow,
                    field_loc,
                },
                loc,
            };
        }
        Ok(e)
    }

    fn primary(&mut self) -> PResult<Expr> {
        let loc = self.loc();
        let mk = |kind| Ok(Expr { kind, loc });
        match self.tok().tok.clone() {
            Tok::Int(v) => {
                self.advance();
                mk(ExprKind::Int(v))
            }
            Tok::Punct("(") => {
                self.advance();
                if self.is_type_start() {
                    return self.err("casts are not supported");
                }
                let e = self.expr()?;
                self.expect_punct(")")?;
                Ok(e)
            }
            Tok::Ident(name) => {
                self.advance();
                match name.as_str() {
                    "true" => return mk(ExprKind::Bool(true)),
                    "false" => return mk(ExprKind::Bool(false)),
                    "NULL" => return mk(ExprKind::Null),
                    _ => {}
                }
                if !self.is_punct("(") {
                    return mk(ExprKind::Ident(name));
                }
                if WARN_MACROS.contains(&name.as_str()) {
                    self.advance();
                    let first = self.pos;
                    let cond = self.expr()?;
                    let text = self.source_text(first, self.pos);
                    self.expect_punct(")")?;
                    return mk(ExprKind::Warn {
                        macro_name: name,
                        cond: Box::new(cond),
                        text,
                    });
                }
                let args = self.args()?;
                if name == "likely" || name == "unlikely" {
                    if args.len() != 1 {
                        return Err(ParseError {
                            loc,
                            message: format!("`{name}` takes exactly one argument"),
                        });
                    }
                    return Ok(args.into_iter().next().expect("one argument"));
                }
                mk(ExprKind::Call { name, args })
            }
            _ => self.err(format!("expected an expression, found {}", self.describe())),
        }
    }

    fn args(&mut self) -> PResult<Vec<Expr>> {
        self.expect_punct("(")?;
        let mut args = Vec::new();
        if self.eat_punct(")") {
            return Ok(args);
        }
        loop {
            args.push(self.expr()?);
            if self.eat_punct(")") {
                return Ok(args);
            }
            self.expect_punct(",")?;
        }
    }

    /// The source text of tokens `from..to`, with each gap between tokens shown as one space.
    fn source_text(&self, from: usize, to: usize) -> String {
        let mut s = String::new();
        let mut prev_end = None;
        for t in &self.toks[from..to] {
            if let Some(pe) = prev_end {
                if t.start > pe {
                    s.push(' ');
                }
            }
            s.push_str(&self.text[t.start..t.end]);
            prev_end = Some(t.end);
        }
        s
    }
}
