//! The C preprocessor: `#include` (with built-in standard headers),
//! `#define` (object- and function-like, `#`, `##`, `__VA_ARGS__`,
//! `__VA_OPT__`),
//! `#undef`, and conditional compilation (`#if`, `#ifdef`, `#elif`, ...).

use std::cell::Cell;
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::error::{diag, err, DResult, Diag, Loc};
use crate::lexer::{lex, Tok, Token};

mod condition;
mod headers;
mod libc;
pub use libc::headers_called;
mod lines;
mod pack;
pub use pack::PACK_MARKER;
mod predefined;
mod source;
pub use source::{read_source, utf8, MAX_SOURCE_BYTES};
mod spelling;
mod variadic;
use headers::builtin_header;
use lines::renumber;
use spelling::{message, spell, stringify};

#[derive(Clone)]
struct Macro {
    params: Option<Vec<String>>,
    variadic: bool,
    body: Vec<Token>,
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
    /// Expanding an `#if` line: a `defined` a macro makes keeps its
    /// operand unexpanded, as gcc has it.
    in_if: Cell<bool>,
    /// The next value of `__COUNTER__`.
    counter: Cell<u64>,
    /// What `#pragma pack` has set.
    packing: pack::Packing,
}

/// The macros a token came from (they are not expanded again in it).
type HideSet = Rc<Vec<Rc<str>>>;

/// A token with the names of the macros it may not expand.
type Hidden = (Token, HideSet);

/// `hs` with `name` too.
fn with(hs: &HideSet, name: &str) -> HideSet {
    let mut more = (**hs).clone();
    more.push(Rc::from(name));
    Rc::new(more)
}

/// The names of `a` and of `b`.
fn union(a: &HideSet, b: &HideSet) -> HideSet {
    if a.is_empty() {
        return b.clone();
    }
    let mut both = (**b).clone();
    both.extend(a.iter().filter(|h| !b.contains(h)).cloned());
    Rc::new(both)
}

impl Default for Preprocessor {
    fn default() -> Self {
        Self::new()
    }
}

impl Preprocessor {
    /// A preprocessor with only the predefined macros defined, the default limits and no
    /// include folders but the including file's.
    pub fn new() -> Preprocessor {
        Preprocessor::with(Vec::new(), crate::Limits::default().max_tokens)
    }

    /// A preprocessor that also looks for `#include "..."` files in
    /// `include_dirs` and produces at most `max_tokens` tokens.
    pub fn with(include_dirs: Vec<PathBuf>, max_tokens: usize) -> Preprocessor {
        let mut pp = Preprocessor {
            files: Vec::new(),
            macros: HashMap::default(),
            depth: 0,
            include_dirs,
            max_tokens,
            produced: 0,
            expanding: Cell::new(0),
            steps: Cell::new(0),
            in_if: Cell::new(false),
            counter: Cell::new(0),
            packing: pack::Packing::default(),
        };
        for line in predefined::definitions(0) {
            pp.define(&line, Loc::default())
                .expect("the predefined macros are well formed");
        }
        pp
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
                    renumber(&mut toks[i..], &line, hash_loc, &mut self.files)?;
                    continue;
                }
                Tok::Int(..) => continue,
                _ => return err(name_tok.loc, "invalid preprocessing directive"),
            };
            match name.as_str() {
                "if" | "ifdef" | "ifndef" => {
                    let v = active && self.condition(&line, name_tok.loc, dir)?;
                    conds.push((v, v, active));
                }
                "elif" | "elifdef" | "elifndef" => {
                    let Some(c) = conds.last().copied() else {
                        return err(name_tok.loc, format!("#{name} without #if"));
                    };
                    let v = c.2 && !c.1 && self.condition(&line, name_tok.loc, dir)?;
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
                // (The text before a directive that changes the macros is
                // expanded with the macros as they were there.)
                "define" => {
                    self.flush(&mut pending, hash_loc, out)?;
                    self.define(&line[1..], name_tok.loc)?;
                }
                "undef" => {
                    self.flush(&mut pending, hash_loc, out)?;
                    if let Some(id) = line.get(1).and_then(|t| t.ident()) {
                        self.macros.remove(id);
                    }
                }
                "include" => {
                    self.flush(&mut pending, hash_loc, out)?;
                    self.include(&line[1..], name_tok.loc, dir, out)?;
                }
                "error" => return err(hash_loc, format!("#error{}", message(&line[1..]))),
                "line" => {
                    let number = self.expand(line[1..].to_vec())?;
                    renumber(&mut toks[i..], &number, hash_loc, &mut self.files)?;
                }
                "pragma" if line.get(1).is_some_and(|t| t.ident() == Some("pack")) => {
                    self.flush(&mut pending, hash_loc, out)?;
                    out.extend(self.packing.pragma(&line[2..], hash_loc));
                }
                "pragma" | "warning" | "ident" => {}
                _ => return err(name_tok.loc, format!("unknown directive #{name}")),
            }
        }
        if !conds.is_empty() {
            let loc = toks.last().map(|t| t.loc).unwrap_or_default();
            return err(loc, "unterminated #if");
        }
        let loc = toks.last().map(|t| t.loc).unwrap_or_default();
        self.flush(&mut pending, loc, out)
    }

    /// Expands the text `pending` and moves it to `out`.
    fn flush(&mut self, pending: &mut Vec<Token>, loc: Loc, out: &mut Vec<Token>) -> DResult<()> {
        let mut expanded = self.expand(std::mem::take(pending))?;
        constants(&expanded)?;
        self.packing.pragma_operators(&mut expanded)?;
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
        // A computed `#include NAME`: the line's macros expanded (C11
        // 6.10.2p4) must give one of the forms below.
        if line.first().is_some_and(|t| t.ident().is_some()) {
            let expanded = self.expand(line.to_vec())?;
            if expanded.first().is_some_and(|t| t.ident().is_none()) {
                return self.include(&expanded, loc, dir, out);
            }
        }
        let Some((name, system, _)) = header_name(line) else {
            return err(loc, "#include expects \"file\" or <file>");
        };
        if self.depth > 64 {
            return err(loc, "#include nested too deeply");
        }
        if system {
            let Some(text) = builtin_header(&name) else {
                return err(
                    loc,
                    format!("unsupported system header <{name}> (built in: stdint.h, inttypes.h, stdbool.h, string.h, stddef.h, stdlib.h, limits.h, math.h, float.h, ctype.h, iso646.h)"),
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
        // GNU's named variadic parameter (`args...`), read as `__VA_ARGS__`.
        let mut named_rest = None;
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
                    if line[k - 2].ident().is_some() {
                        named_rest = ps.pop();
                    }
                    continue;
                }
                match t.ident() {
                    Some(p) => ps.push(p.to_string()),
                    None => return err(t.loc, "bad macro parameter"),
                }
            }
            params = Some(ps);
        }
        let mut body = line[k..].to_vec();
        if let Some(rest) = named_rest {
            for t in &mut body {
                if t.ident() == Some(rest.as_str()) {
                    t.tok = Tok::Ident("__VA_ARGS__".into());
                }
            }
        }
        self.macros.insert(
            name.to_string(),
            Macro {
                params,
                variadic,
                body,
            },
        );
        Ok(())
    }

    /// Macro-expands a token list (Prosser-style hide sets).
    fn expand(&self, toks: Vec<Token>) -> DResult<Vec<Token>> {
        let empty: HideSet = Rc::new(Vec::new());
        let toks = toks.into_iter().map(|t| (t, empty.clone())).collect();
        let out = self.expand_holding(toks, 0)?;
        Ok(out.into_iter().map(|(t, _)| t).collect())
    }

    /// Macro-expands `toks` while the expansions it is nested in (of macro
    /// arguments inside a macro call) hold `held` tokens: all of them
    /// together hold at most `max_tokens`, arguments nest at most
    /// [`MAX_MACRO_NESTING`] deep, and every call takes its steps from one
    /// budget of `8 * max_tokens`.
    fn expand_holding(&self, toks: Vec<Hidden>, held: usize) -> DResult<Vec<Hidden>> {
        let depth = self.expanding.get();
        if depth >= MAX_MACRO_NESTING {
            let loc = toks.first().map(|(t, _)| t.loc).unwrap_or_default();
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

    fn expand_within(&self, toks: Vec<Hidden>, held: usize) -> DResult<Vec<Hidden>> {
        let mut q: VecDeque<Hidden> = toks.into();
        let mut out: Vec<Hidden> = Vec::new();
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
                out.push((t, hs));
                continue;
            };
            if name == "defined" && self.in_if.get() {
                let n = if q.front().is_some_and(|(n, _)| n.is("(")) {
                    3
                } else {
                    1
                };
                out.push((t, hs));
                out.extend(q.drain(..n.min(q.len())));
                continue;
            }
            if hs.iter().any(|h| **h == *name) {
                out.push((t, hs));
                continue;
            }
            let Some(m) = self.macros.get(name) else {
                let tok = match name {
                    "__LINE__" => Some(Tok::Int(u64::from(t.loc.line), false, 0, true)),
                    "__FILE__" => self.files.get(t.loc.file as usize).cloned().map(Tok::str),
                    "__COUNTER__" => {
                        let n = self.counter.get();
                        self.counter.set(n + 1);
                        Some(Tok::Int(n, false, 0, true))
                    }
                    _ => None,
                };
                out.push((
                    match tok {
                        Some(tok) => Token { tok, ..t },
                        None => t,
                    },
                    hs,
                ));
                continue;
            };
            let (body, new_hs) = match &m.params {
                None => {
                    // `##` pastes in an object-like macro too (`# ## #`).
                    let body = match m.body.iter().any(|b| b.is("##")) {
                        true => self.substitute(
                            &m.body,
                            false,
                            &[],
                            &[],
                            t.loc,
                            held + q.len() + out.len(),
                        )?,
                        false => m.body.iter().map(|b| (b.clone(), hs.clone())).collect(),
                    };
                    (body, with(&hs, name))
                }
                Some(params) => {
                    if !q.front().is_some_and(|(n, _)| n.is("(")) {
                        out.push((t, hs));
                        continue;
                    }
                    q.pop_front();
                    let mut args: Vec<Vec<Hidden>> = vec![Vec::new()];
                    let mut depth = 0;
                    // (The call's hide set: the name's and the closing
                    // parenthesis's, as gcc and Prosser's algorithm have
                    // it.)
                    let closing = loop {
                        let Some((a, a_hs)) = q.pop_front() else {
                            return err(t.loc, format!("unterminated call of macro '{name}'"));
                        };
                        if a.is("(") {
                            depth += 1;
                        } else if a.is(")") {
                            if depth == 0 {
                                break a_hs;
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
                            last.push((a, a_hs));
                        }
                    };
                    if args.len() == 1 && args[0].is_empty() && params.is_empty() {
                        args.clear();
                    }
                    let want = params.len() + usize::from(m.variadic);
                    let omitted = m.variadic && args.len() == params.len();
                    if omitted {
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
                    let pasted;
                    let body: &[Token] = match omitted {
                        true => {
                            pasted = variadic::without_comma_pastes(&m.body);
                            &pasted
                        }
                        false => &m.body,
                    };
                    let body = self.substitute(body, m.variadic, params, &args, t.loc, held)?;
                    let both: Vec<Rc<str>> = (hs.iter())
                        .filter(|h| closing.contains(h))
                        .cloned()
                        .collect();
                    (body, with(&Rc::new(both), name))
                }
            };
            // The expansion is spaced as the macro's name is (for `#`).
            for (k, (mut b, b_hs)) in body.into_iter().enumerate().rev() {
                b.loc = t.loc;
                if k == 0 {
                    b.space_before = t.space_before;
                }
                q.push_front((b, union(&b_hs, &new_hs)));
            }
        }
        Ok(out)
    }

    /// The body (or part of it, `body`) of a call of a macro with `args`
    /// in place of its `params` (and, if `variadic`, the last of `args` in
    /// place of `__VA_ARGS__`), each token with the hide set of its own
    /// (an argument's, as it expanded; none for the body's and for the
    /// tokens `#` and `##` make).
    fn substitute(
        &self,
        body: &[Token],
        variadic: bool,
        params: &[String],
        args: &[Vec<Hidden>],
        loc: Loc,
        held: usize,
    ) -> DResult<Vec<Hidden>> {
        let index = |t: &Token| -> Option<usize> {
            let id = t.ident()?;
            if id == "__VA_ARGS__" && variadic {
                return Some(params.len());
            }
            params.iter().position(|p| p == id)
        };
        let none: HideSet = Rc::new(Vec::new());
        let mut out: Vec<Hidden> = Vec::new();
        let mut k = 0;
        while k < body.len() {
            let t = &body[k];
            if variadic && variadic::is_va_opt(t) {
                let (group, after) = self.va_opt(body, k, params, args, loc, held + out.len())?;
                out.extend(group);
                k = after;
                continue;
            }
            if t.is("#") {
                if let Some(p) = body.get(k + 1).and_then(index) {
                    let arg: Vec<&Token> = args[p].iter().map(|(a, _)| a).collect();
                    let s = stringify(&arg);
                    // (Read as the literal `"s"` would be: escapes resolved.)
                    let quoted = format!("\"{s}\"");
                    let tok = match lex(&quoted, loc.file)?.pop() {
                        Some(Token {
                            tok: tok @ Tok::Str(..),
                            ..
                        }) => tok,
                        _ => Tok::str(s),
                    };
                    let string = Token {
                        tok,
                        loc,
                        line_start: false,
                        space_before: true,
                        text: Some(Rc::from(quoted.as_str())),
                    };
                    out.push((string, none.clone()));
                    k += 2;
                    continue;
                }
            }
            if t.is("##") {
                // Paste the previous output token with the next operand.
                let (next, after) = match body.get(k + 1) {
                    Some(n) if variadic && variadic::is_va_opt(n) => {
                        self.va_opt(body, k + 1, params, args, loc, held + out.len())?
                    }
                    Some(n) => match index(n) {
                        Some(p) => (args[p].clone(), k + 2),
                        None => (vec![(n.clone(), none.clone())], k + 2),
                    },
                    None => return err(loc, "'##' at the end of a macro"),
                };
                k = after;
                let left = out.pop();
                let mut rest = next.into_iter();
                let first = rest.next();
                match (left, first) {
                    (Some((l, _)), Some((r, _))) => {
                        let text = format!("{}{}", spell(&l), spell(&r));
                        let mut toks = lex(&text, loc.file).map_err(|_| {
                            diag(loc, format!("'##' forms an invalid token '{text}'"))
                        })?;
                        for tk in &mut toks {
                            tk.loc = loc;
                        }
                        out.extend(toks.into_iter().map(|tk| (tk, none.clone())));
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
                let from = out.len();
                if pasted {
                    out.extend(args[p].iter().cloned());
                } else {
                    out.extend(self.expand_holding(args[p].clone(), held + out.len())?);
                }
                // The argument is spaced as its parameter is (for `#`).
                if let Some((first, _)) = out.get_mut(from) {
                    first.space_before = t.space_before;
                }
                k += 1;
                continue;
            }
            out.push((t.clone(), none.clone()));
            k += 1;
        }
        Ok(out)
    }

    /// The replacement of the `__VA_OPT__(...)` at `body[k]` of a call
    /// (see [`Self::substitute`]): what is in its parentheses if the
    /// variable arguments expand to some tokens, else nothing (C23
    /// 6.10.5.2, as gcc has it); and the index after it.
    fn va_opt(
        &self,
        body: &[Token],
        k: usize,
        params: &[String],
        args: &[Vec<Hidden>],
        loc: Loc,
        held: usize,
    ) -> DResult<(Vec<Hidden>, usize)> {
        let (group, after) = variadic::va_opt_group(body, k, loc)?;
        let present = !(self.expand_holding(args[params.len()].clone(), held)?).is_empty();
        let replaced = match present {
            true => self.substitute(group, true, params, args, loc, held)?,
            false => Vec::new(),
        };
        Ok((replaced, after))
    }
}

/// Refuses a preprocessing number left in `toks` that is no constant,
/// with the lexer's reason (`0x` pasted to nothing, `1e`, `1.0L`), and a
/// stray character or quote.
fn constants(toks: &[Token]) -> DResult<()> {
    for t in toks {
        if let Tok::PpNumber(text) = &t.tok {
            crate::lexer::number(text, t.loc)?;
            return err(t.loc, format!("invalid integer constant '{text}'"));
        }
        if let Tok::Stray(_, why) = &t.tok {
            return err(t.loc, why.clone());
        }
    }
    Ok(())
}

/// Deepest nesting of macro calls in the arguments of macro calls.
const MAX_MACRO_NESTING: u32 = 1000;

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

/// The header a line names (`"file"` or `<file>`, from its first token):
/// its name, whether it is a system header (`<...>`), and how many tokens
/// name it.
fn header_name(line: &[Token]) -> Option<(String, bool, usize)> {
    match &line.first()?.tok {
        Tok::Str(s, _) => Some((s.clone(), false, 1)),
        Tok::Punct("<") => {
            let end = line.iter().position(|t| t.is(">"))?;
            let name = line[1..end].iter().map(spell).collect();
            Some((name, true, end + 1))
        }
        _ => None,
    }
}
