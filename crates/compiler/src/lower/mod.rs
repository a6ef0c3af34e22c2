//! Lowering: runs the program symbolically over public constants and
//! secret bits, inlining calls and unrolling loops, and builds the circuit.
//!
//! Public values are computed at compile time. A branch on a secret
//! condition runs both sides and merges every location either side wrote
//! with a multiplexer (a journal records the old values). `return`,
//! `break` and `continue` under a secret condition set flags, and later
//! statements run guarded by them. A read at a secret index is a mux tree,
//! a write at a secret index a decoder with one write enable per element.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

use twofold_circuit::{Bit, Builder, FrameMark, Gate, Party, Wire};

use crate::ast::*;
use crate::error::{diag, err, DResult, Loc};
use crate::gates::{self, Bits};
use crate::parser::const_eval;
use crate::types::{CType, Scalar, StructDef};
use crate::value::{mux_word, Ptr, SecIdx, Slot, Val, Word};
use crate::watch::Watch;
use crate::CompileOptions;
use merges::Merges;
use names::{Binding, Names};

mod bitfield;
mod budget;
mod bytes;
mod call;
mod combine;
mod decl;
mod elision;
mod expr;
mod floating;
mod fnptr;
mod generic;
mod globals;
mod gnu;
mod keep;
mod merges;
mod names;
mod operator;
mod place;
mod probe;
mod program;
mod punning;
mod qsort;
mod reads;
mod region;
mod stmt;
mod stmt_expr;
mod strength;

pub use budget::GATE_BYTES;
pub(crate) use gnu::is_pure_builtin;
pub use keep::LoopReport;

/// Iterations of a loop with a secret exit condition allowed without
/// `--unwind`.
pub const DEFAULT_SECRET_ITERATIONS: u32 = 1024;
const MAX_CALL_DEPTH: usize = 1000;
const MAX_LEAVES: usize = 1 << 26;
/// Deepest nesting of statements and expressions being lowered, counted
/// across inlined calls (a level takes about 0.5 KiB of the compiler's
/// stack).
const MAX_LOWER_DEPTH: usize = 100_000;

struct Object {
    ty: CType,
    leaf_tys: Rc<Vec<CType>>,
    slots: Vec<Slot>,
    /// Some of its padding (bytes or bits no member holds) was written
    /// with values that may not be 0, as bytes (`memset`, `memcpy`, a
    /// view): twofold keeps no padding, so reading it back is refused.
    padding_written: bool,
}

struct Frame {
    names: Names,
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
    /// The counter keys that placed it (see [`keep::Recording`]).
    terms: Vec<keep::Term>,
    /// Whether `leaf` (and the strides of `sec`) count bytes, and it is
    /// read and written through them (see [`punning`]): it lies inside a
    /// union's bytes, viewed as `ty`, or (with `view`) in the bytes of
    /// memory of another layout (see [`bytes`]).
    bytes: bool,
    /// The bit-field it is, if it is one (see [`bitfield`]), and in a
    /// union's bytes the bit of its first byte where it starts.
    bit_field: Option<(crate::types::BitField, u64)>,
    /// Whether it views memory of another layout through its bytes: a
    /// scalar at a public leaf position (see [`punning`]), or with
    /// `bytes` a value at a byte position (see [`bytes`]).
    view: bool,
}

/// The result of lowering: the builder and the I/O description.
pub struct Lowered {
    /// The circuit builder with inputs and outputs declared.
    pub builder: Builder,
    /// Inputs: name and type, in circuit order.
    pub inputs: Vec<(String, CType)>,
    /// Outputs: name and type, in circuit order.
    pub outputs: Vec<(String, CType)>,
    /// How each `for` loop was lowered (by location; a loop lowered
    /// several times, e.g. inside an unrolled loop, is reported once, as
    /// lowered the last time).
    pub loops: Vec<(Loc, LoopReport)>,
    /// The compile-time effort lowering spent (see
    /// [`crate::CompiledProgram::work`]).
    pub work: u64,
}

/// Lowers a parsed program.
pub fn lower(prog: &Program, opts: &CompileOptions) -> DResult<Lowered> {
    crate::range::Tape::reset();
    let mut l = Lower {
        funcs: prog.functions.iter().map(|f| (f.name.clone(), f)).collect(),
        structs: &prog.structs,
        b: Builder::new(),
        objs: Vec::new(),
        globals: HashMap::default(),
        undefined_externs: HashSet::default(),
        frames: Vec::new(),
        journal: Vec::new(),
        opts,
        inputs: Vec::new(),
        outputs: Vec::new(),
        output_objs: Vec::new(),
        secret_depth: 0,
        joins_paths: false,
        depth: 0,
        steps: 0,
        next_check: 0,
        speculative: 0,
        leaves: 0,
        scalar_leaf_tys: HashMap::default(),
        input_bits: 0,
        merges: Merges::default(),
        probes: Vec::new(),
        recording: None,
        hoisting: None,
        first_input: None,
        loops: BTreeMap::new(),
        fruitless_runs: HashMap::default(),
        union_members: HashMap::default(),
        extreme_regions: HashMap::default(),
        frozen: keep::Frozen::default(),
        reduce_at: reads::reduce_at_store(prog),
        function_table: fnptr::FunctionTable::default(),
    };
    l.run(prog)?;
    Ok(Lowered {
        work: l.effort(),
        builder: l.b,
        inputs: l.inputs,
        outputs: l.outputs,
        loops: l.loops.into_iter().collect(),
    })
}

struct Lower<'p> {
    funcs: HashMap<String, &'p Function>,
    /// Struct definitions by tag (see [`Program::structs`]).
    structs: &'p std::collections::HashMap<u32, Arc<StructDef>>,
    b: Builder,
    objs: Vec<Object>,
    globals: HashMap<String, Binding>,
    /// Globals only ever declared `extern`: their type is known (`sizeof
    /// g`), but no object is defined, so none may be read or written.
    undefined_externs: HashSet<String>,
    frames: Vec<Frame>,
    journal: Vec<Level>,
    opts: &'p CompileOptions,
    inputs: Vec<(String, CType)>,
    outputs: Vec<(String, CType)>,
    output_objs: Vec<(String, usize, CType, Loc)>,
    secret_depth: usize,
    /// Whether the next [`Lower::fork`] joins the paths still running with
    /// those that left (see [`Lower::fixed_merge`]).
    joins_paths: bool,
    /// Statements and expressions being lowered, one inside the other
    /// (across inlined calls).
    depth: usize,
    /// Steps of work so far (see [`budget`]).
    steps: u64,
    /// The gates asked of the builder at which the next step checks the
    /// budgets (see [`budget`]).
    next_check: u64,
    /// Gates asked of the builder while probing, by probes that ended.
    speculative: u64,
    /// Leaves of the objects in `objs`.
    leaves: u64,
    /// The leaf types of a scalar object, by its type: shared by the
    /// objects of the type (a declaration in an unrolled loop's body made
    /// them each time).
    scalar_leaf_tys: HashMap<CType, Rc<Vec<CType>>>,
    /// Bits of the inputs (their words hold them, apart from any gate).
    input_bits: u64,
    /// Locations holding secret merges, and implied conditions.
    merges: Merges,
    /// The probes running (see [`probe`]), innermost last.
    probes: Vec<probe::ProbeState>,
    /// What the probe of a replayable loop's iteration records.
    recording: Option<keep::Recording>,
    /// The hoists of the loop being lowered (see [`keep::Hoisting`]).
    hoisting: Option<keep::Hoisting>,
    /// The program's first input wire (to make constants from).
    first_input: Option<Wire>,
    /// How each loop was lowered.
    loops: BTreeMap<Loc, LoopReport>,
    /// Per loop, its runs in a row that probed and kept nothing (see
    /// [`Lower::keep_loop`]).
    fruitless_runs: HashMap<Loc, keep::Fruitless>,
    /// Per union of the object being initialized (its object and first
    /// leaf), the member a designator wrote last (see `punning.rs`).
    union_members: HashMap<(usize, usize), usize>,
    /// Per loop that is a region whose reductions are all minima or
    /// maxima, the regions made of it outside probes (see
    /// [`region::EXTREME_REGIONS`]).
    extreme_regions: HashMap<Loc, u32>,
    /// What the kept loops being lowered count with (see [`keep::Frozen`]).
    frozen: keep::Frozen,
    /// Stores whose sums are reduced there (see [`reads`]).
    reduce_at: HashSet<Loc>,
    /// What function pointers point into (see [`fnptr`]).
    function_table: fnptr::FunctionTable,
}

impl<'p> Lower<'p> {
    /// Runs `step` one level deeper into the program, failing past
    /// [`MAX_LOWER_DEPTH`] (deep expressions inside deep recursion); counts
    /// a step of work (see [`budget`]).
    fn nested<T>(&mut self, loc: Loc, step: impl FnOnce(&mut Self) -> DResult<T>) -> DResult<T> {
        self.step(loc)?;
        if self.depth >= MAX_LOWER_DEPTH {
            return err(
                loc,
                format!("statements and expressions nested more than {MAX_LOWER_DEPTH} deep across calls"),
            );
        }
        self.depth += 1;
        let result = step(self);
        self.depth -= 1;
        result
    }

    // ----- objects, slots and the journal --------------------------------

    fn new_object(&mut self, ty: &CType, loc: Loc) -> DResult<usize> {
        let n = ty.leaves();
        if n > MAX_LEAVES {
            return err(loc, format!("object of type {} is too large", ty.name()));
        }
        // (Counted, and a big one checked, before it is made.)
        self.leaves += n as u64;
        self.check_object(n, loc)?;
        let leaf_tys = match ty {
            CType::Bool | CType::Int { .. } | CType::Float { .. } => Rc::clone(
                (self.scalar_leaf_tys.entry(ty.clone()))
                    .or_insert_with(|| Rc::new(vec![ty.clone()])),
            ),
            _ => {
                let mut tys = Vec::with_capacity(n);
                ty.leaf_types(&mut tys);
                Rc::new(tys)
            }
        };
        let slots = leaf_tys.iter().map(zero_slot).collect();
        self.objs.push(Object {
            ty: ty.clone(),
            leaf_tys,
            slots,
            padding_written: false,
        });
        Ok(self.objs.len() - 1)
    }

    /// The value at a location (a read: an observation of the probes that
    /// have not seen it).
    fn slot(&mut self, obj: usize, leaf: usize) -> Slot {
        self.observe(obj, leaf);
        self.objs[obj].slots[leaf].clone()
    }

    fn write_slot(&mut self, obj: usize, leaf: usize, s: Slot) {
        self.note_write(obj, leaf);
        if let Some(rec) = self.recording.as_mut() {
            rec.store(obj, &s);
        }
        if let Some(why) = self.frozen.written(obj) {
            self.fail_probes(&why);
        }
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
        self.observe(ctl, which);
        match &self.objs[ctl].slots[which] {
            Slot::Val(w) => w.low_bit(&mut self.b),
            Slot::Ptr(_) => Bit::Const(false),
        }
    }

    fn set_flag(&mut self, which: usize, v: Bit) {
        let ctl = self.frame().ctl;
        let word = match v {
            Bit::Const(c) => Word::Const { v: c as u64, w: 1 },
            wire => Word::from_bits(vec![wire]),
        };
        self.write_slot(ctl, which, Slot::Val(word));
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
        if self.probes.is_empty() && self.flags_clear() {
            return Bit::Const(true);
        }
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

    /// Whether no flag is set: all four hold the constant 0 (read without
    /// [`Lower::flag`]'s observation, so only while nothing probes).
    fn flags_clear(&self) -> bool {
        let slots = &self.objs[self.frame().ctl].slots;
        [RET, BRK, CONT, SKIP]
            .iter()
            .all(|&f| matches!(slots[f], Slot::Val(Word::Const { v, .. }) if v & 1 == 0))
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
        let joins_paths = std::mem::take(&mut self.joins_paths);
        self.secret_depth += 1;
        self.journal.push(Level {
            start,
            saved: BTreeMap::new(),
        });
        let assumed = self.assume(c, true);
        let tv = tf(self)?;
        let mut then_vals = self.undo();
        merges::forget_assumed(&mut then_vals, &assumed);
        self.journal.push(Level {
            start,
            saved: BTreeMap::new(),
        });
        let assumed = self.assume(c, false);
        let ev = ef(self)?;
        let mut else_vals = self.undo();
        merges::forget_assumed(&mut else_vals, &assumed);
        self.secret_depth -= 1;
        let mut keys: Vec<(usize, usize)> = then_vals.keys().copied().collect();
        keys.extend(else_vals.keys().filter(|k| !then_vals.contains_key(k)));
        keys.sort_unstable();
        for k in keys {
            let old = self.slot(k.0, k.1);
            let t = then_vals.get(&k).unwrap_or(&old).clone();
            let e = else_vals.get(&k).unwrap_or(&old).clone();
            let mut m = self.merge_slot(c, &t, &e, loc)?;
            if joins_paths {
                m = self.fixed_merge(k, m);
            }
            if m != t && m != e {
                let logged = !self.probes.is_empty();
                self.merges.insert(k, (c, t, e, m.clone()), logged);
            }
            self.write_slot(k.0, k.1, m);
        }
        Ok((tv, ev))
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
            (Slot::Ptr(p), Slot::Ptr(q)) => Ok(Slot::Ptr(self.mux_pointer(c, p, q, loc)?)),
            _ => err(
                loc,
                "a value that is a pointer on one side of a secret branch and an integer on the other",
            ),
        }
    }

    /// The pointer `c ? p : q`, for two pointers into one object: a
    /// secret position in the object, as a secret index into an array is.
    /// (Pointers into different objects by a secret condition are not
    /// supported.)
    pub(super) fn mux_pointer(&mut self, c: Bit, p: &Ptr, q: &Ptr, loc: Loc) -> DResult<Ptr> {
        if p == q {
            return Ok(p.clone());
        }
        if let Some((p, q)) = self.nullable_functions(p, q) {
            return self.mux_pointer(c, &p, &q, loc);
        }
        self.pointer_escapes(p);
        self.pointer_escapes(q);
        if p.obj != q.obj || p.obj == usize::MAX {
            return err(
                loc,
                "a pointer whose target object depends on a secret condition is not supported",
            );
        }
        if p.bytes != q.bytes {
            let (p, q) = (self.byte_pointer(p, loc)?, self.byte_pointer(q, loc)?);
            return self.mux_pointer(c, &p, &q, loc);
        }
        let base = p.leaf.min(q.leaf);
        let (obj, leaf) = (p.obj, base);
        // Each pointer's distance from `base`, in steps of `step`, as a
        // word; the pointer is `base` plus the one the condition picks (of
        // two public positions: one bit, as the constants fold).
        let step = [p, q]
            .iter()
            .flat_map(|x| {
                let terms = x.sec.iter().map(|s| s.stride as u64);
                std::iter::once((x.leaf - base) as u64).chain(terms)
            })
            .fold(0, gcd)
            .max(1);
        let reach = |x: &Ptr| {
            let terms: u64 = x
                .sec
                .iter()
                .map(|s| (s.count as u64).saturating_sub(1) * s.stride as u64)
                .sum();
            (x.leaf - base) as u64 + terms
        };
        let count = (reach(p).max(reach(q)) / step + 1) as usize;
        let from_p = self.distance(p, base, step, loc)?;
        let from_q = self.distance(q, base, step, loc)?;
        let picked = mux_word(&mut self.b, c, &from_p, &from_q);
        self.note_fact(&[obj as i128, leaf as i128, step as i128, count as i128]);
        let sec = vec![SecIdx {
            idx: Rc::new(picked.bits(&mut self.b)),
            stride: step as usize,
            count,
        }];
        Ok(Ptr {
            bytes: p.bytes,
            ..Ptr::new(obj, leaf, sec)
        })
    }

    /// How far pointer `x` is from position `base` of its object, in steps
    /// of `step` positions (which divides every distance it can be), as an
    /// unsigned 64-bit word.
    pub(super) fn distance(&mut self, x: &Ptr, base: i64, step: u64, loc: Loc) -> DResult<Word> {
        let u64 = Scalar::int(64, false);
        let mut sum = Val::Int(u64, Word::konst((x.leaf - base) as u64 / step, 64));
        // A term with one candidate (or none) adds nothing.
        for s in x.sec.iter().filter(|s| s.count > 1 && !s.idx.is_empty()) {
            let idx = Word::from_bits((*s.idx).clone());
            let idx = Val::Int(Scalar::int(s.idx.len() as u32, false), idx);
            let scale = Val::Int(u64, Word::konst(s.stride as u64 / step, 64));
            let term = self.binop(BinOp::Mul, idx, scale, loc)?;
            sum = self.binop(BinOp::Add, sum, term, loc)?;
        }
        match sum {
            Val::Int(_, w) => Ok(w),
            _ => err(loc, "a pointer's position is not an integer"),
        }
    }

    fn bind(&mut self, name: &str, obj: usize, ty: CType) {
        self.frame_mut().names.bind(name, (obj, ty));
    }

    /// The object and type `name` is bound to; a struct incomplete where
    /// it was declared (`struct V *p;` before `struct V { ... }`) is
    /// its definition.
    fn lookup(&self, name: &str) -> Option<Binding> {
        let (obj, ty) = (self.frame().names.get(name)).or_else(|| self.global(name))?;
        Some((*obj, self.completed_type(ty)))
    }

    /// Whether `name` names (here) a global only ever declared `extern`.
    fn undefined_extern(&self, name: &str) -> bool {
        self.frame().names.get(name).is_none()
            && (self.undefined_externs).contains(aliased_file_scope(name).unwrap_or(name))
    }

    /// The global `name` is bound to (the file-scope one a block-scope
    /// `extern`'s alias names, see [`file_scope_alias`]).
    fn global(&self, name: &str) -> Option<&Binding> {
        self.globals.get(aliased_file_scope(name).unwrap_or(name))
    }

    /// `ty` with its incomplete structs completed by their definitions (a
    /// struct declared without its members where a pointer to it was).
    fn completed_type(&self, ty: &CType) -> CType {
        let definition = |id: u32| self.structs.get(&id).cloned();
        ty.completed(&definition).unwrap_or_else(|| ty.clone())
    }
}

/// The greatest common divisor of `a` and `b` (`gcd(0, b) = b`).
fn gcd(a: u64, b: u64) -> u64 {
    match b {
        0 => a,
        _ => gcd(b, a % b),
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

/// The type of a string literal of `bytes`: an array of `char` with room
/// for the terminating NUL.
fn string_type(bytes: &[u8]) -> CType {
    let char = CType::Int {
        bits: 8,
        signed: true,
    };
    CType::Array(Arc::new(char), bytes.len() as u32 + 1)
}

/// Arrays used as values become pointers to their first element,
/// functions pointers to them.
fn decay(t: CType) -> CType {
    match t {
        CType::Array(e, _) => CType::Pointer(e),
        f @ CType::Function(_) => CType::Pointer(Arc::new(f)),
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
        Val::Ptr(t, _) => CType::Pointer(Arc::new(t.clone())),
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
            | ExprKind::Compound(..)
            | ExprKind::Str(_)
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
        ExprKind::Assign(_, t, v) => target_ok(t) && !v.has_side_effects(),
        ExprKind::IncDec { e: t, .. } => target_ok(t),
        ExprKind::Comma(a, b) => local_step(a, vars) && local_step(b, vars),
        _ => !e.has_side_effects(),
    }
}
