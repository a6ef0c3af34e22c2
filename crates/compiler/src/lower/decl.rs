//! Types of declarations, variables and initializers.

use super::*;
use crate::types::bad_array_size;

impl<'p> Lower<'p> {
    // ----- types and declarations -----------------------------------------

    pub(super) fn resolve_type(
        &mut self,
        t: &TypeExpr,
        init: Option<&Init>,
        loc: Loc,
    ) -> DResult<CType> {
        let ty = self.resolve_any_type(t, init, loc)?;
        match ty.incomplete() {
            Some(s) => err(
                loc,
                format!("'{s}' is an incomplete type here (not defined)"),
            ),
            None => Ok(ty),
        }
    }

    /// [`Self::resolve_type`], which may also be incomplete.
    pub(super) fn resolve_any_type(
        &mut self,
        t: &TypeExpr,
        init: Option<&Init>,
        loc: Loc,
    ) -> DResult<CType> {
        Ok(match t {
            TypeExpr::Known(c) => c.clone(),
            TypeExpr::Pointer(e) => CType::Pointer(Arc::new(self.resolve_any_type(e, None, loc)?)),
            TypeExpr::Array(e, n) => {
                let elem = self.resolve_any_type(e, None, loc)?;
                let n = match n {
                    Some(n) => {
                        let v = match const_eval(n) {
                            Some(v) => v,
                            None => {
                                let v = self.eval(n)?;
                                match v {
                                    Val::Int(s, Word::Const { v, .. }) => s.to_i128(v),
                                    _ => return err(expr_start(n), "array size must be known at compile time (it depends on a secret)"),
                                }
                            }
                        };
                        if let Some(why) = bad_array_size(v, MAX_LEAVES as i128) {
                            return err(n.loc, why);
                        }
                        v as u32
                    }
                    None => match init {
                        Some(Init::List(items, _)) if braced_string(&elem, items).is_some() => {
                            match braced_string(&elem, items).map(|e| &e.kind) {
                                Some(ExprKind::Str(bytes)) => bytes.len() as u32 + 1,
                                _ => 0,
                            }
                        }
                        Some(Init::List(items, _)) => {
                            self.elements_initialized(&elem, items, loc)?
                        }
                        Some(Init::Expr(Expr {
                            kind: ExprKind::Str(bytes),
                            ..
                        })) => bytes.len() as u32 + 1,
                        Some(Init::Expr(Expr {
                            kind: ExprKind::Compound(TypeExpr::Known(CType::Array(_, n)), _),
                            ..
                        })) => *n,
                        _ => return err(loc, "array size is missing"),
                    },
                };
                CType::Array(Arc::new(elem), n)
            }
            TypeExpr::Typeof(e) => self.static_type(e)?,
        })
    }

    pub(super) fn declare(&mut self, d: &Decl) -> DResult<()> {
        self.declare_with(d, true)
    }

    /// Declares `d`, running its initializer if `initialized` (else, as
    /// where a `switch` jumps over it, its value is indeterminate).
    pub(super) fn declare_with(&mut self, d: &Decl, initialized: bool) -> DResult<()> {
        let ty = self.resolve_type(&d.ty, d.init.as_ref(), d.loc)?;
        if ty == CType::Void {
            return err(d.loc, format!("variable '{}' has type void", d.name));
        }
        let entry = self.frame().entry && self.frames.len() == 2;
        let input_name = d.name.starts_with("INPUT_");
        if input_name && !entry && d.init.is_none() {
            // (It would read as zeros where its party's value was meant.)
            return err(
                d.loc,
                format!("'{}' is named as an input, but only the entry function declares inputs (its parameters, or variables declared in its body)", d.name),
            );
        }
        if entry && input_name {
            if d.init.is_some() {
                return err(
                    d.loc,
                    format!(
                        "input '{}' has an initializer, but its value comes from its party",
                        d.name
                    ),
                );
            }
            let obj = self.input_object(&d.name, &ty, d.loc)?;
            self.bind(&d.name, obj, ty);
            return Ok(());
        }
        let obj = self.new_object(&ty, d.loc)?;
        self.bind(&d.name, obj, ty.clone());
        if entry && d.name.starts_with("OUTPUT_") {
            let what = format!("output '{}'", d.name);
            super::punning::refuse_io(&what, &ty, d.loc)?;
            if !ty.is_data() {
                return err(
                    d.loc,
                    format!(
                        "output '{}' has type {}, which cannot be an output",
                        d.name,
                        ty.name()
                    ),
                );
            }
            if self.output_objs.iter().any(|(n, ..)| *n == d.name) {
                return err(
                    d.loc,
                    format!("output '{}' is declared more than once", d.name),
                );
            }
            self.output_objs
                .push((d.name.clone(), obj, ty.clone(), d.loc));
        }
        if let Some(init) = d.init.as_ref().filter(|_| initialized) {
            self.initialize_object(obj, &ty, init)?;
            if self.reduce_at.contains(&d.loc) {
                if let Slot::Val(w) = &self.objs[obj].slots[0] {
                    let reduced = w.reduced_for_readers(&mut self.b);
                    self.write_slot(obj, 0, Slot::Val(reduced));
                }
            }
        }
        Ok(())
    }

    /// Writes an initializer into `obj` at `leaf`.
    pub(super) fn initialize(
        &mut self,
        obj: usize,
        leaf: usize,
        ty: &CType,
        init: &Init,
    ) -> DResult<()> {
        match init {
            Init::Expr(e) => {
                if let (CType::Array(elem, n), ExprKind::Str(bytes)) = (ty, &e.kind) {
                    return self.initialize_chars(obj, leaf, elem, *n, bytes, e.loc);
                }
                // An array from an array literal (a wide string is one):
                // from its elements, its terminating NUL dropped where the
                // array has no room for it (as for a string).
                if let (CType::Array(_, n), ExprKind::Compound(t, list)) = (ty, &e.kind) {
                    if let (TypeExpr::Known(CType::Array(_, m)), Init::List(items, at)) =
                        (t, &**list)
                    {
                        let nul = matches!(items.last(), Some((d, Init::Expr(Expr { kind: ExprKind::Int(0, _), .. }))) if d.is_empty());
                        if *m == *n + 1 && nul {
                            let kept = Init::List(items[..items.len() - 1].to_vec(), *at);
                            return self.initialize(obj, leaf, ty, &kept);
                        }
                    }
                    return self.initialize(obj, leaf, ty, list);
                }
                let v = self.eval(e)?;
                if let CType::Array(..) = ty {
                    return err(e.loc, "an array needs a braced initializer");
                }
                let v = self.convert(v, ty, e.loc)?;
                self.store(obj, leaf, v);
                Ok(())
            }
            Init::List(items, _) if braced_string(ty, items).is_some() => {
                let Some(e) = braced_string(ty, items) else {
                    return Ok(());
                };
                self.initialize(obj, leaf, ty, &Init::Expr(e.clone()))
            }
            Init::List(items, loc) => {
                let mut it = 0usize;
                self.init_list(obj, leaf, ty, items, &mut it, *loc, Braces::Own)?;
                if it < items.len() {
                    return err(*loc, "too many initializers");
                }
                Ok(())
            }
        }
    }

    /// Initializes a whole object (a declaration's, a global's, a compound
    /// literal's) from `init`; its unions' members written by designators
    /// are noted for this initializer only.
    pub(super) fn initialize_object(&mut self, obj: usize, ty: &CType, init: &Init) -> DResult<()> {
        let outer = std::mem::take(&mut self.union_members);
        let done = self.initialize(obj, 0, ty, init);
        self.union_members = outer;
        done
    }

    /// Writes string `bytes` into the array of `n` elements of type `elem`
    /// at `leaf` of `obj`: the bytes, then NULs to the end (C drops the
    /// terminating NUL when the array has no room for it).
    pub(super) fn initialize_chars(
        &mut self,
        obj: usize,
        leaf: usize,
        elem: &CType,
        n: u32,
        bytes: &[u8],
        loc: Loc,
    ) -> DResult<()> {
        if !matches!(elem, CType::Int { bits: 8, .. }) {
            return err(
                loc,
                format!(
                    "a string literal cannot initialize an array of {}",
                    elem.name()
                ),
            );
        }
        if bytes.len() > n as usize {
            return err(
                loc,
                format!(
                    "the string literal has {} characters, more than the array's {n}",
                    bytes.len()
                ),
            );
        }
        for i in 0..n as usize {
            let byte = bytes.get(i).copied().unwrap_or(0);
            let v = Val::Int(Scalar::INT, Word::konst(u64::from(byte), 32));
            let v = self.convert(v, elem, loc)?;
            self.store(obj, leaf + i, v);
        }
        Ok(())
    }

    /// Initializes an aggregate from list items starting at `*it`, within
    /// `braces`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn init_list(
        &mut self,
        obj: usize,
        leaf: usize,
        ty: &CType,
        items: &[(Vec<Designator>, Init)],
        it: &mut usize,
        loc: Loc,
        braces: Braces,
    ) -> DResult<()> {
        if matches!(ty, CType::Struct(s) if s.union) {
            return self.init_union(obj, leaf, ty, items, it, loc, braces);
        }
        // Where each struct member starts, in leaves.
        let mut offs = Vec::new();
        let count = match ty {
            CType::Array(_, n) => *n as usize,
            CType::Struct(s) => {
                let mut at = 0;
                for (_, t) in &s.fields {
                    offs.push(at);
                    at += t.leaves();
                }
                s.fields.len()
            }
            _ => {
                // A scalar in braces: `{5}`.
                if braces != Braces::Own {
                    return err(loc, "a designator names a member of a scalar");
                }
                if let Some((_, init)) = items.get(*it) {
                    *it += 1;
                    self.initialize(obj, leaf, ty, init)?;
                }
                return Ok(());
            }
        };
        let start = *it;
        let mut k = 0usize;
        while *it < items.len() {
            let (des, init) = &items[*it];
            // Designators the lists around this one took already, and
            // whether the rest name this aggregate's members (else they
            // are the enclosing list's).
            let (taken, ours) = match braces {
                Braces::Own => (0, true),
                Braces::Designated(n) if *it == start => (n, true),
                _ => (0, false),
            };
            let des = &des[taken.min(des.len())..];
            let mut nested = None;
            if let Some(d) = des.first() {
                if !ours {
                    return Ok(());
                }
                let (at, inner) = self.designated(ty, d, loc)?;
                k = at;
                if inner || des.len() > 1 {
                    // `.a.b = x`, or `.x` of an anonymous member: the
                    // member is initialized as if its braces were
                    // elided, from this item on.
                    nested = Some(Braces::Designated(taken + usize::from(!inner)));
                }
            }
            if k >= count {
                // (An item a designator led here is this aggregate's: one
                // left over would be led here again.)
                if braces == Braces::Own || ours {
                    let what = if matches!(ty, CType::Array(..)) {
                        "array"
                    } else {
                        "struct"
                    };
                    return err(loc, format!("too many initializers for the {what}"));
                }
                return Ok(());
            }
            let (off, member) = member_at(ty, &offs, k);
            match nested {
                Some(b) => self.init_list(obj, leaf + off, &member, items, it, loc, b)?,
                None => self.init_member(obj, leaf + off, &member, init, items, it, loc)?,
            }
            self.fit_initialized(obj, leaf + off, ty, k);
            k += 1;
        }
        Ok(())
    }

    /// The member of aggregate `ty` designator `d` names: its number, and
    /// whether the name is a member of an anonymous member (then the
    /// number is that member's).
    pub(super) fn designated(
        &mut self,
        ty: &CType,
        d: &Designator,
        loc: Loc,
    ) -> DResult<(usize, bool)> {
        match (ty, d) {
            (CType::Array(_, n), Designator::Index(e)) => {
                let v = const_eval(e).ok_or_else(|| diag(e.loc, "designator is not a constant"))?;
                if v < 0 || v >= *n as i128 {
                    return err(e.loc, "designator index out of bounds");
                }
                Ok((v as usize, false))
            }
            (CType::Struct(s), Designator::Field(name, floc)) => {
                if let Some(k) = s.fields.iter().position(|(n, _)| n == name) {
                    return Ok((k, false));
                }
                let anonymous = s.fields.iter().position(|(n, t)| {
                    matches!(t, CType::Struct(inner) if n.is_empty() && inner.member(name).is_some())
                });
                anonymous
                    .map(|k| (k, true))
                    .ok_or_else(|| diag(*floc, format!("no member named '{name}'")))
            }
            (CType::Array(..), Designator::Field(..)) => {
                err(loc, "field designator in an array initializer")
            }
            _ => err(loc, "index designator in a struct initializer"),
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn init_member(
        &mut self,
        obj: usize,
        leaf: usize,
        ty: &CType,
        init: &Init,
        items: &[(Vec<Designator>, Init)],
        it: &mut usize,
        loc: Loc,
    ) -> DResult<()> {
        let aggregate = matches!(ty, CType::Array(..) | CType::Struct(_));
        match init {
            Init::Expr(Expr {
                kind: ExprKind::Str(_) | ExprKind::Compound(TypeExpr::Known(CType::Array(..)), _),
                ..
            }) if matches!(ty, CType::Array(..)) => {
                // A string (or wide string) for an array of characters,
                // not its first one.
                *it += 1;
                self.initialize(obj, leaf, ty, init)
            }
            Init::Expr(e) if aggregate => {
                // A struct may be initialized from a struct value.
                if let CType::Struct(_) = ty {
                    if self.static_type(e).is_ok_and(|t| t == *ty) {
                        *it += 1;
                        let v = self.eval(e)?;
                        self.store(obj, leaf, v);
                        return Ok(());
                    }
                }
                // Brace elision: the items fill the aggregate's members.
                // This item's designators (if any) led here: the first
                // item is the aggregate's, as in `{ .a = 1, 2 }`.
                let braces = match items.get(*it).map_or(0, |(des, _)| des.len()) {
                    0 => Braces::Elided,
                    n => Braces::Designated(n),
                };
                self.init_list(obj, leaf, ty, items, it, loc, braces)
            }
            _ => {
                if aggregate && matches!(init, Init::List(..)) {
                    // Braces initialize the whole member: what items
                    // before them wrote in it (`.b[1] = 4, .b = {5}`) is
                    // overridden, with zeros where they give nothing
                    // (C11 6.7.9p19).
                    let mut tys = Vec::new();
                    ty.leaf_types(&mut tys);
                    for (i, t) in tys.iter().enumerate() {
                        self.write_slot(obj, leaf + i, zero_slot(t));
                    }
                }
                *it += 1;
                self.initialize(obj, leaf, ty, init)
            }
        }
    }

    /// Stores an rvalue at a public position (no journal bypass).
    pub(super) fn store(&mut self, obj: usize, leaf: usize, v: Val) {
        match v {
            Val::Int(_, w) => self.write_slot(obj, leaf, Slot::Val(w)),
            Val::Ptr(_, p) => self.write_slot(obj, leaf, Slot::Ptr(p)),
            Val::Agg(_, slots) => {
                for (i, s) in slots.into_iter().enumerate() {
                    self.write_slot(obj, leaf + i, s);
                }
            }
            Val::Void => {}
        }
    }
}

/// The string of `{"..."}`, an array of characters initialized from a
/// string in braces (`ty` the array, or for an array of unknown size its
/// element type).
fn braced_string<'e>(ty: &CType, items: &'e [(Vec<Designator>, Init)]) -> Option<&'e Expr> {
    let elem = match ty {
        CType::Array(e, _) => e,
        t => t,
    };
    match (elem, items) {
        (CType::Int { bits: 8, .. }, [(des, Init::Expr(e))])
            if des.is_empty() && matches!(e.kind, ExprKind::Str(_)) =>
        {
            Some(e)
        }
        _ => None,
    }
}

/// Member `k` of aggregate `ty` (whose struct members start at `offs`):
/// its first leaf and its type.
fn member_at(ty: &CType, offs: &[usize], k: usize) -> (usize, CType) {
    match ty {
        CType::Array(elem, _) => (k * elem.leaves(), (**elem).clone()),
        CType::Struct(s) => (offs[k], s.fields[k].1.clone()),
        t => (0, t.clone()),
    }
}

/// How the items of an aggregate's initializer are delimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Braces {
    /// By its own braces: designators name its members.
    Own,
    /// By none (elided): the items of the braces around fill it, up to
    /// a designator (theirs).
    Elided,
    /// By none, entered through a designator (`.a.b = x`, or a member of
    /// an anonymous member): the first item's designators after the first
    /// `n` name its members.
    Designated(usize),
}
