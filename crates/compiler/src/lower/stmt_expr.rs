//! GNU statement expressions `({ ... })`: the items run in a scope of
//! their own, and the value is the last expression statement's (void if
//! the last item is no expression statement). The parser made sure that
//! nothing jumps out of one.

use super::*;

impl<'p> Lower<'p> {
    /// Runs a statement expression's items and gives its value.
    pub(super) fn stmt_expr(&mut self, items: &[Stmt]) -> DResult<Val> {
        self.frame_mut().names.push_scope();
        let r = self.stmt_expr_items(items);
        self.frame_mut().names.pop_scope();
        r
    }

    fn stmt_expr_items(&mut self, items: &[Stmt]) -> DResult<Val> {
        let (value, run) = split_value(items);
        for s in run {
            self.exec_guarded(s)?;
        }
        match value {
            Some(e) => self.eval(e),
            None => Ok(Val::Void),
        }
    }

    /// The type of a statement expression, without running it: the
    /// variables it declares (at its top level) are bound, to objects of
    /// their own, for the type of its last expression.
    pub(super) fn stmt_expr_type(&mut self, items: &[Stmt]) -> DResult<CType> {
        self.frame_mut().names.push_scope();
        let r = self.stmt_expr_items_type(items);
        self.frame_mut().names.pop_scope();
        r
    }

    fn stmt_expr_items_type(&mut self, items: &[Stmt]) -> DResult<CType> {
        let (value, run) = split_value(items);
        let Some(e) = value else {
            return Ok(CType::Void);
        };
        for s in run {
            if let StmtKind::Decl(ds) = &s.kind {
                for d in ds {
                    let ty = self.resolve_type(&d.ty, d.init.as_ref(), d.loc)?;
                    let obj = self.new_object(&ty, d.loc)?;
                    self.bind(&d.name, obj, ty);
                }
            }
        }
        // Its value is an rvalue: an array becomes a pointer.
        Ok(decay(self.static_type(e)?))
    }
}

/// A statement expression's last expression (if its last item is an
/// expression statement) and the items before it.
fn split_value(items: &[Stmt]) -> (Option<&Expr>, &[Stmt]) {
    match items.split_last() {
        Some((
            Stmt {
                kind: StmtKind::Expr(e),
                ..
            },
            run,
        )) => (Some(e), run),
        _ => (None, items),
    }
}
