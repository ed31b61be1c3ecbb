//! The syntax tree of a model file. Every node that can be the subject of a diagnostic carries
//! the `SrcLoc` where it starts.

use super::diag::SrcLoc;

/// A type as written in the source (all integer spellings collapse to `Int`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeName {
    Void,
    Bool,
    Int,
    /// `struct T *`
    Ptr(String),
    /// `struct T` (a model-local struct value)
    Struct(String),
}

/// One top-level item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    Include {
        path: String,
        loc: SrcLoc,
    },
    Define {
        name: String,
        value: i64,
        loc: SrcLoc,
    },
    Struct(StructDecl),
    Func(FuncDef),
}

/// `struct NAME { TYPE field; ... };`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructDecl {
    pub name: String,
    pub fields: Vec<Field>,
    pub loc: SrcLoc,
}

/// A field of a model-local struct, or a function parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub ty: TypeName,
    pub name: String,
    pub loc: SrcLoc,
}

/// A function definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuncDef {
    pub name: String,
    pub ret: TypeName,
    pub params: Vec<Field>,
    pub body: Vec<Stmt>,
    pub loc: SrcLoc,
}

/// A statement with its starting location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub loc: SrcLoc,
}

/// `=`, or a compound assignment such as `+=` or `|=` (the binary operator it applies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignOp {
    Set,
    With(BinOp),
}

/// One declared variable in a declaration statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declarator {
    pub ty: TypeName,
    pub name: String,
    pub init: Option<Init>,
    pub loc: SrcLoc,
}

/// An initialiser: an expression, or `{ .field = expr, ... }` for a struct value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Init {
    Expr(Expr),
    Struct(Vec<(String, Expr, SrcLoc)>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StmtKind {
    Decl(Vec<Declarator>),
    Expr(Expr),
    Assign {
        lhs: Expr,
        op: AssignOp,
        rhs: Expr,
    },
    /// `x++` (`inc`) or `x--`.
    IncDec {
        lhs: Expr,
        inc: bool,
    },
    If {
        cond: Expr,
        then: Box<Stmt>,
        els: Option<Box<Stmt>>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
    },
    For {
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        step: Option<Box<Stmt>>,
        body: Box<Stmt>,
    },
    Return(Option<Expr>),
    Break,
    Continue,
    Block(Vec<Stmt>),
    /// `list_for_each_entry[_safe|_reverse](it, [tmp,] &head->list, member) body`
    ListForEach {
        /// `_reverse`: walk from the tail (the oldest entry, as list_add() puts new ones first).
        reverse: bool,
        it: String,
        tmp: Option<String>,
        head: Expr,
        list: String,
        member: String,
        body: Box<Stmt>,
    },
}

/// An expression with its starting location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    pub kind: ExprKind,
    pub loc: SrcLoc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Not,
    Neg,
    BitNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

impl BinOp {
    /// The C spelling.
    pub fn text(self) -> &'static str {
        use BinOp::*;
        match self {
            Mul => "*",
            Div => "/",
            Rem => "%",
            Add => "+",
            Sub => "-",
            Shl => "<<",
            Shr => ">>",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            BitAnd => "&",
            BitXor => "^",
            BitOr => "|",
            And => "&&",
            Or => "||",
        }
    }

    /// C precedence level, higher binds tighter.
    pub(crate) fn prec(self) -> u8 {
        use BinOp::*;
        match self {
            Mul | Div | Rem => 10,
            Add | Sub => 9,
            Shl | Shr => 8,
            Lt | Le | Gt | Ge => 7,
            Eq | Ne => 6,
            BitAnd => 5,
            BitXor => 4,
            BitOr => 3,
            And => 2,
            Or => 1,
        }
    }

    /// The operator spelled `text`, if it is a binary operator.
    pub(crate) fn from_text(text: &str) -> Option<BinOp> {
        use BinOp::*;
        Some(match text {
            "*" => Mul,
            "/" => Div,
            "%" => Rem,
            "+" => Add,
            "-" => Sub,
            "<<" => Shl,
            ">>" => Shr,
            "<" => Lt,
            "<=" => Le,
            ">" => Gt,
            ">=" => Ge,
            "==" => Eq,
            "!=" => Ne,
            "&" => BitAnd,
            "^" => BitXor,
            "|" => BitOr,
            "&&" => And,
            "||" => Or,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    Int(i64),
    Bool(bool),
    Null,
    Ident(String),
    /// `base->field` (`arrow`) or `base.field`.
    Field {
        base: Box<Expr>,
        field: String,
        arrow: bool,
        /// Where the field name is.
        field_loc: SrcLoc,
    },
    /// `&x` of a local struct value.
    AddrOf(Box<Expr>),
    Call {
        name: String,
        args: Vec<Expr>,
    },
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `VM_WARN_ON_ONCE(cond)` and friends; `text` is the condition as written.
    Warn {
        macro_name: String,
        cond: Box<Expr>,
        text: String,
    },
}

/// The warning/bug macros that stop a run when their condition holds.
pub(crate) const WARN_MACROS: &[&str] = &[
    "VM_WARN_ON_ONCE",
    "VM_WARN_ON",
    "WARN_ON_ONCE",
    "WARN_ON",
    "VM_BUG_ON",
    "BUG_ON",
];
