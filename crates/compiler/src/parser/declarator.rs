//! Declarators: the `*`, `[N]`, `(parameters)` and parentheses around a
//! name that derive its type from the declaration's specifiers, as C
//! nests them: `int (*ops[2])(int, int)` is an array of 2 pointers to
//! functions, `int (*pick(int k))(int)` a function returning a pointer to
//! a function.

use std::sync::Arc;

use super::attributes::Attributes;
use super::decl::Param;
use super::{is_keyword, Parser};
use crate::ast::*;
use crate::error::{err, DResult, Loc};
use crate::types::{CType, FunctionType};

/// One step from a type to the type a declarator derives from it.
enum Derivation {
    /// A pointer to it.
    Pointer,
    /// An array of it (`None`: its size comes from the initializer).
    Array(Option<Box<Expr>>),
    /// A function returning it, with these parameters (`None` for `()`).
    Function(Option<Vec<Param>>),
}

impl Parser<'_> {
    /// A declarator over `base`: returns the name (if any), the type, the
    /// position where it starts and the attributes after it. The
    /// parameters right after the name, which make it a function, are
    /// left to [`Parser::take_params`] (the type returned is then what
    /// the function returns).
    #[allow(clippy::type_complexity)]
    pub(super) fn declarator(
        &mut self,
        base: TypeExpr,
        allow_abstract: bool,
    ) -> DResult<(Option<(String, Loc)>, TypeExpr, Loc, Attributes)> {
        let loc = self.loc();
        let depth = self.depth;
        let (name, derivations) = self.derivations(allow_abstract, false)?;
        let ty = self.derive(base, derivations)?;
        let attributes = self.attributes()?;
        self.depth = depth;
        Ok((name, ty, loc, attributes))
    }

    /// The name and the derivations of a declarator (of one inside
    /// parentheses if `nested`), in the order they apply to the base type:
    /// the pointers before the name, the suffixes after it (last first),
    /// then those of a declarator in parentheses.
    #[allow(clippy::type_complexity)]
    fn derivations(
        &mut self,
        allow_abstract: bool,
        nested: bool,
    ) -> DResult<(Option<(String, Loc)>, Vec<Derivation>)> {
        let mut derived = Vec::new();
        // Each `*`, `[N]` and `(...)` nests the type one level deeper.
        while self.eat("*") {
            self.deeper(1)?;
            derived.push(Derivation::Pointer);
            self.skip_qualifiers();
        }
        let mut inner = Vec::new();
        let name = if self.is("(") && self.peek_at(1).is_some_and(|t| t.is("*")) {
            // `(*p)[4]`, `(*f)(int)`: a pointer to what the suffixes after
            // the parentheses make of the type before them.
            self.pos += 1;
            let (name, within) = self.derivations(allow_abstract, true)?;
            self.expect(")")?;
            inner = within;
            name
        } else if self.is("(") && !allow_abstract {
            self.pos += 1;
            let n = self.ident()?;
            self.expect(")")?;
            Some(n)
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
        // A name in parentheses followed by parameters is a function
        // (`(*pick(int k))(int)`): they are its own.
        if nested && name.is_some() && inner.is_empty() && self.is("(") {
            self.name_params = self.param_list()?;
        }
        // Suffixes: `a[2][3]` is an array of 2 arrays of 3; parameters
        // after a declarator in parentheses make a function type.
        let mut suffixes = Vec::new();
        loop {
            if self.eat("[") {
                self.deeper(1)?;
                if self.eat("]") {
                    suffixes.push(Derivation::Array(None));
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
                suffixes.push(Derivation::Array(Some(Box::new(e))));
            } else if self.is("(") && (nested || !inner.is_empty()) {
                self.deeper(1)?;
                let unspecified = self.peek_at(1).is_some_and(|t| t.is(")"));
                // (The name's own parameters wait for the caller meanwhile.)
                let own = self.name_params.take();
                let params = self.param_list()?;
                self.name_params = own;
                suffixes.push(Derivation::Function(params.filter(|_| !unspecified)));
            } else {
                break;
            }
        }
        derived.extend(suffixes.into_iter().rev());
        derived.append(&mut inner);
        Ok((name, derived))
    }

    /// `base` with `derivations` applied in order.
    fn derive(&self, base: TypeExpr, derivations: Vec<Derivation>) -> DResult<TypeExpr> {
        let mut ty = base;
        for d in derivations {
            ty = match d {
                Derivation::Pointer => TypeExpr::Pointer(Box::new(ty)),
                Derivation::Array(n) => {
                    match &ty {
                        TypeExpr::Known(CType::Void) => {
                            return err(self.loc(), "declaration of an array of voids")
                        }
                        TypeExpr::Known(CType::Function(_)) => {
                            return err(self.loc(), "declaration of an array of functions")
                        }
                        _ => {}
                    }
                    TypeExpr::Array(Box::new(ty), n)
                }
                Derivation::Function(params) => {
                    let ret = self.known(ty)?;
                    returnable(&ret, self.loc())?;
                    let params = params.map(|ps| ps.into_iter().map(|p| p.ty).collect());
                    TypeExpr::Known(CType::Function(Arc::new(FunctionType { ret, params })))
                }
            };
        }
        Ok(ty)
    }

    /// The type of a function returning `ret` with `params` (a typedef's
    /// type: `typedef int binop(int, int);`).
    pub(super) fn function_of(&self, ret: TypeExpr, params: Vec<Param>) -> DResult<TypeExpr> {
        self.derive(ret, vec![Derivation::Function(Some(params))])
    }

    /// Fails if the declarator just read declared a function by a name in
    /// parentheses (`int (*f(int))(int)`) where no function may be
    /// declared (a struct member, an old-style parameter).
    pub(super) fn refuse_function(&mut self, loc: Loc) -> DResult<()> {
        match self.name_params.take() {
            Some(_) => err(loc, "a function cannot be declared here"),
            None => Ok(()),
        }
    }

    /// Skips the qualifiers after a `*` (`const`, `volatile`, `restrict`).
    pub(super) fn skip_qualifiers(&mut self) {
        while matches!(
            self.peek().and_then(|t| t.ident()),
            Some("const" | "volatile" | "restrict")
        ) {
            self.pos += 1;
        }
    }
}

/// Fails if `ret` is a type no function may return (an array, a function).
pub(super) fn returnable(ret: &CType, loc: Loc) -> DResult<()> {
    match ret {
        CType::Array(..) => err(loc, "a function cannot return an array"),
        CType::Function(_) => err(loc, "a function cannot return a function"),
        _ => Ok(()),
    }
}
