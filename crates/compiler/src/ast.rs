//! The syntax tree of the supported C subset.

use std::collections::HashMap;
use std::sync::Arc;

use crate::error::Loc;
use crate::types::{CType, Scalar, StructDef};

/// A type as written: array sizes may be expressions evaluated when the
/// declaration runs (a VLA whose size must turn out public).
#[derive(Clone, Debug)]
pub enum TypeExpr {
    /// A complete type.
    Known(CType),
    /// Pointer to a type.
    Pointer(Box<TypeExpr>),
    /// Array of a type; `None` = size from the initializer.
    Array(Box<TypeExpr>, Option<Box<Expr>>),
    /// `typeof(expr)`: the type of an expression, which is not evaluated.
    Typeof(Box<Expr>),
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-x`
    Neg,
    /// `+x`
    Plus,
    /// `!x`
    Not,
    /// `~x`
    BitNot,
    /// `*p`
    Deref,
    /// `&x`
    Addr,
}

/// Binary arithmetic, bitwise and comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `&`
    And,
    /// `|`
    Or,
    /// `^`
    Xor,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

impl BinOp {
    /// Whether the operator compares (its value is 0 or 1).
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        )
    }

    /// `a op c` for a comparing operator on two integers; `None` for the
    /// others.
    pub fn compare(self, a: i128, c: i128) -> Option<bool> {
        Some(match self {
            BinOp::Lt => a < c,
            BinOp::Le => a <= c,
            BinOp::Gt => a > c,
            BinOp::Ge => a >= c,
            BinOp::Eq => a == c,
            BinOp::Ne => a != c,
            _ => return None,
        })
    }
}

/// An expression with its position.
#[derive(Clone, Debug)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it starts (for operators: the operator).
    pub loc: Loc,
}

/// Expression forms.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// Integer or character constant with its type.
    Int(u64, Scalar),
    /// Floating constant: its bit pattern and its type (`float` or
    /// `double`).
    Float(u64, Scalar),
    /// A variable (or function) name.
    Ident(String),
    /// A string literal: its bytes, without the terminating NUL (an
    /// array of `char`, as in C).
    Str(Vec<u8>),
    /// Unary operator.
    Unary(UnOp, Box<Expr>),
    /// `++x`, `x++`, `--x`, `x--`.
    IncDec {
        /// Prefix form.
        pre: bool,
        /// Increment (else decrement).
        inc: bool,
        /// The operand.
        e: Box<Expr>,
    },
    /// Binary operator.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `a && b`
    LogAnd(Box<Expr>, Box<Expr>),
    /// `a || b`
    LogOr(Box<Expr>, Box<Expr>),
    /// `a = b` or `a op= b`.
    Assign(Option<BinOp>, Box<Expr>, Box<Expr>),
    /// `c ? a : b`
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `a, b`
    Comma(Box<Expr>, Box<Expr>),
    /// A call of a named function (or of the function a variable of
    /// function pointer type of that name points to).
    Call(String, Vec<Expr>),
    /// A call through a function pointer other than a name: `(*f)(x)`,
    /// `ops[i](a, b)`, `s.op(a, b)`.
    CallPointer(Box<Expr>, Vec<Expr>),
    /// `a[i]`
    Index(Box<Expr>, Box<Expr>),
    /// `a.m`
    Member(Box<Expr>, String),
    /// `p->m`
    Arrow(Box<Expr>, String),
    /// `(T) e`
    Cast(TypeExpr, Box<Expr>),
    /// `(T){ ... }`: a compound literal, an unnamed object of type `T`.
    Compound(TypeExpr, Box<Init>),
    /// `sizeof(T)`
    SizeofType(TypeExpr),
    /// `sizeof e`
    SizeofExpr(Box<Expr>),
    /// GNU `({ ... })`: the items of a compound statement, in a scope of
    /// their own; its value is that of the last item if that is an
    /// expression statement (else it is void). No `return`, `break`,
    /// `continue` or label leaves it (the parser refuses them).
    StmtExpr(Vec<Stmt>),
    /// `_Generic(e, T1: e1, ..., default: d)`: the association whose type
    /// is that of `e` (not evaluated) after lvalue conversion, else the
    /// default.
    Generic(Box<Expr>, Vec<Association>),
}

/// An association of a `_Generic` selection.
#[derive(Clone, Debug)]
pub struct Association {
    /// Its type; `None` for `default`.
    pub ty: Option<TypeExpr>,
    /// Whether the type was spelled with a qualifier (`const`, `volatile`,
    /// `restrict`, `_Atomic`), which [`CType`] does not record.
    pub qualified: bool,
    /// Whether the type itself is qualified (`const int`, `char *const`,
    /// not `const char *`): no controlling type, which lvalue conversion
    /// leaves unqualified, matches it.
    pub top_qualified: bool,
    /// The expression chosen with it.
    pub value: Expr,
}

/// One declarator of a declaration.
#[derive(Clone, Debug)]
pub struct Decl {
    /// The declared name.
    pub name: String,
    /// Its type.
    pub ty: TypeExpr,
    /// The initializer, if any.
    pub init: Option<Init>,
    /// Whether it was declared `extern` without an initializer: it names
    /// an object another declaration defines.
    pub is_extern: bool,
    /// Where the name is.
    pub loc: Loc,
}

/// An initializer.
#[derive(Clone, Debug)]
pub enum Init {
    /// `= expr`
    Expr(Expr),
    /// `= { ... }`, each element with optional designators.
    List(Vec<(Vec<Designator>, Init)>, Loc),
}

/// A designator in an initializer list.
#[derive(Clone, Debug)]
pub enum Designator {
    /// `.name =`
    Field(String, Loc),
    /// `[index] =`
    Index(Expr),
}

/// A statement with its position.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// What it is.
    pub kind: StmtKind,
    /// Where it starts.
    pub loc: Loc,
}

/// Statement forms.
#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `;`
    Empty,
    /// `_Static_assert(e, "message")` whose condition needs the types of
    /// variables (`sizeof x`): checked when the statement is lowered.
    StaticAssert(Expr, String),
    /// An expression statement.
    Expr(Expr),
    /// A declaration.
    Decl(Vec<Decl>),
    /// `{ ... }`
    Block(Vec<Stmt>),
    /// `if (c) a else b`
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    /// `while (c) s`
    While(Expr, Box<Stmt>),
    /// `do s while (c);`
    DoWhile(Box<Stmt>, Expr),
    /// `for (init; cond; step) s`
    For(Option<Box<Stmt>>, Option<Expr>, Option<Expr>, Box<Stmt>),
    /// `switch (e) s`
    Switch(Expr, Box<Stmt>),
    /// `case k: s`, or GNU's `case k ... hi: s` (every value from `k` to
    /// `hi`)
    Case(Expr, Option<Expr>, Box<Stmt>),
    /// `default: s`
    Default(Box<Stmt>),
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `return e;`
    Return(Option<Expr>),
}

/// A function definition.
#[derive(Clone, Debug)]
pub struct Function {
    /// Its name.
    pub name: String,
    /// Return type.
    pub ret: CType,
    /// Parameters: name, type, position.
    pub params: Vec<(String, CType, Loc)>,
    /// Per parameter: the array type it was declared with, if it was
    /// declared an array of constant size (C adjusts its type in `params`
    /// to a pointer; the entry function takes such a parameter as an input
    /// array).
    pub declared_arrays: Vec<Option<CType>>,
    /// Per parameter: its type (adjusted to a pointer), if a size in it is
    /// known only from earlier parameters' values (`int a[n][n]`); it is
    /// made at each call, and `params` holds `void *` for it.
    pub variable_params: Vec<Option<TypeExpr>>,
    /// Whether twofold's headers define it (their part of the C library;
    /// see [`crate::definitions`]).
    pub library: bool,
    /// The body.
    pub body: Stmt,
    /// Where the name is.
    pub loc: Loc,
}

/// A translation unit.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// Function definitions in order.
    pub functions: Vec<Function>,
    /// Global variables in order.
    pub globals: Vec<Decl>,
    /// Struct definitions by [`StructDef::id`], as at the end of the
    /// translation unit (a pointer to a struct incomplete where it was
    /// declared is followed through them).
    pub structs: HashMap<u32, Arc<StructDef>>,
}

impl Expr {
    /// Whether evaluating this expression may write memory (assignments,
    /// `++`/`--`, calls).
    pub fn has_side_effects(&self) -> bool {
        match &self.kind {
            ExprKind::Assign(..)
            | ExprKind::IncDec { .. }
            | ExprKind::Call(..)
            | ExprKind::CallPointer(..)
            | ExprKind::StmtExpr(_) => true,
            ExprKind::Int(..)
            | ExprKind::Float(..)
            | ExprKind::Ident(_)
            | ExprKind::Str(_)
            | ExprKind::SizeofType(_)
            | ExprKind::SizeofExpr(_) => false,
            ExprKind::Unary(_, a)
            | ExprKind::Member(a, _)
            | ExprKind::Arrow(a, _)
            | ExprKind::Cast(_, a) => a.has_side_effects(),
            ExprKind::Binary(_, a, b)
            | ExprKind::LogAnd(a, b)
            | ExprKind::LogOr(a, b)
            | ExprKind::Comma(a, b)
            | ExprKind::Index(a, b) => a.has_side_effects() || b.has_side_effects(),
            ExprKind::Cond(a, b, c) => {
                a.has_side_effects() || b.has_side_effects() || c.has_side_effects()
            }
            ExprKind::Generic(_, assocs) => assocs.iter().any(|a| a.value.has_side_effects()),
            ExprKind::Compound(_, init) => {
                let mut any = false;
                init.for_each_expr(&mut |e| any |= e.has_side_effects());
                any
            }
        }
    }

    /// Whether `o` is written as this expression is (wherever it is):
    /// names, constants, operators, subscripts and members alike. Casts,
    /// calls and the rest never compare equal.
    pub fn same_as(&self, o: &Expr) -> bool {
        use ExprKind as K;
        match (&self.kind, &o.kind) {
            (K::Int(v, s), K::Int(w, t)) | (K::Float(v, s), K::Float(w, t)) => v == w && s == t,
            (K::Ident(x), K::Ident(y)) => x == y,
            (K::Unary(p, a), K::Unary(q, b)) => p == q && a.same_as(b),
            (K::Binary(p, a, b), K::Binary(q, c, d)) => p == q && a.same_as(c) && b.same_as(d),
            (K::LogAnd(a, b), K::LogAnd(c, d))
            | (K::LogOr(a, b), K::LogOr(c, d))
            | (K::Index(a, b), K::Index(c, d)) => a.same_as(c) && b.same_as(d),
            (K::Member(a, m), K::Member(b, n)) | (K::Arrow(a, m), K::Arrow(b, n)) => {
                m == n && a.same_as(b)
            }
            (K::Cond(a, b, c), K::Cond(d, e, f)) => a.same_as(d) && b.same_as(e) && c.same_as(f),
            _ => false,
        }
    }
}

impl Stmt {
    /// Calls `f` on the expressions of this statement and of the
    /// statements in it (conditions, initializers, array sizes, values
    /// returned), not on their sub-expressions.
    pub fn for_each_expr(&self, f: &mut impl FnMut(&Expr)) {
        match &self.kind {
            StmtKind::Empty | StmtKind::Break | StmtKind::Continue => {}
            StmtKind::StaticAssert(e, _) | StmtKind::Expr(e) => f(e),
            StmtKind::Return(e) => e.iter().for_each(f),
            StmtKind::Decl(ds) => {
                for d in ds {
                    d.ty.for_each_size(f);
                    if let Some(init) = &d.init {
                        init.for_each_expr(f);
                    }
                }
            }
            StmtKind::Block(items) => items.iter().for_each(|s| s.for_each_expr(f)),
            StmtKind::If(c, t, e) => {
                f(c);
                t.for_each_expr(f);
                if let Some(e) = e {
                    e.for_each_expr(f);
                }
            }
            StmtKind::While(c, b) | StmtKind::DoWhile(b, c) => {
                f(c);
                b.for_each_expr(f);
            }
            StmtKind::For(init, c, step, b) => {
                if let Some(i) = init {
                    i.for_each_expr(f);
                }
                c.iter().chain(step).for_each(&mut *f);
                b.for_each_expr(f);
            }
            StmtKind::Switch(e, b) => {
                f(e);
                b.for_each_expr(f);
            }
            StmtKind::Case(k, hi, b) => {
                f(k);
                hi.iter().for_each(&mut *f);
                b.for_each_expr(f);
            }
            StmtKind::Default(b) => b.for_each_expr(f),
        }
    }
}

impl TypeExpr {
    /// Calls `f` on the array sizes written in the type (evaluated where
    /// the declaration runs).
    pub fn for_each_size(&self, f: &mut impl FnMut(&Expr)) {
        match self {
            TypeExpr::Known(_) | TypeExpr::Typeof(_) => {}
            TypeExpr::Pointer(t) => t.for_each_size(f),
            TypeExpr::Array(t, n) => {
                if let Some(n) = n {
                    f(n);
                }
                t.for_each_size(f);
            }
        }
    }
}

impl Init {
    /// Calls `f` on the expressions of the initializer, designators'
    /// indices included, in order.
    pub fn for_each_expr(&self, f: &mut impl FnMut(&Expr)) {
        match self {
            Init::Expr(e) => f(e),
            Init::List(items, _) => {
                for (designators, init) in items {
                    for d in designators {
                        if let Designator::Index(e) = d {
                            f(e);
                        }
                    }
                    init.for_each_expr(f);
                }
            }
        }
    }
}

/// What an identifier a block-scope `extern` declares is read as: the
/// file-scope object `name`, even where a local of an enclosing block
/// hides it (`int g = 1; { extern int g; }` inside a function with a
/// local `g`).
pub fn file_scope_alias(name: &str) -> String {
    format!("{name}#extern")
}

/// The file-scope name a [`file_scope_alias`] stands for.
pub fn aliased_file_scope(alias: &str) -> Option<&str> {
    alias.strip_suffix("#extern")
}
