//! Differential tests against gcc on random programs: straight-line and
//! looping integer code with mixed widths and signedness, shifts, division,
//! secret branches, secret indices, breaks, switches, calls and pointers.

mod common;

use common::{agree_with_gcc, gcc_available};
use rand::{rngs::StdRng, Rng, SeedableRng};
use twofold_compiler::{compile, CompileOptions};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Ty {
    bits: u32,
    signed: bool,
}

impl Ty {
    fn name(self) -> String {
        format!("{}int{}_t", if self.signed { "" } else { "u" }, self.bits)
    }
    fn promote(self) -> Ty {
        if self.bits < 32 {
            Ty {
                bits: 32,
                signed: true,
            }
        } else {
            self
        }
    }
    fn common(a: Ty, b: Ty) -> Ty {
        let (a, b) = (a.promote(), b.promote());
        if a == b {
            a
        } else if a.bits != b.bits {
            if a.bits > b.bits {
                a
            } else {
                b
            }
        } else {
            Ty {
                bits: a.bits,
                signed: false,
            }
        }
    }
    fn min_literal(self) -> String {
        match self.bits {
            32 => "(-2147483647-1)".into(),
            _ => "(-9223372036854775807LL-1)".into(),
        }
    }
}

const TYPES: [Ty; 8] = [
    Ty {
        bits: 8,
        signed: true,
    },
    Ty {
        bits: 8,
        signed: false,
    },
    Ty {
        bits: 16,
        signed: true,
    },
    Ty {
        bits: 16,
        signed: false,
    },
    Ty {
        bits: 32,
        signed: true,
    },
    Ty {
        bits: 32,
        signed: false,
    },
    Ty {
        bits: 64,
        signed: true,
    },
    Ty {
        bits: 64,
        signed: false,
    },
];

struct Gen {
    rng: StdRng,
    vars: Vec<(String, Ty)>,
    loop_vars: Vec<String>,
    in_loop: u32,
    fields: Vec<(String, Ty)>,
    uid: u32,
}

impl Gen {
    fn ty(&mut self) -> Ty {
        TYPES[self.rng.gen_range(0..TYPES.len())]
    }

    fn constant(&mut self) -> (String, Ty) {
        match self.rng.gen_range(0..4) {
            0 => (
                format!("{}", self.rng.gen_range(0..8)),
                Ty {
                    bits: 32,
                    signed: true,
                },
            ),
            1 => (
                format!("{}", self.rng.gen_range(-1000..1000)),
                Ty {
                    bits: 32,
                    signed: true,
                },
            ),
            2 => (
                format!("{}u", self.rng.gen::<u32>()),
                Ty {
                    bits: 32,
                    signed: false,
                },
            ),
            _ => (
                format!("{}LL", self.rng.gen::<i64>() / 3),
                Ty {
                    bits: 64,
                    signed: true,
                },
            ),
        }
    }

    fn leaf(&mut self) -> (String, Ty) {
        match self.rng.gen_range(0..10) {
            0 | 1 => self.constant(),
            2 | 3 => {
                let (f, t) = self.fields[self.rng.gen_range(0..self.fields.len())].clone();
                let who = if self.rng.gen_bool(0.5) {
                    "INPUT_A"
                } else {
                    "INPUT_B"
                };
                (format!("{who}.{f}"), t)
            }
            4 => {
                let (idx, _) = self.expr(1);
                (
                    format!("arr[({idx}) & 7]"),
                    Ty {
                        bits: 32,
                        signed: true,
                    },
                )
            }
            5 if !self.loop_vars.is_empty() => {
                let v = self.loop_vars[self.rng.gen_range(0..self.loop_vars.len())].clone();
                (
                    v,
                    Ty {
                        bits: 32,
                        signed: true,
                    },
                )
            }
            6 => {
                let k = self.rng.gen_range(0..8);
                (
                    format!("arr[{k}]"),
                    Ty {
                        bits: 32,
                        signed: true,
                    },
                )
            }
            _ if self.vars.is_empty() => self.constant(),
            _ => self.vars[self.rng.gen_range(0..self.vars.len())].clone(),
        }
    }

    fn expr(&mut self, depth: u32) -> (String, Ty) {
        if depth == 0 || self.rng.gen_bool(0.3) {
            return self.leaf();
        }
        let (a, ta) = self.expr(depth - 1);
        let (b, tb) = self.expr(depth - 1);
        let c = Ty::common(ta, tb);
        match self.rng.gen_range(0..22) {
            0..=2 => (format!("({a} + {b})"), c),
            3 | 4 => (format!("({a} - {b})"), c),
            5 | 6 => (format!("({a} * {b})"), c),
            7 | 8 => {
                let op = if self.rng.gen_bool(0.5) { "/" } else { "%" };
                let guard = if c.signed {
                    format!(
                        "(({b}) == 0 || (({a}) == {} && ({b}) == -1))",
                        c.min_literal()
                    )
                } else {
                    format!("(({b}) == 0)")
                };
                (format!("({guard} ? ({a}) : ({a}) {op} ({b}))"), c)
            }
            9 => (format!("({a} & {b})"), c),
            10 => (format!("({a} | {b})"), c),
            11 => (format!("({a} ^ {b})"), c),
            12 | 13 => {
                let pa = ta.promote();
                let op = if self.rng.gen_bool(0.5) { "<<" } else { ">>" };
                (format!("({a} {op} (({b}) & {}))", pa.bits - 1), pa)
            }
            14 => {
                let op = ["<", "<=", ">", ">=", "==", "!="][self.rng.gen_range(0..6)];
                (
                    format!("({a} {op} {b})"),
                    Ty {
                        bits: 32,
                        signed: true,
                    },
                )
            }
            15 => {
                let op = if self.rng.gen_bool(0.5) { "&&" } else { "||" };
                (
                    format!("({a} {op} {b})"),
                    Ty {
                        bits: 32,
                        signed: true,
                    },
                )
            }
            16 => {
                let (cnd, _) = self.expr(depth - 1);
                (format!("({cnd} ? {a} : {b})"), c)
            }
            17 => {
                let t = self.ty();
                (format!("(({}){a})", t.name()), t.promote())
            }
            18 => (format!("(-({a}))"), ta.promote()),
            19 => (format!("(~{a})"), ta.promote()),
            20 => (
                format!("(!{a})"),
                Ty {
                    bits: 32,
                    signed: true,
                },
            ),
            _ => (format!("({a} + {b} * {a})"), c),
        }
    }

    fn stmt(&mut self, depth: u32, out: &mut String, indent: usize) {
        let pad = "    ".repeat(indent);
        let choice = self.rng.gen_range(0..if depth == 0 { 4 } else { 12 });
        match choice {
            0 | 1 => {
                let (v, _) = self.vars[self.rng.gen_range(0..self.vars.len())].clone();
                let (e, _) = self.expr(3);
                let op = ["=", "+=", "-=", "^=", "*=", "|=", "&="][self.rng.gen_range(0..7)];
                out.push_str(&format!("{pad}{v} {op} {e};\n"));
            }
            2 => {
                let (i, _) = self.expr(2);
                let (e, _) = self.expr(2);
                out.push_str(&format!("{pad}arr[({i}) & 7] = {e};\n"));
            }
            3 => {
                let (v, t) = self.vars[self.rng.gen_range(0..self.vars.len())].clone();
                let (e, _) = self.expr(2);
                let op = if self.rng.gen_bool(0.5) { "<<=" } else { ">>=" };
                out.push_str(&format!(
                    "{pad}{v} {op} ({e}) & {};\n",
                    t.promote().bits - 1
                ));
            }
            4 | 5 => {
                let (c, _) = self.expr(2);
                out.push_str(&format!("{pad}if ({c}) {{\n"));
                self.block(depth - 1, out, indent + 1);
                if self.rng.gen_bool(0.5) {
                    out.push_str(&format!("{pad}}} else {{\n"));
                    self.block(depth - 1, out, indent + 1);
                }
                out.push_str(&format!("{pad}}}\n"));
            }
            6 | 7 => {
                self.uid += 1;
                let i = format!("i{}", self.uid);
                let n = self.rng.gen_range(1..5);
                out.push_str(&format!("{pad}for (int {i} = 0; {i} < {n}; {i}++) {{\n"));
                self.loop_vars.push(i);
                self.in_loop += 1;
                self.block(depth - 1, out, indent + 1);
                self.in_loop -= 1;
                self.loop_vars.pop();
                out.push_str(&format!("{pad}}}\n"));
            }
            8 if self.in_loop > 0 => {
                let (c, _) = self.expr(2);
                let kw = if self.rng.gen_bool(0.5) {
                    "break"
                } else {
                    "continue"
                };
                out.push_str(&format!("{pad}if ({c}) {kw};\n"));
            }
            9 => {
                let (e, _) = self.expr(2);
                out.push_str(&format!("{pad}switch (({e}) & 3) {{\n"));
                for k in 0..3 {
                    if k == 2 {
                        out.push_str(&format!("{pad}default:\n"));
                    } else {
                        out.push_str(&format!("{pad}case {k}:\n"));
                    }
                    self.block(0, out, indent + 1);
                    if self.rng.gen_bool(0.7) {
                        out.push_str(&format!("{pad}    break;\n"));
                    }
                }
                out.push_str(&format!("{pad}}}\n"));
            }
            10 => {
                self.uid += 1;
                let c = format!("c{}", self.uid);
                let (cond, _) = self.expr(2);
                out.push_str(&format!(
                    "{pad}{{\n{pad}    int {c} = 0;\n{pad}    while (({cond}) && {c} < 3) {{\n"
                ));
                self.in_loop += 1;
                self.block(0, out, indent + 2);
                self.in_loop -= 1;
                out.push_str(&format!("{pad}        {c}++;\n{pad}    }}\n{pad}}}\n"));
            }
            _ => {
                let (v, t) = self.vars[self.rng.gen_range(0..self.vars.len())].clone();
                let (e, _) = self.expr(2);
                out.push_str(&format!("{pad}{v} = ({}) helper(&{v}, {e});\n", t.name()));
            }
        }
    }

    fn block(&mut self, depth: u32, out: &mut String, indent: usize) {
        let n = self.rng.gen_range(1..4);
        for _ in 0..n {
            self.stmt(depth, out, indent);
        }
    }

    fn program(seed: u64) -> String {
        let mut g = Gen {
            rng: StdRng::seed_from_u64(seed),
            vars: Vec::new(),
            loop_vars: Vec::new(),
            in_loop: 0,
            fields: Vec::new(),
            uid: 0,
        };
        let mut s = String::from("#include <stdint.h>\n\n");
        let nf = g.rng.gen_range(2..5);
        let mut fields = String::new();
        for k in 0..nf {
            let t = g.ty();
            fields.push_str(&format!("    {} f{k};\n", t.name()));
            g.fields.push((format!("f{k}"), t));
        }
        fields.push_str("    int32_t arr[8];\n");
        s.push_str(&format!("typedef struct {{\n{fields}}} In;\n\n"));
        let nv = g.rng.gen_range(2..5);
        let mut outs = String::new();
        let mut locals = String::new();
        let tys: Vec<Ty> = (0..nv).map(|_| g.ty()).collect();
        for (k, t) in tys.iter().enumerate() {
            outs.push_str(&format!("    {} r{k};\n", t.name()));
        }
        s.push_str(&format!("typedef struct {{\n{outs}}} Out;\n\n"));
        s.push_str("static int64_t helper(void *unused, int64_t x)\n{\n    (void)unused;\n    return x * 3 + (x >> 2);\n}\n\n");
        for (k, t) in tys.iter().enumerate() {
            let (e, _) = g.expr(2);
            locals.push_str(&format!("    {} v{k} = {e};\n", t.name()));
            g.vars.push((format!("v{k}"), *t));
        }
        let mut body = String::new();
        g.block(3, &mut body, 1);
        g.block(2, &mut body, 1);
        s.push_str("Out mpc_main(In INPUT_A, In INPUT_B)\n{\n    Out out;\n    int32_t arr[8];\n");
        s.push_str(
            "    for (int i = 0; i < 8; i++)\n        arr[i] = INPUT_A.arr[i] - INPUT_B.arr[i];\n",
        );
        s.push_str(&locals);
        s.push_str(&body);
        for k in 0..nv {
            s.push_str(&format!("    out.r{k} = v{k} + arr[{}];\n", k % 8));
        }
        s.push_str("    return out;\n}\n");
        s
    }
}

/// Number of random programs (each run on 6 random inputs).
const PROGRAMS: u64 = 120;

#[test]
fn random_programs_agree_with_gcc() {
    if !gcc_available() {
        eprintln!("skipping: gcc is absent");
        return;
    }
    let opts = CompileOptions {
        unwind: Some(8),
        ..CompileOptions::default()
    };
    let mut total_ands = 0;
    let mut regions = 0;
    for seed in 0..PROGRAMS {
        let src = Gen::program(seed);
        let p = compile(&src, &format!("random{seed}.c"), &opts)
            .unwrap_or_else(|e| panic!("{e}\n{src}"));
        total_ands += p.program.and_count();
        regions += p.program.blocks.len();
        let q = compile(
            &src,
            &format!("random{seed}.c"),
            &CompileOptions {
                regions: false,
                ..opts.clone()
            },
        )
        .unwrap_or_else(|e| panic!("{e}\n{src}"));
        agree_with_gcc(&src, &[&p, &q], 6, 1000 + seed, &format!("random{seed}"));
    }
    println!(
        "{PROGRAMS} random programs agree with gcc ({total_ands} AND gates in all, {regions} parallel regions)"
    );
}
