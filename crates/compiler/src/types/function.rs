//! Function types: what a function pointer points to.

use super::CType;

/// The type of a function: its return type and its parameters' types
/// (`None` for `int f()`, whose parameters are not declared).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FunctionType {
    /// The return type.
    pub ret: CType,
    /// The parameters' types (adjusted: arrays and functions to pointers).
    pub params: Option<Vec<CType>>,
}

impl FunctionType {
    /// The C spelling of the type with `inner` where a declarator's name
    /// would be: `int (*)(int, int)`.
    pub(super) fn spelling(&self, inner: &str) -> String {
        let params = match &self.params {
            None => String::new(),
            Some(ps) if ps.is_empty() => "void".into(),
            Some(ps) => ps.iter().map(CType::name).collect::<Vec<_>>().join(", "),
        };
        format!("{} {inner}({params})", self.ret.name())
    }
}
