//! Calls (inlined) and the `memcpy`/`memmove`/`memset` built-ins.

use super::*;

impl<'p> Lower<'p> {
    // ----- calls ------------------------------------------------------------

    pub(super) fn call(&mut self, name: &str, args: &[Expr], loc: Loc) -> DResult<Val> {
        if let Some(name) = mem_function(name) {
            return self.mem_builtin(name, args, loc);
        }
        if name == ASSERT {
            return self.assert_builtin(args, loc);
        }
        if name == ELEMENTS_LEFT {
            return self.elements_left(args, loc);
        }
        let name = library_name(name, &self.funcs);
        let Some(f) = self.funcs.get(name).copied() else {
            if let Some(width) = abs_width(name) {
                return self.abs_builtin(name, width, args, loc);
            }
            if let Some(m) = floating::math_function(name) {
                return self.math_builtin(m, args, loc);
            }
            if let Some(v) = self.gnu_builtin(name, args, loc) {
                return v;
            }
            if name == QSORT {
                return self.qsort_builtin(args, loc);
            }
            return unknown_function(name, loc);
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
        let vals = self.arguments(args)?;
        self.invoke(f, vals, loc)
    }

    /// The values of a call's arguments, in order, with where each is.
    pub(super) fn arguments(&mut self, args: &[Expr]) -> DResult<Vec<(Val, Loc)>> {
        args.iter().map(|a| Ok((self.eval(a)?, a.loc))).collect()
    }

    /// Calls `f` (inlined) on the arguments' values `args` (as many as it
    /// has parameters), converted to its parameters' types.
    pub(super) fn invoke(
        &mut self,
        f: &'p Function,
        args: Vec<(Val, Loc)>,
        loc: Loc,
    ) -> DResult<Val> {
        let name = f.name.as_str();
        let mut vals = Vec::with_capacity(args.len());
        for (((v, at), (_, t, _)), variable) in
            args.into_iter().zip(&f.params).zip(&f.variable_params)
        {
            // (A parameter of variable type is converted once its type is
            // made, below.)
            vals.push(match variable {
                None => self.convert(v, t, at)?,
                Some(_) => v,
            });
        }
        let same = self.frames.iter().filter(|fr| fr.func == name).count();
        let cut = self.secret_depth > 0 && self.opts.unwind.is_some_and(|u| same > u as usize);
        if cut {
            // Deeper recursion than --unwind under a secret condition is cut off.
            return Ok(match &f.ret {
                CType::Void => Val::Void,
                t => {
                    let obj = self.new_object(t, loc)?;
                    self.read(&Place::whole(obj, t.clone()), loc)?
                }
            });
        }
        self.check_gates(loc)?;
        if self.frames.len() > MAX_CALL_DEPTH {
            return err(
                loc,
                too_deep(same > 0, self.secret_depth > 0, self.opts.unwind),
            );
        }
        let ctl = self.new_object(&CType::Array(Arc::new(CType::Bool), 4), loc)?;
        let ret = match &f.ret {
            CType::Void => None,
            t => Some((self.new_object(t, loc)?, t.clone())),
        };
        self.frames.push(Frame {
            names: Names::with_scope(),
            ctl,
            ret: ret.clone(),
            loops: 0,
            switches: 0,
            entry: false,
            func: name.to_string(),
        });
        let r = self.bind_params(f, vals).and_then(|()| self.exec(&f.body));
        self.frames.pop();
        // An error inside the C library of twofold's headers is the
        // program's call's.
        let caller = self.frames.last().and_then(|fr| self.funcs.get(&fr.func));
        let from_program = !caller.is_some_and(|c| c.library);
        r.map_err(|d| match f.library && from_program {
            true => crate::error::Diag {
                loc,
                message: format!("in '{name}': {}", d.message),
                ..d
            },
            false => d,
        })?;
        self.merges.end_objects(ctl);
        match ret {
            None => Ok(Val::Void),
            Some((obj, t)) => self.read(&Place::whole(obj, t), loc),
        }
    }

    /// Binds `f`'s parameters to `vals` in the frame just pushed, in order:
    /// a parameter's type whose sizes are earlier parameters (`int
    /// a[n][n]`) is made from their values.
    fn bind_params(&mut self, f: &Function, vals: Vec<Val>) -> DResult<()> {
        let params = f.params.iter().zip(&f.variable_params);
        for (((pname, t, ploc), variable), v) in params.zip(vals) {
            let (t, v) = match variable {
                None => (t.clone(), v),
                Some(texpr) => {
                    let t = self.resolve_type(texpr, None, *ploc)?;
                    let v = self.convert(v, &t, *ploc)?;
                    (t, v)
                }
            };
            let obj = self.new_object(&t, *ploc)?;
            self.store(obj, 0, v);
            self.frame_mut().names.bind(pname, (obj, t));
        }
        Ok(())
    }

    /// `abs`, `labs`, `llabs` (as `x < 0 ? -x : x`, wrapping).
    fn abs_builtin(&mut self, name: &str, width: u32, args: &[Expr], loc: Loc) -> DResult<Val> {
        let [a] = args else {
            return err(loc, format!("'{name}' takes 1 argument"));
        };
        let t = Scalar::int(width, true);
        let v = self.eval(a)?;
        let v = self.convert(v, &t.ctype(), a.loc)?;
        let Val::Int(_, w) = v else {
            return err(a.loc, format!("argument of '{name}' is not an integer"));
        };
        let zero = Word::konst(0, width);
        let neg = self.compare_lt(t, &w, &zero);
        let minus = zero.add(&mut self.b, &w, true);
        let r = mux_word(&mut self.b, neg, &minus, &w);
        Ok(Val::Int(t, r))
    }

    /// [`ELEMENTS_LEFT`]`(p)`: the elements of `p`'s type from where `p`
    /// points to the end of its object (bytes, up to the end of its last
    /// value, for a `void *`), as a `size_t` known while compiling: how
    /// far the functions of twofold's `<string.h>` may read. With a second
    /// argument `n` known while compiling, at most `n`.
    fn elements_left(&mut self, args: &[Expr], loc: Loc) -> DResult<Val> {
        let (a, most) = match args {
            [a] => (a, None),
            [a, n] => (a, Some(n)),
            _ => return err(loc, format!("'{ELEMENTS_LEFT}' takes 1 or 2 arguments")),
        };
        let most = match most.map(|n| self.eval(n)).transpose()? {
            Some(Val::Int(s, Word::Const { v, .. })) => Some(s.to_i128(v)),
            _ => None,
        };
        let Val::Ptr(t, p) = self.eval(a)? else {
            return err(a.loc, "a string function's argument is not a pointer");
        };
        if p.obj == usize::MAX || !p.sec.is_empty() {
            return err(
                a.loc,
                "a string function needs a pointer with a public offset into an object \
                 (it reads up to the end of the object)",
            );
        }
        // A `char *` over an `int` counts its bytes.
        let p = self.counted(&t, p, None, a.loc)?;
        let o = &self.objs[p.obj];
        let leaf = usize::try_from(p.leaf).unwrap_or(usize::MAX);
        let left = if p.bytes {
            let (len, stride, _) = self.units(&t, &p);
            (len - p.leaf).max(0) as i128 / stride as i128
        } else if t == CType::Void {
            let mut offsets = Vec::new();
            o.ty.leaf_offsets(0, &mut offsets);
            let end = |l: usize| offsets[l] as i128 + o.leaf_tys[l].size() as i128;
            match offsets.len().checked_sub(1) {
                Some(last) if leaf <= last => end(last) - offsets[leaf] as i128,
                _ => 0,
            }
        } else {
            (o.slots.len().saturating_sub(leaf) / t.leaves().max(1)) as i128
        };
        let left = most.map_or(left, |n| left.min(n.max(0)));
        Ok(Self::int(left, Scalar::int(64, false)))
    }

    /// `assert(e)` (which `<assert.h>` makes [`ASSERT`] unless `NDEBUG`):
    /// a condition known while compiling, on a path every run takes, is
    /// checked there (false is an error: a run would abort); one that
    /// depends on a secret, or on a path a secret chooses, is not checked,
    /// as with `NDEBUG` (a garbled circuit cannot stop halfway).
    fn assert_builtin(&mut self, args: &[Expr], loc: Loc) -> DResult<Val> {
        let [cond] = args else {
            return err(loc, "'assert' takes 1 argument");
        };
        let known = match self.eval(cond)? {
            Val::Int(s, Word::Const { v, .. }) => {
                // (A floating zero may have its sign bit set.)
                let value_bits = match s.float {
                    true => !(1u64 << (s.width - 1)),
                    false => u64::MAX,
                };
                Some(v & value_bits != 0)
            }
            Val::Ptr(_, p) if p.sec.is_empty() => Some(p.obj != usize::MAX),
            _ => None,
        };
        if known == Some(false) && self.secret_depth == 0 {
            return err(
                cond.loc,
                "assertion failed: the condition is false here in every run (the program would abort)",
            );
        }
        Ok(Val::Void)
    }

    /// `memcpy`, `memmove`, `memset`: over whole scalars of one layout
    /// leaf by leaf, else through C's layout of the bytes (see
    /// [`Self::copy_bytes`]).
    pub(super) fn mem_builtin(&mut self, name: &str, args: &[Expr], loc: Loc) -> DResult<Val> {
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
        if name == "memset" {
            let cv = self.eval(&args[1])?;
            let Val::Int(cs, cw) = cv else {
                return err(args[1].loc, "memset value is not an integer");
            };
            let byte = cw.convert(&mut self.b, cs, Scalar::int(8, false));
            let span = self.leaf_span(dp.obj, dp.leaf, nbytes, args[0].loc);
            let (Ok(dleaves), true) = (span, self.whole_values(&dp, nbytes)) else {
                // Parts of values, bit-fields or padding: through C's
                // layout.
                self.set_bytes(&dp, &byte, nbytes, name, args[0].loc)?;
                return Ok(Val::Ptr(dt, dp));
            };
            for leaf in dleaves {
                let t = self.objs[dp.obj].leaf_tys[leaf].clone();
                // A floating leaf takes the bytes as its IEEE bits.
                let Some(s) = t.arith() else {
                    return err(loc, "memset over pointers is not supported");
                };
                let w = if s.width == 1 {
                    byte.convert(&mut self.b, Scalar::int(8, false), s)
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
        let spans = (
            self.leaf_span(dp.obj, dp.leaf, nbytes, args[0].loc),
            self.leaf_span(sp.obj, sp.leaf, nbytes, args[1].loc),
        );
        let (Ok(dleaves), Ok(sleaves)) = spans else {
            // Not whole values: through C's layout.
            return self.copy_bytes(name, (dt, dp), (&sp, nbytes), loc);
        };
        let same = sleaves.len() == dleaves.len()
            && dleaves.iter().zip(&sleaves).all(|(&d, &s)| {
                let (d, s) = (
                    &self.objs[dp.obj].leaf_tys[d],
                    &self.objs[sp.obj].leaf_tys[s],
                );
                d.width() == s.width()
                    && matches!(d, CType::Pointer(_)) == matches!(s, CType::Pointer(_))
            });
        if !same || !self.whole_values(&dp, nbytes) || !self.whole_values(&sp, nbytes) {
            return self.copy_bytes(name, (dt, dp), (&sp, nbytes), loc);
        }
        let vals: Vec<Slot> = sleaves.iter().map(|&l| self.slot(sp.obj, l)).collect();
        for (&dl, v) in dleaves.iter().zip(vals) {
            self.write_slot(dp.obj, dl, v);
        }
        Ok(Val::Ptr(dt, dp))
    }

    /// The leaves covering `nbytes` bytes from `leaf` (which must be whole).
    pub(super) fn leaf_span(
        &self,
        obj: usize,
        leaf: i64,
        nbytes: i128,
        loc: Loc,
    ) -> DResult<Vec<usize>> {
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

/// The function a call of `name` calls: GCC's `__builtin_strlen`… are
/// the functions of that name, where the program or its headers define
/// them.
pub(super) fn library_name<'n, V>(name: &'n str, funcs: &HashMap<String, V>) -> &'n str {
    name.strip_prefix("__builtin_")
        .filter(|n| funcs.contains_key(*n))
        .unwrap_or(name)
}

/// `memcpy`, `memmove` or `memset`, called by that name or as GCC's
/// built-in (`__builtin_memcpy`…).
fn mem_function(name: &str) -> Option<&'static str> {
    match name.strip_prefix("__builtin_").unwrap_or(name) {
        "memcpy" => Some("memcpy"),
        "memmove" => Some("memmove"),
        "memset" => Some("memset"),
        _ => None,
    }
}

/// The type of a call of the built-in function `name`, if it is one.
pub(super) fn builtin_type(name: &str) -> Option<CType> {
    if mem_function(name).is_some() {
        return Some(CType::Pointer(Arc::new(CType::Void)));
    }
    if name == ELEMENTS_LEFT {
        return Some(Scalar::int(64, false).ctype());
    }
    if name == QSORT {
        return Some(CType::Void);
    }
    if let Some(width) = abs_width(name) {
        return Some(Scalar::int(width, true).ctype());
    }
    if let Some((_, bits)) = floating::math_function(name) {
        return Some(CType::Float { bits });
    }
    gnu::return_type(name)
}

/// The width of the built-in absolute-value functions.
fn abs_width(name: &str) -> Option<u32> {
    match name.strip_prefix("__builtin_").unwrap_or(name) {
        "abs" => Some(32),
        "labs" | "llabs" => Some(64),
        _ => None,
    }
}

/// `<stdlib.h>`'s sort, built in (see [`Lower::qsort_builtin`]).
const QSORT: &str = "qsort";

/// What `<assert.h>`'s `assert` calls (a name no C program declares).
const ASSERT: &str = "__twofold_assert";

/// The built-in the C library of twofold's headers reads objects' sizes
/// with (see [`Lower::elements_left`]).
const ELEMENTS_LEFT: &str = "__twofold_elements_left";

/// The error of a call of `name`, a function neither the program nor
/// twofold defines: what kind of function it is, where that is known.
pub(super) fn unknown_function<T>(name: &str, loc: Loc) -> DResult<T> {
    let why = match name {
        "printf" | "scanf" | "puts" | "putchar" | "getchar" | "fprintf" | "sprintf"
        | "snprintf" | "fscanf" | "sscanf" | "fopen" | "fclose" | "fread" | "fwrite" | "gets"
        | "fgets" | "fputs" | "perror" | "exit" | "abort" | "assert" | "rand" | "srand"
        | "time" => "input/output and library calls are not supported in a circuit",
        "malloc" | "calloc" | "realloc" | "free" => "dynamic memory is not supported",
        "strlen" | "strnlen" | "strcmp" | "strncmp" | "strcpy" | "strncpy" | "strcat"
        | "strncat" | "memcmp" | "div" | "ldiv" | "lldiv" | "atoi" | "atol" | "atoll" => {
            "a C library function twofold defines in its header: include <string.h> or <stdlib.h>"
        }
"bsearch" => {
            "its result points to the element found, which depends on the secret values              (twofold's pointers are public): write the search as a loop over indices"
        }
        "strchr" | "strrchr" | "strstr" | "memchr" | "strpbrk" | "strspn" | "strcspn"
        | "strtok" => {
            "a C library function twofold does not provide (it provides memcpy, memmove, \
             memset, memcmp and <string.h>'s comparisons, copies and lengths of strings): \
             write it as a loop"
        }
        _ => match floating::missing_math(name) {
            Some(why) => return err(loc, format!("'{name}': {why}")),
            None => {
                return err(
                    loc,
                    format!("call of undeclared (or undefined) function '{name}'"),
                )
            }
        },
    };
    err(loc, format!("'{name}': {why}"))
}

/// The error of a call nested more than [`MAX_CALL_DEPTH`] deep: of a
/// function already being called (`recursive`) or not, under a secret
/// condition (`secret`) or not, with `--unwind` given or not.
fn too_deep(recursive: bool, secret: bool, unwind: Option<u32>) -> String {
    if !recursive {
        return format!(
            "calls nested deeper than {MAX_CALL_DEPTH} (a chain of calls of different functions)"
        );
    }
    let why = "under a secret condition: its depth depends on a secret value";
    match (secret, unwind) {
        (false, _) => format!("recursion deeper than {MAX_CALL_DEPTH} calls"),
        (true, None) => format!("recursion deeper than {MAX_CALL_DEPTH} calls {why} (bound it with --unwind N)"),
        (true, Some(n)) => format!("recursion deeper than {MAX_CALL_DEPTH} calls {why}: --unwind {n} does not bound it, as calls nest at most {MAX_CALL_DEPTH} deep (give a smaller N)"),
    }
}
