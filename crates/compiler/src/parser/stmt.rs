//! Statements: blocks and control flow.

use super::assertion::Assertion;
use super::{is_keyword, Parser};
use crate::ast::*;
use crate::error::{err, DResult, Loc};
use crate::lexer::Tok;

impl Parser<'_> {
    pub(super) fn block(&mut self) -> DResult<Stmt> {
        let loc = self.expect("{")?;
        self.push_scope();
        let mut items = Vec::new();
        while !self.eat("}") {
            if self.peek().is_none() {
                return err(loc, "unterminated block: expected '}'");
            }
            items.push(self.stmt()?);
        }
        self.pop_scope();
        Ok(Stmt {
            kind: StmtKind::Block(items),
            loc,
        })
    }

    fn stmt(&mut self) -> DResult<Stmt> {
        self.nested(Self::stmt_level)
    }

    fn stmt_level(&mut self) -> DResult<Stmt> {
        let loc = self.loc();
        if self.is("{") {
            return self.block();
        }
        // Attributes of a statement (`__attribute__((fallthrough));`,
        // `[[fallthrough]];`) change nothing twofold computes; those of a
        // declaration are its specifiers'.
        let start = self.pos;
        self.attributes()?;
        if self.starts_type() {
            self.pos = start;
            return self.local_decl();
        }
        if self.eat(";") {
            return Ok(Stmt {
                kind: StmtKind::Empty,
                loc,
            });
        }
        if let Some(assertion) = self.static_assertion(true)? {
            let kind = match assertion {
                Assertion::Checked => StmtKind::Empty,
                Assertion::Deferred(kind) => kind,
            };
            return Ok(Stmt { kind, loc });
        }
        let word = self.peek().and_then(|t| t.ident()).map(|s| s.to_string());
        let kind = match word.as_deref() {
            Some("if") => {
                self.pos += 1;
                self.expect("(")?;
                let c = self.expr()?;
                self.expect(")")?;
                let t = self.sub_stmt()?;
                let e = if self.is_word("else") {
                    self.pos += 1;
                    Some(Box::new(self.sub_stmt()?))
                } else {
                    None
                };
                StmtKind::If(c, Box::new(t), e)
            }
            Some("while") => {
                self.pos += 1;
                self.expect("(")?;
                let c = self.expr()?;
                self.expect(")")?;
                crate::loops::whiles::counted_while(c, self.sub_stmt()?)
            }
            Some("do") => {
                self.pos += 1;
                self.do_while_rest()?
            }
            Some("for") => {
                self.pos += 1;
                self.for_rest()?
            }
            Some("switch") => {
                self.pos += 1;
                self.expect("(")?;
                let c = self.expr()?;
                self.expect(")")?;
                let body = self.sub_stmt()?;
                if let Some(at) = second_default(&body) {
                    return err(at, "multiple default labels in one switch");
                }
                StmtKind::Switch(c, Box::new(body))
            }
            Some("case") => {
                self.pos += 1;
                let k = self.cond_expr()?;
                // GNU's case range `case lo ... hi:`.
                let hi = if self.is("...") {
                    self.pos += 1;
                    Some(self.cond_expr()?)
                } else {
                    None
                };
                self.expect(":")?;
                StmtKind::Case(k, hi, Box::new(self.label_body()?))
            }
            Some("default") => {
                self.pos += 1;
                self.expect(":")?;
                StmtKind::Default(Box::new(self.label_body()?))
            }
            Some("break") => {
                self.pos += 1;
                self.expect(";")?;
                StmtKind::Break
            }
            Some("continue") => {
                self.pos += 1;
                self.expect(";")?;
                StmtKind::Continue
            }
            Some("return") => {
                self.pos += 1;
                let e = if self.is(";") {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect(";")?;
                StmtKind::Return(e)
            }
            Some("goto") => return err(loc, "goto is not supported"),
            Some("asm") | Some("__asm__") => return err(loc, "inline assembly is not supported"),
            // A label: no `goto` can name it (they are refused), so it is
            // the statement it labels.
            Some(w) if !is_keyword(w) && self.peek_at(1).is_some_and(|t| t.is(":")) => {
                if !self.labels.insert(w.to_string()) {
                    return err(loc, format!("duplicate label '{w}'"));
                }
                self.pos += 2;
                return self.label_body();
            }
            // A name that is no type, followed by a name (`uint32_t x`): a
            // declaration whose type is unknown.
            Some(w)
                if !is_keyword(w)
                    && self
                        .peek_at(1)
                        .is_some_and(|t| matches!(&t.tok, Tok::Ident(n) if !is_keyword(n))) =>
            {
                return err(loc, unknown_type(w));
            }
            _ => {
                let e = self.expr()?;
                self.expect(";")?;
                StmtKind::Expr(e)
            }
        };
        Ok(Stmt { kind, loc })
    }

    /// A `do` statement after the `do`: body, `while (cond);`.
    fn do_while_rest(&mut self) -> DResult<StmtKind> {
        let body = self.sub_stmt()?;
        if !self.is_word("while") {
            return err(self.loc(), "expected 'while' after do-body");
        }
        self.pos += 1;
        self.expect("(")?;
        let c = self.expr()?;
        self.expect(")")?;
        self.expect(";")?;
        Ok(StmtKind::DoWhile(Box::new(body), c))
    }

    /// A `for` statement after the `for`: `(init; cond; step)` and the
    /// body, in a scope of their own.
    fn for_rest(&mut self) -> DResult<StmtKind> {
        self.expect("(")?;
        self.push_scope();
        let init = if self.eat(";") {
            None
        } else if self.starts_type() {
            Some(Box::new(self.local_decl()?))
        } else {
            let l = self.loc();
            let e = self.expr()?;
            self.expect(";")?;
            Some(Box::new(Stmt {
                kind: StmtKind::Expr(e),
                loc: l,
            }))
        };
        let cond = if self.is(";") {
            None
        } else {
            Some(self.expr()?)
        };
        self.expect(";")?;
        let step = if self.is(")") {
            None
        } else {
            Some(self.expr()?)
        };
        self.expect(")")?;
        let body = self.sub_stmt()?;
        self.pop_scope();
        Ok(StmtKind::For(init, cond, step, Box::new(body)))
    }

    fn label_body(&mut self) -> DResult<Stmt> {
        if self.is("}") {
            return Ok(Stmt {
                kind: StmtKind::Empty,
                loc: self.loc(),
            });
        }
        self.stmt()
    }

    /// The body of `if`/`while`/...: a statement in its own scope.
    fn sub_stmt(&mut self) -> DResult<Stmt> {
        self.push_scope();
        let s = self.stmt();
        self.pop_scope();
        s
    }
}

/// The error for a declaration of type `name`, which is no type here,
/// with the header that declares it if it is a standard one.
pub(super) fn unknown_type(name: &str) -> String {
    let header = match name {
        "bool" => Some("stdbool.h"),
        "size_t" | "ptrdiff_t" | "max_align_t" | "wchar_t" => Some("stddef.h"),
        n if (n.starts_with("int") || n.starts_with("uint")) && n.ends_with("_t") => {
            Some("stdint.h")
        }
        _ => None,
    };
    match header {
        Some(h) => format!("unknown type name '{name}' (is #include <{h}> missing?)"),
        None => format!("unknown type name '{name}'"),
    }
}

/// Where the second `default` label of the switch whose body is `body`
/// is, if it has two (those of switches nested in it are theirs).
fn second_default(body: &Stmt) -> Option<Loc> {
    fn defaults(s: &Stmt, found: &mut Vec<Loc>) {
        match &s.kind {
            StmtKind::Default(b) => {
                found.push(s.loc);
                defaults(b, found);
            }
            StmtKind::Block(items) => items.iter().for_each(|i| defaults(i, found)),
            StmtKind::If(_, t, e) => {
                defaults(t, found);
                if let Some(e) = e {
                    defaults(e, found);
                }
            }
            StmtKind::For(_, _, _, b)
            | StmtKind::While(_, b)
            | StmtKind::DoWhile(b, _)
            | StmtKind::Case(_, _, b) => defaults(b, found),
            _ => {}
        }
    }
    let mut found = Vec::new();
    defaults(body, &mut found);
    found.get(1).copied()
}
