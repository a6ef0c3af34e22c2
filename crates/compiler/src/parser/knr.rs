//! Old-style (K&R) function definitions, still valid C99 and C11:
//! `int f(a, b) int a; char *b; { ... }`. The names come in a list, their
//! types in declarations before the body; a name not declared is an
//! `int`.

use std::collections::HashMap;

use super::decl::Param;
use super::*;

impl Parser<'_> {
    /// Whether a list of names (not of declarations) follows the `(` of
    /// a function declarator.
    pub(super) fn names_ahead(&self) -> bool {
        let name = self.peek().and_then(|t| t.ident());
        name.is_some_and(|n| !is_keyword(n))
            && !self.starts_type()
            && self.peek_at(1).is_some_and(|t| t.is(",") || t.is(")"))
    }

    /// The parameters of an old-style definition: the names up to `)`,
    /// then the declarations of their types up to the body.
    pub(super) fn old_style_params(&mut self) -> DResult<Vec<Param>> {
        let mut names = Vec::new();
        loop {
            names.push(self.ident()?);
            if self.eat(",") {
                continue;
            }
            self.expect(")")?;
            break;
        }
        let mut types: HashMap<String, (TypeExpr, Loc)> = HashMap::new();
        while !self.is("{") && !self.is(";") {
            if !self.starts_type() {
                let found = self.describe();
                return err(
                    self.loc(),
                    format!("expected a parameter's declaration or the function's body but found {found}"),
                );
            }
            let specs = self.specs()?;
            loop {
                let (name, ty, loc, _) = self.declarator(specs.ty.clone(), false)?;
                self.refuse_function(loc)?;
                let Some((name, at)) = name else {
                    return err(loc, "expected a parameter's name");
                };
                if !names.iter().any(|(n, _)| *n == name) {
                    return err(at, format!("'{name}' is declared but is not a parameter"));
                }
                if types.insert(name.clone(), (ty, at)).is_some() {
                    return err(at, format!("parameter '{name}' is declared twice"));
                }
                if self.eat(",") {
                    continue;
                }
                self.expect(";")?;
                break;
            }
        }
        names
            .into_iter()
            .map(|(name, at)| {
                let int = (TypeExpr::Known(Scalar::INT.ctype()), at);
                let (ty, loc) = types.remove(&name).unwrap_or(int);
                Ok(self.param(Some(name), ty, loc)?.of_old_style())
            })
            .collect()
    }
}
