//! The program's entry: globals, the entry function's parameters made
//! inputs, and its result and `OUTPUT_*` variables made outputs.

use super::*;

impl<'p> Lower<'p> {
    /// Lowers the program: its globals, then its entry function, whose
    /// parameters are the inputs and whose result (or `OUTPUT_*`
    /// variables) the outputs.
    pub(super) fn run(&mut self, prog: &'p Program) -> DResult<()> {
        // Globals, in a frame of their own.
        let ctl = self.new_object(&CType::Array(Arc::new(CType::Bool), 4), Loc::default())?;
        self.frames.push(Frame {
            names: Names::with_scope(),
            ctl,
            ret: None,
            loops: 0,
            switches: 0,
            entry: false,
            func: String::new(),
        });
        self.make_function_table(prog)?;
        self.declare_globals(&prog.globals)?;
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
        let ctl = self.new_object(&CType::Array(Arc::new(CType::Bool), 4), entry.loc)?;
        let ret = if entry.ret == CType::Void {
            None
        } else {
            punning::refuse_io("the entry function's result", &entry.ret, entry.loc)?;
            if !entry.ret.is_data() {
                return err(
                    entry.loc,
                    format!("the entry function cannot return {}", entry.ret.name()),
                );
            }
            Some((self.new_object(&entry.ret, entry.loc)?, entry.ret.clone()))
        };
        self.frames.push(Frame {
            names: Names::with_scope(),
            ctl,
            ret: ret.clone(),
            loops: 0,
            switches: 0,
            entry: true,
            func: entry.name.clone(),
        });
        for ((name, ty, loc), declared) in entry.params.iter().zip(&entry.declared_arrays) {
            if !name.starts_with("INPUT_") {
                return err(*loc, format!("parameter '{name}' of the entry function must be an input named INPUT_A..., INPUT_B..."));
            }
            match (ty, declared) {
                // `int INPUT_A[4]`: the input is the array, the parameter
                // (a pointer, as in C) points to its first element.
                (CType::Pointer(elem), Some(array)) => {
                    let input = self.input_object(name, array, *loc)?;
                    let obj = self.new_object(ty, *loc)?;
                    let first = Ptr::new(input, 0, Vec::new());
                    self.store(obj, 0, Val::Ptr((**elem).clone(), first));
                    self.bind(name, obj, ty.clone());
                }
                _ => {
                    let obj = self.input_object(name, ty, *loc)?;
                    self.bind(name, obj, ty.clone());
                }
            }
        }
        self.exec(&entry.body)?;
        if let Some((obj, ty)) = ret {
            if entry.name == "mpc_main" || self.output_objs.is_empty() {
                self.output("return", obj, &ty, entry.loc)?;
            }
        }
        for (name, obj, ty, loc) in std::mem::take(&mut self.output_objs) {
            self.output(&name, obj, &ty, loc)?;
        }
        if self.outputs.is_empty() {
            return err(entry.loc, "the program has no output: return a value from mpc_main or declare OUTPUT_* variables");
        }
        if self.first_input.is_none() {
            let why = if self.inputs.is_empty() {
                "the program has no input: name parameters or locals INPUT_A..., INPUT_B..."
            } else {
                "the program's inputs hold no bits (arrays of no elements): a circuit needs at least one input bit"
            };
            return err(entry.loc, why);
        }
        Ok(())
    }

    /// Makes the input `name` of type `ty` (declared at `loc`): its owner
    /// by its name (or `--owner`), an object holding its bits.
    pub(super) fn input_object(&mut self, name: &str, ty: &CType, loc: Loc) -> DResult<usize> {
        punning::refuse_io(&format!("input '{name}'"), ty, loc)?;
        if !ty.is_data() {
            return err(
                loc,
                format!(
                    "input '{name}' has type {}, which cannot be an input (declare an array with its size, e.g. int {name}[8], or pass it inside a struct)",
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
        if let Some(why) = crate::signature::unstorable(name, ty) {
            return err(loc, format!("input '{name}': {why}"));
        }
        // (Counted first: making a big object checks the budgets.)
        self.input_bits += u64::from(ty.width());
        let obj = self.new_object(ty, loc)?;
        let bits = self.b.input(name, party, ty.width());
        if let (None, Some(Bit::Wire(w))) = (self.first_input, bits.first()) {
            self.first_input = Some(*w);
        }
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

    /// Makes object `obj` (of type `ty`, declared at `loc`) the output
    /// `name`. Its values' bits are made here (a sum of products is
    /// reduced where it is read), so the limits are checked value by
    /// value: a matrix product's output alone can be millions of gates.
    pub(super) fn output(&mut self, name: &str, obj: usize, ty: &CType, loc: Loc) -> DResult<()> {
        if let Some(why) = crate::signature::unstorable(name, ty) {
            return err(loc, format!("output '{name}': {why}"));
        }
        let mut bits = Vec::new();
        for s in self.objs[obj].slots.clone() {
            if let Slot::Val(w) = s {
                bits.extend(w.bits(&mut self.b));
                self.step(loc)?;
                self.check_gates(loc)?;
            }
        }
        self.b.output(name, &bits);
        self.outputs.push((name.to_string(), ty.clone()));
        Ok(())
    }
}
