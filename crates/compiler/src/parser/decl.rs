//! Declarations: specifiers, declarators, struct and enum definitions,
//! initializers, local declarations and the top level of a translation unit.

use std::sync::Arc;

use super::attributes::Attributes;
use super::expr::const_eval;
use super::readonly::{readonly_part, Readonly};
use super::{is_keyword, Parser};
use crate::ast::*;
use crate::error::{err, DResult, Loc};
use crate::types::{bad_array_size, CType};

/// Declaration specifiers: the base type and storage facts.
pub(super) struct Specs {
    pub(super) ty: TypeExpr,
    typedef: bool,
    is_static: bool,
    /// `extern`: a declaration without an initializer names a global
    /// defined elsewhere.
    is_extern: bool,
    /// `const`: the declared object is read-only (unless the declarator
    /// makes it a pointer).
    is_const: bool,
    /// The alignment `_Alignas` asks (0: none).
    pub(super) align: u64,
    /// The attributes among the specifiers (those after a struct's
    /// members are the struct's).
    pub(super) attributes: Attributes,
    pub(super) loc: Loc,
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
    "typedef",
    "__attribute__",
    "__attribute",
    "_Noreturn",
    "__int128",
    "__int128_t",
    "__uint128_t",
    "_Complex",
    "typeof",
    "__typeof__",
    "__typeof",
    "__auto_type",
    "typeof_unqual",
    "__typeof_unqual__",
    "_Alignas",
    "alignas",
    "_Atomic",
    "_Thread_local",
    "thread_local",
    "__thread",
    "_BitInt",
];

impl Parser<'_> {
    /// Whether the next token starts a declaration / type name.
    pub(super) fn starts_type(&self) -> bool {
        match self.peek().and_then(|t| t.ident()) {
            Some(w) => TYPE_WORDS.contains(&w) || self.typedef_of(w).is_some(),
            None => false,
        }
    }

    /// The rest of a declarator `name` of type `ty` (with `attributes`
    /// after it): a typedef is recorded (`None`), a variable gets its
    /// optional `= initializer`. An `aligned` attribute of a variable
    /// changes nothing twofold computes; one of a typedef would make
    /// another type, which twofold cannot.
    fn declared(
        &mut self,
        specs: &Specs,
        (name, ty, attributes): (String, TypeExpr, Attributes),
        loc: Loc,
    ) -> DResult<Option<Decl>> {
        self.check_alignas(specs.align, specs.typedef, &ty, &name, loc)?;
        // A name is a type or an object in one scope, not both.
        let (types, objects) = (self.typedefs.last(), self.locals.last());
        let other = if specs.typedef {
            objects.is_some_and(|s| s.contains_key(&name))
        } else {
            types.is_some_and(|s| s.contains_key(&name))
        };
        if other {
            return err(
                loc,
                format!("'{name}' redeclared as a different kind of symbol"),
            );
        }
        if specs.typedef {
            if specs.attributes.with(attributes).aligned != 0 {
                return err(
                    loc,
                    format!("the attribute 'aligned' on the typedef '{name}' is not supported"),
                );
            }
            let t = self.known(ty)?;
            if let Some(s) = self.typedefs.last_mut() {
                s.insert(name, t);
            }
            return Ok(None);
        }
        self.note_readonly(&name, specs.is_const, &ty);
        let init = if self.eat("=") {
            Some(self.initializer()?)
        } else {
            None
        };
        Ok(Some(Decl {
            name,
            ty,
            is_extern: specs.is_extern && init.is_none(),
            init,
            loc,
        }))
    }

    pub(super) fn program(&mut self) -> DResult<Program> {
        let mut prog = Program::default();
        while self.peek().is_some() {
            if self.eat(";") || self.static_assertion(false)?.is_some() {
                continue;
            }
            let specs = self.specs()?;
            if self.eat(";") {
                continue; // struct or enum declaration only
            }
            loop {
                let (name, ty, loc, attributes) = self.declarator(specs.ty.clone(), false)?;
                let Some((name, nloc)) = name else {
                    return err(loc, "expected a declarator name");
                };
                let params = self.take_params()?;
                if let (Some(params), true) = (&params, specs.typedef) {
                    let ty = self.function_of(ty, params.clone())?;
                    self.declared(&specs, (name, ty, attributes), nloc)?;
                } else if let Some(params) = params {
                    let ret = self.known(ty)?;
                    super::declarator::returnable(&ret, nloc)?;
                    let types = params.iter().map(|p| p.ty.clone()).collect();
                    // (An old-style definition's types are checked as any
                    // type: they agree with a prototype's promoted ones.)
                    let variable = params.iter().any(|p| p.variable.is_some() || p.old_style);
                    self.declare_function(&name, (&ret, types, variable), nloc)?;
                    if self.is("{") {
                        let declared_arrays = params.iter().map(|p| p.declared.clone()).collect();
                        let variable_params = params.iter().map(|p| p.variable.clone()).collect();
                        let readonly: Vec<(String, Readonly)> = (params.iter())
                            .filter_map(|p| Some((p.name.clone()?, p.readonly?)))
                            .collect();
                        let params = params
                            .into_iter()
                            .map(|p| {
                                p.name.map(|n| (n, p.ty, p.loc)).ok_or_else(|| {
                                    crate::error::diag(p.loc, "a parameter needs a name")
                                })
                            })
                            .collect::<DResult<Vec<_>>>()?;
                        for (k, (name, _, at)) in params.iter().enumerate() {
                            if params[..k].iter().any(|p| p.0 == *name) {
                                return err(*at, format!("redefinition of parameter '{name}'"));
                            }
                        }
                        let typed =
                            std::iter::once((&ret, nloc)).chain(params.iter().map(|p| (&p.1, p.2)));
                        for (t, at) in typed {
                            if let Some(t) = t.incomplete() {
                                return err(
                                    at,
                                    format!("'{t}' is an incomplete type here (not defined)"),
                                );
                            }
                        }
                        self.push_scope();
                        params.iter().for_each(|p| self.declare_local(&p.0));
                        (readonly.iter()).for_each(|(n, what)| self.note_readonly_part(n, *what));
                        self.function = name.clone();
                        self.labels.clear();
                        let mut body = self.block()?;
                        if let Some((name, at)) = redeclared_parameter(&body, &params) {
                            return err(at, format!("redeclaration of parameter '{name}'"));
                        }
                        let typed: Vec<(String, CType)> =
                            params.iter().map(|p| (p.0.clone(), p.1.clone())).collect();
                        crate::loops::rewrite::rewrite_loops(&mut body, &typed);
                        self.function.clear();
                        self.pop_scope();
                        prog.globals.append(&mut self.hoisted);
                        prog.functions.push(Function {
                            name,
                            ret,
                            params,
                            declared_arrays,
                            variable_params,
                            library: false,
                            body,
                            loc: nloc,
                        });
                        break;
                    }
                    // A prototype.
                } else if let Some(decl) = self.declared(&specs, (name, ty, attributes), nloc)? {
                    if let Some(init) = &decl.init {
                        self.refuse_non_constant(init, &prog.globals)?;
                    }
                    prog.globals.push(decl);
                }
                if self.eat(",") {
                    continue;
                }
                self.expect(";")?;
                break;
            }
        }
        prog.structs = std::mem::take(&mut self.definitions);
        Ok(prog)
    }

    /// Parameters after a declarator name, if there is a `(`, and the
    /// attributes after them (`int f(int) __attribute__((const));`: none
    /// changes what twofold computes of a function).
    fn take_params(&mut self) -> DResult<Option<Vec<Param>>> {
        // (Those a declarator in parentheses read after the name.)
        if let Some(params) = self.name_params.take() {
            return Ok(Some(params));
        }
        let params = self.param_list()?;
        if params.is_some() {
            self.attributes()?;
        }
        Ok(params)
    }

    /// Parameters after a declarator name, if there is a `(`.
    pub(super) fn param_list(&mut self) -> DResult<Option<Vec<Param>>> {
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
        // An old-style (K&R) definition's list of names.
        if self.names_ahead() {
            return self.old_style_params().map(Some);
        }
        loop {
            let loc = self.loc();
            if self.is("...") {
                return err(loc, "variadic functions are not supported");
            }
            let specs = self.specs()?;
            let (name, mut ty, _, _) = self.declarator(specs.ty, true)?;
            // (An array parameter is a pointer: `const int a[]` points to
            // read-only values; one of more dimensions is not checked.)
            let readonly = match readonly_part(specs.is_const, &ty) {
                Some(Readonly::Object(1)) => Some(Readonly::Pointee),
                what => what.filter(|w| matches!(w, Readonly::Object(0) | Readonly::Pointee)),
            };
            // A parameter of function type (`int cmp(int, int)`).
            let params = match self.name_params.take() {
                Some(params) => Some(params),
                None => self.param_list()?,
            };
            if let Some(params) = params {
                ty = self.function_of(ty, params)?;
            }
            let param = self.param(name.map(|n| n.0), ty, loc)?;
            ps.push(Param { readonly, ..param });
            if self.eat(",") {
                continue;
            }
            self.expect(")")?;
            break;
        }
        Ok(Some(ps))
    }

    /// Parameter `name` declared of type `ty` (at `loc`), adjusted as C
    /// adjusts parameters: arrays (also through typedefs) to pointers.
    pub(super) fn param(&self, name: Option<String>, ty: TypeExpr, loc: Loc) -> DResult<Param> {
        // An array of constant size, as declared (a size that is no
        // constant is only checked where it matters, in `known`; one that
        // is negative or too large is refused, as gcc refuses `a[-1]`).
        let declared = match &ty {
            TypeExpr::Array(_, Some(n)) => {
                constant_size(n)?;
                self.known(ty.clone()).ok()
            }
            _ => None,
        };
        let ty = match ty {
            TypeExpr::Array(e, _) => TypeExpr::Pointer(e),
            t => t,
        };
        // A size known only from earlier parameters (`int a[n][n]`): the
        // type is made at each call (a pointer until then).
        if variable_size(&ty) {
            return Ok(Param {
                name,
                ty: CType::Pointer(Arc::new(CType::Void)),
                declared: None,
                variable: Some(ty),
                readonly: None,
                old_style: false,
                loc,
            });
        }
        let (ty, declared) = match self.known(ty)? {
            CType::Array(e, n) => (CType::Pointer(e.clone()), Some(CType::Array(e, n))),
            // A function parameter is a pointer to the function.
            f @ CType::Function(_) => (CType::Pointer(Arc::new(f)), None),
            t => (t, declared),
        };
        Ok(Param {
            name,
            ty,
            declared,
            variable: None,
            readonly: None,
            old_style: false,
            loc,
        })
    }

    /// A type with constant sizes (struct members, parameters, typedefs, casts).
    pub(super) fn known(&self, t: TypeExpr) -> DResult<CType> {
        Ok(match t {
            TypeExpr::Known(c) => c,
            TypeExpr::Pointer(e) => CType::Pointer(Arc::new(self.known(*e)?)),
            TypeExpr::Array(e, n) => {
                let elem = self.known(*e)?;
                let Some(n) = n else {
                    return Ok(CType::Pointer(Arc::new(elem)));
                };
                match constant_size(&n)? {
                    Some(v) => CType::Array(Arc::new(elem), v),
                    None => return err(n.loc, "array size is not a compile-time constant here"),
                }
            }
            TypeExpr::Typeof(e) => return Self::typeof_here(&e),
        })
    }

    pub(super) fn specs(&mut self) -> DResult<Specs> {
        let loc = self.loc();
        let mut typedef = false;
        let mut is_static = false;
        let mut is_extern = false;
        let mut is_const = false;
        // A qualifier or storage class other than those above.
        let mut qualified = false;
        let mut align = 0;
        // Where `restrict` qualified the type itself (only a pointer may
        // be).
        let mut restrict = None;
        let mut signed: Option<bool> = None;
        let mut base: Option<&str> = None;
        let mut longs = 0;
        let mut ty: Option<TypeExpr> = None;
        let mut attributes = Attributes::default();
        loop {
            if self.at_attribute() {
                attributes = attributes.with(self.attributes()?);
                continue;
            }
            let Some(w) = self.peek().and_then(|t| t.ident()) else {
                break;
            };
            let wloc = self.loc();
            match w {
                "typedef" => typedef = true,
                "static" => is_static = true,
                "extern" => is_extern = true,
                "const" => (is_const, qualified) = (true, true),
                "volatile" | "register" | "inline" | "auto" | "_Noreturn" => qualified = true,
                "restrict" => (restrict, qualified) = (Some(wloc), true),
                "signed" | "unsigned" => {
                    signed = match signed {
                        None => Some(w == "signed"),
                        Some(s) if s == (w == "signed") => return err(wloc, format!("duplicate '{w}'")),
                        Some(_) => {
                            return err(
                                wloc,
                                "both 'signed' and 'unsigned' in declaration specifiers",
                            )
                        }
                    }
                }
                "long" => longs += 1,
                "char" | "short" | "int" | "void" | "_Bool" | "float" | "double" => {
                    // `int` goes with `short` (and `long`, counted apart)
                    // in any order: `short int` is `short`.
                    base = Some(match (base, w) {
                        (None, w) => w,
                        (Some("short"), "int") | (Some("int"), "short") => "short",
                        _ => return err(wloc, "invalid combination of type specifiers"),
                    });
                }
                "_Complex" => return err(wloc, "complex types ('_Complex') are not supported"),
                "_Atomic" => return err(wloc, "atomic types ('_Atomic') are not supported"),
                "_Thread_local" | "thread_local" | "__thread" => {
                    return err(wloc, format!("thread-local storage ('{w}') is not supported"))
                }
                "_BitInt" => {
                    return err(
                        wloc,
                        "bit-precise integers ('_BitInt') are not supported (use the types of <stdint.h>)",
                    )
                }
                "__int128" | "__int128_t" | "__uint128_t" => {
                    if w == "__uint128_t" {
                        signed = Some(false);
                    }
                    base = Some(match base {
                        None => "__int128",
                        _ => return err(wloc, "invalid combination of type specifiers"),
                    });
                }
                "struct" | "union" => {
                    self.pos += 1;
                    let record = self.nested(|p| p.record_spec(wloc, w == "union"))?;
                    ty = Some(TypeExpr::Known(record));
                    continue;
                }
                "enum" => {
                    self.pos += 1;
                    ty = Some(TypeExpr::Known(self.enum_spec(wloc)?));
                    continue;
                }
                "_Alignas" | "alignas" => {
                    self.pos += 1;
                    align = self.alignas_spec()?.max(align);
                    continue;
                }
                "__auto_type" => {
                    self.pos += 1;
                    ty = Some(self.auto_type()?);
                    continue;
                }
                "typeof" | "__typeof__" | "__typeof" | "typeof_unqual" | "__typeof_unqual__" => {
                    self.pos += 1;
                    ty = Some(self.nested(Self::typeof_spec)?);
                    continue;
                }
                _ => {
                    if ty.is_none() && base.is_none() && signed.is_none() && longs == 0 {
                        if let Some(t) = self.typedef_of(w) {
                            ty = Some(TypeExpr::Known(t.clone()));
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
                // K&R's implicit `int` (which gcc takes): after a storage
                // class or qualifier (`static x;`), or for a function
                // declared at file scope without a type (`f(x) { ... }`).
                let specified = typedef || is_static || is_extern || qualified;
                let function = self.function.is_empty()
                    && self
                        .peek()
                        .and_then(|t| t.ident())
                        .is_some_and(|w| !is_keyword(w))
                    && self.peek_at(1).is_some_and(|t| t.is("("));
                if base.is_none() && signed.is_none() && longs == 0 && !specified && !function {
                    let name = self
                        .peek()
                        .and_then(|t| t.ident())
                        .filter(|w| !is_keyword(w));
                    return err(
                        self.loc(),
                        match name {
                            Some(w) => super::stmt::unknown_type(w),
                            None => format!("expected a type but found {}", self.describe()),
                        },
                    );
                }
                let s = signed.unwrap_or(true);
                let floating = matches!(base, Some("float" | "double"));
                let plain = matches!(base, Some("void" | "_Bool"));
                let short = matches!(base, Some("char" | "short" | "__int128"));
                if floating && (signed.is_some() || longs > usize::from(base == Some("double")))
                    || (plain && (signed.is_some() || longs > 0))
                    || (short && longs > 0)
                    || longs > 2
                {
                    return err(loc, "invalid combination of type specifiers");
                }
                TypeExpr::Known(match (base, longs) {
                    (Some("double"), 1) => {
                        return err(loc, "'long double' is not supported (use double)")
                    }
                    (Some("float"), _) => CType::Float { bits: 32 },
                    (Some("double"), _) => CType::Float { bits: 64 },
                    (Some("void"), _) => CType::Void,
                    (Some("_Bool"), _) => CType::Bool,
                    (Some("char"), _) => CType::Int { bits: 8, signed: s },
                    (Some("__int128"), _) => CType::Int {
                        bits: 128,
                        signed: s,
                    },
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
                })
            }
        };
        if let Some(at) = restrict {
            if !matches!(ty, TypeExpr::Known(CType::Pointer(_))) {
                return err(at, "invalid use of 'restrict' (only a pointer type may be)");
            }
        }
        Ok(Specs {
            ty,
            typedef,
            is_static,
            is_extern,
            is_const,
            align,
            attributes,
            loc,
        })
    }

    /// The tag after `struct`, `union` or `enum`, if there is one.
    pub(super) fn tag(&mut self) -> Option<String> {
        let tag = self
            .peek()
            .and_then(|t| t.ident())
            .filter(|s| !is_keyword(s))?;
        self.pos += 1;
        Some(tag.to_string())
    }

    /// A local declaration statement (one or more declarators).
    pub(super) fn local_decl(&mut self) -> DResult<Stmt> {
        let loc = self.loc();
        let specs = self.specs()?;
        let mut decls = Vec::new();
        if self.eat(";") {
            return Ok(Stmt {
                kind: StmtKind::Empty,
                loc,
            });
        }
        loop {
            let (name, ty, dloc, attributes) = self.declarator(specs.ty.clone(), false)?;
            let Some((name, nloc)) = name else {
                return err(dloc, "expected a name");
            };
            if !specs.typedef {
                self.refuse_redeclaration(&name, specs.is_extern, nloc)?;
            }
            // A function's declaration (`int g(int);`) declares the
            // file's function, as one at file scope does: nothing here.
            let declared = match self.take_params()? {
                Some(params) if specs.typedef => {
                    let ty = self.function_of(ty, params)?;
                    self.declared(&specs, (name, ty, attributes), nloc)?
                }
                Some(_) if specs.is_static => {
                    return err(nloc, format!("invalid storage class for function '{name}'"))
                }
                Some(_) => None,
                None => self.declared(&specs, (name, ty, attributes), nloc)?,
            };
            match declared {
                Some(decl) if specs.is_extern && decl.init.is_some() => {
                    let name = &decl.name;
                    return err(
                        nloc,
                        format!("'{name}' has both 'extern' and an initializer"),
                    );
                }
                Some(decl) if specs.is_static => self.hoist_static(decl)?,
                // The global itself, declared at file scope too (it may be
                // defined below).
                Some(decl) if specs.is_extern && decl.init.is_none() => {
                    if let Some(scope) = self.locals.last_mut() {
                        scope.insert(decl.name.clone(), Some(file_scope_alias(&decl.name)));
                    }
                    self.hoisted.push(decl);
                }
                Some(decl) => {
                    self.declare_local(&decl.name);
                    decls.push(decl);
                }
                None => {}
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

    pub(super) fn type_name(&mut self) -> DResult<TypeExpr> {
        let specs = self.specs()?;
        let (name, ty, loc, _) = self.declarator(specs.ty, true)?;
        if name.is_some() {
            return err(loc, "unexpected name in a type");
        }
        Ok(ty)
    }

    pub(super) fn initializer(&mut self) -> DResult<Init> {
        self.nested(Self::initializer_level)
    }

    fn initializer_level(&mut self) -> DResult<Init> {
        let loc = self.loc();
        if !self.eat("{") {
            return Ok(Init::Expr(self.assign_expr()?));
        }
        let mut items = Vec::new();
        while !self.eat("}") {
            let mut des = Vec::new();
            let mut ranges = Vec::new();
            loop {
                if self.eat(".") {
                    let (n, l) = self.ident()?;
                    des.push(Designator::Field(n, l));
                } else if self.eat("[") {
                    let e = self.cond_expr()?;
                    ranges.extend(self.range_end(&e, des.len())?);
                    self.expect("]")?;
                    des.push(Designator::Index(e));
                } else {
                    break;
                }
            }
            if !des.is_empty() {
                self.expect("=")?;
            }
            let init = self.initializer()?;
            items.extend(super::ranges::expand(des, &ranges, init)?);
            if !self.eat(",") {
                self.expect("}")?;
                break;
            }
        }
        Ok(Init::List(items, loc))
    }
}

/// A parameter as [`Parser::take_params`] reads it.
#[derive(Clone)]
pub(super) struct Param {
    /// Its name (none in a prototype without one).
    name: Option<String>,
    /// Its type, arrays (and functions) adjusted to pointers.
    pub(super) ty: CType,
    /// The array type it was declared with, if an array of constant size.
    declared: Option<CType>,
    /// Its type, if a size in it is not constant (see
    /// [`Function::variable_params`]).
    variable: Option<TypeExpr>,
    /// What of it was declared `const`: a scalar or a struct, or what a
    /// pointer points to.
    readonly: Option<Readonly>,
    /// Whether it is a parameter of an old-style definition (`f(v) short
    /// v; {...}`), whose type agrees with a prototype's promoted one.
    old_style: bool,
    /// Where it starts.
    loc: Loc,
}

impl Param {
    /// The parameter as one of an old-style definition's.
    pub(super) fn of_old_style(self) -> Param {
        Param {
            old_style: true,
            ..self
        }
    }
}

/// The size `n` of an array if it is a constant; an error if that is
/// negative or more than 2^30.
fn constant_size(n: &Expr) -> DResult<Option<u32>> {
    match const_eval(n) {
        None => Ok(None),
        Some(v) => match bad_array_size(v, 1 << 30) {
            Some(why) => err(n.loc, why),
            None => Ok(Some(v as u32)),
        },
    }
}

/// Whether a size in the (adjusted) parameter type `t` is not a constant
/// (`int a[n][m]` is a pointer to `int[m]`, `m` a parameter).
fn variable_size(t: &TypeExpr) -> bool {
    match t {
        TypeExpr::Pointer(e) => variable_size(e),
        TypeExpr::Array(e, n) => {
            n.as_ref().is_some_and(|n| const_eval(n).is_none()) || variable_size(e)
        }
        TypeExpr::Known(_) | TypeExpr::Typeof(_) => false,
    }
}

/// A declaration in a function's outermost block of one of its parameters
/// `params` (the two share a scope in C), if there is one: its name and
/// where it is.
fn redeclared_parameter(body: &Stmt, params: &[(String, CType, Loc)]) -> Option<(String, Loc)> {
    let StmtKind::Block(items) = &body.kind else {
        return None;
    };
    let mut declared = items.iter().flat_map(|s| match &s.kind {
        StmtKind::Decl(ds) => ds.as_slice(),
        _ => &[],
    });
    declared
        .find(|d| !d.is_extern && params.iter().any(|p| p.0 == d.name))
        .map(|d| (d.name.clone(), d.loc))
}
