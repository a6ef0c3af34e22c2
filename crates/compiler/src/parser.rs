//! Recursive-descent parser from preprocessed tokens to the syntax tree.
//!
//! Shared here: the parser state, token helpers and scopes; by concept,
//! `decl` (declarations and the top level), `stmt` (statements) and `expr`
//! (expressions and constant evaluation).

mod alignas;
mod assertion;
mod attributes;
mod constant_builtins;
mod constant_init;
mod decl;
mod declarator;
mod enumeration;
mod expr;
mod generic;
mod knr;
mod prototypes;
mod ranges;
mod readonly;
mod record;
mod statics;
mod stmt;
mod stmt_expr;
mod typeof_spec;
mod wide;

pub use attributes::supported_attribute;
pub use expr::const_eval;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::ast::*;
use crate::error::{err, DResult, Loc};
use crate::lexer::{Tok, Token};
use crate::preprocess::PACK_MARKER;
use crate::types::{CType, Scalar, StructDef};

/// Parses a preprocessed token stream; constructs nested more than
/// `max_nesting` deep (see [`crate::Limits::max_nesting`]) are an error.
/// Where `#pragma pack` changes its value, the preprocessor's markers (see
/// [`crate::preprocess::PACK_MARKER`]) are taken out of the tokens and
/// followed. GNU's spellings of keywords (`__const`, `__volatile__`,
/// `__signed`, ...) are read as the keywords, and `__extension__` is
/// dropped, as gcc does.
pub fn parse(toks: &[Token], max_nesting: usize) -> DResult<Program> {
    let mut kept = Vec::with_capacity(toks.len());
    let mut packs = Vec::new();
    let mut at = 0;
    while at < toks.len() {
        match (&toks[at].tok, toks.get(at + 1).map(|t| &t.tok)) {
            (Tok::Ident(m), Some(Tok::Int(n, ..))) if m == PACK_MARKER => {
                packs.push((kept.len(), *n));
                at += 2;
            }
            (Tok::Ident(w), _) if w == "__extension__" => at += 1,
            (Tok::Ident(w), _) => {
                let mut t = toks[at].clone();
                if let Some(k) = gnu_keyword(w) {
                    t.tok = Tok::Ident(k.to_string());
                }
                kept.push(t);
                at += 1;
            }
            _ => {
                kept.push(toks[at].clone());
                at += 1;
            }
        }
    }
    let mut p = Parser {
        toks: &kept,
        packs,
        pos: 0,
        typedefs: vec![HashMap::new()],
        tags: vec![HashMap::new()],
        definitions: HashMap::new(),
        structs_made: 0,
        enums: vec![HashMap::new()],
        enum_types: HashMap::new(),
        depth: 0,
        max_nesting,
        locals: vec![HashMap::new()],
        readonly: vec![HashMap::new()],
        hoisted: Vec::new(),
        statics_made: 0,
        function: String::new(),
        name_params: None,
        functions_declared: HashMap::new(),
        labels: HashSet::new(),
    };
    p.program()
}

struct Parser<'a> {
    toks: &'a [Token],
    /// The type each function was first declared with at file scope (see
    /// [`prototypes`]).
    functions_declared: HashMap<String, prototypes::Declared>,
    pos: usize,
    /// Where `#pragma pack` sets a value (0: none): from which token on,
    /// in order.
    packs: Vec<(usize, u64)>,
    typedefs: Vec<HashMap<String, CType>>,
    /// Struct and union tags in scope, innermost scope last.
    tags: Vec<HashMap<String, Arc<StructDef>>>,
    /// Every struct and union defined, by [`StructDef::id`].
    definitions: HashMap<u32, Arc<StructDef>>,
    /// Struct and union types numbered so far.
    structs_made: u32,
    /// Enumeration constants in scope: value and type.
    enums: Vec<HashMap<String, (i64, Scalar)>>,
    /// The integer type of each tagged enumeration.
    enum_types: HashMap<String, CType>,
    /// How deeply the construct being parsed is nested.
    depth: usize,
    max_nesting: usize,
    /// Local variables in scope: for a static one, the name of the global
    /// object it is (see [`statics`]).
    locals: Vec<HashMap<String, Option<String>>>,
    /// Per scope, the variables declared `const` there (file scope first,
    /// also holding static locals' globals), with their declared array
    /// dimensions (see [`readonly`]).
    readonly: Vec<HashMap<String, readonly::Readonly>>,
    /// The static local variables of the function being parsed, as
    /// globals.
    hoisted: Vec<Decl>,
    /// Static locals hoisted so far, in the whole program.
    statics_made: usize,
    /// The name of the function being parsed (`__func__`), empty outside
    /// functions.
    function: String,
    /// The parameters of a function declared by a name in parentheses
    /// (`int (*pick(int k))(int)`), read by the declarator and taken by
    /// [`Parser::take_params`].
    name_params: Option<Vec<decl::Param>>,
    /// The labels of the function being parsed (each names one statement).
    labels: HashSet<String>,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a Token> {
        self.toks.get(self.pos)
    }

    fn peek_at(&self, k: usize) -> Option<&'a Token> {
        self.toks.get(self.pos + k)
    }

    fn loc(&self) -> Loc {
        self.peek()
            .or_else(|| self.toks.last())
            .map(|t| t.loc)
            .unwrap_or_default()
    }

    fn is(&self, p: &str) -> bool {
        self.peek().is_some_and(|t| t.is(p))
    }

    fn is_word(&self, w: &str) -> bool {
        self.peek().and_then(|t| t.ident()) == Some(w)
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.is(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, p: &str) -> DResult<Loc> {
        let loc = self.loc();
        if self.eat(p) {
            Ok(loc)
        } else {
            let found = self.describe();
            err(loc, format!("expected '{p}' but found {found}"))
        }
    }

    fn describe(&self) -> String {
        match self.peek().map(|t| &t.tok) {
            None => "end of file".into(),
            Some(Tok::Ident(s)) => format!("'{s}'"),
            Some(Tok::Punct(p)) => format!("'{p}'"),
            Some(Tok::Int(v, ..)) => format!("'{v}'"),
            Some(Tok::Char(..)) => "a character constant".into(),
            Some(Tok::Str(..) | Tok::WideStr(..)) => "a string literal".into(),
            Some(Tok::Float(..)) => "a floating-point constant".into(),
            Some(Tok::PpNumber(t) | Tok::Stray(t, _)) => format!("'{t}'"),
        }
    }

    fn ident(&mut self) -> DResult<(String, Loc)> {
        let loc = self.loc();
        match self.peek().and_then(|t| t.ident()) {
            Some(s) if !is_keyword(s) => {
                self.pos += 1;
                Ok((s.to_string(), loc))
            }
            _ => {
                let found = self.describe();
                err(loc, format!("expected an identifier but found {found}"))
            }
        }
    }

    /// Goes `levels` deeper into the syntax tree, failing past the limit
    /// (every recursive rule does this, so that neither parsing nor the
    /// passes over the tree can overflow the stack).
    fn deeper(&mut self, levels: usize) -> DResult<()> {
        self.depth += levels;
        if self.depth > self.max_nesting {
            return err(
                self.loc(),
                format!(
                    "nested more than {} levels deep (expressions, statements, declarators or initializers)",
                    self.max_nesting
                ),
            );
        }
        Ok(())
    }

    /// Goes one level deeper for the next operator of a chain (`a + b + c`
    /// nests to the left, `a[i].x` too): as [`Parser::deeper`], but the
    /// error says that a long chain is as deep as it is long.
    fn chained(&mut self) -> DResult<()> {
        self.deeper(1).map_err(|mut d| {
            d.message = format!(
                "expression too long or nested too deep: operators chained or nested more than {} levels deep (each operator of a chain `a + b + ...` is one level; split the expression into parts)",
                self.max_nesting
            );
            d
        })
    }

    /// Runs `rule` one level deeper (see [`Parser::deeper`]).
    fn nested<T>(&mut self, rule: impl FnOnce(&mut Self) -> DResult<T>) -> DResult<T> {
        let depth = self.depth;
        let result = self.deeper(1).and_then(|()| rule(self));
        self.depth = depth;
        result
    }

    fn typedef_of(&self, name: &str) -> Option<&CType> {
        self.typedefs.iter().rev().find_map(|s| s.get(name))
    }

    fn enum_of(&self, name: &str) -> Option<(i64, Scalar)> {
        self.enums.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn push_scope(&mut self) {
        self.typedefs.push(HashMap::new());
        self.tags.push(HashMap::new());
        self.enums.push(HashMap::new());
        self.locals.push(HashMap::new());
        self.readonly.push(HashMap::new());
    }

    fn pop_scope(&mut self) {
        self.typedefs.pop();
        self.tags.pop();
        self.enums.pop();
        self.locals.pop();
        self.readonly.pop();
    }
}

/// The keyword a GNU alternate spelling (`__const`, `__volatile__`) is.
fn gnu_keyword(word: &str) -> Option<&'static str> {
    let bare = word.strip_prefix("__")?;
    let bare = bare.strip_suffix("__").unwrap_or(bare);
    ["const", "volatile", "restrict", "signed", "inline"]
        .into_iter()
        .find(|k| *k == bare)
}

fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "if" | "else"
            | "while"
            | "do"
            | "for"
            | "switch"
            | "case"
            | "default"
            | "break"
            | "continue"
            | "return"
            | "goto"
            | "sizeof"
            | "typedef"
            | "struct"
            | "union"
            | "enum"
            | "void"
            | "char"
            | "short"
            | "int"
            | "long"
            | "signed"
            | "unsigned"
            | "_Bool"
            | "float"
            | "double"
            | "const"
            | "volatile"
            | "static"
            | "extern"
            | "register"
            | "inline"
            | "auto"
            | "restrict"
    )
}
