//! Recursive-descent parser from preprocessed tokens to the syntax tree.

use std::collections::HashMap;
use std::sync::Arc;

use crate::ast::*;
use crate::error::{err, DResult, Loc};
use crate::lexer::{binary_precedence, Tok, Token};
use crate::types::{CType, Scalar, StructDef};

/// Parses a preprocessed token stream.
pub fn parse(toks: &[Token]) -> DResult<Program> {
    let mut p = Parser {
        toks,
        pos: 0,
        typedefs: vec![HashMap::new()],
        structs: HashMap::new(),
        enums: vec![HashMap::new()],
    };
    p.program()
}

struct Parser<'a> {
    toks: &'a [Token],
    pos: usize,
    typedefs: Vec<HashMap<String, CType>>,
    structs: HashMap<String, Arc<StructDef>>,
    enums: Vec<HashMap<String, i64>>,
}

/// Declaration specifiers: the base type and storage facts.
struct Specs {
    ty: CType,
    typedef: bool,
    is_static: bool,
    is_const: bool,
    loc: Loc,
}

const TYPE_WORDS: &[&str] = &[
    "void",
    "char",
    "short",
    "int",
    "long",
    "signed",
    "unsigned",
    "_Bool",
    "float",
    "double",
    "struct",
    "union",
    "enum",
    "const",
    "volatile",
    "static",
    "extern",
    "register",
    "inline",
    "auto",
    "restrict",
    "__restrict",
    "__inline",
    "__inline__",
    "typedef",
    "__signed__",
    "__extension__",
    "__attribute__",
    "__const",
    "_Noreturn",
    "__int128",
    "_Complex",
];

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a Token> {
        self.toks.get(self.pos)
    }

    fn peek_at(&self, k: usize) -> Option<&'a Token> {
        self.toks.get(self.pos + k)
    }

    fn loc(&self) -> Loc {
        self.peek()
            .or_else(|| self.toks.last())
            .map(|t| t.loc)
            .unwrap_or_default()
    }

    fn is(&self, p: &str) -> bool {
        self.peek().is_some_and(|t| t.is(p))
    }

    fn is_word(&self, w: &str) -> bool {
        self.peek().and_then(|t| t.ident()) == Some(w)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, p: &str) -> DResult<Loc> {
        let loc = self.loc();
        if self.eat(p) {
            Ok(loc)
        } else {
            let found = self.describe();
            err(loc, format!("expected '{p}' but found {found}"))
        }
    }

    fn describe(&self) -> String {
        match self.peek().map(|t| &t.tok) {
            None => "end of file".into(),
            Some(Tok::Ident(s)) => format!("'{s}'"),
            Some(Tok::Punct(p)) => format!("'{p}'"),
            Some(Tok::Int(v, ..)) => format!("'{v}'"),
            Some(Tok::Char(_)) => "a character constant".into(),
            Some(Tok::Str(_)) => "a string literal".into(),
            Some(Tok::Float) => "a floating-point constant".into(),
        }
    }

    fn ident(&mut self) -> DResult<(String, Loc)> {
        let loc = self.loc();
        match self.peek().and_then(|t| t.ident()) {
            Some(s) if !is_keyword(s) => {
                self.pos += 1;
                Ok((s.to_string(), loc))
            }
            _ => {
                let found = self.describe();
                err(loc, format!("expected an identifier but found {found}"))
            }
        }
    }

    fn typedef_of(&self, name: &str) -> Option<&CType> {
        self.typedefs.iter().rev().find_map(|s| s.get(name))
    }

    fn enum_of(&self, name: &str) -> Option<i64> {
        self.enums.iter().rev().find_map(|s| s.get(name).copied())
    }

    /// Whether the next token starts a declaration / type name.
    fn starts_type(&self) -> bool {
        match self.peek().and_then(|t| t.ident()) {
            Some(w) => TYPE_WORDS.contains(&w) || self.typedef_of(w).is_some(),
            None => false,
        }
    }

    fn push_scope(&mut self) {
        self.typedefs.push(HashMap::new());
        self.enums.push(HashMap::new());
    }

    fn pop_scope(&mut self) {
        self.typedefs.pop();
        self.enums.pop();
    }

    /// The rest of a declarator `name` of type `ty`: a typedef is recorded
    /// (`None`), a variable gets its optional `= initializer`.
    fn declared(
        &mut self,
        typedef: bool,
        name: String,
        ty: TypeExpr,
        loc: Loc,
    ) -> DResult<Option<Decl>> {
        if typedef {
            let t = self.known(ty)?;
            if let Some(s) = self.typedefs.last_mut() {
                s.insert(name, t);
            }
            return Ok(None);
        }
        let init = if self.eat("=") {
            Some(self.initializer()?)
        } else {
            None
        };
        Ok(Some(Decl {
            name,
            ty,
            init,
            loc,
        }))
    }

    fn program(&mut self) -> DResult<Program> {
        let mut prog = Program::default();
        while self.peek().is_some() {
            if self.eat(";") {
                continue;
            }
            let specs = self.specs()?;
            if self.eat(";") {
                continue; // struct or enum declaration only
            }
            loop {
                let (name, ty, loc) = self.declarator(TypeExpr::Known(specs.ty.clone()), false)?;
                let Some((name, nloc)) = name else {
                    return err(loc, "expected a declarator name");
                };
                if let Some(params) = self.take_params()? {
                    let ret = self.known(ty)?;
                    if self.is("{") {
                        let params = params
                            .into_iter()
                            .map(|(n, t, l)| {
                                n.map(|n| (n, t.clone(), l)).ok_or_else(|| {
                                    crate::error::diag(l, "a parameter needs a name")
                                })
                            })
                            .collect::<DResult<Vec<_>>>()?;
                        self.push_scope();
                        let body = self.block()?;
                        self.pop_scope();
                        prog.functions.push(Function {
                            name,
                            ret,
                            params,
                            body,
                            loc: nloc,
                        });
                        break;
                    }
                    // A prototype.
                } else if let Some(decl) = self.declared(specs.typedef, name, ty, nloc)? {
                    prog.globals.push(decl);
                }
                if self.eat(",") {
                    continue;
                }
                self.expect(";")?;
                break;
            }
        }
        Ok(prog)
    }

    /// Parameters after a declarator name, if there is a `(`.
    #[allow(clippy::type_complexity)]
    fn take_params(&mut self) -> DResult<Option<Vec<(Option<String>, CType, Loc)>>> {
        if !self.is("(") {
            return Ok(None);
        }
        self.pos += 1;
        let mut ps = Vec::new();
        if self.is_word("void") && self.peek_at(1).is_some_and(|t| t.is(")")) {
            self.pos += 2;
            return Ok(Some(ps));
        }
        if self.eat(")") {
            return Ok(Some(ps));
        }
        loop {
            let loc = self.loc();
            if self.is("...") {
                return err(loc, "variadic functions are not supported");
            }
            let specs = self.specs()?;
            let (name, ty, _) = self.declarator(TypeExpr::Known(specs.ty), true)?;
            // Arrays decay to pointers.
            let ty = match ty {
                TypeExpr::Array(e, _) => TypeExpr::Pointer(e),
                t => t,
            };
            // Arrays (also through typedefs) decay to pointers.
            let t = match self.known(ty)? {
                CType::Array(e, _) => CType::Pointer(e),
                t => t,
            };
            ps.push((name.map(|n| n.0), t, loc));
            if self.eat(",") {
                continue;
            }
            self.expect(")")?;
            break;
        }
        Ok(Some(ps))
    }

    /// A type with constant sizes (struct members, parameters, typedefs, casts).
    fn known(&self, t: TypeExpr) -> DResult<CType> {
        Ok(match t {
            TypeExpr::Known(c) => c,
            TypeExpr::Pointer(e) => CType::Pointer(Box::new(self.known(*e)?)),
            TypeExpr::Array(e, n) => {
                let elem = self.known(*e)?;
                let Some(n) = n else {
                    return Ok(CType::Pointer(Box::new(elem)));
                };
                let l = n.loc;
                match const_eval(&n) {
                    Some(v) if (0..=1 << 30).contains(&v) => CType::Array(Box::new(elem), v as u32),
                    Some(_) => return err(l, "array size is negative or too large"),
                    None => return err(l, "array size is not a compile-time constant here"),
                }
            }
        })
    }

    fn skip_attribute(&mut self) -> DResult<()> {
        // __attribute__((...))
        self.expect("(")?;
        let mut depth = 1;
        while depth > 0 {
            let Some(t) = self.peek() else {
                return err(self.loc(), "unterminated __attribute__");
            };
            if t.is("(") {
                depth += 1;
            } else if t.is(")") {
                depth -= 1;
            }
            self.pos += 1;
        }
        Ok(())
    }

    fn specs(&mut self) -> DResult<Specs> {
        let loc = self.loc();
        let mut typedef = false;
        let mut is_static = false;
        let mut is_const = false;
        let mut signed: Option<bool> = None;
        let mut base: Option<&str> = None;
        let mut longs = 0;
        let mut ty: Option<CType> = None;
        while let Some(w) = self.peek().and_then(|t| t.ident()) {
            let wloc = self.loc();
            match w {
                "typedef" => typedef = true,
                "static" => is_static = true,
                "const" | "__const" => is_const = true,
                "volatile" | "extern" | "register" | "inline" | "auto" | "restrict"
                | "__restrict" | "__inline" | "__inline__" | "__extension__" | "_Noreturn" => {}
                "__attribute__" => {
                    self.pos += 1;
                    self.skip_attribute()?;
                    continue;
                }
                "signed" | "__signed__" => signed = Some(true),
                "unsigned" => signed = Some(false),
                "long" => longs += 1,
                "char" | "short" | "int" | "void" | "_Bool" => base = Some(w),
                "float" | "double" | "_Complex" => {
                    return err(wloc, format!("floating-point types ('{w}') are not supported; use integers (e.g. a soft-float in C ints)"))
                }
                "__int128" => return err(wloc, "__int128 is not supported"),
                "union" => return err(wloc, "unions are not supported"),
                "struct" => {
                    self.pos += 1;
                    ty = Some(self.struct_spec(wloc)?);
                    continue;
                }
                "enum" => {
                    self.pos += 1;
                    self.enum_spec()?;
                    ty = Some(CType::INT);
                    continue;
                }
                _ => {
                    if ty.is_none() && base.is_none() && signed.is_none() && longs == 0 {
                        if let Some(t) = self.typedef_of(w) {
                            ty = Some(t.clone());
                            self.pos += 1;
                            continue;
                        }
                    }
                    break;
                }
            }
            self.pos += 1;
        }
        let ty = match ty {
            Some(t) => t,
            None => {
                if base.is_none() && signed.is_none() && longs == 0 {
                    let found = self.describe();
                    return err(self.loc(), format!("expected a type but found {found}"));
                }
                let s = signed.unwrap_or(true);
                match (base, longs) {
                    (Some("void"), _) => CType::Void,
                    (Some("_Bool"), _) => CType::Bool,
                    (Some("char"), _) => CType::Int { bits: 8, signed: s },
                    (Some("short"), _) => CType::Int {
                        bits: 16,
                        signed: s,
                    },
                    (_, 0) => CType::Int {
                        bits: 32,
                        signed: s,
                    },
                    _ => CType::Int {
                        bits: 64,
                        signed: s,
                    },
                }
            }
        };
        Ok(Specs {
            ty,
            typedef,
            is_static,
            is_const,
            loc,
        })
    }

    fn struct_spec(&mut self, loc: Loc) -> DResult<CType> {
        let tag = match self.peek().and_then(|t| t.ident()) {
            Some(s) if !is_keyword(s) => {
                self.pos += 1;
                Some(s.to_string())
            }
            _ => None,
        };
        if !self.eat("{") {
            let Some(tag) = tag else {
                return err(loc, "expected a struct tag or '{'");
            };
            return match self.structs.get(&tag) {
                Some(s) => Ok(CType::Struct(s.clone())),
                None => err(loc, format!("unknown or incomplete struct '{tag}'")),
            };
        }
        let mut fields: Vec<(String, CType)> = Vec::new();
        while !self.eat("}") {
            if self.peek().is_none() {
                return err(loc, "unterminated struct");
            }
            let specs = self.specs()?;
            loop {
                let (name, ty, dloc) = self.declarator(TypeExpr::Known(specs.ty.clone()), false)?;
                if self.is(":") {
                    return err(self.loc(), "bit-fields are not supported");
                }
                let Some((name, nloc)) = name else {
                    return err(dloc, "struct member needs a name");
                };
                let t = self.known(ty)?;
                if fields.iter().any(|(n, _)| *n == name) {
                    return err(nloc, format!("duplicate member '{name}'"));
                }
                fields.push((name, t));
                if self.eat(",") {
                    continue;
                }
                self.expect(";")?;
                break;
            }
        }
        let def = Arc::new(StructDef {
            name: tag.clone(),
            fields,
        });
        if let Some(tag) = tag {
            self.structs.insert(tag, def.clone());
        }
        Ok(CType::Struct(def))
    }

    fn enum_spec(&mut self) -> DResult<()> {
        if let Some(s) = self.peek().and_then(|t| t.ident()) {
            if !is_keyword(s) {
                self.pos += 1;
            }
        }
        if !self.eat("{") {
            return Ok(());
        }
        let mut next = 0i64;
        while !self.eat("}") {
            let (name, _) = self.ident()?;
            if self.eat("=") {
                let e = self.cond_expr()?;
                match const_eval(&e) {
                    Some(v) => next = v as i64,
                    None => return err(e.loc, "enum value is not a constant"),
                }
            }
            if let Some(s) = self.enums.last_mut() {
                s.insert(name, next);
            }
            next += 1;
            if !self.eat(",") {
                self.expect("}")?;
                break;
            }
        }
        Ok(())
    }

    /// A declarator over `base`: returns the name (if any), the type and the
    /// position where it starts.
    #[allow(clippy::type_complexity)]
    fn declarator(
        &mut self,
        base: TypeExpr,
        allow_abstract: bool,
    ) -> DResult<(Option<(String, Loc)>, TypeExpr, Loc)> {
        let loc = self.loc();
        let mut ty = base;
        while self.eat("*") {
            ty = TypeExpr::Pointer(Box::new(ty));
            while matches!(
                self.peek().and_then(|t| t.ident()),
                Some("const" | "volatile" | "restrict" | "__restrict")
            ) {
                self.pos += 1;
            }
        }
        let name = if self.is("(") && !allow_abstract {
            if self.peek_at(1).is_some_and(|t| t.is("*")) {
                return err(self.loc(), "function pointers are not supported");
            }
            self.pos += 1;
            let n = self.ident()?;
            self.expect(")")?;
            Some(n)
        } else if self.is("(") && self.peek_at(1).is_some_and(|t| t.is("*")) {
            return err(self.loc(), "function pointers are not supported");
        } else {
            match self.peek().and_then(|t| t.ident()) {
                Some(s) if !is_keyword(s) => Some(self.ident()?),
                _ => {
                    if !allow_abstract && !self.is("[") {
                        let found = self.describe();
                        return err(
                            self.loc(),
                            format!("expected an identifier but found {found}"),
                        );
                    }
                    None
                }
            }
        };
        // Array suffixes: `a[2][3]` is an array of 2 arrays of 3.
        let mut dims = Vec::new();
        while self.eat("[") {
            if self.eat("]") {
                dims.push(None);
                continue;
            }
            while matches!(
                self.peek().and_then(|t| t.ident()),
                Some("const" | "static" | "restrict")
            ) {
                self.pos += 1;
            }
            let e = self.expr()?;
            self.expect("]")?;
            dims.push(Some(Box::new(e)));
        }
        for d in dims.into_iter().rev() {
            ty = TypeExpr::Array(Box::new(ty), d);
        }
        while self.is_word("__attribute__") {
            self.pos += 1;
            self.skip_attribute()?;
        }
        Ok((name, ty, loc))
    }

    fn type_name(&mut self) -> DResult<TypeExpr> {
        let specs = self.specs()?;
        let (name, ty, loc) = self.declarator(TypeExpr::Known(specs.ty), true)?;
        if name.is_some() {
            return err(loc, "unexpected name in a type");
        }
        Ok(ty)
    }

    fn initializer(&mut self) -> DResult<Init> {
        let loc = self.loc();
        if !self.eat("{") {
            return Ok(Init::Expr(self.assign_expr()?));
        }
        let mut items = Vec::new();
        while !self.eat("}") {
            let mut des = Vec::new();
            loop {
                if self.eat(".") {
                    let (n, l) = self.ident()?;
                    des.push(Designator::Field(n, l));
                } else if self.eat("[") {
                    let e = self.cond_expr()?;
                    self.expect("]")?;
                    des.push(Designator::Index(e));
                } else {
                    break;
                }
            }
            if !des.is_empty() {
                self.expect("=")?;
            }
            items.push((des, self.initializer()?));
            if !self.eat(",") {
                self.expect("}")?;
                break;
            }
        }
        Ok(Init::List(items, loc))
    }

    fn block(&mut self) -> DResult<Stmt> {
        let loc = self.expect("{")?;
        self.push_scope();
        let mut items = Vec::new();
        while !self.eat("}") {
            if self.peek().is_none() {
                return err(loc, "unterminated block: expected '}'");
            }
            items.push(self.stmt()?);
        }
        self.pop_scope();
        Ok(Stmt {
            kind: StmtKind::Block(items),
            loc,
        })
    }

    fn local_decl(&mut self) -> DResult<Stmt> {
        let loc = self.loc();
        let specs = self.specs()?;
        let mut decls = Vec::new();
        if self.eat(";") {
            return Ok(Stmt {
                kind: StmtKind::Empty,
                loc,
            });
        }
        if specs.is_static && !specs.is_const && !specs.typedef {
            return err(
                specs.loc,
                "non-const static local variables are not supported",
            );
        }
        loop {
            let (name, ty, dloc) = self.declarator(TypeExpr::Known(specs.ty.clone()), false)?;
            let Some((name, nloc)) = name else {
                return err(dloc, "expected a name");
            };
            if self.is("(") {
                return err(self.loc(), "local function declarations are not supported");
            }
            if let Some(decl) = self.declared(specs.typedef, name, ty, nloc)? {
                decls.push(decl);
            }
            if self.eat(",") {
                continue;
            }
            self.expect(";")?;
            break;
        }
        Ok(Stmt {
            kind: StmtKind::Decl(decls),
            loc,
        })
    }

    fn stmt(&mut self) -> DResult<Stmt> {
        let loc = self.loc();
        if self.is("{") {
            return self.block();
        }
        if self.eat(";") {
            return Ok(Stmt {
                kind: StmtKind::Empty,
                loc,
            });
        }
        if self.starts_type() {
            return self.local_decl();
        }
        let word = self.peek().and_then(|t| t.ident()).map(|s| s.to_string());
        let kind = match word.as_deref() {
            Some("if") => {
                self.pos += 1;
                self.expect("(")?;
                let c = self.expr()?;
                self.expect(")")?;
                let t = self.sub_stmt()?;
                let e = if self.is_word("else") {
                    self.pos += 1;
                    Some(Box::new(self.sub_stmt()?))
                } else {
                    None
                };
                StmtKind::If(c, Box::new(t), e)
            }
            Some("while") => {
                self.pos += 1;
                self.expect("(")?;
                let c = self.expr()?;
                self.expect(")")?;
                StmtKind::While(c, Box::new(self.sub_stmt()?))
            }
            Some("do") => {
                self.pos += 1;
                let body = self.sub_stmt()?;
                if !self.is_word("while") {
                    return err(self.loc(), "expected 'while' after do-body");
                }
                self.pos += 1;
                self.expect("(")?;
                let c = self.expr()?;
                self.expect(")")?;
                self.expect(";")?;
                StmtKind::DoWhile(Box::new(body), c)
            }
            Some("for") => {
                self.pos += 1;
                self.expect("(")?;
                self.push_scope();
                let init = if self.eat(";") {
                    None
                } else if self.starts_type() {
                    Some(Box::new(self.local_decl()?))
                } else {
                    let l = self.loc();
                    let e = self.expr()?;
                    self.expect(";")?;
                    Some(Box::new(Stmt {
                        kind: StmtKind::Expr(e),
                        loc: l,
                    }))
                };
                let cond = if self.is(";") {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect(";")?;
                let step = if self.is(")") {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect(")")?;
                let body = self.sub_stmt()?;
                self.pop_scope();
                StmtKind::For(init, cond, step, Box::new(body))
            }
            Some("switch") => {
                self.pos += 1;
                self.expect("(")?;
                let c = self.expr()?;
                self.expect(")")?;
                StmtKind::Switch(c, Box::new(self.sub_stmt()?))
            }
            Some("case") => {
                self.pos += 1;
                let k = self.cond_expr()?;
                if self.is("...") {
                    return err(self.loc(), "case ranges are not supported");
                }
                self.expect(":")?;
                StmtKind::Case(k, Box::new(self.label_body()?))
            }
            Some("default") => {
                self.pos += 1;
                self.expect(":")?;
                StmtKind::Default(Box::new(self.label_body()?))
            }
            Some("break") => {
                self.pos += 1;
                self.expect(";")?;
                StmtKind::Break
            }
            Some("continue") => {
                self.pos += 1;
                self.expect(";")?;
                StmtKind::Continue
            }
            Some("return") => {
                self.pos += 1;
                let e = if self.is(";") {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect(";")?;
                StmtKind::Return(e)
            }
            Some("goto") => return err(loc, "goto is not supported"),
            Some("asm") | Some("__asm__") => return err(loc, "inline assembly is not supported"),
            Some(w) if !is_keyword(w) && self.peek_at(1).is_some_and(|t| t.is(":")) => {
                return err(loc, "labels (and goto) are not supported");
            }
            _ => {
                let e = self.expr()?;
                self.expect(";")?;
                StmtKind::Expr(e)
            }
        };
        Ok(Stmt { kind, loc })
    }

    fn label_body(&mut self) -> DResult<Stmt> {
        if self.is("}") {
            return Ok(Stmt {
                kind: StmtKind::Empty,
                loc: self.loc(),
            });
        }
        self.stmt()
    }

    /// The body of `if`/`while`/...: a statement in its own scope.
    fn sub_stmt(&mut self) -> DResult<Stmt> {
        self.push_scope();
        let s = self.stmt();
        self.pop_scope();
        s
    }

    fn expr(&mut self) -> DResult<Expr> {
        let mut e = self.assign_expr()?;
        while self.is(",") {
            let loc = self.loc();
            self.pos += 1;
            let r = self.assign_expr()?;
            e = Expr {
                kind: ExprKind::Comma(Box::new(e), Box::new(r)),
                loc,
            };
        }
        Ok(e)
    }

    fn assign_expr(&mut self) -> DResult<Expr> {
        let lhs = self.cond_expr()?;
        let loc = self.loc();
        let op = match self.peek().map(|t| &t.tok) {
            Some(Tok::Punct(p)) => match *p {
                "=" => Some(None),
                "+=" => Some(Some(BinOp::Add)),
                "-=" => Some(Some(BinOp::Sub)),
                "*=" => Some(Some(BinOp::Mul)),
                "/=" => Some(Some(BinOp::Div)),
                "%=" => Some(Some(BinOp::Rem)),
                "<<=" => Some(Some(BinOp::Shl)),
                ">>=" => Some(Some(BinOp::Shr)),
                "&=" => Some(Some(BinOp::And)),
                "|=" => Some(Some(BinOp::Or)),
                "^=" => Some(Some(BinOp::Xor)),
                _ => None,
            },
            _ => None,
        };
        let Some(op) = op else { return Ok(lhs) };
        self.pos += 1;
        let rhs = self.assign_expr()?;
        Ok(Expr {
            kind: ExprKind::Assign(op, Box::new(lhs), Box::new(rhs)),
            loc,
        })
    }

    fn cond_expr(&mut self) -> DResult<Expr> {
        let c = self.binary(0)?;
        if !self.is("?") {
            return Ok(c);
        }
        let loc = self.loc();
        self.pos += 1;
        let a = self.expr()?;
        self.expect(":")?;
        let b = self.cond_expr()?;
        Ok(Expr {
            kind: ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
            loc,
        })
    }

    fn binary(&mut self, min_prec: u8) -> DResult<Expr> {
        let mut lhs = self.cast_expr()?;
        while let Some(Tok::Punct(op)) = self.peek().map(|t| &t.tok) {
            let Some(prec) = binary_precedence(op) else {
                break;
            };
            if prec < min_prec {
                break;
            }
            let op = *op;
            let loc = self.loc();
            self.pos += 1;
            let rhs = self.binary(prec + 1)?;
            let (l, r) = (Box::new(lhs), Box::new(rhs));
            let kind = match op {
                "&&" => ExprKind::LogAnd(l, r),
                "||" => ExprKind::LogOr(l, r),
                _ => ExprKind::Binary(
                    match op {
                        "*" => BinOp::Mul,
                        "/" => BinOp::Div,
                        "%" => BinOp::Rem,
                        "+" => BinOp::Add,
                        "-" => BinOp::Sub,
                        "<<" => BinOp::Shl,
                        ">>" => BinOp::Shr,
                        "<" => BinOp::Lt,
                        "<=" => BinOp::Le,
                        ">" => BinOp::Gt,
                        ">=" => BinOp::Ge,
                        "==" => BinOp::Eq,
                        "!=" => BinOp::Ne,
                        "&" => BinOp::And,
                        "^" => BinOp::Xor,
                        _ => BinOp::Or,
                    },
                    l,
                    r,
                ),
            };
            lhs = Expr { kind, loc };
        }
        Ok(lhs)
    }

    fn cast_expr(&mut self) -> DResult<Expr> {
        if self.is("(") {
            let save = self.pos;
            let loc = self.loc();
            self.pos += 1;
            if self.starts_type() {
                let t = self.type_name()?;
                self.expect(")")?;
                if self.is("{") {
                    return err(self.loc(), "compound literals are not supported");
                }
                let e = self.cast_expr()?;
                return Ok(Expr {
                    kind: ExprKind::Cast(t, Box::new(e)),
                    loc,
                });
            }
            self.pos = save;
        }
        self.unary()
    }

    fn unary(&mut self) -> DResult<Expr> {
        let loc = self.loc();
        let Some(t) = self.peek() else {
            return err(loc, "expected an expression but found end of file");
        };
        let op = match &t.tok {
            Tok::Punct("-") => Some(UnOp::Neg),
            Tok::Punct("+") => Some(UnOp::Plus),
            Tok::Punct("!") => Some(UnOp::Not),
            Tok::Punct("~") => Some(UnOp::BitNot),
            Tok::Punct("*") => Some(UnOp::Deref),
            Tok::Punct("&") => Some(UnOp::Addr),
            _ => None,
        };
        if let Some(op) = op {
            self.pos += 1;
            let e = self.cast_expr()?;
            return Ok(Expr {
                kind: ExprKind::Unary(op, Box::new(e)),
                loc,
            });
        }
        if t.is("++") || t.is("--") {
            let inc = t.is("++");
            self.pos += 1;
            let e = self.unary()?;
            return Ok(Expr {
                kind: ExprKind::IncDec {
                    pre: true,
                    inc,
                    e: Box::new(e),
                },
                loc,
            });
        }
        if t.ident() == Some("sizeof") {
            self.pos += 1;
            if self.is("(") {
                let save = self.pos;
                self.pos += 1;
                if self.starts_type() {
                    let ty = self.type_name()?;
                    self.expect(")")?;
                    return Ok(Expr {
                        kind: ExprKind::SizeofType(ty),
                        loc,
                    });
                }
                self.pos = save;
            }
            let e = self.unary()?;
            return Ok(Expr {
                kind: ExprKind::SizeofExpr(Box::new(e)),
                loc,
            });
        }
        self.postfix()
    }

    fn postfix(&mut self) -> DResult<Expr> {
        let mut e = self.primary()?;
        loop {
            let loc = self.loc();
            if self.eat("[") {
                let i = self.expr()?;
                self.expect("]")?;
                e = Expr {
                    kind: ExprKind::Index(Box::new(e), Box::new(i)),
                    loc,
                };
            } else if self.eat(".") {
                let (m, _) = self.ident()?;
                e = Expr {
                    kind: ExprKind::Member(Box::new(e), m),
                    loc,
                };
            } else if self.eat("->") {
                let (m, _) = self.ident()?;
                e = Expr {
                    kind: ExprKind::Arrow(Box::new(e), m),
                    loc,
                };
            } else if self.is("++") || self.is("--") {
                let inc = self.is("++");
                self.pos += 1;
                e = Expr {
                    kind: ExprKind::IncDec {
                        pre: false,
                        inc,
                        e: Box::new(e),
                    },
                    loc,
                };
            } else if self.is("(") {
                let ExprKind::Ident(name) = &e.kind else {
                    return err(loc, "only calls of named functions are supported");
                };
                let name = name.clone();
                self.pos += 1;
                let mut args = Vec::new();
                if !self.eat(")") {
                    loop {
                        args.push(self.assign_expr()?);
                        if self.eat(",") {
                            continue;
                        }
                        self.expect(")")?;
                        break;
                    }
                }
                e = Expr {
                    kind: ExprKind::Call(name, args),
                    loc: e.loc,
                };
            } else {
                break;
            }
        }
        Ok(e)
    }

    fn primary(&mut self) -> DResult<Expr> {
        let loc = self.loc();
        let Some(t) = self.peek() else {
            return err(loc, "expected an expression but found end of file");
        };
        let kind = match &t.tok {
            Tok::Int(v, u, l) => int_literal(*v, *u, *l),
            Tok::Char(c) => ExprKind::Int(*c as u64 & 0xffff_ffff, Scalar::INT),
            Tok::Float => return err(loc, "floating-point constants are not supported"),
            Tok::Str(_) => {
                self.pos += 1;
                while matches!(self.peek().map(|t| &t.tok), Some(Tok::Str(_))) {
                    self.pos += 1;
                }
                return Ok(Expr {
                    kind: ExprKind::Str,
                    loc,
                });
            }
            Tok::Ident(s) if !is_keyword(s) => match self.enum_of(s) {
                Some(v) => ExprKind::Int(v as u64 & 0xffff_ffff, Scalar::INT),
                None => ExprKind::Ident(s.clone()),
            },
            Tok::Punct("(") => {
                self.pos += 1;
                if self.is("{") {
                    return err(loc, "statement expressions are not supported");
                }
                let e = self.expr()?;
                self.expect(")")?;
                return Ok(e);
            }
            _ => {
                let found = self.describe();
                return err(loc, format!("expected an expression but found {found}"));
            }
        };
        self.pos += 1;
        Ok(Expr { kind, loc })
    }
}

/// The type of an integer constant (C11 6.4.4.1, LP64).
fn int_literal(v: u64, unsigned: bool, longs: u8) -> ExprKind {
    let decimal_fits_int = v <= i32::MAX as u64;
    let ty = if longs == 0 && !unsigned && decimal_fits_int {
        Scalar::INT
    } else if longs == 0 && v <= u32::MAX as u64 && (unsigned || v > i32::MAX as u64) {
        // Hex/octal constants may become unsigned int; decimal ones go to
        // long (same bits here, signedness differs only past INT_MAX).
        Scalar {
            width: 32,
            signed: false,
        }
    } else if !unsigned && v <= i64::MAX as u64 {
        Scalar {
            width: 64,
            signed: true,
        }
    } else {
        Scalar {
            width: 64,
            signed: false,
        }
    };
    ExprKind::Int(v, ty)
}

fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "if" | "else"
            | "while"
            | "do"
            | "for"
            | "switch"
            | "case"
            | "default"
            | "break"
            | "continue"
            | "return"
            | "goto"
            | "sizeof"
            | "typedef"
            | "struct"
            | "union"
            | "enum"
            | "void"
            | "char"
            | "short"
            | "int"
            | "long"
            | "signed"
            | "unsigned"
            | "_Bool"
            | "float"
            | "double"
            | "const"
            | "volatile"
            | "static"
            | "extern"
            | "register"
            | "inline"
            | "auto"
            | "restrict"
    )
}

/// Evaluates a constant expression (array sizes, enum values, case labels)
/// as a mathematical integer; `None` if it is not constant.
pub fn const_eval(e: &Expr) -> Option<i128> {
    Some(match &e.kind {
        ExprKind::Int(v, t) => t.to_i128(*v),
        ExprKind::Unary(UnOp::Neg, a) => -const_eval(a)?,
        ExprKind::Unary(UnOp::Plus, a) => const_eval(a)?,
        ExprKind::Unary(UnOp::Not, a) => (const_eval(a)? == 0) as i128,
        ExprKind::Unary(UnOp::BitNot, a) => !const_eval(a)?,
        ExprKind::Binary(op, a, b) => {
            let (x, y) = (const_eval(a)?, const_eval(b)?);
            match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x.checked_mul(y)?,
                BinOp::Div => x.checked_div(y)?,
                BinOp::Rem => x.checked_rem(y)?,
                BinOp::Shl => x.checked_shl(u32::try_from(y).ok()?)?,
                BinOp::Shr => x.checked_shr(u32::try_from(y).ok()?)?,
                BinOp::And => x & y,
                BinOp::Or => x | y,
                BinOp::Xor => x ^ y,
                BinOp::Lt => (x < y) as i128,
                BinOp::Le => (x <= y) as i128,
                BinOp::Gt => (x > y) as i128,
                BinOp::Ge => (x >= y) as i128,
                BinOp::Eq => (x == y) as i128,
                BinOp::Ne => (x != y) as i128,
            }
        }
        ExprKind::LogAnd(a, b) => (const_eval(a)? != 0 && const_eval(b)? != 0) as i128,
        ExprKind::LogOr(a, b) => (const_eval(a)? != 0 || const_eval(b)? != 0) as i128,
        ExprKind::Cond(c, a, b) => {
            if const_eval(c)? != 0 {
                const_eval(a)?
            } else {
                const_eval(b)?
            }
        }
        ExprKind::SizeofType(TypeExpr::Known(t)) => t.size() as i128,
        ExprKind::Cast(TypeExpr::Known(t), a) => {
            let v = const_eval(a)?;
            let s = t.scalar()?;
            if s.width == 1 {
                (v != 0) as i128
            } else {
                s.to_i128(v as u64)
            }
        }
        _ => return None,
    })
}
