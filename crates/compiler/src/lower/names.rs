//! The names a function's frame binds, in nested scopes.

use std::rc::Rc;

use rustc_hash::FxHashMap as HashMap;

use crate::types::CType;

/// What a name is bound to: its object and type.
pub(super) type Binding = (usize, CType);

/// A frame's names: each name's bindings, innermost last, with the depth
/// of the scope that made each, and per open scope the names it bound (so
/// that leaving it drops them). A name is found with one lookup however
/// deeply the scopes nest (a loop nest's body looked a name up in every
/// scope around it). A name keeps its entry once its bindings are gone,
/// so that binding it again (a declaration in an unrolled loop's body)
/// allocates nothing.
#[derive(Default)]
pub(super) struct Names {
    bound: HashMap<Rc<str>, Vec<(usize, Binding)>>,
    scopes: Vec<Vec<Rc<str>>>,
}

impl Names {
    /// Names with one scope open (a function's parameters and body).
    pub(super) fn with_scope() -> Names {
        Names {
            bound: HashMap::default(),
            scopes: vec![Vec::new()],
        }
    }

    /// Opens a scope.
    pub(super) fn push_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    /// Closes the innermost scope: the names it bound are unbound (those
    /// of outer scopes they hid are seen again).
    pub(super) fn pop_scope(&mut self) {
        for name in self.scopes.pop().unwrap_or_default() {
            if let Some(stack) = self.bound.get_mut(&name) {
                stack.pop();
            }
        }
    }

    /// Binds `name` in the innermost scope (again if it is bound there
    /// already: the new binding replaces it); nothing if no scope is open.
    pub(super) fn bind(&mut self, name: &str, binding: Binding) {
        let depth = self.scopes.len();
        let Some(scope) = self.scopes.last_mut() else {
            return;
        };
        let key = match self.bound.get_key_value(name) {
            Some((key, _)) => Rc::clone(key),
            None => Rc::from(name),
        };
        let stack = self.bound.entry(Rc::clone(&key)).or_default();
        match stack.last_mut() {
            Some((d, b)) if *d == depth => *b = binding,
            _ => {
                stack.push((depth, binding));
                scope.push(key);
            }
        }
    }

    /// What `name` is bound to in the innermost scope that binds it.
    pub(super) fn get(&self, name: &str) -> Option<&Binding> {
        self.bound.get(name)?.last().map(|(_, b)| b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inner_scopes_hide_outer_bindings_until_they_close() {
        let int = CType::Int {
            bits: 32,
            signed: true,
        };
        let mut names = Names::with_scope();
        names.bind("x", (1, int.clone()));
        names.push_scope();
        assert_eq!(names.get("x"), Some(&(1, int.clone())));
        names.bind("x", (2, int.clone()));
        names.bind("y", (3, CType::Bool));
        assert_eq!(names.get("x"), Some(&(2, int.clone())));
        // Bound again in the same scope: replaced, not stacked.
        names.bind("x", (4, int.clone()));
        names.pop_scope();
        assert_eq!(names.get("x"), Some(&(1, int.clone())));
        assert_eq!(names.get("y"), None);
        names.pop_scope();
        assert_eq!(names.get("x"), None);
        names.bind("z", (5, CType::Bool));
        assert_eq!(names.get("z"), None, "no scope open");
    }
}
