//! Struct and union specifiers: tags, member lists, anonymous members.

use std::sync::Arc;

use super::Parser;
use crate::ast::TypeExpr;
use crate::error::{err, DResult, Loc};
use crate::types::{CType, StructDef};

impl Parser<'_> {
    /// A struct (or, if `union`, a union) specifier after its keyword: a
    /// tag, a member list, or both.
    pub(super) fn record_spec(&mut self, loc: Loc, union: bool) -> DResult<CType> {
        let keyword = if union { "union" } else { "struct" };
        let tag = self.tag();
        if !self.eat("{") {
            let Some(tag) = tag else {
                return err(loc, format!("expected a {keyword} tag or '{{'"));
            };
            // A record not defined yet is incomplete until its definition.
            let def = self.structs.entry(tag.clone()).or_insert_with(|| {
                Arc::new(StructDef {
                    name: Some(tag.clone()),
                    fields: Vec::new(),
                    union,
                })
            });
            if def.union != union {
                let other = def.keyword();
                return err(
                    loc,
                    format!("'{tag}' is a {other} tag, used here as a {keyword}"),
                );
            }
            return Ok(CType::Struct(def.clone()));
        }
        let mut fields: Vec<(String, CType)> = Vec::new();
        while !self.eat("}") {
            if self.peek().is_none() {
                return err(loc, format!("unterminated {keyword}"));
            }
            let specs = self.specs()?;
            if self.eat(";") {
                // C11: a struct or union without a tag and without a name
                // is an anonymous member, whose members are the outer one's.
                match &specs.ty {
                    CType::Struct(inner) if inner.name.is_none() => {
                        fields.push((String::new(), specs.ty.clone()));
                    }
                    CType::Struct(_) => {} // Declares a tag only.
                    _ => return err(specs.loc, format!("{keyword} member needs a name")),
                }
                continue;
            }
            loop {
                let (name, ty, dloc) = self.declarator(TypeExpr::Known(specs.ty.clone()), false)?;
                if self.is(":") {
                    return err(self.loc(), "bit-fields are not supported");
                }
                let Some((name, nloc)) = name else {
                    return err(dloc, format!("{keyword} member needs a name"));
                };
                let t = self.known(ty)?;
                if let Some(t) = t.incomplete() {
                    return err(nloc, format!("member '{name}' has incomplete type '{t}'"));
                }
                if fields.iter().any(|(n, _)| *n == name) {
                    return err(nloc, format!("duplicate member '{name}'"));
                }
                if union && t.holds_pointer() {
                    return err(
                        nloc,
                        format!("union member '{name}' holds a pointer (pointers in unions are not supported)"),
                    );
                }
                fields.push((name, t));
                if self.eat(",") {
                    continue;
                }
                self.expect(";")?;
                break;
            }
        }
        if fields.is_empty() {
            return err(loc, format!("a {keyword} needs at least one member"));
        }
        let def = Arc::new(StructDef {
            name: tag.clone(),
            fields,
            union,
        });
        if let Some(tag) = tag {
            if let Some(old) = self.structs.get(&tag).filter(|d| d.union != union) {
                let other = old.keyword();
                return err(
                    loc,
                    format!("'{tag}' is a {other} tag, defined here as a {keyword}"),
                );
            }
            self.structs.insert(tag.clone(), def.clone());
            self.complete_typedefs(&tag, &def);
        }
        Ok(CType::Struct(def))
    }

    /// Typedefs made while `struct tag` was incomplete (`typedef struct
    /// Node Node;`) name its definition from now on.
    fn complete_typedefs(&mut self, tag: &str, def: &Arc<StructDef>) {
        let definition = |name: &str| (name == tag).then(|| def.clone());
        for scope in &mut self.typedefs {
            for t in scope.values_mut() {
                if let Some(c) = t.completed(&definition) {
                    *t = c;
                }
            }
        }
    }
}
