//! Lowering: runs the program symbolically over public constants and
//! secret bits, inlining calls and unrolling loops, and builds the circuit.
//!
//! Public values are computed at compile time. A branch on a secret
//! condition runs both sides and merges every location either side wrote
//! with a multiplexer (a journal records the old values). `return`,
//! `break` and `continue` under a secret condition set flags, and later
//! statements run guarded by them. A read at a secret index is a mux tree,
//! a write at a secret index a decoder with one write enable per element.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use twofold_circuit::{Bit, Builder, Party};

use crate::ast::*;
use crate::error::{diag, err, DResult, Loc};
use crate::gates::{self, Bits};
use crate::parser::const_eval;
use crate::types::{CType, Scalar};
use crate::value::{mux_word, Ptr, SecIdx, Slot, Val, Word};
use crate::CompileOptions;

/// Iterations of a loop with a secret exit condition allowed without
/// `--unwind`.
pub const DEFAULT_SECRET_ITERATIONS: u32 = 1024;
const MAX_ITERATIONS: u64 = 50_000_000;
const MAX_CALL_DEPTH: usize = 1000;
const MAX_LEAVES: usize = 1 << 26;

struct Object {
    ty: CType,
    leaf_tys: Rc<Vec<CType>>,
    slots: Vec<Slot>,
}

type Scope = HashMap<String, (usize, CType)>;

struct Frame {
    scopes: Vec<Scope>,
    ctl: usize,
    ret: Option<(usize, CType)>,
    loops: u32,
    switches: u32,
    entry: bool,
    func: String,
}

struct Level {
    start: usize,
    saved: BTreeMap<(usize, usize), Slot>,
}

const RET: usize = 0;
const BRK: usize = 1;
const CONT: usize = 2;
const SKIP: usize = 3;

/// A location: object, public leaf offset, secret index terms, type.
#[derive(Clone)]
struct Place {
    obj: usize,
    leaf: i64,
    sec: Vec<SecIdx>,
    ty: CType,
}

/// The result of lowering: the builder and the I/O description.
pub struct Lowered {
    /// The circuit builder with inputs and outputs declared.
    pub builder: Builder,
    /// Inputs: name and type, in circuit order.
    pub inputs: Vec<(String, CType)>,
    /// Outputs: name and type, in circuit order.
    pub outputs: Vec<(String, CType)>,
}

/// Lowers a parsed program.
pub fn lower(prog: &Program, opts: &CompileOptions) -> DResult<Lowered> {
    let mut l = Lower {
        funcs: prog.functions.iter().map(|f| (f.name.clone(), f)).collect(),
        b: Builder::new(),
        objs: Vec::new(),
        globals: HashMap::new(),
        frames: Vec::new(),
        journal: Vec::new(),
        opts,
        inputs: Vec::new(),
        outputs: Vec::new(),
        output_objs: Vec::new(),
        secret_depth: 0,
        merged: HashMap::new(),
        by_sel: HashMap::new(),
        implied: HashMap::new(),
    };
    l.run(prog)?;
    Ok(Lowered {
        builder: l.b,
        inputs: l.inputs,
        outputs: l.outputs,
    })
}

struct Lower<'p> {
    funcs: HashMap<String, &'p Function>,
    b: Builder,
    objs: Vec<Object>,
    globals: Scope,
    frames: Vec<Frame>,
    journal: Vec<Level>,
    opts: &'p CompileOptions,
    inputs: Vec<(String, CType)>,
    outputs: Vec<(String, CType)>,
    output_objs: Vec<(String, usize, CType, Loc)>,
    secret_depth: usize,
    /// Locations holding a merge `sel ? t : e`: (sel, t, e, merged value).
    merged: HashMap<(usize, usize), (Bit, Slot, Slot, Slot)>,
    /// The locations of `merged` by selector.
    by_sel: HashMap<Bit, Vec<(usize, usize)>>,
    /// "Still running" conditions and an earlier one each implies.
    implied: HashMap<Bit, Bit>,
}

fn is_io(name: &str) -> bool {
    matches!(
        name,
        "printf"
            | "scanf"
            | "puts"
            | "putchar"
            | "getchar"
            | "fprintf"
            | "sprintf"
            | "snprintf"
            | "fscanf"
            | "sscanf"
            | "fopen"
            | "fclose"
            | "fread"
            | "fwrite"
            | "gets"
            | "fgets"
            | "fputs"
            | "perror"
            | "exit"
            | "abort"
            | "assert"
            | "rand"
            | "srand"
            | "time"
    )
}

impl<'p> Lower<'p> {
    // ----- objects, slots and the journal --------------------------------

    fn new_object(&mut self, ty: &CType, loc: Loc) -> DResult<usize> {
        let n = ty.leaves();
        if n > MAX_LEAVES {
            return err(loc, format!("object of type {} is too large", ty.name()));
        }
        let mut tys = Vec::with_capacity(n);
        ty.leaf_types(&mut tys);
        let slots = tys.iter().map(zero_slot).collect();
        self.objs.push(Object {
            ty: ty.clone(),
            leaf_tys: Rc::new(tys),
            slots,
        });
        Ok(self.objs.len() - 1)
    }

    fn slot(&self, obj: usize, leaf: usize) -> Slot {
        self.objs[obj].slots[leaf].clone()
    }

    fn write_slot(&mut self, obj: usize, leaf: usize, s: Slot) {
        if let Some(level) = self.journal.last_mut() {
            if obj < level.start {
                let old = &self.objs[obj].slots[leaf];
                level
                    .saved
                    .entry((obj, leaf))
                    .or_insert_with(|| old.clone());
            }
        }
        self.objs[obj].slots[leaf] = s;
    }

    fn flag(&mut self, which: usize) -> Bit {
        let ctl = self.frame().ctl;
        match self.objs[ctl].slots[which].clone() {
            Slot::Val(w) => w.bits(&mut self.b)[0],
            Slot::Ptr(_) => Bit::Const(false),
        }
    }

    fn set_flag(&mut self, which: usize, v: Bit) {
        let ctl = self.frame().ctl;
        self.write_slot(ctl, which, Slot::Val(Word::from_bits(vec![v])));
    }

    fn frame(&self) -> &Frame {
        self.frames
            .last()
            .expect("a frame is active during lowering")
    }

    fn frame_mut(&mut self) -> &mut Frame {
        self.frames
            .last_mut()
            .expect("a frame is active during lowering")
    }

    /// Whether execution continues on this path: no return, break,
    /// continue, or unmatched switch label.
    fn alive(&mut self) -> Bit {
        let f = [
            self.flag(RET),
            self.flag(BRK),
            self.flag(CONT),
            self.flag(SKIP),
        ];
        if f.iter().all(|&x| x == Bit::Const(false)) {
            return Bit::Const(true);
        }
        let mut any = Bit::Const(false);
        for x in f {
            any = self.b.or(any, x);
        }
        self.b.not(any)
    }

    /// Runs `tf` and `ef` as the two sides of a secret condition `c` and
    /// merges what they wrote.
    fn fork<T>(
        &mut self,
        c: Bit,
        loc: Loc,
        tf: impl FnOnce(&mut Self) -> DResult<T>,
        ef: impl FnOnce(&mut Self) -> DResult<T>,
    ) -> DResult<(T, T)> {
        let start = self.objs.len();
        self.secret_depth += 1;
        self.journal.push(Level {
            start,
            saved: BTreeMap::new(),
        });
        let assumed = self.assume(c, true);
        let tv = tf(self)?;
        let mut then_vals = self.undo();
        forget_assumed(&mut then_vals, &assumed);
        self.journal.push(Level {
            start,
            saved: BTreeMap::new(),
        });
        let assumed = self.assume(c, false);
        let ev = ef(self)?;
        let mut else_vals = self.undo();
        forget_assumed(&mut else_vals, &assumed);
        self.secret_depth -= 1;
        let mut keys: Vec<(usize, usize)> = then_vals.keys().copied().collect();
        keys.extend(else_vals.keys().filter(|k| !then_vals.contains_key(k)));
        keys.sort_unstable();
        for k in keys {
            let old = self.slot(k.0, k.1);
            let t = then_vals.get(&k).unwrap_or(&old).clone();
            let e = else_vals.get(&k).unwrap_or(&old).clone();
            let m = self.merge_slot(c, &t, &e, loc)?;
            if m != t && m != e {
                self.merged.insert(k, (c, t, e, m.clone()));
                self.by_sel.entry(c).or_default().push(k);
            }
            self.write_slot(k.0, k.1, m);
        }
        Ok((tv, ev))
    }

    /// Inside a branch where `c` is known to be `holds`: every location
    /// that still holds a merge `c ? t : e` is given back `t` (or `e`).
    /// (A loop counter muxed by a secret `break` is public again on the
    /// paths still running.) Returns the locations and values given.
    fn assume(&mut self, c: Bit, holds: bool) -> Vec<((usize, usize), Slot)> {
        // Conditions known to hold along with `c` (earlier "still running"
        // conditions of the same function).
        let mut chain = vec![c];
        if holds {
            let mut at = c;
            while let Some(&p) = self.implied.get(&at) {
                if chain.len() >= 16 || chain.contains(&p) {
                    break;
                }
                chain.push(p);
                at = p;
            }
        }
        let mut given = Vec::new();
        for sel in chain {
            let keys = self.by_sel.get(&sel).cloned().unwrap_or_default();
            for k in keys {
                let Some((s2, t, e, m)) = self.merged.get(&k).cloned() else {
                    continue;
                };
                if s2 != sel || given.iter().any(|(g, _)| *g == k) {
                    continue;
                }
                if self.objs[k.0].slots[k.1] == m {
                    let v = if holds { t } else { e };
                    self.write_slot(k.0, k.1, v.clone());
                    given.push((k, v));
                }
            }
        }
        given
    }

    /// Notes that `now` (the path's "still running" condition after a
    /// guarded step) implies `before`.
    fn note_implied(&mut self, before: Bit) {
        let now = self.alive();
        if now != before && matches!(now, Bit::Wire(_)) && matches!(before, Bit::Wire(_)) {
            self.implied.insert(now, before);
        }
    }

    /// Pops a journal level: restores the old values and returns the new ones.
    fn undo(&mut self) -> BTreeMap<(usize, usize), Slot> {
        let level = self.journal.pop().expect("journal level pushed by fork");
        let mut vals = BTreeMap::new();
        for (k, old) in level.saved {
            let new = std::mem::replace(&mut self.objs[k.0].slots[k.1], old);
            vals.insert(k, new);
        }
        vals
    }

    fn merge_slot(&mut self, c: Bit, t: &Slot, e: &Slot, loc: Loc) -> DResult<Slot> {
        if t == e {
            return Ok(t.clone());
        }
        match (t, e) {
            (Slot::Val(x), Slot::Val(y)) => Ok(Slot::Val(mux_word(&mut self.b, c, x, y))),
            _ => err(
                loc,
                "a pointer whose target depends on a secret condition is not supported",
            ),
        }
    }

    // ----- program ---------------------------------------------------------

    fn run(&mut self, prog: &'p Program) -> DResult<()> {
        // Globals, in a frame of their own.
        let ctl = self.new_object(&CType::Array(Box::new(CType::Bool), 4), Loc::default())?;
        self.frames.push(Frame {
            scopes: vec![Scope::new()],
            ctl,
            ret: None,
            loops: 0,
            switches: 0,
            entry: false,
            func: String::new(),
        });
        for g in &prog.globals {
            let ty = self.resolve_type(&g.ty, g.init.as_ref(), g.loc)?;
            let obj = self.new_object(&ty, g.loc)?;
            self.globals.insert(g.name.clone(), (obj, ty.clone()));
            if let Some(init) = &g.init {
                self.initialize(obj, 0, &ty, init)?;
            }
        }
        let entry = self
            .funcs
            .get("mpc_main")
            .or_else(|| self.funcs.get("main"))
            .copied();
        let Some(entry) = entry else {
            let loc = prog.functions.first().map(|f| f.loc).unwrap_or_default();
            return err(loc, "no entry function: define mpc_main (or main)");
        };
        // The entry frame: parameters are inputs.
        let ctl = self.new_object(&CType::Array(Box::new(CType::Bool), 4), entry.loc)?;
        let ret = if entry.ret == CType::Void {
            None
        } else {
            if !entry.ret.is_data() {
                return err(
                    entry.loc,
                    format!("the entry function cannot return {}", entry.ret.name()),
                );
            }
            Some((self.new_object(&entry.ret, entry.loc)?, entry.ret.clone()))
        };
        self.frames.push(Frame {
            scopes: vec![Scope::new()],
            ctl,
            ret: ret.clone(),
            loops: 0,
            switches: 0,
            entry: true,
            func: entry.name.clone(),
        });
        for (name, ty, loc) in &entry.params {
            if !name.starts_with("INPUT_") {
                return err(*loc, format!("parameter '{name}' of the entry function must be an input named INPUT_A..., INPUT_B..."));
            }
            let obj = self.input_object(name, ty, *loc)?;
            self.bind(name, obj, ty.clone());
        }
        self.exec(&entry.body)?;
        if let Some((obj, ty)) = ret {
            if entry.name == "mpc_main" || self.output_objs.is_empty() {
                self.output("return", obj, &ty);
            }
        }
        for (name, obj, ty, _) in std::mem::take(&mut self.output_objs) {
            self.output(&name, obj, &ty);
        }
        if self.outputs.is_empty() {
            return err(entry.loc, "the program has no output: return a value from mpc_main or declare OUTPUT_* variables");
        }
        if self.inputs.is_empty() {
            return err(
                entry.loc,
                "the program has no input: name parameters or locals INPUT_A..., INPUT_B...",
            );
        }
        Ok(())
    }

    fn input_object(&mut self, name: &str, ty: &CType, loc: Loc) -> DResult<usize> {
        if !ty.is_data() {
            return err(
                loc,
                format!(
                    "input '{name}' has type {}, which cannot be an input (pass arrays inside a struct)",
                    ty.name()
                ),
            );
        }
        if self.inputs.iter().any(|(n, _)| n == name) {
            return err(loc, format!("input '{name}' is declared more than once"));
        }
        let party = if name.starts_with("INPUT_A") {
            Party::A
        } else if name.starts_with("INPUT_B") {
            Party::B
        } else {
            match self.opts.owners.iter().find(|(n, _)| n == name) {
                Some((_, p)) => *p,
                None => {
                    return err(loc, format!("input '{name}' belongs to neither party: assign it an owner (e.g. --owner {name}=a)"))
                }
            }
        };
        let obj = self.new_object(ty, loc)?;
        let bits = self.b.input(name, party, ty.width());
        let tys = self.objs[obj].leaf_tys.clone();
        let mut at = 0usize;
        for (i, t) in tys.iter().enumerate() {
            let w = t.width() as usize;
            let word = Word::from_bits(bits[at..at + w].to_vec());
            self.objs[obj].slots[i] = Slot::Val(word);
            at += w;
        }
        self.inputs.push((name.to_string(), ty.clone()));
        Ok(obj)
    }

    fn output(&mut self, name: &str, obj: usize, ty: &CType) {
        let mut bits = Vec::new();
        for s in self.objs[obj].slots.clone() {
            if let Slot::Val(w) = s {
                bits.extend(w.bits(&mut self.b));
            }
        }
        self.b.output(name, &bits);
        self.outputs.push((name.to_string(), ty.clone()));
    }

    fn bind(&mut self, name: &str, obj: usize, ty: CType) {
        if let Some(s) = self.frame_mut().scopes.last_mut() {
            s.insert(name.to_string(), (obj, ty));
        }
    }

    fn lookup(&self, name: &str) -> Option<(usize, CType)> {
        for s in self.frame().scopes.iter().rev() {
            if let Some(v) = s.get(name) {
                return Some(v.clone());
            }
        }
        self.globals.get(name).cloned()
    }

    // ----- types and declarations -----------------------------------------

    fn resolve_type(&mut self, t: &TypeExpr, init: Option<&Init>, loc: Loc) -> DResult<CType> {
        Ok(match t {
            TypeExpr::Known(c) => c.clone(),
            TypeExpr::Pointer(e) => CType::Pointer(Box::new(self.resolve_type(e, None, loc)?)),
            TypeExpr::Array(e, n) => {
                let elem = self.resolve_type(e, None, loc)?;
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
                        if !(0..=MAX_LEAVES as i128).contains(&v) {
                            return err(n.loc, "array size is negative or too large");
                        }
                        v as u32
                    }
                    None => match init {
                        Some(Init::List(items, _)) => {
                            let mut k = 0i128;
                            let mut max = 0i128;
                            for (des, _) in items {
                                if let Some(Designator::Index(e)) = des.first() {
                                    k = const_eval(e).ok_or_else(|| {
                                        diag(e.loc, "designator index is not a constant")
                                    })?;
                                }
                                k += 1;
                                max = max.max(k);
                            }
                            max as u32
                        }
                        _ => return err(loc, "array size is missing"),
                    },
                };
                CType::Array(Box::new(elem), n)
            }
        })
    }

    fn declare(&mut self, d: &Decl) -> DResult<()> {
        let ty = self.resolve_type(&d.ty, d.init.as_ref(), d.loc)?;
        if ty == CType::Void {
            return err(d.loc, format!("variable '{}' has type void", d.name));
        }
        let entry = self.frame().entry && self.frames.len() == 2;
        if entry && d.name.starts_with("INPUT_") {
            let obj = self.input_object(&d.name, &ty, d.loc)?;
            self.bind(&d.name, obj, ty);
            return Ok(());
        }
        let obj = self.new_object(&ty, d.loc)?;
        self.bind(&d.name, obj, ty.clone());
        if entry && d.name.starts_with("OUTPUT_") {
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
        if let Some(init) = &d.init {
            self.initialize(obj, 0, &ty, init)?;
        }
        Ok(())
    }

    /// Writes an initializer into `obj` at `leaf`.
    fn initialize(&mut self, obj: usize, leaf: usize, ty: &CType, init: &Init) -> DResult<()> {
        match init {
            Init::Expr(e) => {
                if let (CType::Array(..), ExprKind::Str) = (ty, &e.kind) {
                    return err(e.loc, "string literals are not supported");
                }
                let v = self.eval(e)?;
                if let CType::Array(..) = ty {
                    return err(e.loc, "an array needs a braced initializer");
                }
                let v = self.convert(v, ty, e.loc)?;
                self.store(obj, leaf, v);
                Ok(())
            }
            Init::List(items, loc) => {
                let mut it = 0usize;
                self.init_list(obj, leaf, ty, items, &mut it, *loc, true)?;
                if it < items.len() {
                    return err(*loc, "too many initializers");
                }
                Ok(())
            }
        }
    }

    /// Initializes an aggregate from list items starting at `*it` (brace
    /// elision when `braced` is false).
    #[allow(clippy::too_many_arguments)]
    fn init_list(
        &mut self,
        obj: usize,
        leaf: usize,
        ty: &CType,
        items: &[(Vec<Designator>, Init)],
        it: &mut usize,
        loc: Loc,
        braced: bool,
    ) -> DResult<()> {
        match ty {
            CType::Array(elem, n) => {
                let stride = elem.leaves();
                let mut k = 0usize;
                while *it < items.len() {
                    let (des, init) = &items[*it];
                    if let Some(d) = des.first() {
                        if !braced {
                            return Ok(());
                        }
                        let Designator::Index(e) = d else {
                            return err(loc, "field designator in an array initializer");
                        };
                        let v = const_eval(e)
                            .ok_or_else(|| diag(e.loc, "designator is not a constant"))?;
                        if v < 0 || v >= *n as i128 {
                            return err(e.loc, "designator index out of bounds");
                        }
                        k = v as usize;
                        if des.len() > 1 {
                            return err(loc, "nested designators are not supported");
                        }
                    }
                    if k >= *n as usize {
                        if braced {
                            return err(loc, "too many initializers for the array");
                        }
                        return Ok(());
                    }
                    self.init_member(obj, leaf + k * stride, elem, init, items, it, loc)?;
                    k += 1;
                }
                Ok(())
            }
            CType::Struct(s) => {
                let mut offs = Vec::new();
                let mut at = 0;
                for (_, t) in &s.fields {
                    offs.push(at);
                    at += t.leaves();
                }
                let mut k = 0usize;
                while *it < items.len() {
                    let (des, init) = &items[*it];
                    if let Some(d) = des.first() {
                        if !braced {
                            return Ok(());
                        }
                        let Designator::Field(name, floc) = d else {
                            return err(loc, "index designator in a struct initializer");
                        };
                        k = s
                            .fields
                            .iter()
                            .position(|(n, _)| n == name)
                            .ok_or_else(|| diag(*floc, format!("no member named '{name}'")))?;
                        if des.len() > 1 {
                            return err(loc, "nested designators are not supported");
                        }
                    }
                    if k >= s.fields.len() {
                        if braced {
                            return err(loc, "too many initializers for the struct");
                        }
                        return Ok(());
                    }
                    let ft = s.fields[k].1.clone();
                    self.init_member(obj, leaf + offs[k], &ft, init, items, it, loc)?;
                    k += 1;
                }
                Ok(())
            }
            _ => {
                // A scalar in braces: `{5}`.
                if let Some((_, init)) = items.get(*it) {
                    *it += 1;
                    self.initialize(obj, leaf, ty, init)?;
                }
                Ok(())
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn init_member(
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
            Init::Expr(e) if aggregate => {
                // A struct may be initialized from a struct value.
                if let CType::Struct(_) = ty {
                    if let ExprKind::Ident(_) | ExprKind::Call(..) | ExprKind::Member(..) = e.kind {
                        let v = self.eval(e)?;
                        if let Val::Agg(t, _) = &v {
                            if t == ty {
                                *it += 1;
                                self.store(obj, leaf, v);
                                return Ok(());
                            }
                        }
                    }
                }
                // Brace elision: the items fill the aggregate's members.
                self.init_list(obj, leaf, ty, items, it, loc, false)
            }
            _ => {
                *it += 1;
                self.initialize(obj, leaf, ty, init)
            }
        }
    }

    /// Stores an rvalue at a public position (no journal bypass).
    fn store(&mut self, obj: usize, leaf: usize, v: Val) {
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

    // ----- statements -------------------------------------------------------

    /// Runs a statement if this path is alive (guarded when that is secret).
    fn exec_guarded(&mut self, s: &Stmt) -> DResult<()> {
        match self.alive() {
            Bit::Const(true) => self.exec(s),
            Bit::Const(false) => Ok(()),
            alive => {
                self.fork(
                    alive,
                    s.loc,
                    |me| {
                        for f in [RET, BRK, CONT, SKIP] {
                            me.set_flag(f, Bit::Const(false));
                        }
                        me.exec(s)
                    },
                    |_| Ok(()),
                )?;
                self.note_implied(alive);
                Ok(())
            }
        }
    }

    fn exec_scoped(&mut self, s: &Stmt) -> DResult<()> {
        self.frame_mut().scopes.push(Scope::new());
        let r = self.exec(s);
        self.frame_mut().scopes.pop();
        r
    }

    fn exec(&mut self, s: &Stmt) -> DResult<()> {
        match &s.kind {
            StmtKind::Empty => Ok(()),
            StmtKind::Expr(e) => {
                self.eval(e)?;
                Ok(())
            }
            StmtKind::Decl(ds) => {
                for d in ds {
                    self.declare(d)?;
                }
                Ok(())
            }
            StmtKind::Block(items) => {
                self.frame_mut().scopes.push(Scope::new());
                let mut r = Ok(());
                for item in items {
                    r = self.exec_guarded(item);
                    if r.is_err() {
                        break;
                    }
                }
                self.frame_mut().scopes.pop();
                r
            }
            StmtKind::If(c, t, e) => {
                let cv = self.cond(c)?;
                match cv {
                    Bit::Const(true) => self.exec_scoped(t),
                    Bit::Const(false) => match e {
                        Some(e) => self.exec_scoped(e),
                        None => Ok(()),
                    },
                    _ => {
                        self.fork(
                            cv,
                            s.loc,
                            |me| me.exec_scoped(t),
                            |me| match e {
                                Some(e) => me.exec_scoped(e),
                                None => Ok(()),
                            },
                        )?;
                        Ok(())
                    }
                }
            }
            StmtKind::While(c, body) => self.exec_loop(Some(c), None, body, false, s.loc, &[]),
            StmtKind::DoWhile(body, c) => self.exec_loop(Some(c), None, body, true, s.loc, &[]),
            StmtKind::For(init, c, step, body) => {
                self.frame_mut().scopes.push(Scope::new());
                let r = (|| {
                    let mut vars = Vec::new();
                    if let Some(i) = init {
                        if let StmtKind::Decl(ds) = &i.kind {
                            vars.extend(ds.iter().map(|d| d.name.clone()));
                        }
                        self.exec(i)?;
                    }
                    self.exec_loop(c.as_ref(), step.as_ref(), body, false, s.loc, &vars)
                })();
                self.frame_mut().scopes.pop();
                r
            }
            StmtKind::Switch(e, body) => self.exec_switch(e, body),
            StmtKind::Case(..) | StmtKind::Default(_) => err(
                s.loc,
                "case label not directly inside a switch body (unsupported)",
            ),
            StmtKind::Break => {
                let f = self.frame();
                if f.loops == 0 && f.switches == 0 {
                    return err(s.loc, "break outside a loop or switch");
                }
                self.set_flag(BRK, Bit::Const(true));
                Ok(())
            }
            StmtKind::Continue => {
                if self.frame().loops == 0 {
                    return err(s.loc, "continue outside a loop");
                }
                self.set_flag(CONT, Bit::Const(true));
                Ok(())
            }
            StmtKind::Return(e) => {
                let ret = self.frame().ret.clone();
                match (e, ret) {
                    (Some(e), Some((obj, ty))) => {
                        let v = self.eval(e)?;
                        let v = self.convert(v, &ty, e.loc)?;
                        self.store(obj, 0, v);
                    }
                    (Some(e), None) => {
                        let v = self.eval(e)?;
                        if !matches!(v, Val::Void) {
                            return err(e.loc, "return with a value in a function returning void");
                        }
                    }
                    (None, _) => {}
                }
                self.set_flag(RET, Bit::Const(true));
                Ok(())
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn exec_loop(
        &mut self,
        cond: Option<&Expr>,
        step: Option<&Expr>,
        body: &Stmt,
        do_while: bool,
        loc: Loc,
        loop_vars: &[String],
    ) -> DResult<()> {
        self.frame_mut().loops += 1;
        let r = self.loop_body(cond, step, body, do_while, loc, loop_vars);
        self.frame_mut().loops -= 1;
        self.set_flag(BRK, Bit::Const(false));
        self.set_flag(CONT, Bit::Const(false));
        r
    }

    #[allow(clippy::too_many_arguments)]
    fn loop_body(
        &mut self,
        cond: Option<&Expr>,
        step: Option<&Expr>,
        body: &Stmt,
        do_while: bool,
        loc: Loc,
        loop_vars: &[String],
    ) -> DResult<()> {
        let mut iters = 0u64;
        let mut secret_iters = 0u32;
        let limit = self.opts.unwind.unwrap_or(DEFAULT_SECRET_ITERATIONS);
        loop {
            if !(do_while && iters == 0) {
                if let Some(c) = cond {
                    let alive = self.alive();
                    let secret = match alive {
                        Bit::Const(false) => break,
                        Bit::Const(true) => {
                            let cv = self.cond(c)?;
                            match cv {
                                Bit::Const(false) => break,
                                Bit::Const(true) => false,
                                _ => {
                                    let nc = self.b.not(cv);
                                    self.set_flag(BRK, nc);
                                    true
                                }
                            }
                        }
                        _ => {
                            let (secret, _) = self.fork(
                                alive,
                                loc,
                                |me| {
                                    for f in [RET, BRK, CONT, SKIP] {
                                        me.set_flag(f, Bit::Const(false));
                                    }
                                    let cv = me.cond(c)?;
                                    let nc = me.b.not(cv);
                                    me.set_flag(BRK, nc);
                                    Ok(cv.as_const().is_none())
                                },
                                |_| Ok(false),
                            )?;
                            self.note_implied(alive);
                            secret
                        }
                    };
                    if self.alive() == Bit::Const(false) {
                        break;
                    }
                    if secret {
                        secret_iters += 1;
                        if secret_iters > limit {
                            if self.opts.unwind.is_some() {
                                break;
                            }
                            return err(loc, format!("the loop's exit depends on a secret value and it did not end within {limit} iterations; bound it with --unwind N"));
                        }
                    }
                }
            }
            self.exec_guarded(body)?;
            self.set_flag(CONT, Bit::Const(false));
            if self.alive() == Bit::Const(false) {
                break;
            }
            if let Some(st) = step {
                if local_step(st, loop_vars) {
                    // Only the loop's own variables change: they are dead
                    // once the loop has been left, so no guard is needed.
                    self.eval(st)?;
                } else {
                    let stmt = Stmt {
                        kind: StmtKind::Expr(st.clone()),
                        loc: st.loc,
                    };
                    self.exec_guarded(&stmt)?;
                }
            }
            iters += 1;
            if iters > MAX_ITERATIONS {
                return err(
                    loc,
                    format!("the loop did not end within {MAX_ITERATIONS} iterations"),
                );
            }
            if cond.is_none()
                && self.alive() != Bit::Const(true)
                && self.flag(BRK) != Bit::Const(false)
            {
                secret_iters += 1;
                if secret_iters > limit {
                    if self.opts.unwind.is_some() {
                        break;
                    }
                    return err(loc, format!("the loop's exit depends on a secret value and it did not end within {limit} iterations; bound it with --unwind N"));
                }
            }
        }
        Ok(())
    }

    fn exec_switch(&mut self, e: &Expr, body: &Stmt) -> DResult<()> {
        let v = self.eval(e)?;
        let Val::Int(sty, w) = v else {
            return err(e.loc, "switch on a non-integer value");
        };
        let pty = sty.promote();
        let w = w.convert(&mut self.b, sty, pty);
        let items: Vec<&Stmt> = match &body.kind {
            StmtKind::Block(items) => items.iter().collect(),
            _ => vec![body],
        };
        // Collect the case values.
        let mut cases = Vec::new();
        for it in &items {
            let mut s: &Stmt = it;
            loop {
                match &s.kind {
                    StmtKind::Case(k, inner) => {
                        let kv = const_eval(k)
                            .ok_or_else(|| diag(k.loc, "case label is not a constant"))?;
                        cases.push(Word::konst(kv as u64, pty.width));
                        s = inner;
                    }
                    StmtKind::Default(inner) => s = inner,
                    _ => break,
                }
            }
        }
        let mut none = Bit::Const(true);
        let mut matches = Vec::new();
        for k in &cases {
            let m = self.word_eq(&w, k);
            matches.push(m);
            let nm = self.b.not(m);
            none = self.b.and(none, nm);
        }
        self.frame_mut().switches += 1;
        self.frame_mut().scopes.push(Scope::new());
        self.set_flag(SKIP, Bit::Const(true));
        let mut ci = 0;
        let r = (|| {
            for it in &items {
                let mut s: &Stmt = it;
                loop {
                    match &s.kind {
                        StmtKind::Case(_, inner) => {
                            let m = matches[ci];
                            ci += 1;
                            let skip = self.flag(SKIP);
                            let nm = self.b.not(m);
                            let ns = self.b.and(skip, nm);
                            self.set_flag(SKIP, ns);
                            s = inner;
                        }
                        StmtKind::Default(inner) => {
                            let skip = self.flag(SKIP);
                            let nn = self.b.not(none);
                            let ns = self.b.and(skip, nn);
                            self.set_flag(SKIP, ns);
                            s = inner;
                        }
                        _ => break,
                    }
                }
                self.exec_guarded(s)?;
            }
            Ok(())
        })();
        self.frame_mut().scopes.pop();
        self.frame_mut().switches -= 1;
        self.set_flag(SKIP, Bit::Const(false));
        self.set_flag(BRK, Bit::Const(false));
        r
    }

    // ----- expressions ------------------------------------------------------

    /// Evaluates a condition to one bit.
    fn cond(&mut self, e: &Expr) -> DResult<Bit> {
        let v = self.eval(e)?;
        self.truth(v, e.loc)
    }

    fn truth(&mut self, v: Val, loc: Loc) -> DResult<Bit> {
        match v {
            Val::Int(_, w) => Ok(w.truth(&mut self.b)),
            Val::Ptr(_, p) => Ok(Bit::Const(p.obj != usize::MAX)),
            _ => err(loc, "a struct or void value used as a condition"),
        }
    }

    fn word_eq(&mut self, x: &Word, y: &Word) -> Bit {
        match (x.as_const(), y.as_const()) {
            (Some(a), Some(b)) => Bit::Const(a == b),
            _ => {
                let (xb, yb) = (x.bits(&mut self.b), y.bits(&mut self.b));
                gates::equal(&mut self.b, &xb, &yb)
            }
        }
    }

    fn int(v: i128, ty: Scalar) -> Val {
        Val::Int(ty, Word::konst(v as u64, ty.width))
    }

    fn bool_val(b: Bit) -> Val {
        let mut bits = vec![Bit::Const(false); 32];
        bits[0] = b;
        Val::Int(Scalar::INT, Word::from_bits(bits))
    }

    /// Converts a value to type `ty` (assignment conversions).
    fn convert(&mut self, v: Val, ty: &CType, loc: Loc) -> DResult<Val> {
        match (v, ty) {
            (Val::Int(s, w), t) if t.scalar().is_some() => {
                let to = t.scalar().unwrap_or(Scalar::INT);
                Ok(Val::Int(to, w.convert(&mut self.b, s, to)))
            }
            (Val::Ptr(_, p), CType::Pointer(t)) => Ok(Val::Ptr((**t).clone(), p)),
            (Val::Int(_, Word::Const { v: 0, .. }), CType::Pointer(t)) => {
                Ok(Val::Ptr((**t).clone(), Ptr::null()))
            }
            (Val::Agg(t1, s), t2) if t1 == *t2 => Ok(Val::Agg(t1, s)),
            (Val::Int(..), CType::Pointer(_)) => {
                err(loc, "integers cannot be converted to pointers")
            }
            (Val::Ptr(..), t) if t.scalar().is_some() => {
                err(loc, "pointers cannot be converted to integers")
            }
            (Val::Void, _) => err(loc, "a void value is used"),
            (v, t) => err(
                loc,
                format!("cannot convert {} to {}", val_type(&v).name(), t.name()),
            ),
        }
    }

    fn eval(&mut self, e: &Expr) -> DResult<Val> {
        match &e.kind {
            ExprKind::Int(v, ty) => Ok(Val::Int(*ty, Word::konst(*v, ty.width))),
            ExprKind::Str => err(e.loc, "string literals are not supported"),
            ExprKind::Ident(_)
            | ExprKind::Index(..)
            | ExprKind::Member(..)
            | ExprKind::Arrow(..)
            | ExprKind::Unary(UnOp::Deref, _) => {
                if let ExprKind::Member(a, m) = &e.kind {
                    if !is_lvalue(a) {
                        let v = self.eval(a)?;
                        return self.member_of_value(v, m, e.loc);
                    }
                }
                let p = self.place(e)?;
                self.read(&p, e.loc)
            }
            ExprKind::Unary(op, a) => self.unary(*op, a, e.loc),
            ExprKind::IncDec { pre, inc, e: a } => {
                let p = self.place(a)?;
                let old = self.read(&p, a.loc)?;
                let one = Self::int(1, Scalar::INT);
                let new = self.binop(
                    if *inc { BinOp::Add } else { BinOp::Sub },
                    old.clone(),
                    one,
                    e.loc,
                )?;
                let new = self.convert(new, &p.ty, e.loc)?;
                self.write(&p, new.clone(), e.loc)?;
                Ok(if *pre { new } else { old })
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                self.binop(*op, x, y, e.loc)
            }
            ExprKind::LogAnd(a, b) | ExprKind::LogOr(a, b) => {
                let is_and = matches!(e.kind, ExprKind::LogAnd(..));
                let x = self.cond(a)?;
                match (x, is_and) {
                    (Bit::Const(false), true) => Ok(Self::bool_val(Bit::Const(false))),
                    (Bit::Const(true), false) => Ok(Self::bool_val(Bit::Const(true))),
                    (Bit::Const(_), _) => {
                        let y = self.cond(b)?;
                        Ok(Self::bool_val(y))
                    }
                    _ => {
                        let y = if has_side_effects(b) {
                            let sel = if is_and { x } else { self.b.not(x) };
                            let (t, _) =
                                self.fork(sel, e.loc, |me| me.cond(b), |_| Ok(Bit::Const(false)))?;
                            t
                        } else {
                            self.cond(b)?
                        };
                        let r = if is_and {
                            self.b.and(x, y)
                        } else {
                            self.b.or(x, y)
                        };
                        Ok(Self::bool_val(r))
                    }
                }
            }
            ExprKind::Assign(op, a, b) => {
                let p = self.place(a)?;
                let rhs = self.eval(b)?;
                let v = match op {
                    None => rhs,
                    Some(op) => {
                        let old = self.read(&p, a.loc)?;
                        self.binop(*op, old, rhs, e.loc)?
                    }
                };
                let v = self.convert(v, &p.ty, e.loc)?;
                self.write(&p, v.clone(), e.loc)?;
                Ok(v)
            }
            ExprKind::Cond(c, a, b) => {
                let cv = self.cond(c)?;
                match cv {
                    Bit::Const(taken) => {
                        let (run, other) = if taken { (a, b) } else { (b, a) };
                        let v = self.eval(run)?;
                        // The result has the common type of both sides.
                        let ot = decay(self.static_type(other)?);
                        match (&v, ot.scalar()) {
                            (Val::Int(s, _), Some(o)) => {
                                let t = Scalar::common(*s, o).ctype();
                                self.convert(v, &t, e.loc)
                            }
                            _ => Ok(v),
                        }
                    }
                    _ => {
                        let (x, y) = if has_side_effects(a) || has_side_effects(b) {
                            self.fork(cv, e.loc, |me| me.eval(a), |me| me.eval(b))?
                        } else {
                            (self.eval(a)?, self.eval(b)?)
                        };
                        self.select(cv, x, y, e.loc)
                    }
                }
            }
            ExprKind::Comma(a, b) => {
                self.eval(a)?;
                self.eval(b)
            }
            ExprKind::Call(name, args) => self.call(name, args, e.loc),
            ExprKind::Cast(t, a) => {
                let ty = self.resolve_type(t, None, e.loc)?;
                let v = self.eval(a)?;
                match (&ty, v) {
                    (CType::Void, _) => Ok(Val::Void),
                    (CType::Pointer(t), Val::Ptr(_, p)) => Ok(Val::Ptr((**t).clone(), p)),
                    (_, v) => self.convert(v, &ty, e.loc),
                }
            }
            ExprKind::SizeofType(t) => {
                let ty = self.resolve_type(t, None, e.loc)?;
                Ok(Self::int(
                    ty.size() as i128,
                    Scalar {
                        width: 64,
                        signed: false,
                    },
                ))
            }
            ExprKind::SizeofExpr(a) => {
                let ty = self.static_type(a)?;
                Ok(Self::int(
                    ty.size() as i128,
                    Scalar {
                        width: 64,
                        signed: false,
                    },
                ))
            }
        }
    }

    /// The type of an expression without evaluating it (for `sizeof` and
    /// the type of `?:` when only one side runs).
    fn static_type(&mut self, e: &Expr) -> DResult<CType> {
        let scalar = |t: &CType| t.scalar();
        Ok(match &e.kind {
            ExprKind::Int(_, s) => s.ctype(),
            ExprKind::Str => return err(e.loc, "string literals are not supported"),
            ExprKind::Ident(n) => self
                .lookup(n)
                .map(|(_, t)| t)
                .ok_or_else(|| diag(e.loc, format!("undeclared identifier '{n}'")))?,
            ExprKind::Index(a, i) => match self.static_type(a)? {
                CType::Array(t, _) | CType::Pointer(t) => *t,
                _ => match self.static_type(i)? {
                    CType::Array(t, _) | CType::Pointer(t) => *t,
                    _ => return err(e.loc, "subscripted value is not an array or pointer"),
                },
            },
            ExprKind::Unary(UnOp::Deref, a) => match self.static_type(a)? {
                CType::Array(t, _) | CType::Pointer(t) => *t,
                _ => return err(e.loc, "dereferenced value is not a pointer"),
            },
            ExprKind::Unary(UnOp::Addr, a) => CType::Pointer(Box::new(self.static_type(a)?)),
            ExprKind::Unary(UnOp::Not, _) | ExprKind::LogAnd(..) | ExprKind::LogOr(..) => {
                CType::INT
            }
            ExprKind::Unary(_, a) => match scalar(&self.static_type(a)?) {
                Some(s) => s.promote().ctype(),
                None => return err(e.loc, "operand of a unary operator is not an integer"),
            },
            ExprKind::IncDec { e: a, .. } | ExprKind::Assign(_, a, _) => self.static_type(a)?,
            ExprKind::Binary(op, a, b) => {
                let ta = decay(self.static_type(a)?);
                let tb = decay(self.static_type(b)?);
                match (op, &ta, &tb) {
                    (
                        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne,
                        _,
                        _,
                    ) => CType::INT,
                    (BinOp::Sub, CType::Pointer(_), CType::Pointer(_)) => CType::Int {
                        bits: 64,
                        signed: true,
                    },
                    (_, CType::Pointer(_), _) => ta,
                    (_, _, CType::Pointer(_)) => tb,
                    (BinOp::Shl | BinOp::Shr, _, _) => match scalar(&ta) {
                        Some(s) => s.promote().ctype(),
                        None => return err(e.loc, "invalid operands of a shift"),
                    },
                    _ => match (scalar(&ta), scalar(&tb)) {
                        (Some(x), Some(y)) => Scalar::common(x, y).ctype(),
                        _ => return err(e.loc, "invalid operands of a binary operator"),
                    },
                }
            }
            ExprKind::Cond(_, a, b) => {
                let ta = decay(self.static_type(a)?);
                let tb = decay(self.static_type(b)?);
                match (scalar(&ta), scalar(&tb)) {
                    (Some(x), Some(y)) => Scalar::common(x, y).ctype(),
                    _ => ta,
                }
            }
            ExprKind::Comma(_, b) => self.static_type(b)?,
            ExprKind::Call(name, _) => match self.funcs.get(name.as_str()) {
                Some(f) => f.ret.clone(),
                None if matches!(name.as_str(), "memcpy" | "memmove" | "memset") => {
                    CType::Pointer(Box::new(CType::Void))
                }
                None => {
                    return err(
                        e.loc,
                        format!("call of undeclared (or undefined) function '{name}'"),
                    )
                }
            },
            ExprKind::Member(a, m) => {
                let t = self.static_type(a)?;
                self.field_type(t, m, e.loc)?.0
            }
            ExprKind::Arrow(a, m) => match self.static_type(a)? {
                CType::Pointer(t) | CType::Array(t, _) => self.field_type(*t, m, e.loc)?.0,
                _ => return err(e.loc, "'->' on a non-pointer"),
            },
            ExprKind::Cast(t, _) => self.resolve_type(t, None, e.loc)?,
            ExprKind::SizeofType(_) | ExprKind::SizeofExpr(_) => CType::Int {
                bits: 64,
                signed: false,
            },
        })
    }

    fn field_type(&self, ty: CType, m: &str, loc: Loc) -> DResult<(CType, usize)> {
        let CType::Struct(s) = &ty else {
            return err(
                loc,
                format!("member '{m}' of a non-struct value ({})", ty.name()),
            );
        };
        let mut off = 0;
        for (n, t) in &s.fields {
            if n == m {
                return Ok((t.clone(), off));
            }
            off += t.leaves();
        }
        err(loc, format!("{} has no member named '{m}'", ty.name()))
    }

    fn member_of_value(&mut self, v: Val, m: &str, loc: Loc) -> DResult<Val> {
        let Val::Agg(ty, slots) = v else {
            return err(loc, format!("member '{m}' of a non-struct value"));
        };
        let (ft, off) = self.field_type(ty, m, loc)?;
        let n = ft.leaves();
        let part: Vec<Slot> = slots[off..off + n].to_vec();
        Ok(match (&ft, part.first()) {
            (t, Some(Slot::Val(w))) if t.scalar().is_some() => {
                Val::Int(t.scalar().unwrap_or(Scalar::INT), w.clone())
            }
            (CType::Pointer(t), Some(Slot::Ptr(p))) => Val::Ptr((**t).clone(), p.clone()),
            _ => Val::Agg(ft, part),
        })
    }

    fn select(&mut self, c: Bit, x: Val, y: Val, loc: Loc) -> DResult<Val> {
        match (x, y) {
            (Val::Int(s1, w1), Val::Int(s2, w2)) => {
                let t = Scalar::common(s1, s2);
                let a = w1.convert(&mut self.b, s1, t);
                let b2 = w2.convert(&mut self.b, s2, t);
                Ok(Val::Int(t, mux_word(&mut self.b, c, &a, &b2)))
            }
            (Val::Agg(t1, a), Val::Agg(t2, b2)) if t1 == t2 => {
                let mut out = Vec::with_capacity(a.len());
                for (p, q) in a.iter().zip(&b2) {
                    out.push(self.merge_slot(c, p, q, loc)?);
                }
                Ok(Val::Agg(t1, out))
            }
            (Val::Ptr(t, p), Val::Ptr(_, q)) if p == q => Ok(Val::Ptr(t, p)),
            (Val::Void, Val::Void) => Ok(Val::Void),
            (Val::Ptr(..), _) | (_, Val::Ptr(..)) => err(
                loc,
                "a pointer whose target depends on a secret condition is not supported",
            ),
            _ => err(loc, "operands of '?:' have incompatible types"),
        }
    }

    fn unary(&mut self, op: UnOp, a: &Expr, loc: Loc) -> DResult<Val> {
        if op == UnOp::Addr {
            if let ExprKind::Ident(n) = &a.kind {
                if self.lookup(n).is_none() && self.funcs.contains_key(n) {
                    return err(loc, "function pointers are not supported");
                }
            }
            let p = self.place(a)?;
            return Ok(Val::Ptr(
                p.ty.clone(),
                Ptr {
                    obj: p.obj,
                    leaf: p.leaf,
                    sec: p.sec,
                },
            ));
        }
        let v = self.eval(a)?;
        let Val::Int(s, w) = v else {
            if op == UnOp::Not {
                if let Val::Ptr(_, p) = v {
                    return Ok(Self::bool_val(Bit::Const(p.obj == usize::MAX)));
                }
            }
            return err(loc, "operand of a unary operator is not an integer");
        };
        let t = s.promote();
        let w = w.convert(&mut self.b, s, t);
        Ok(match op {
            UnOp::Plus => Val::Int(t, w),
            UnOp::Neg => match w.as_const() {
                Some(v) => Self::int(-(t.to_i128(v)), t),
                None => Val::Int(t, Word::konst(0, t.width).add(&mut self.b, &w, true)),
            },
            UnOp::BitNot => match w.as_const() {
                Some(v) => Val::Int(t, Word::konst(!v, t.width)),
                None => {
                    let bits = w.bits(&mut self.b);
                    Val::Int(t, Word::from_bits(gates::not(&mut self.b, &bits)))
                }
            },
            _ => {
                let tr = w.truth(&mut self.b);
                let n = self.b.not(tr);
                Self::bool_val(n)
            }
        })
    }

    fn binop(&mut self, op: BinOp, x: Val, y: Val, loc: Loc) -> DResult<Val> {
        match (x, y) {
            (Val::Int(s1, w1), Val::Int(s2, w2)) => self.arith(op, s1, w1, s2, w2),
            (Val::Ptr(t, p), Val::Int(s, w)) if matches!(op, BinOp::Add | BinOp::Sub) => {
                let w = w.convert(
                    &mut self.b,
                    s,
                    Scalar {
                        width: 64,
                        signed: true,
                    },
                );
                let w = if op == BinOp::Sub {
                    match w.as_const() {
                        Some(v) => Word::konst(v.wrapping_neg(), 64),
                        None => Word::konst(0, 64).add(&mut self.b, &w, true),
                    }
                } else {
                    w
                };
                self.ptr_add(t, p, w, loc)
            }
            (Val::Int(s, w), Val::Ptr(t, p)) if op == BinOp::Add => {
                let w = w.convert(
                    &mut self.b,
                    s,
                    Scalar {
                        width: 64,
                        signed: true,
                    },
                );
                self.ptr_add(t, p, w, loc)
            }
            (Val::Ptr(t, p), Val::Ptr(_, q)) => {
                if !p.sec.is_empty() || !q.sec.is_empty() {
                    return err(
                        loc,
                        "comparing or subtracting pointers with secret offsets is not supported",
                    );
                }
                if p.obj != q.obj && op != BinOp::Eq && op != BinOp::Ne {
                    return err(
                        loc,
                        "pointers into different objects cannot be compared or subtracted",
                    );
                }
                let stride = t.leaves().max(1) as i64;
                let same = p.obj == q.obj;
                let r = match op {
                    BinOp::Sub => {
                        return Ok(Self::int(
                            ((p.leaf - q.leaf) / stride) as i128,
                            Scalar {
                                width: 64,
                                signed: true,
                            },
                        ))
                    }
                    BinOp::Eq => same && p.leaf == q.leaf,
                    BinOp::Ne => !(same && p.leaf == q.leaf),
                    BinOp::Lt => p.leaf < q.leaf,
                    BinOp::Le => p.leaf <= q.leaf,
                    BinOp::Gt => p.leaf > q.leaf,
                    BinOp::Ge => p.leaf >= q.leaf,
                    _ => return err(loc, "invalid operation on pointers"),
                };
                Ok(Self::bool_val(Bit::Const(r)))
            }
            (Val::Ptr(_, p), Val::Int(_, Word::Const { v: 0, .. }))
            | (Val::Int(_, Word::Const { v: 0, .. }), Val::Ptr(_, p))
                if matches!(op, BinOp::Eq | BinOp::Ne) =>
            {
                let is_null = p.obj == usize::MAX;
                Ok(Self::bool_val(Bit::Const(is_null == (op == BinOp::Eq))))
            }
            _ => err(loc, "invalid operands of a binary operator"),
        }
    }

    fn ptr_add(&mut self, t: CType, mut p: Ptr, off: Word, loc: Loc) -> DResult<Val> {
        if p.obj == usize::MAX {
            return err(loc, "arithmetic on a null pointer");
        }
        let stride = t.leaves().max(1);
        let len = self.objs[p.obj].slots.len() as i64;
        match off.as_const() {
            Some(v) => {
                let k = v as i64;
                let nl = k
                    .checked_mul(stride as i64)
                    .and_then(|o| o.checked_add(p.leaf))
                    .unwrap_or(-1);
                if nl < 0 || nl > len {
                    return err(loc, "pointer arithmetic leaves the object it points into");
                }
                p.leaf = nl;
            }
            None => {
                let extra: i64 = p
                    .sec
                    .iter()
                    .map(|s| ((s.count - 1) * s.stride) as i64)
                    .sum();
                let remaining = len - p.leaf - extra - t.leaves() as i64;
                if remaining < 0 {
                    return err(loc, "pointer arithmetic leaves the object it points into");
                }
                let count = remaining as usize / stride + 1;
                p.sec.push(SecIdx {
                    idx: Rc::new(off.bits(&mut self.b)),
                    stride,
                    count,
                });
            }
        }
        Ok(Val::Ptr(t, p))
    }

    fn arith(&mut self, op: BinOp, s1: Scalar, w1: Word, s2: Scalar, w2: Word) -> DResult<Val> {
        if let Some(right) = shift_kind(op) {
            return Ok(self.shift(right, s1, w1, s2, w2));
        }
        let t = Scalar::common(s1, s2);
        let x = w1.convert(&mut self.b, s1, t);
        let y = w2.convert(&mut self.b, s2, t);
        let n = t.width;
        if let Some(r) = self.compare_by_ranges(op, t, &x, &y) {
            return Ok(Self::bool_val(Bit::Const(r)));
        }
        if let (Some(a), Some(c)) = (x.as_const(), y.as_const()) {
            let (ia, ic) = (t.to_i128(a), t.to_i128(c));
            let cmp = |r: bool| Self::bool_val(Bit::Const(r));
            return Ok(match op {
                BinOp::Add => Val::Int(t, Word::konst(a.wrapping_add(c), n)),
                BinOp::Sub => Val::Int(t, Word::konst(a.wrapping_sub(c), n)),
                BinOp::Mul => Val::Int(t, Word::konst(a.wrapping_mul(c), n)),
                BinOp::Div | BinOp::Rem => {
                    Val::Int(t, Word::konst(const_divrem(t, a, c, op == BinOp::Rem), n))
                }
                BinOp::And => Val::Int(t, Word::konst(a & c, n)),
                BinOp::Or => Val::Int(t, Word::konst(a | c, n)),
                BinOp::Xor => Val::Int(t, Word::konst(a ^ c, n)),
                BinOp::Lt => cmp(ia < ic),
                BinOp::Le => cmp(ia <= ic),
                BinOp::Gt => cmp(ia > ic),
                BinOp::Ge => cmp(ia >= ic),
                BinOp::Eq => cmp(ia == ic),
                BinOp::Ne => cmp(ia != ic),
                // Shifts were handled by `shift` above.
                BinOp::Shl | BinOp::Shr => Val::Int(t, x),
            });
        }
        match op {
            BinOp::Add => return Ok(Val::Int(t, x.add(&mut self.b, &y, false))),
            BinOp::Sub => return Ok(Val::Int(t, x.add(&mut self.b, &y, true))),
            BinOp::Mul => return Ok(Val::Int(t, x.mul(&mut self.b, &y))),
            _ => {}
        }
        let (xb, yb) = (x.bits(&mut self.b), y.bits(&mut self.b));
        let b = &mut self.b;
        let word = |bits: Bits| Val::Int(t, Word::from_bits(bits));
        Ok(match op {
            BinOp::Add => word(gates::add(b, &xb, &yb)),
            BinOp::Sub => word(gates::sub(b, &xb, &yb)),
            BinOp::Mul => word(gates::mul(b, &xb, &yb)),
            BinOp::Div | BinOp::Rem => {
                let rem = op == BinOp::Rem;
                let (q, r) = if t.signed {
                    gates::sdivrem(b, &xb, &yb, rem)
                } else {
                    gates::udivrem(b, &xb, &yb, rem)
                };
                word(if rem { r } else { q })
            }
            BinOp::And => word(gates::and(b, &xb, &yb)),
            BinOp::Or => word(gates::or(b, &xb, &yb)),
            BinOp::Xor => word(gates::xor(b, &xb, &yb)),
            BinOp::Lt => Self::bool_val(gates::less(b, &xb, &yb, t.signed)),
            BinOp::Gt => Self::bool_val(gates::less(b, &yb, &xb, t.signed)),
            BinOp::Le => {
                let g = gates::less(b, &yb, &xb, t.signed);
                Self::bool_val(b.not(g))
            }
            BinOp::Ge => {
                let l = gates::less(b, &xb, &yb, t.signed);
                Self::bool_val(b.not(l))
            }
            BinOp::Eq => Self::bool_val(gates::equal(b, &xb, &yb)),
            BinOp::Ne => {
                let e = gates::equal(b, &xb, &yb);
                Self::bool_val(b.not(e))
            }
            // Shifts were handled by `shift` above.
            BinOp::Shl | BinOp::Shr => Val::Int(t, Word::from_bits(xb)),
        })
    }

    /// A comparison decided by the operands' value ranges, if it is.
    fn compare_by_ranges(&mut self, op: BinOp, t: Scalar, x: &Word, y: &Word) -> Option<bool> {
        if !matches!(
            op,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        ) {
            return None;
        }
        if x.as_const().is_some() && y.as_const().is_some() {
            return None;
        }
        // The ranges bound the C values only where the two readings agree.
        let w = t.width;
        let (lo, hi) = if t.signed {
            (-(1i128 << (w - 1)), 1i128 << (w - 1))
        } else {
            (0, 1i128 << w)
        };
        let (rx, ry) = (x.range(&mut self.b), y.range(&mut self.b));
        if rx.0 < lo || rx.1 >= hi || ry.0 < lo || ry.1 >= hi {
            return None;
        }
        let lt = if rx.1 < ry.0 {
            Some(true)
        } else if rx.0 >= ry.1 {
            Some(false)
        } else {
            None
        };
        let le = if rx.1 <= ry.0 {
            Some(true)
        } else if rx.0 > ry.1 {
            Some(false)
        } else {
            None
        };
        let disjoint = rx.1 < ry.0 || ry.1 < rx.0;
        match op {
            BinOp::Lt => lt,
            BinOp::Le => le,
            BinOp::Gt => le.map(|v| !v),
            BinOp::Ge => lt.map(|v| !v),
            BinOp::Eq => disjoint.then_some(false),
            _ => disjoint.then_some(true),
        }
    }

    /// `x << y` or `x >> y` (`right`): the left operand's promoted type;
    /// the amount's low log2(width) bits are used.
    fn shift(&mut self, right: bool, s1: Scalar, w1: Word, s2: Scalar, w2: Word) -> Val {
        let t = s1.promote();
        let x = w1.convert(&mut self.b, s1, t);
        let t2 = s2.promote();
        let y = w2.convert(&mut self.b, s2, t2);
        let n = t.width as usize;
        let mask = (n - 1) as u64;
        let r = match (x.as_const(), y.as_const()) {
            (Some(a), Some(c)) => {
                let c = (c & mask) as u32;
                let v = if !right {
                    a << c
                } else if t.signed {
                    (t.to_i128(a) >> c) as u64
                } else {
                    a >> c
                };
                Word::konst(v, t.width)
            }
            (_, Some(c)) => {
                let c = (c & mask) as usize;
                let xb = x.bits(&mut self.b);
                let fill = if t.signed {
                    xb[n - 1]
                } else {
                    Bit::Const(false)
                };
                let bits: Bits = (0..n)
                    .map(|i| {
                        if !right {
                            if i >= c {
                                xb[i - c]
                            } else {
                                Bit::Const(false)
                            }
                        } else if i + c < n {
                            xb[i + c]
                        } else {
                            fill
                        }
                    })
                    .collect();
                Word::from_bits(bits)
            }
            _ => {
                let bits = if !right {
                    let (xb, yb) = (x.bits(&mut self.b), y.bits(&mut self.b));
                    gates::shl_var(&mut self.b, &xb, &yb)
                } else {
                    let (xb, yb) = (x.bits(&mut self.b), y.bits(&mut self.b));
                    gates::shr_var(&mut self.b, &xb, &yb, t.signed)
                };
                Word::from_bits(bits)
            }
        };
        Val::Int(t, r)
    }

    // ----- places -----------------------------------------------------------

    fn place(&mut self, e: &Expr) -> DResult<Place> {
        match &e.kind {
            ExprKind::Ident(n) => match self.lookup(n) {
                Some((obj, ty)) => Ok(Place {
                    obj,
                    leaf: 0,
                    sec: Vec::new(),
                    ty,
                }),
                None => {
                    if self.funcs.contains_key(n) {
                        err(e.loc, format!("function '{n}' used as a value (function pointers are not supported)"))
                    } else {
                        err(e.loc, format!("undeclared identifier '{n}'"))
                    }
                }
            },
            ExprKind::Index(a, i) => {
                let iv = self.eval(i)?;
                let Val::Int(is, iw) = iv else {
                    return err(i.loc, "array index is not an integer");
                };
                if is_lvalue(a) {
                    let mut p = self.place(a)?;
                    if let CType::Array(elem, n) = p.ty.clone() {
                        let stride = elem.leaves();
                        match iw.as_const() {
                            Some(v) => {
                                let k = is.to_i128(v);
                                if k < 0 || k >= n as i128 {
                                    return err(
                                        e.loc,
                                        format!("array index {k} is out of bounds [0, {n})"),
                                    );
                                }
                                p.leaf += k as i64 * stride as i64;
                            }
                            None => p.sec.push(SecIdx {
                                idx: Rc::new(iw.bits(&mut self.b)),
                                stride,
                                count: n as usize,
                            }),
                        }
                        p.ty = *elem;
                        return Ok(p);
                    }
                }
                let base = self.eval(a)?;
                let Val::Ptr(t, ptr) = base else {
                    return err(e.loc, "subscripted value is not an array or pointer");
                };
                let off = iw.convert(
                    &mut self.b,
                    is,
                    Scalar {
                        width: 64,
                        signed: true,
                    },
                );
                let Val::Ptr(t, ptr) = self.ptr_add(t, ptr, off, e.loc)? else {
                    return err(e.loc, "bad pointer arithmetic");
                };
                self.deref_place(t, ptr, e.loc)
            }
            ExprKind::Member(a, m) => {
                let mut p = self.place(a)?;
                let (ft, off) = self.field_type(p.ty.clone(), m, e.loc)?;
                p.leaf += off as i64;
                p.ty = ft;
                Ok(p)
            }
            ExprKind::Arrow(a, m) => {
                let v = self.eval(a)?;
                let Val::Ptr(t, ptr) = v else {
                    return err(e.loc, "'->' on a non-pointer");
                };
                let mut p = self.deref_place(t, ptr, e.loc)?;
                let (ft, off) = self.field_type(p.ty.clone(), m, e.loc)?;
                p.leaf += off as i64;
                p.ty = ft;
                Ok(p)
            }
            ExprKind::Unary(UnOp::Deref, a) => {
                let v = self.eval(a)?;
                let Val::Ptr(t, ptr) = v else {
                    return err(e.loc, "dereferencing a non-pointer");
                };
                self.deref_place(t, ptr, e.loc)
            }
            _ => err(e.loc, "expression is not assignable (not an lvalue)"),
        }
    }

    fn deref_place(&mut self, t: CType, p: Ptr, loc: Loc) -> DResult<Place> {
        if p.obj == usize::MAX {
            return err(loc, "dereferencing a null pointer");
        }
        if t == CType::Void {
            return err(loc, "dereferencing a void pointer");
        }
        let obj = &self.objs[p.obj];
        let n = t.leaves() as i64;
        if p.leaf < 0 || p.leaf + n > obj.slots.len() as i64 {
            return err(loc, "pointer dereference outside the object it points into");
        }
        // The leaves must have the pointed-to layout.
        let mut tys = Vec::new();
        t.leaf_types(&mut tys);
        let base = p.leaf as usize;
        for (i, lt) in tys.iter().enumerate() {
            let have = &obj.leaf_tys[base + i];
            let ok = match (have, lt) {
                (CType::Pointer(_), CType::Pointer(_)) => true,
                (a, b) => a.scalar().map(|s| s.width) == b.scalar().map(|s| s.width),
            };
            if !ok {
                return err(
                    loc,
                    format!(
                        "access as {} of memory holding {} (type punning) is not supported",
                        t.name(),
                        have.name()
                    ),
                );
            }
        }
        Ok(Place {
            obj: p.obj,
            leaf: p.leaf,
            sec: p.sec,
            ty: t,
        })
    }

    fn read(&mut self, p: &Place, loc: Loc) -> DResult<Val> {
        if let CType::Array(elem, _) = &p.ty {
            return Ok(Val::Ptr(
                (**elem).clone(),
                Ptr {
                    obj: p.obj,
                    leaf: p.leaf,
                    sec: p.sec.clone(),
                },
            ));
        }
        let n = p.ty.leaves();
        let slots = self.gather(p.obj, p.leaf, &p.sec, n, loc)?;
        Ok(match (&p.ty, slots.first()) {
            (t, Some(Slot::Val(w))) if t.scalar().is_some() => {
                Val::Int(t.scalar().unwrap_or(Scalar::INT), w.clone())
            }
            (CType::Pointer(t), Some(Slot::Ptr(ptr))) => Val::Ptr((**t).clone(), ptr.clone()),
            (CType::Struct(_), _) => Val::Agg(p.ty.clone(), slots),
            _ => return err(loc, format!("cannot read a value of type {}", p.ty.name())),
        })
    }

    fn gather(
        &mut self,
        obj: usize,
        base: i64,
        sec: &[SecIdx],
        n: usize,
        loc: Loc,
    ) -> DResult<Vec<Slot>> {
        let len = self.objs[obj].slots.len() as i64;
        let Some((s, rest)) = sec.split_first() else {
            if base < 0 || base + n as i64 > len {
                return err(loc, "access outside the object");
            }
            return Ok(self.objs[obj].slots[base as usize..base as usize + n].to_vec());
        };
        let mut layer = Vec::with_capacity(s.count);
        for k in 0..s.count {
            layer.push(self.gather(obj, base + (k * s.stride) as i64, rest, n, loc)?);
        }
        let mut j = 0;
        while layer.len() > 1 {
            let sel = s.idx.get(j).copied().unwrap_or(Bit::Const(false));
            let mut next = Vec::with_capacity(layer.len().div_ceil(2));
            let mut it = layer.into_iter();
            while let Some(lo) = it.next() {
                match it.next() {
                    Some(hi) => {
                        let mut m = Vec::with_capacity(n);
                        for (a, b) in hi.iter().zip(&lo) {
                            m.push(self.merge_slot(sel, a, b, loc)?);
                        }
                        next.push(m);
                    }
                    None => next.push(lo),
                }
            }
            layer = next;
            j += 1;
        }
        layer.pop().ok_or_else(|| diag(loc, "empty array access"))
    }

    fn write(&mut self, p: &Place, v: Val, loc: Loc) -> DResult<()> {
        let slots = match v {
            Val::Int(_, w) => vec![Slot::Val(w)],
            Val::Ptr(_, ptr) => vec![Slot::Ptr(ptr)],
            Val::Agg(_, s) => s,
            Val::Void => return err(loc, "assigning a void value"),
        };
        if matches!(p.ty, CType::Array(..)) {
            return err(loc, "arrays cannot be assigned");
        }
        self.scatter(p.obj, p.leaf, &p.sec, &slots, Bit::Const(true), loc)
    }

    fn scatter(
        &mut self,
        obj: usize,
        base: i64,
        sec: &[SecIdx],
        vals: &[Slot],
        en: Bit,
        loc: Loc,
    ) -> DResult<()> {
        let len = self.objs[obj].slots.len() as i64;
        let Some((s, rest)) = sec.split_first() else {
            if base < 0 || base + vals.len() as i64 > len {
                return err(loc, "access outside the object");
            }
            for (i, v) in vals.iter().enumerate() {
                let leaf = base as usize + i;
                let new = if en == Bit::Const(true) {
                    v.clone()
                } else {
                    let old = self.slot(obj, leaf);
                    self.merge_slot(en, v, &old, loc)?
                };
                self.write_slot(obj, leaf, new);
            }
            return Ok(());
        };
        let mut nbits = 0;
        while (1usize << nbits) < s.count {
            nbits += 1;
        }
        // One-hot decoder of the index's low bits.
        let mut dec = vec![en];
        for j in 0..nbits {
            let x = s.idx.get(j).copied().unwrap_or(Bit::Const(false));
            let nx = self.b.not(x);
            let mut next = Vec::with_capacity(dec.len() * 2);
            for half in 0..2 {
                for &d in &dec {
                    let sel = if half == 1 { x } else { nx };
                    next.push(self.b.and(d, sel));
                }
            }
            dec = next;
        }
        for (k, &e) in dec.iter().enumerate().take(s.count) {
            if e == Bit::Const(false) {
                continue;
            }
            self.scatter(obj, base + (k * s.stride) as i64, rest, vals, e, loc)?;
        }
        Ok(())
    }

    // ----- calls ------------------------------------------------------------

    fn call(&mut self, name: &str, args: &[Expr], loc: Loc) -> DResult<Val> {
        if name == "memcpy" || name == "memmove" || name == "memset" {
            return self.mem_builtin(name, args, loc);
        }
        let Some(f) = self.funcs.get(name).copied() else {
            if is_io(name) {
                return err(
                    loc,
                    format!(
                        "'{name}': input/output and library calls are not supported in a circuit"
                    ),
                );
            }
            if matches!(name, "malloc" | "calloc" | "realloc" | "free") {
                return err(loc, format!("'{name}': dynamic memory is not supported"));
            }
            return err(
                loc,
                format!("call of undeclared (or undefined) function '{name}'"),
            );
        };
        if f.params.len() != args.len() {
            return err(
                loc,
                format!(
                    "'{name}' takes {} arguments, {} given",
                    f.params.len(),
                    args.len()
                ),
            );
        }
        let mut vals = Vec::with_capacity(args.len());
        for (a, (_, t, _)) in args.iter().zip(&f.params) {
            let v = self.eval(a)?;
            vals.push(self.convert(v, t, a.loc)?);
        }
        let same = self.frames.iter().filter(|fr| fr.func == name).count();
        let cut = self.secret_depth > 0 && self.opts.unwind.is_some_and(|u| same > u as usize);
        if cut {
            // Deeper recursion than --unwind under a secret condition is cut off.
            return Ok(match &f.ret {
                CType::Void => Val::Void,
                t => {
                    let obj = self.new_object(t, loc)?;
                    let p = Place {
                        obj,
                        leaf: 0,
                        sec: Vec::new(),
                        ty: t.clone(),
                    };
                    self.read(&p, loc)?
                }
            });
        }
        if self.frames.len() > MAX_CALL_DEPTH {
            if self.secret_depth > 0 {
                return err(loc, format!("recursion deeper than {MAX_CALL_DEPTH} calls under a secret condition: its depth depends on a secret value (bound it with --unwind N)"));
            }
            return err(loc, format!("recursion deeper than {MAX_CALL_DEPTH} calls"));
        }
        let ctl = self.new_object(&CType::Array(Box::new(CType::Bool), 4), loc)?;
        let ret = match &f.ret {
            CType::Void => None,
            t => Some((self.new_object(t, loc)?, t.clone())),
        };
        let mut scope = Scope::new();
        for ((pname, t, ploc), v) in f.params.iter().zip(vals) {
            let obj = self.new_object(t, *ploc)?;
            self.store(obj, 0, v);
            scope.insert(pname.clone(), (obj, t.clone()));
        }
        self.frames.push(Frame {
            scopes: vec![scope],
            ctl,
            ret: ret.clone(),
            loops: 0,
            switches: 0,
            entry: false,
            func: name.to_string(),
        });
        let r = self.exec(&f.body);
        self.frames.pop();
        r?;
        match ret {
            None => Ok(Val::Void),
            Some((obj, t)) => {
                let p = Place {
                    obj,
                    leaf: 0,
                    sec: Vec::new(),
                    ty: t,
                };
                self.read(&p, loc)
            }
        }
    }

    /// `memcpy`, `memmove`, `memset` over whole scalars.
    fn mem_builtin(&mut self, name: &str, args: &[Expr], loc: Loc) -> DResult<Val> {
        if args.len() != 3 {
            return err(loc, format!("'{name}' takes 3 arguments"));
        }
        let dst = self.eval(&args[0])?;
        let Val::Ptr(dt, dp) = dst else {
            return err(
                args[0].loc,
                format!("first argument of '{name}' is not a pointer"),
            );
        };
        let nv = self.eval(&args[2])?;
        let Val::Int(ns, Word::Const { v: nbytes, .. }) = nv else {
            return err(
                args[2].loc,
                format!("the size given to '{name}' must be known at compile time"),
            );
        };
        let nbytes = ns.to_i128(nbytes);
        if dp.obj == usize::MAX || !dp.sec.is_empty() {
            return err(
                args[0].loc,
                format!("'{name}' needs a pointer with a public offset into an object"),
            );
        }
        let dleaves = self.leaf_span(dp.obj, dp.leaf, nbytes, args[0].loc)?;
        if name == "memset" {
            let cv = self.eval(&args[1])?;
            let Val::Int(cs, cw) = cv else {
                return err(args[1].loc, "memset value is not an integer");
            };
            let byte = cw.convert(
                &mut self.b,
                cs,
                Scalar {
                    width: 8,
                    signed: false,
                },
            );
            for leaf in dleaves {
                let t = self.objs[dp.obj].leaf_tys[leaf].clone();
                let Some(s) = t.scalar() else {
                    return err(loc, "memset over pointers is not supported");
                };
                let w = if s.width == 1 {
                    byte.convert(
                        &mut self.b,
                        Scalar {
                            width: 8,
                            signed: false,
                        },
                        s,
                    )
                } else {
                    let bb = byte.bits(&mut self.b);
                    let bits: Bits = (0..s.width as usize).map(|i| bb[i % 8]).collect();
                    Word::from_bits(bits)
                };
                self.write_slot(dp.obj, leaf, Slot::Val(w));
            }
            return Ok(Val::Ptr(dt, dp));
        }
        let src = self.eval(&args[1])?;
        let Val::Ptr(_, sp) = src else {
            return err(
                args[1].loc,
                format!("second argument of '{name}' is not a pointer"),
            );
        };
        if sp.obj == usize::MAX || !sp.sec.is_empty() {
            return err(
                args[1].loc,
                format!("'{name}' needs a pointer with a public offset into an object"),
            );
        }
        let sleaves = self.leaf_span(sp.obj, sp.leaf, nbytes, args[1].loc)?;
        if sleaves.len() != dleaves.len() {
            return err(
                loc,
                format!("'{name}' between objects of different layouts is not supported"),
            );
        }
        let vals: Vec<Slot> = sleaves.iter().map(|&l| self.slot(sp.obj, l)).collect();
        for (k, (&dl, &sl)) in dleaves.iter().zip(&sleaves).enumerate() {
            let dt2 = &self.objs[dp.obj].leaf_tys[dl];
            let st2 = &self.objs[sp.obj].leaf_tys[sl];
            if dt2.size() != st2.size() {
                return err(
                    loc,
                    format!("'{name}' between objects of different layouts is not supported"),
                );
            }
            self.write_slot(dp.obj, dl, vals[k].clone());
        }
        Ok(Val::Ptr(dt, dp))
    }

    /// The leaves covering `nbytes` bytes from `leaf` (which must be whole).
    fn leaf_span(&self, obj: usize, leaf: i64, nbytes: i128, loc: Loc) -> DResult<Vec<usize>> {
        let o = &self.objs[obj];
        let mut offs = Vec::new();
        o.ty.leaf_offsets(0, &mut offs);
        let size = o.ty.size() as i128;
        let start = match offs.get(leaf as usize) {
            Some(&s) => s as i128,
            None if leaf >= 0 && leaf as usize == offs.len() => size,
            None => return err(loc, "memory access outside the object"),
        };
        let end = start + nbytes;
        if nbytes < 0 || end > size {
            return err(loc, "memory access outside the object");
        }
        let mut out = Vec::new();
        for (i, &off) in offs.iter().enumerate().skip(leaf as usize) {
            if off as i128 >= end {
                break;
            }
            if off as i128 + o.leaf_tys[i].size() as i128 > end {
                return err(loc, "the size does not cover whole values");
            }
            out.push(i);
        }
        Ok(out)
    }
}

/// Drops from a branch's writes the values that `assume` gave and the
/// branch left unchanged: the location keeps its merged value.
fn forget_assumed(vals: &mut BTreeMap<(usize, usize), Slot>, assumed: &[((usize, usize), Slot)]) {
    for (k, v) in assumed {
        if vals.get(k) == Some(v) {
            vals.remove(k);
        }
    }
}

/// Where an expression begins (its leftmost operand).
fn expr_start(e: &Expr) -> Loc {
    match &e.kind {
        ExprKind::Binary(_, a, _)
        | ExprKind::LogAnd(a, _)
        | ExprKind::LogOr(a, _)
        | ExprKind::Assign(_, a, _)
        | ExprKind::Cond(a, _, _)
        | ExprKind::Comma(a, _)
        | ExprKind::Index(a, _)
        | ExprKind::Member(a, _)
        | ExprKind::Arrow(a, _) => expr_start(a),
        ExprKind::IncDec {
            pre: false, e: a, ..
        } => expr_start(a),
        _ => e.loc,
    }
}

/// Arrays used as values become pointers to their first element.
fn decay(t: CType) -> CType {
    match t {
        CType::Array(e, _) => CType::Pointer(e),
        t => t,
    }
}

/// `Some(right)` for a shift operator.
fn shift_kind(op: BinOp) -> Option<bool> {
    match op {
        BinOp::Shl => Some(false),
        BinOp::Shr => Some(true),
        _ => None,
    }
}

/// Division and remainder of public values with the circuit's semantics.
pub fn const_divrem(t: Scalar, a: u64, c: u64, rem: bool) -> u64 {
    let m = t.mask();
    if t.signed {
        let (x, d) = (t.to_i128(a), t.to_i128(c));
        if d == 0 {
            return if rem {
                a
            } else if x < 0 {
                1
            } else {
                m
            };
        }
        let (q, r) = (x / d, x % d);
        (if rem { r } else { q }) as u64 & m
    } else {
        if c == 0 {
            return if rem { a } else { m };
        }
        if rem {
            a % c
        } else {
            a / c
        }
    }
}

fn zero_slot(t: &CType) -> Slot {
    match t {
        CType::Pointer(_) => Slot::Ptr(Ptr::null()),
        t => Slot::Val(Word::konst(0, t.width())),
    }
}

fn val_type(v: &Val) -> CType {
    match v {
        Val::Int(s, _) => s.ctype(),
        Val::Ptr(t, _) => CType::Pointer(Box::new(t.clone())),
        Val::Agg(t, _) => t.clone(),
        Val::Void => CType::Void,
    }
}

fn is_lvalue(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Ident(_)
            | ExprKind::Index(..)
            | ExprKind::Member(..)
            | ExprKind::Arrow(..)
            | ExprKind::Unary(UnOp::Deref, _)
    ) && match &e.kind {
        ExprKind::Member(a, _) => is_lvalue(a),
        _ => true,
    }
}

/// Whether a loop step writes only the loop's own variables `vars`.
fn local_step(e: &Expr, vars: &[String]) -> bool {
    let target_ok = |t: &Expr| matches!(&t.kind, ExprKind::Ident(n) if vars.contains(n));
    match &e.kind {
        ExprKind::Assign(_, t, v) => target_ok(t) && !has_side_effects(v),
        ExprKind::IncDec { e: t, .. } => target_ok(t),
        ExprKind::Comma(a, b) => local_step(a, vars) && local_step(b, vars),
        _ => !has_side_effects(e),
    }
}

/// Whether evaluating `e` may write memory (assignments, ++/--, calls).
fn has_side_effects(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Assign(..) | ExprKind::IncDec { .. } | ExprKind::Call(..) => true,
        ExprKind::Int(..)
        | ExprKind::Ident(_)
        | ExprKind::Str
        | ExprKind::SizeofType(_)
        | ExprKind::SizeofExpr(_) => false,
        ExprKind::Unary(_, a)
        | ExprKind::Member(a, _)
        | ExprKind::Arrow(a, _)
        | ExprKind::Cast(_, a) => has_side_effects(a),
        ExprKind::Binary(_, a, b)
        | ExprKind::LogAnd(a, b)
        | ExprKind::LogOr(a, b)
        | ExprKind::Comma(a, b)
        | ExprKind::Index(a, b) => has_side_effects(a) || has_side_effects(b),
        ExprKind::Cond(a, b, c) => {
            has_side_effects(a) || has_side_effects(b) || has_side_effects(c)
        }
    }
}
