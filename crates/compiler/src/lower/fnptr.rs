//! Function pointers. A function designator is a pointer into the
//! function table: an object of one byte per function the program defines
//! (nothing reads or writes it), function `k` at position `k`. Pointers
//! are public, so a call through one whose position is public is a direct
//! call. One whose position depends on a secret (`f = s > 0 ? add : mul`,
//! or `f` assigned in a secret branch: a secret index into the table, as
//! [`Lower::mux_pointer`] makes it) calls each candidate function under
//! the condition that it is the one, as `if (c) r = add(x, y); else r =
//! mul(x, y);` would: the side effects of each happen only under its
//! condition. A pointer that a secret leaves null or not (`f = NULL; if
//! (s) f = add;`) is null at the table's last position: `if (f)` tests
//! it, and a call through it calls one of the functions it may point to
//! (a call through null is undefined in C).

use super::*;
use crate::types::FunctionType;

/// The functions a pointer may point to, by their positions in the table.
pub(super) struct FunctionTable {
    /// The table's object (`usize::MAX` before it is made).
    obj: usize,
    /// The functions' names, by position (the program's definitions in
    /// order).
    names: Vec<String>,
}

impl Default for FunctionTable {
    fn default() -> FunctionTable {
        FunctionTable {
            obj: usize::MAX,
            names: Vec::new(),
        }
    }
}

/// The type of function `f` (what a pointer to it points to).
fn function_type(f: &Function) -> Arc<FunctionType> {
    Arc::new(FunctionType {
        ret: f.ret.clone(),
        params: Some(f.params.iter().map(|(_, t, _)| t.clone()).collect()),
    })
}

impl<'p> Lower<'p> {
    /// The pointers `p` and `q`, to be merged or compared, with a null
    /// one made the table's null position if the other points into the
    /// table (a function pointer that a secret leaves null or not); `None`
    /// where that changes nothing.
    pub(super) fn nullable_functions(&self, p: &Ptr, q: &Ptr) -> Option<(Ptr, Ptr)> {
        let table = &self.function_table;
        let null = || Ptr::new(table.obj, table.names.len() as i64, Vec::new());
        match (p.obj, q.obj) {
            (usize::MAX, o) if o == table.obj => Some((null(), q.clone())),
            (o, usize::MAX) if o == table.obj => Some((p.clone(), null())),
            _ => None,
        }
    }

    /// Whether pointer `p` is not null, as a bit: a secret one for a
    /// function pointer that a secret leaves null or not.
    pub(super) fn pointer_truth(&mut self, p: &Ptr, loc: Loc) -> DResult<Bit> {
        let table = &self.function_table;
        let null = table.names.len() as u64;
        if p.obj != table.obj || p.sec.is_empty() {
            let null_in_table = p.obj == table.obj && p.leaf as u64 == null;
            return Ok(Bit::Const(p.obj != usize::MAX && !null_in_table));
        }
        let position = self.distance(p, 0, 1, loc)?;
        let is_null = self.word_eq(&position, &Word::konst(null, 64));
        Ok(self.b.not(is_null))
    }

    /// Makes the function table of the program's functions.
    pub(super) fn make_function_table(&mut self, prog: &'p Program) -> DResult<()> {
        let names: Vec<String> = prog.functions.iter().map(|f| f.name.clone()).collect();
        let byte = CType::Int {
            bits: 8,
            signed: false,
        };
        // (Its last position, past the functions, is a null pointer's
        // where a secret leaves one null or not.)
        let ty = CType::Array(Arc::new(byte), names.len() as u32 + 1);
        let obj = self.new_object(&ty, Loc::default())?;
        self.function_table = FunctionTable { obj, names };
        Ok(())
    }

    /// Whether `name` is a variable in scope (which hides a function of
    /// that name).
    fn is_variable(&self, name: &str) -> bool {
        self.frame().names.get(name).is_some() || self.global(name).is_some()
    }

    /// The function `name` names where it is used, if it names one (no
    /// variable hides it).
    fn named_function(&self, name: &str) -> Option<&'p Function> {
        match self.funcs.get(name) {
            Some(f) if !self.is_variable(name) => Some(*f),
            _ => None,
        }
    }

    /// The value of `e` if it is one only function pointers have: a
    /// function's name (a pointer to it), `&f`, or a call `f(x)` through
    /// a variable `f`.
    pub(super) fn function_value(&mut self, e: &Expr) -> Option<DResult<Val>> {
        match &e.kind {
            ExprKind::Ident(n) => {
                let f = self.named_function(n)?;
                Some(self.function_pointer(f, e.loc))
            }
            ExprKind::Unary(UnOp::Addr, a) => match &a.kind {
                ExprKind::Ident(n) => {
                    let f = self.named_function(n)?;
                    Some(self.function_pointer(f, a.loc))
                }
                _ => None,
            },
            ExprKind::Call(name, args) if self.is_variable(name) => {
                let callee = Expr {
                    kind: ExprKind::Ident(name.clone()),
                    loc: e.loc,
                };
                Some(self.call_pointer(&callee, args, e.loc))
            }
            _ => None,
        }
    }

    /// The type of `e` if only function pointers give it one (see
    /// [`Lower::function_value`]): a function's name is of its function
    /// type; a call through a variable of what the function returns.
    pub(super) fn function_value_type(&mut self, e: &Expr) -> Option<DResult<CType>> {
        match &e.kind {
            ExprKind::Ident(n) => {
                let f = self.named_function(n)?;
                Some(Ok(CType::Function(function_type(f))))
            }
            ExprKind::Call(name, _) if self.is_variable(name) => {
                let (_, t) = self.lookup(name)?;
                Some(returned(t, e.loc))
            }
            _ => None,
        }
    }

    /// The type of a call through `callee` (`(*f)(x)`, `ops[i](x)`).
    pub(super) fn call_pointer_type(&mut self, callee: &Expr) -> DResult<CType> {
        let t = self.static_type(callee)?;
        returned(t, callee.loc)
    }

    /// The pointer to `f`.
    fn function_pointer(&mut self, f: &Function, loc: Loc) -> DResult<Val> {
        let table = &self.function_table;
        let Some(k) = table.names.iter().position(|n| *n == f.name) else {
            return err(loc, format!("'{}' has no address", f.name));
        };
        let p = Ptr::new(table.obj, k as i64, Vec::new());
        Ok(Val::Ptr(CType::Function(function_type(f)), p))
    }

    /// A designator of the function at `p` (`*f`): the pointer itself.
    pub(super) fn function_at(p: Place) -> Val {
        let ptr = Ptr {
            terms: p.terms,
            ..Ptr::new(p.obj, p.leaf, p.sec)
        };
        Val::Ptr(p.ty, ptr)
    }

    /// A call through the function pointer `callee` (`*` of it as often
    /// as written) with `args`.
    pub(super) fn call_pointer(&mut self, callee: &Expr, args: &[Expr], loc: Loc) -> DResult<Val> {
        let mut target = callee;
        while let ExprKind::Unary(UnOp::Deref, inner) = &target.kind {
            target = inner;
        }
        let pointer = self.eval(target)?;
        let vals = self.arguments(args)?;
        self.call_through(pointer, vals, callee.loc, loc)
    }

    /// Calls the function `pointer` points to (given at `at`) on the
    /// arguments' values `vals`: directly if its target is public, else
    /// each candidate under its condition.
    pub(super) fn call_through(
        &mut self,
        pointer: Val,
        vals: Vec<(Val, Loc)>,
        at: Loc,
        loc: Loc,
    ) -> DResult<Val> {
        let Val::Ptr(CType::Function(ty), p) = pointer else {
            return Err(not_a_function(at));
        };
        if self.pointer_truth(&p, at)? == Bit::Const(false) {
            return err(
                at,
                "call through a null function pointer (or one never assigned)",
            );
        }
        if p.obj != self.function_table.obj {
            return err(
                at,
                "call through a pointer that does not point to a function",
            );
        }
        if let Some(n) = ty.params.as_ref().map(Vec::len) {
            if n != vals.len() {
                return err(
                    loc,
                    format!(
                        "the function pointer's type takes {n} arguments, {} given",
                        vals.len()
                    ),
                );
            }
        }
        let candidates = self.candidates(&p, vals.len(), at)?;
        if let [(_, f)] = candidates[..] {
            return self.call_returning(f, vals, &ty.ret, loc);
        }
        // The secret position, compared with each candidate's.
        let position = self.distance(&p, 0, 1, loc)?;
        let mut conditions = Vec::with_capacity(candidates.len());
        for (k, f) in candidates {
            let c = self.word_eq(&position, &Word::konst(k as u64, 64));
            if c != Bit::Const(false) {
                conditions.push((c, f));
            }
        }
        self.call_one_of(&conditions, &vals, &ty.ret, loc)
    }

    /// The functions a pointer `p` into the table may point to, with
    /// their positions: every position its secret index terms reach, but
    /// those of functions that do not take `args` arguments (which no
    /// pointer of its type would hold).
    fn candidates(&self, p: &Ptr, args: usize, loc: Loc) -> DResult<Vec<(usize, &'p Function)>> {
        let n = self.function_table.names.len() as i64;
        let mut positions = vec![p.leaf];
        for s in &p.sec {
            positions = positions
                .iter()
                .flat_map(|&at| (0..s.count as i64).map(move |i| at + i * s.stride as i64))
                .filter(|at| (0..n).contains(at))
                .collect();
            positions.sort_unstable();
            positions.dedup();
        }
        let function = |k: i64| {
            let name = usize::try_from(k)
                .ok()
                .and_then(|k| self.function_table.names.get(k))?;
            self.funcs.get(name).map(|f| (k as usize, *f))
        };
        if let ([k], true) = (&positions[..], p.sec.is_empty()) {
            let Some((k, f)) = function(*k) else {
                return err(
                    loc,
                    "call through a pointer that does not point to a function",
                );
            };
            if f.params.len() != args {
                return err(
                    loc,
                    format!(
                        "'{}' takes {} arguments, {args} given (called through a pointer)",
                        f.name,
                        f.params.len()
                    ),
                );
            }
            return Ok(vec![(k, f)]);
        }
        let found: Vec<(usize, &Function)> = positions
            .into_iter()
            .filter_map(function)
            .filter(|(_, f)| f.params.len() == args)
            .collect();
        if found.is_empty() {
            return err(
                loc,
                "no function this pointer may point to takes these arguments",
            );
        }
        Ok(found)
    }

    /// Calls `f` on `vals`, its result converted to `ret` (the pointer's
    /// function type's).
    fn call_returning(
        &mut self,
        f: &'p Function,
        vals: Vec<(Val, Loc)>,
        ret: &CType,
        loc: Loc,
    ) -> DResult<Val> {
        let r = self.invoke(f, vals, loc)?;
        match ret {
            CType::Void => Ok(Val::Void),
            t => self.convert(r, t, loc),
        }
    }

    /// Calls the first of `candidates` whose condition holds (the last if
    /// none of the others' does), each under its condition.
    fn call_one_of(
        &mut self,
        candidates: &[(Bit, &'p Function)],
        vals: &[(Val, Loc)],
        ret: &CType,
        loc: Loc,
    ) -> DResult<Val> {
        match candidates {
            [] => err(loc, "no function this pointer may point to"),
            [(_, f)] | [(Bit::Const(true), f), ..] => {
                self.call_returning(f, vals.to_vec(), ret, loc)
            }
            [(c, f), rest @ ..] => {
                let (t, e) = self.fork(
                    *c,
                    loc,
                    |me| me.call_returning(f, vals.to_vec(), ret, loc),
                    |me| me.call_one_of(rest, vals, ret, loc),
                )?;
                self.select(*c, t, e, loc)
            }
        }
    }
}

/// What a call through a value of type `t` (at `loc`) returns.
fn returned(t: CType, loc: Loc) -> DResult<CType> {
    match t {
        CType::Function(f) => Ok(f.ret.clone()),
        t => match t.pointed_function() {
            Some(f) => Ok(f.ret.clone()),
            None => Err(not_a_function(loc)),
        },
    }
}

/// The error of a call of something that is no function.
fn not_a_function(loc: Loc) -> crate::error::Diag {
    diag(loc, "called object is not a function or a function pointer")
}
