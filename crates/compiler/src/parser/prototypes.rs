//! Declarations of one function at file scope must agree (C11 6.7p4):
//! a prototype `unsigned char f(int);` and a definition `int f(int)` are
//! conflicting types, which gcc refuses; without the check the definition's
//! type was silently used for every call.

use super::Parser;
use crate::error::{err, DResult, Loc};
use crate::types::CType;

/// A function's type as a declaration gave it: what it returns, its
/// parameters' types (none in `f()`, whose parameters are not given, and in
/// `f(void)`: both agree with any list), whether one of them has a size
/// only known at a call (it agrees with any type), and where it was.
pub(super) struct Declared {
    ret: CType,
    params: Vec<CType>,
    variable: bool,
    loc: Loc,
}

impl Parser<'_> {
    /// Notes the declaration (or definition) at `loc` of function `name`,
    /// returning `ret` and taking `params` (`variable`: one of them has a
    /// size known only at a call); an error if an earlier one at file
    /// scope gave it another type.
    pub(super) fn declare_function(
        &mut self,
        name: &str,
        (ret, params, variable): (&CType, Vec<CType>, bool),
        loc: Loc,
    ) -> DResult<()> {
        let new = Declared {
            ret: ret.clone(),
            params,
            variable,
            loc,
        };
        let Some(old) = self.functions_declared.get(name) else {
            self.functions_declared.insert(name.to_string(), new);
            return Ok(());
        };
        let listed = !old.params.is_empty() && !new.params.is_empty();
        let same_params = || (old.params.iter().zip(&new.params)).all(|(a, b)| agree(a, b));
        let differ = !agree(&old.ret, &new.ret)
            || (listed && old.params.len() != new.params.len())
            || (listed && !old.variable && !new.variable && !same_params());
        if differ {
            return err(
                loc,
                format!(
                    "conflicting types for '{name}' ({} here, {} at line {})",
                    signature(name, &new),
                    signature(name, old),
                    old.loc.line
                ),
            );
        }
        if old.params.is_empty() && !new.params.is_empty() {
            self.functions_declared.insert(name.to_string(), new);
        }
        Ok(())
    }
}

/// `ret name(params)`, as C names the types.
fn signature(name: &str, d: &Declared) -> String {
    let params: Vec<String> = d.params.iter().map(CType::name).collect();
    format!("{} {name}({})", d.ret.name(), params.join(", "))
}

/// Whether two declarations' types agree: the same, a struct or union
/// declared incomplete in one and defined in the other counting as one.
fn agree(a: &CType, b: &CType) -> bool {
    match (a, b) {
        (CType::Struct(x), CType::Struct(y)) => x.id == y.id && x.union == y.union,
        (CType::Pointer(x), CType::Pointer(y)) => agree(x, y),
        (CType::Array(x, n), CType::Array(y, m)) => n == m && agree(x, y),
        (CType::Function(f), CType::Function(g)) => {
            let params = match (&f.params, &g.params) {
                (Some(p), Some(q)) => {
                    p.len() == q.len() && p.iter().zip(q).all(|(a, b)| agree(a, b))
                }
                _ => true,
            };
            agree(&f.ret, &g.ret) && params
        }
        _ => a == b,
    }
}
