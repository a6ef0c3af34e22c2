//! File-scope objects: every declaration of a name at file scope (an
//! `extern` one, a tentative `int g;`, the definition; an `extern` in a
//! block, which the parser hoists here) denotes one object (C11 6.2.2,
//! 6.9.2), an array declared without its size taking it from a later
//! declaration.

use super::*;

impl<'p> Lower<'p> {
    /// Makes the objects `globals` declare, one per name, then runs their
    /// initializers in order (so `int *p = &g;` before `int g = 5;`
    /// points to that `g`).
    pub(super) fn declare_globals(&mut self, globals: &[Decl]) -> DResult<()> {
        // Names declared so far only with an incomplete type, by their
        // first such declaration.
        let mut incomplete: Vec<&Decl> = Vec::new();
        let mut defined: HashSet<&str> = HashSet::default();
        let declared_here: HashSet<&str> = (globals.iter())
            .filter(|g| !g.is_extern)
            .map(|g| g.name.as_str())
            .collect();
        self.undefined_externs = (globals.iter())
            .filter(|g| !declared_here.contains(g.name.as_str()))
            .map(|g| g.name.clone())
            .collect();
        for g in globals {
            if g.init.is_some() && !defined.insert(&g.name) {
                return err(g.loc, format!("redefinition of '{}'", g.name));
            }
            let sizeless = g.init.is_none() && matches!(g.ty, TypeExpr::Array(_, None));
            let ty = match sizeless {
                true => None,
                false => Some(self.resolve_any_type(&g.ty, g.init.as_ref(), g.loc)?)
                    .map(|t| self.completed_type(&t))
                    .filter(|t| t.incomplete().is_none()),
            };
            match (ty, self.globals.get(&g.name)) {
                (Some(ty), Some((_, before))) if ty != *before => {
                    return err(
                        g.loc,
                        format!(
                            "conflicting types for '{}' ({} here, {} before)",
                            g.name,
                            ty.name(),
                            before.name()
                        ),
                    );
                }
                (Some(ty), None) => {
                    let obj = self.new_object(&ty, g.loc)?;
                    self.globals.insert(g.name.clone(), (obj, ty));
                    incomplete.retain(|d| d.name != g.name);
                }
                (None, None) if !incomplete.iter().any(|d| d.name == g.name) => incomplete.push(g),
                _ => {}
            }
        }
        // An array never given a size has one element (C11 6.9.2p5).
        for g in incomplete {
            let ty = match &g.ty {
                TypeExpr::Array(elem, None) => {
                    CType::Array(Arc::new(self.resolve_type(elem, None, g.loc)?), 1)
                }
                t => self.resolve_type(t, None, g.loc)?,
            };
            let obj = self.new_object(&ty, g.loc)?;
            self.globals.insert(g.name.clone(), (obj, ty));
        }
        for g in globals {
            if let Some(init) = &g.init {
                let (obj, ty) = self.globals[&g.name].clone();
                self.initialize_object(obj, &ty, init)?;
            }
        }
        Ok(())
    }
}
