//! Struct and union specifiers: tags, member lists, anonymous members,
//! bit-fields.

use std::collections::HashMap;
use std::sync::Arc;

use super::expr::const_eval;
use super::Parser;
use crate::ast::TypeExpr;
use crate::error::{err, DResult, Loc};
use crate::types::{BitField, CType, StructDef};

impl Parser<'_> {
    /// A struct (or, if `union`, a union) specifier after its keyword: a
    /// tag, a member list, or both; attributes after the keyword or after
    /// the member list are the type's (`packed`, `aligned(n)`), and
    /// `#pragma pack` where the keyword is limits its members' alignment.
    pub(super) fn record_spec(&mut self, loc: Loc, union: bool) -> DResult<CType> {
        let keyword = if union { "union" } else { "struct" };
        let pack = self.pack_in_effect();
        let mut attributes = self.attributes()?;
        let tag = self.tag();
        if !self.eat("{") {
            let Some(tag) = tag else {
                return err(loc, format!("expected a {keyword} tag or '{{'"));
            };
            // The tag in scope, or else a record declared here, incomplete
            // until its definition. `struct U;` alone declares one here,
            // hiding any outer `struct U`.
            let declared_alone = self.is(";");
            let visible = match declared_alone {
                true => self.innermost_tags().get(&tag).cloned(),
                false => self.tag_in_scope(&tag),
            };
            let def = match visible {
                Some(def) => def,
                None => {
                    let def = Arc::new(StructDef {
                        name: Some(tag.clone()),
                        id: self.new_struct_id(),
                        union,
                        ..StructDef::default()
                    });
                    self.innermost_tags().insert(tag.clone(), def.clone());
                    def
                }
            };
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
        let mut bit_fields = Vec::new();
        let mut padding = Vec::new();
        let mut aligns = Vec::new();
        while !self.eat("}") {
            if self.peek().is_none() {
                return err(loc, format!("unterminated {keyword}"));
            }
            let specs = self.specs()?;
            if self.is(":") {
                // An unnamed bit-field: padding.
                let ty = self.known(specs.ty.clone())?;
                let bf = self.bit_field(&ty, None)?;
                padding.push((fields.len(), bf));
                self.expect(";")?;
                continue;
            }
            if self.eat(";") {
                // C11: a struct or union without a tag and without a name
                // is an anonymous member, whose members are the outer one's.
                match &specs.ty {
                    TypeExpr::Known(t @ CType::Struct(inner)) if inner.name.is_none() => {
                        fields.push((String::new(), t.clone()));
                        bit_fields.push(None);
                        aligns.push(specs.align.max(specs.attributes.aligned));
                    }
                    TypeExpr::Known(CType::Struct(_)) => {} // Declares a tag only.
                    _ => return err(specs.loc, format!("{keyword} member needs a name")),
                }
                continue;
            }
            loop {
                let (name, ty, dloc, after) = self.declarator(specs.ty.clone(), false)?;
                self.refuse_function(dloc)?;
                let Some((name, nloc)) = name else {
                    return err(dloc, format!("{keyword} member needs a name"));
                };
                if let TypeExpr::Array(_, None) = ty {
                    // (It would be read as a pointer: another size and
                    // layout.)
                    return err(
                        nloc,
                        format!("flexible array member '{name}' is not supported (give the array a size)"),
                    );
                }
                let mut t = self.known(ty)?;
                let bf = match self.is(":") {
                    true => Some(self.bit_field(&t, Some(&name))?),
                    false => None,
                };
                let member = specs.attributes.with(after).with(self.attributes()?);
                if member.packed {
                    return err(
                        nloc,
                        format!("the attribute 'packed' on the member '{name}' is not supported (pack the whole {keyword})"),
                    );
                }
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
                if bf.is_some() && specs.align.max(member.aligned) != 0 {
                    return err(
                        nloc,
                        format!("an alignment (_Alignas or 'aligned') on bit-field '{name}'"),
                    );
                }
                self.check_alignas(specs.align, false, &TypeExpr::Known(t.clone()), &name, nloc)?;
                if let Some(bf) = &bf {
                    t = bf.promoted();
                }
                fields.push((name, t));
                bit_fields.push(bf);
                aligns.push(specs.align.max(member.aligned));
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
        attributes = attributes.with(self.attributes()?);
        if bit_fields.iter().all(Option::is_none) {
            bit_fields.clear();
        }
        if aligns.iter().all(|&a| a == 0) {
            aligns.clear();
        }
        // The definition of a record declared in this scope (`struct Node;`
        // or `struct Node *next;` before it) is that record's.
        let declared = tag
            .as_ref()
            .and_then(|t| self.innermost_tags().get(t).cloned());
        let id = match &declared {
            Some(old) if old.is_complete() => {
                let other = old.keyword();
                return err(
                    loc,
                    format!("redefinition of '{other} {}'", tag.unwrap_or_default()),
                );
            }
            Some(old) => old.id,
            None => self.new_struct_id(),
        };
        let def = Arc::new(StructDef {
            name: tag.clone(),
            id,
            fields,
            union,
            bit_fields,
            padding,
            aligns,
            pack: if attributes.packed { 1 } else { pack },
            align: attributes.aligned,
        });
        if let Some(tag) = tag {
            if let Some(old) = declared.filter(|d| d.union != union) {
                let other = old.keyword();
                return err(
                    loc,
                    format!("'{tag}' is a {other} tag, defined here as a {keyword}"),
                );
            }
            self.innermost_tags().insert(tag, def.clone());
            self.complete_typedefs(&def);
        }
        self.definitions.insert(id, def.clone());
        Ok(CType::Struct(def))
    }

    /// The width after `:` of a bit-field of type `ty` (named `name`, if it
    /// has one).
    fn bit_field(&mut self, ty: &CType, name: Option<&str>) -> DResult<BitField> {
        let loc = self.loc();
        self.expect(":")?;
        let what = name.map_or("an unnamed bit-field".into(), |n| {
            format!("bit-field '{n}'")
        });
        let Some(s) = ty.scalar() else {
            return err(
                loc,
                format!("{what} has type {ty}, which is not an integer type"),
            );
        };
        let e = self.cond_expr()?;
        let Some(width) = const_eval(&e) else {
            return err(e.loc, format!("the width of {what} is not a constant"));
        };
        if width < 0 || width > i128::from(s.width) {
            return err(
                e.loc,
                format!("the width of {what} ({width}) is not within its type ({ty})"),
            );
        }
        if width > 32 {
            return err(
                e.loc,
                format!("{what} is wider than 32 bits, which is not supported"),
            );
        }
        if width == 0 && name.is_some() {
            return err(e.loc, format!("{what} has width 0"));
        }
        Ok(BitField {
            ty: ty.clone(),
            width: width as u32,
        })
    }

    /// The struct or union `tag` names where the parser is.
    fn tag_in_scope(&self, tag: &str) -> Option<Arc<StructDef>> {
        self.tags.iter().rev().find_map(|s| s.get(tag)).cloned()
    }

    /// The tags of the innermost scope.
    fn innermost_tags(&mut self) -> &mut HashMap<String, Arc<StructDef>> {
        self.tags.last_mut().expect("the file scope is never left")
    }

    /// A number for a struct or union type not met before.
    fn new_struct_id(&mut self) -> u32 {
        self.structs_made += 1;
        self.structs_made
    }

    /// Typedefs made while the record `def` defines was incomplete
    /// (`typedef struct Node Node;`) name its definition from now on.
    fn complete_typedefs(&mut self, def: &Arc<StructDef>) {
        let definition = |id: u32| (id == def.id).then(|| def.clone());
        for scope in &mut self.typedefs {
            for t in scope.values_mut() {
                if let Some(c) = t.completed(&definition) {
                    *t = c;
                }
            }
        }
    }
}
