//! The C preprocessor: `#include` (with built-in standard headers),
//! `#define` (object- and function-like, `#`, `##`, `__VA_ARGS__`),
//! `#undef`, and conditional compilation (`#if`, `#ifdef`, `#elif`, ...).

use std::cell::Cell;
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::error::{diag, err, DResult, Diag, Loc};
use crate::lexer::{binary_precedence, lex, Tok, Token};

mod headers;
mod libc;
pub use libc::headers_called;
mod lines;
mod source;
pub use source::{read_source, utf8, MAX_SOURCE_BYTES};
mod spelling;
use headers::builtin_header;
use lines::renumber;
use spelling::{message, spell};

#[derive(Clone)]
struct Macro {
    params: Option<Vec<String>>,
    variadic: bool,
    body: Vec<Token>,
}

/// The macros C defines before the first line (as gcc does, with C17):
/// `__STDC__`, `__STDC_VERSION__`, `__STDC_HOSTED__`. (`__LINE__` and
/// `__FILE__` are replaced where they are expanded.)
fn predefined() -> HashMap<String, Macro> {
    let number = |v: u64, longs: u8| Macro {
        params: None,
        variadic: false,
        body: vec![Token {
            tok: Tok::Int(v, false, longs, true),
            loc: Loc::default(),
            line_start: false,
            space_before: true,
        }],
    };
    let mut macros = HashMap::default();
    macros.insert("__STDC__".to_string(), number(1, 0));
    macros.insert("__STDC_VERSION__".to_string(), number(201710, 1));
    macros.insert("__STDC_HOSTED__".to_string(), number(1, 0));
    macros
}

/// Preprocessor state: the file table and the macro table.
pub struct Preprocessor {
    /// Display names of the files read, indexed by [`Loc::file`].
    pub files: Vec<String>,
    macros: HashMap<String, Macro>,
    depth: u32,
    /// Folders searched for `#include "..."` after the including file's.
    include_dirs: Vec<PathBuf>,
    /// Most tokens the expansion may produce.
    max_tokens: usize,
    /// Tokens produced so far.
    produced: usize,
    /// Expansions in progress (of macro arguments inside a macro call).
    expanding: Cell<u32>,
    /// Steps of macro expansion so far.
    steps: Cell<u64>,
}

/// The macros a token came from (they are not expanded again in it).
type HideSet = Rc<Vec<Rc<str>>>;

impl Default for Preprocessor {
    fn default() -> Self {
        Self::new()
    }
}

impl Preprocessor {
    /// A preprocessor with no macros defined, the default limits and no
    /// include folders but the including file's.
    pub fn new() -> Preprocessor {
        Preprocessor::with(Vec::new(), crate::Limits::default().max_tokens)
    }

    /// A preprocessor that also looks for `#include "..."` files in
    /// `include_dirs` and produces at most `max_tokens` tokens.
    pub fn with(include_dirs: Vec<PathBuf>, max_tokens: usize) -> Preprocessor {
        Preprocessor {
            files: Vec::new(),
            macros: predefined(),
            depth: 0,
            include_dirs,
            max_tokens,
            produced: 0,
            expanding: Cell::new(0),
            steps: Cell::new(0),
        }
    }

    /// Preprocesses `src`, named `name`; `dir` is where `#include "..."` looks.
    pub fn run(&mut self, src: &str, name: &str, dir: Option<&Path>) -> DResult<Vec<Token>> {
        let file = self.files.len() as u32;
        self.files.push(name.to_string());
        let toks = lex(src, file)?;
        let mut out = Vec::new();
        self.process(toks, dir, &mut out)?;
        Ok(out)
    }

    fn process(
        &mut self,
        mut toks: Vec<Token>,
        dir: Option<&Path>,
        out: &mut Vec<Token>,
    ) -> DResult<()> {
        // (this group active, some branch already taken, parent active)
        let mut conds: Vec<(bool, bool, bool)> = Vec::new();
        let mut pending: Vec<Token> = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            if !(t.line_start && t.is("#")) {
                let active = conds.last().is_none_or(|c| c.0);
                if active {
                    pending.push(t.clone());
                }
                i += 1;
                continue;
            }
            // A directive: the tokens up to the end of the line.
            let hash_loc = t.loc;
            let mut j = i + 1;
            while j < toks.len() && !toks[j].line_start {
                j += 1;
            }
            let line: Vec<Token> = toks[i + 1..j].to_vec();
            i = j;
            let Some(name_tok) = line.first() else {
                continue;
            };
            let active = conds.last().is_none_or(|c| c.0);
            let name = match &name_tok.tok {
                Tok::Ident(s) => s.clone(),
                // `# 1 "file"` line markers
                Tok::Int(..) if active => {
                    renumber(&mut toks[i..], &line, hash_loc)?;
                    continue;
                }
                Tok::Int(..) => continue,
                _ => return err(name_tok.loc, "invalid preprocessing directive"),
            };
            match name.as_str() {
                "if" | "ifdef" | "ifndef" => {
                    let v = if !active {
                        false
                    } else if name == "if" {
                        self.eval_if(&line[1..], name_tok.loc)?
                    } else {
                        let Some(id) = line.get(1).and_then(|t| t.ident()) else {
                            return err(name_tok.loc, format!("#{name} needs a macro name"));
                        };
                        self.macros.contains_key(id) == (name == "ifdef")
                    };
                    conds.push((active && v, v, active));
                }
                "elif" => {
                    let Some(c) = conds.last().copied() else {
                        return err(name_tok.loc, "#elif without #if");
                    };
                    let v = c.2 && !c.1 && self.eval_if(&line[1..], name_tok.loc)?;
                    *conds.last_mut().unwrap_or(&mut (false, false, false)) = (v, c.1 || v, c.2);
                }
                "else" => {
                    let Some(c) = conds.last_mut() else {
                        return err(name_tok.loc, "#else without #if");
                    };
                    *c = (c.2 && !c.1, true, c.2);
                }
                "endif" => {
                    if conds.pop().is_none() {
                        return err(name_tok.loc, "#endif without #if");
                    }
                }
                _ if !active => {}
                "define" => self.define(&line[1..], name_tok.loc)?,
                "undef" => {
                    if let Some(id) = line.get(1).and_then(|t| t.ident()) {
                        self.macros.remove(id);
                    }
                }
                "include" => {
                    let expanded = self.expand(std::mem::take(&mut pending))?;
                    self.count(expanded.len(), hash_loc)?;
                    out.extend(expanded);
                    self.include(&line[1..], name_tok.loc, dir, out)?;
                }
                "error" => return err(hash_loc, format!("#error{}", message(&line[1..]))),
                "line" => {
                    let number = self.expand(line[1..].to_vec())?;
                    renumber(&mut toks[i..], &number, hash_loc)?;
                }
                "pragma" | "warning" | "ident" => {}
                _ => return err(name_tok.loc, format!("unknown directive #{name}")),
            }
        }
        if !conds.is_empty() {
            let loc = toks.last().map(|t| t.loc).unwrap_or_default();
            return err(loc, "unterminated #if");
        }
        let expanded = self.expand(pending)?;
        let loc = toks.last().map(|t| t.loc).unwrap_or_default();
        self.count(expanded.len(), loc)?;
        out.extend(expanded);
        Ok(())
    }

    /// Counts `n` more tokens produced, failing past the limit.
    fn count(&mut self, n: usize, loc: Loc) -> DResult<()> {
        self.produced += n;
        if self.produced > self.max_tokens {
            return err(
                loc,
                format!(
                    "the program expands to more than {} tokens",
                    self.max_tokens
                ),
            );
        }
        Ok(())
    }

    fn include(
        &mut self,
        line: &[Token],
        loc: Loc,
        dir: Option<&Path>,
        out: &mut Vec<Token>,
    ) -> DResult<()> {
        let (name, system) = match line.first().map(|t| &t.tok) {
            Some(Tok::Str(s, _)) => (s.clone(), false),
            Some(Tok::Punct("<")) => {
                let mut s = String::new();
                for t in &line[1..] {
                    if t.is(">") {
                        break;
                    }
                    s.push_str(&spell(t));
                }
                (s, true)
            }
            _ => return err(loc, "#include expects \"file\" or <file>"),
        };
        if self.depth > 64 {
            return err(loc, "#include nested too deeply");
        }
        if system {
            let Some(text) = builtin_header(&name) else {
                return err(
                    loc,
                    format!("unsupported system header <{name}> (built in: stdint.h, inttypes.h, stdbool.h, string.h, stddef.h, stdlib.h, limits.h, math.h)"),
                );
            };
            self.depth += 1;
            let file = self.files.len() as u32;
            self.files.push(format!("<{name}>"));
            let toks = lex(&text, file)?;
            self.process(toks, None, out)?;
            self.depth -= 1;
            return Ok(());
        }
        let text = match self.find_include(&name, dir) {
            Ok(Some((path, bytes))) => Some((path, bytes)),
            Ok(None) => None,
            Err(why) => return err(loc, format!("cannot include \"{name}\": {why}")),
        };
        let Some((path, bytes)) = text.or_else(|| {
            builtin_header(&name).map(|t| (PathBuf::from(format!("<{name}>")), t.into_bytes()))
        }) else {
            return err(loc, format!("cannot include \"{name}\": no such file"));
        };
        let file = self.files.len() as u32;
        self.files.push(path.display().to_string());
        let toks = lex(&utf8(bytes, file)?, file)?;
        let sub_dir = path.parent().map(|p| p.to_path_buf());
        self.depth += 1;
        self.process(toks, sub_dir.as_deref(), out)?;
        self.depth -= 1;
        Ok(())
    }

    /// Finds `#include "name"`: a relative path (`..` allowed, as in
    /// `"../common.h"`), looked up in `dir` (the including file's folder)
    /// and then in the include folders.
    /// Returns the path and the bytes of the first that exists, `None` if
    /// none does, or why the name or the file it names is refused.
    fn find_include(
        &self,
        name: &str,
        dir: Option<&Path>,
    ) -> Result<Option<(PathBuf, Vec<u8>)>, String> {
        use std::path::Component;
        let relative = Path::new(name);
        if name.is_empty()
            || !relative.components().all(|c| {
                matches!(
                    c,
                    Component::Normal(_) | Component::CurDir | Component::ParentDir
                )
            })
        {
            return Err(
                "only paths relative to the source's folder or an include folder may be included"
                    .into(),
            );
        }
        let here = dir.map_or_else(PathBuf::new, Path::to_path_buf);
        for folder in std::iter::once(&here).chain(&self.include_dirs) {
            let path = folder.join(relative);
            if std::fs::symlink_metadata(&path).is_ok() {
                return read_source(&path).map(|bytes| Some((path, bytes)));
            }
        }
        Ok(None)
    }

    fn define(&mut self, line: &[Token], loc: Loc) -> DResult<()> {
        let Some(name) = line.first().and_then(|t| t.ident()) else {
            return err(loc, "#define needs a macro name");
        };
        let mut k = 1;
        let mut params = None;
        let mut variadic = false;
        if line.get(1).is_some_and(|t| t.is("(") && !t.space_before) {
            let mut ps = Vec::new();
            k = 2;
            loop {
                let Some(t) = line.get(k) else {
                    return err(loc, "unterminated macro parameter list");
                };
                k += 1;
                if t.is(")") {
                    break;
                }
                if t.is(",") {
                    continue;
                }
                if t.is("...") {
                    variadic = true;
                    continue;
                }
                match t.ident() {
                    Some(p) => ps.push(p.to_string()),
                    None => return err(t.loc, "bad macro parameter"),
                }
            }
            params = Some(ps);
        }
        self.macros.insert(
            name.to_string(),
            Macro {
                params,
                variadic,
                body: line[k..].to_vec(),
            },
        );
        Ok(())
    }

    /// Macro-expands a token list (Prosser-style hide sets).
    fn expand(&self, toks: Vec<Token>) -> DResult<Vec<Token>> {
        self.expand_holding(toks, 0)
    }

    /// Macro-expands `toks` while the expansions it is nested in (of macro
    /// arguments inside a macro call) hold `held` tokens: all of them
    /// together hold at most `max_tokens`, arguments nest at most
    /// [`MAX_MACRO_NESTING`] deep, and every call takes its steps from one
    /// budget of `8 * max_tokens`.
    fn expand_holding(&self, toks: Vec<Token>, held: usize) -> DResult<Vec<Token>> {
        let depth = self.expanding.get();
        if depth >= MAX_MACRO_NESTING {
            let loc = toks.first().map(|t| t.loc).unwrap_or_default();
            return err(
                loc,
                format!(
                    "macro expansion does not end within {MAX_MACRO_NESTING} nested macro arguments"
                ),
            );
        }
        self.expanding.set(depth + 1);
        let result = self.expand_within(toks, held);
        self.expanding.set(depth);
        result
    }

    fn expand_within(&self, toks: Vec<Token>, held: usize) -> DResult<Vec<Token>> {
        let empty: HideSet = Rc::new(Vec::new());
        let mut q: VecDeque<(Token, HideSet)> =
            toks.into_iter().map(|t| (t, empty.clone())).collect();
        let mut out = Vec::new();
        while let Some((t, hs)) = q.pop_front() {
            self.steps.set(self.steps.get() + 1);
            if self.steps.get() > 8 * self.max_tokens as u64
                || held + q.len() + out.len() > self.max_tokens
            {
                return err(
                    t.loc,
                    format!(
                        "macro expansion does not end within {} tokens",
                        self.max_tokens
                    ),
                );
            }
            let Some(name) = t.ident() else {
                out.push(t);
                continue;
            };
            if hs.iter().any(|h| **h == *name) {
                out.push(t);
                continue;
            }
            let Some(m) = self.macros.get(name) else {
                let tok = match name {
                    "__LINE__" => Some(Tok::Int(u64::from(t.loc.line), false, 0, true)),
                    "__FILE__" => self.files.get(t.loc.file as usize).cloned().map(Tok::str),
                    _ => None,
                };
                out.push(match tok {
                    Some(tok) => Token { tok, ..t },
                    None => t,
                });
                continue;
            };
            let mut new_hs = (*hs).clone();
            new_hs.push(Rc::from(name));
            let new_hs = Rc::new(new_hs);
            let body = match &m.params {
                None => m.body.clone(),
                Some(params) => {
                    if !q.front().is_some_and(|(n, _)| n.is("(")) {
                        out.push(t);
                        continue;
                    }
                    q.pop_front();
                    let mut args: Vec<Vec<Token>> = vec![Vec::new()];
                    let mut depth = 0;
                    loop {
                        let Some((a, _)) = q.pop_front() else {
                            return err(t.loc, format!("unterminated call of macro '{name}'"));
                        };
                        if a.is("(") {
                            depth += 1;
                        } else if a.is(")") {
                            if depth == 0 {
                                break;
                            }
                            depth -= 1;
                        } else if a.is(",")
                            && depth == 0
                            && !(m.variadic && args.len() > params.len())
                        {
                            args.push(Vec::new());
                            continue;
                        }
                        if let Some(last) = args.last_mut() {
                            last.push(a);
                        }
                    }
                    if args.len() == 1 && args[0].is_empty() && params.is_empty() {
                        args.clear();
                    }
                    let want = params.len() + usize::from(m.variadic);
                    if m.variadic && args.len() == params.len() {
                        args.push(Vec::new());
                    }
                    if args.len() != want {
                        return err(
                            t.loc,
                            format!(
                                "macro '{name}' takes {} arguments, {} given",
                                want,
                                args.len()
                            ),
                        );
                    }
                    let held =
                        held + q.len() + out.len() + args.iter().map(Vec::len).sum::<usize>();
                    self.substitute(m, params, &args, t.loc, held)?
                }
            };
            for b in body.into_iter().rev() {
                let mut b = b;
                b.loc = t.loc;
                q.push_front((b, new_hs.clone()));
            }
        }
        Ok(out)
    }

    fn substitute(
        &self,
        m: &Macro,
        params: &[String],
        args: &[Vec<Token>],
        loc: Loc,
        held: usize,
    ) -> DResult<Vec<Token>> {
        let index = |t: &Token| -> Option<usize> {
            let id = t.ident()?;
            if id == "__VA_ARGS__" && m.variadic {
                return Some(params.len());
            }
            params.iter().position(|p| p == id)
        };
        let body = &m.body;
        let mut out: Vec<Token> = Vec::new();
        let mut k = 0;
        while k < body.len() {
            let t = &body[k];
            if t.is("#") {
                if let Some(p) = body.get(k + 1).and_then(index) {
                    let s: Vec<String> = args[p].iter().map(spell).collect();
                    out.push(Token {
                        tok: Tok::str(s.join(" ")),
                        loc,
                        line_start: false,
                        space_before: true,
                    });
                    k += 2;
                    continue;
                }
            }
            if t.is("##") {
                // Paste the previous output token with the next operand.
                let next: Vec<Token> = match body.get(k + 1) {
                    Some(n) => match index(n) {
                        Some(p) => args[p].clone(),
                        None => vec![n.clone()],
                    },
                    None => return err(loc, "'##' at the end of a macro"),
                };
                k += 2;
                let left = out.pop();
                let mut rest = next.into_iter();
                let first = rest.next();
                match (left, first) {
                    (Some(l), Some(r)) => {
                        let text = format!("{}{}", spell(&l), spell(&r));
                        let mut toks = lex(&text, loc.file).map_err(|_| {
                            diag(loc, format!("'##' forms an invalid token '{text}'"))
                        })?;
                        for tk in &mut toks {
                            tk.loc = loc;
                        }
                        out.extend(toks);
                    }
                    (Some(l), None) => out.push(l),
                    (None, Some(r)) => out.push(r),
                    (None, None) => {}
                }
                out.extend(rest);
                continue;
            }
            if let Some(p) = index(t) {
                let pasted = body.get(k + 1).is_some_and(|n| n.is("##"));
                if pasted {
                    out.extend(args[p].iter().cloned());
                } else {
                    out.extend(self.expand_holding(args[p].clone(), held + out.len())?);
                }
                k += 1;
                continue;
            }
            out.push(t.clone());
            k += 1;
        }
        Ok(out)
    }

    fn eval_if(&self, line: &[Token], loc: Loc) -> DResult<bool> {
        // Replace `defined X` / `defined(X)` first.
        let mut toks = Vec::new();
        let mut k = 0;
        while k < line.len() {
            if line[k].ident() == Some("defined") {
                let (name, skip) = if line.get(k + 1).is_some_and(|t| t.is("(")) {
                    (line.get(k + 2).and_then(|t| t.ident()), 4)
                } else {
                    (line.get(k + 1).and_then(|t| t.ident()), 2)
                };
                let Some(name) = name else {
                    return err(line[k].loc, "bad 'defined'");
                };
                let v = self.macros.contains_key(name);
                toks.push(Token {
                    tok: Tok::Int(v as u64, false, 0, true),
                    loc: line[k].loc,
                    line_start: false,
                    space_before: true,
                });
                k += skip;
                continue;
            }
            toks.push(line[k].clone());
            k += 1;
        }
        let toks = self.expand(toks)?;
        let mut p = IfEval {
            toks: &toks,
            pos: 0,
            loc,
            depth: 0,
        };
        let v = p.expr(0)?;
        if p.pos != toks.len() {
            return err(toks[p.pos].loc, "unexpected token in #if expression");
        }
        Ok(v != 0)
    }
}

/// Deepest nesting of macro calls in the arguments of macro calls.
const MAX_MACRO_NESTING: u32 = 1000;

/// Deepest nesting of parentheses and unary operators in an `#if`.
const MAX_IF_NESTING: usize = 256;

struct IfEval<'a> {
    toks: &'a [Token],
    pos: usize,
    loc: Loc,
    /// Unary operators and parentheses entered.
    depth: usize,
}

impl IfEval<'_> {
    fn peek_punct(&self) -> Option<&'static str> {
        match self.toks.get(self.pos).map(|t| &t.tok) {
            Some(Tok::Punct(p)) => Some(p),
            _ => None,
        }
    }

    fn here(&self) -> Loc {
        self.toks.get(self.pos).map(|t| t.loc).unwrap_or(self.loc)
    }

    /// Runs `rule` one level deeper, failing past [`MAX_IF_NESTING`].
    fn nested(&mut self, rule: impl FnOnce(&mut Self) -> DResult<i64>) -> DResult<i64> {
        if self.depth >= MAX_IF_NESTING {
            return err(
                self.here(),
                format!("#if expression nested more than {MAX_IF_NESTING} deep"),
            );
        }
        self.depth += 1;
        let v = rule(self);
        self.depth -= 1;
        v
    }

    fn unary(&mut self) -> DResult<i64> {
        self.nested(Self::operand)
    }

    fn operand(&mut self) -> DResult<i64> {
        let Some(t) = self.toks.get(self.pos) else {
            return err(self.loc, "incomplete #if expression");
        };
        self.pos += 1;
        match &t.tok {
            Tok::Int(v, ..) => Ok(*v as i64),
            Tok::Char(c, _) => Ok(*c),
            Tok::Ident(_) => Ok(0),
            Tok::Punct("(") => {
                let v = self.expr(0)?;
                if self.peek_punct() != Some(")") {
                    return err(self.here(), "expected ')' in #if expression");
                }
                self.pos += 1;
                Ok(v)
            }
            Tok::Punct("-") => Ok(self.unary()?.wrapping_neg()),
            Tok::Punct("+") => self.unary(),
            Tok::Punct("!") => Ok((self.unary()? == 0) as i64),
            Tok::Punct("~") => Ok(!self.unary()?),
            _ => err(t.loc, "bad token in #if expression"),
        }
    }

    fn expr(&mut self, min_prec: u8) -> DResult<i64> {
        self.nested(|p| p.binary(min_prec))
    }

    fn binary(&mut self, min_prec: u8) -> DResult<i64> {
        let mut lhs = self.unary()?;
        while let Some(op) = self.peek_punct() {
            if op == "?" {
                if min_prec > 1 {
                    break;
                }
                self.pos += 1;
                let a = self.expr(0)?;
                if self.peek_punct() != Some(":") {
                    return err(self.here(), "expected ':' in #if expression");
                }
                self.pos += 1;
                let b = self.expr(1)?;
                lhs = if lhs != 0 { a } else { b };
                continue;
            }
            let Some(prec) = binary_precedence(op) else {
                break;
            };
            if prec < min_prec.max(1) {
                break;
            }
            let loc = self.here();
            self.pos += 1;
            let rhs = self.expr(prec + 1)?;
            lhs = match op {
                "*" => lhs.wrapping_mul(rhs),
                "/" | "%" if rhs == 0 => return err(loc, "division by zero in #if"),
                "/" => lhs.wrapping_div(rhs),
                "%" => lhs.wrapping_rem(rhs),
                "+" => lhs.wrapping_add(rhs),
                "-" => lhs.wrapping_sub(rhs),
                "<<" => lhs.wrapping_shl(rhs as u32),
                ">>" => lhs.wrapping_shr(rhs as u32),
                "<" => (lhs < rhs) as i64,
                "<=" => (lhs <= rhs) as i64,
                ">" => (lhs > rhs) as i64,
                ">=" => (lhs >= rhs) as i64,
                "==" => (lhs == rhs) as i64,
                "!=" => (lhs != rhs) as i64,
                "&" => lhs & rhs,
                "^" => lhs ^ rhs,
                "|" => lhs | rhs,
                "&&" => (lhs != 0 && rhs != 0) as i64,
                _ => (lhs != 0 || rhs != 0) as i64,
            };
        }
        Ok(lhs)
    }
}

/// Tokens and file table, or an error and the file table.
pub type PResult = Result<(Vec<Token>, Vec<String>), (Diag, Vec<String>)>;

/// Preprocesses `src` and returns its tokens and the file table;
/// `#include "..."` looks in `dir`, then in `include_dirs`, and the output
/// is at most `max_tokens` tokens.
pub fn preprocess(
    src: &str,
    name: &str,
    dir: Option<&Path>,
    include_dirs: &[PathBuf],
    max_tokens: usize,
) -> PResult {
    let mut pp = Preprocessor::with(include_dirs.to_vec(), max_tokens);
    match pp.run(src, name, dir) {
        Ok(t) => Ok((t, pp.files)),
        Err(d) => Err((d, pp.files)),
    }
}
