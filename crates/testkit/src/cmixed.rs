//! Random C programs that mix products of secret words with everything
//! else, so that the partition of a mixed program (sums of products in an
//! arithmetic sharing, the rest in Boolean circuits) is exercised at its
//! edges: products and dot products of words of 8 to 64 bits, signed and
//! unsigned, extended and truncated by casts and multiplied again; factors
//! with known bits (shifted, masked, cut, comparisons); products read by
//! comparisons, secret branches, ternaries, minima and maxima, shifts,
//! division and remainder, secret array positions and loop exits; products
//! of sums and sums of products; accumulations in counted loops (dot
//! products, a small matrix product, a convolution, Horner's rule, running
//! extrema); products in called functions (one through a pointer), with
//! public constants and loop counters, and of a value with itself;
//! products as a whole output, as struct fields and as array elements.

use rand::Rng;

/// An integer type of C.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Ty {
    bits: u32,
    signed: bool,
}

const fn ty(bits: u32, signed: bool) -> Ty {
    Ty { bits, signed }
}

/// `int`, which narrower types promote to (and comparisons give).
const INT: Ty = ty(32, true);

const TYPES: [Ty; 8] = [
    ty(8, true),
    ty(8, false),
    ty(16, true),
    ty(16, false),
    ty(32, true),
    ty(32, false),
    ty(64, true),
    ty(64, false),
];

impl Ty {
    fn name(self) -> String {
        format!("{}int{}_t", if self.signed { "" } else { "u" }, self.bits)
    }

    fn promote(self) -> Ty {
        if self.bits < 32 {
            INT
        } else {
            self
        }
    }

    /// The type of a binary arithmetic operation on `a` and `b`.
    fn common(a: Ty, b: Ty) -> Ty {
        let (a, b) = (a.promote(), b.promote());
        if a.bits != b.bits {
            if a.bits > b.bits {
                a
            } else {
                b
            }
        } else {
            ty(a.bits, a.signed && b.signed)
        }
    }

    /// `a / b` (or `%`) in this (promoted) type, `a` where C leaves it
    /// undefined (by zero, and the least value by -1).
    fn divide(self, a: &str, b: &str, op: &str) -> String {
        let guard = if self.signed {
            let min = match self.bits {
                32 => "(-2147483647-1)",
                _ => "(-9223372036854775807LL-1)",
            };
            format!("({b}) == 0 || (({a}) == {min} && ({b}) == -1)")
        } else {
            format!("({b}) == 0")
        };
        format!("(({guard}) ? ({a}) : ({a}) {op} ({b}))")
    }
}

/// A random type, wide ones as often as narrow ones.
fn any_ty(rng: &mut impl Rng) -> Ty {
    TYPES[rng.gen_range(0..TYPES.len())]
}

/// A random program (C source) over inputs `INPUT_A` and `INPUT_B` of one
/// struct type (scalars, two arrays of 2 to 8 elements, a square matrix
/// of side 2 or 3) that multiplies secret words in many ways and does
/// everything else with the products; it returns a struct of scalars and
/// arrays or, now and then, a product of two of its values.
pub fn random_mixed_c_program(rng: &mut impl Rng) -> String {
    let mut g = Gen {
        n: rng.gen_range(2..=8),
        m: rng.gen_range(2..=3),
        fields: (0..rng.gen_range(2..=4)).map(|_| any_ty(rng)).collect(),
        x: any_ty(rng),
        y: any_ty(rng),
        mat: any_ty(rng),
        vars: Vec::new(),
        counters: Vec::new(),
        uid: 0,
    };
    let (tv, tmm) = (any_ty(rng), any_ty(rng));
    let mut body = String::new();
    // The output's arrays, as a product, a copy of an input or zeros.
    g.counters.push(("i".into(), g.n));
    let v0 = match rng.gen_range(0..3) {
        0 => g.product(rng, 1).0,
        1 => "INPUT_A.x[i]".into(),
        _ => "0".into(),
    };
    g.counters.pop();
    body.push_str(&format!(
        "    for (int i = 0; i < N; i++)\n        out.v[i] = {v0};\n"
    ));
    let mm0 = ["INPUT_B.m[i][j]", "INPUT_A.m[i][j] * INPUT_A.m[j][i]", "0"][rng.gen_range(0..3)];
    body.push_str(&format!(
        "    for (int i = 0; i < M; i++)\n        for (int j = 0; j < M; j++)\n            out.mm[i][j] = {mm0};\n"
    ));
    for k in 0..rng.gen_range(2..=4) {
        let t = any_ty(rng);
        let (e, _) = g.expr(rng, 2);
        body.push_str(&format!("    {} v{k} = {e};\n", t.name()));
        g.vars.push(t);
    }
    for _ in 0..rng.gen_range(2..=4) {
        g.stmt(rng, 2, 1, &mut body);
    }
    let (p, tp) = g.product(rng, 2);
    let (q, _) = g.product(rng, 2);
    let tq = any_ty(rng);
    body.push_str(&format!(
        "    out.p = {p};\n    out.q = ({})({q});\n",
        tq.name()
    ));
    let mut outs = String::new();
    for k in 0..g.vars.len() {
        let r = any_ty(rng);
        outs.push_str(&format!(" {} r{k};", r.name()));
        body.push_str(&format!("    out.r{k} = v{k};\n"));
    }
    // Now and then the program's result is one product, the rest dead.
    let (ret, end) = if rng.gen_ratio(1, 5) {
        let (a, b) = (
            rng.gen_range(0..g.vars.len()),
            rng.gen_range(0..g.vars.len()),
        );
        let t = Ty::common(g.vars[a], g.vars[b]);
        (t.name(), format!("    return v{a} * v{b};\n"))
    } else {
        ("Out".to_string(), "    return out;\n".to_string())
    };
    let fields: String = g
        .fields
        .iter()
        .enumerate()
        .map(|(k, t)| format!(" {} s{k};", t.name()))
        .collect();
    format!(
        "#include <stdint.h>\n\
         #define N {n}\n\
         #define M {m}\n\
         typedef struct {{{fields} {x} x[N]; {y} y[N]; {mat} m[M][M]; }} In;\n\
         typedef struct {{{outs} {tp} p; {tq} q; {tv} v[N]; {tmm} mm[M][M]; }} Out;\n\
         static int64_t mac(int64_t acc, int64_t a, int64_t b) {{ return acc + a * b; }}\n\
         static void accum(int32_t *acc, int32_t a, int32_t b) {{ *acc += a * b; }}\n\
         {ret} mpc_main(In INPUT_A, In INPUT_B)\n{{\n\
         \x20   Out out;\n\
         {body}{end}}}\n",
        n = g.n,
        m = g.m,
        x = g.x.name(),
        y = g.y.name(),
        mat = g.mat.name(),
        tp = tp.name(),
        tq = tq.name(),
        tv = tv.name(),
        tmm = tmm.name(),
    )
}

/// The state of a program being generated.
struct Gen {
    /// Length of the arrays `x` and `y` (`N`).
    n: usize,
    /// Side of the matrix `m` (`M`).
    m: usize,
    /// Types of the inputs' scalars `s0`, `s1`, ….
    fields: Vec<Ty>,
    x: Ty,
    y: Ty,
    mat: Ty,
    /// Types of the locals `v0`, `v1`, ….
    vars: Vec<Ty>,
    /// Loop counters in scope, each with its bound.
    counters: Vec<(String, usize)>,
    uid: usize,
}

impl Gen {
    fn fresh(&mut self, stem: &str) -> String {
        self.uid += 1;
        format!("{stem}{}", self.uid)
    }

    fn who(rng: &mut impl Rng) -> &'static str {
        ["INPUT_A", "INPUT_B"][rng.gen_range(0..2)]
    }

    /// An index below `bound`: a counter in scope (read forwards or
    /// backwards) or a constant.
    fn index(&self, rng: &mut impl Rng, bound: usize) -> String {
        let fit: Vec<&(String, usize)> =
            self.counters.iter().filter(|(_, b)| *b <= bound).collect();
        if fit.is_empty() || rng.gen_ratio(1, 4) {
            return rng.gen_range(0..bound).to_string();
        }
        let (c, b) = fit[rng.gen_range(0..fit.len())];
        if *b == bound && rng.gen_ratio(1, 3) {
            format!("{} - 1 - {c}", bound)
        } else {
            c.clone()
        }
    }

    /// A secret word: an input's scalar or element, or a local.
    fn secret(&self, rng: &mut impl Rng) -> (String, Ty) {
        match rng.gen_range(0..8) {
            0 | 1 => {
                let k = rng.gen_range(0..self.fields.len());
                (format!("{}.s{k}", Self::who(rng)), self.fields[k])
            }
            2 => (
                format!("{}.x[{}]", Self::who(rng), self.index(rng, self.n)),
                self.x,
            ),
            3 => (
                format!("{}.y[{}]", Self::who(rng), self.index(rng, self.n)),
                self.y,
            ),
            4 => {
                let (i, j) = (self.index(rng, self.m), self.index(rng, self.m));
                (format!("{}.m[{i}][{j}]", Self::who(rng)), self.mat)
            }
            _ if self.vars.is_empty() => (format!("{}.x[0]", Self::who(rng)), self.x),
            _ => {
                let k = rng.gen_range(0..self.vars.len());
                (format!("v{k}"), self.vars[k])
            }
        }
    }

    /// A public constant.
    fn constant(rng: &mut impl Rng) -> (String, Ty) {
        match rng.gen_range(0..5) {
            0 => (rng.gen_range(0..4).to_string(), INT),
            1 => (format!("({})", rng.gen_range(-300..300)), INT),
            2 => (
                ["255", "65535", "65537", "(-1)", "(-128)"][rng.gen_range(0..5)].into(),
                INT,
            ),
            3 => (format!("{}u", rng.gen::<u32>()), ty(32, false)),
            _ => (format!("({}LL)", rng.gen::<i64>() / 5), ty(64, true)),
        }
    }

    fn leaf(&self, rng: &mut impl Rng) -> (String, Ty) {
        match rng.gen_range(0..10) {
            0 => Self::constant(rng),
            1 if !self.counters.is_empty() => (
                self.counters[rng.gen_range(0..self.counters.len())]
                    .0
                    .clone(),
                INT,
            ),
            _ => self.secret(rng),
        }
    }

    /// An expression: products, often, and what reads them.
    fn expr(&mut self, rng: &mut impl Rng, depth: u32) -> (String, Ty) {
        if depth == 0 || rng.gen_ratio(1, 5) {
            return self.leaf(rng);
        }
        let d = depth - 1;
        match rng.gen_range(0..19) {
            0..=5 => self.product(rng, depth),
            6 => {
                let ((a, ta), (b, tb)) = (self.expr(rng, d), self.expr(rng, d));
                let op = ["+", "-"][rng.gen_range(0..2)];
                (format!("({a} {op} {b})"), Ty::common(ta, tb))
            }
            7 => (self.compare(rng, d), INT),
            8 => {
                let c = self.compare(rng, d);
                let ((a, ta), (b, tb)) = (self.expr(rng, d), self.expr(rng, d));
                (format!("({c} ? {a} : {b})"), Ty::common(ta, tb))
            }
            9 => {
                // The least or greatest of two products.
                let ((a, ta), (b, tb)) = (self.product(rng, d), self.product(rng, d));
                let op = ["<", ">"][rng.gen_range(0..2)];
                (
                    format!("(({a}) {op} ({b}) ? ({a}) : ({b}))"),
                    Ty::common(ta, tb),
                )
            }
            10 => {
                let (a, ta) = self.product(rng, d);
                let t = ta.promote();
                let op = ["<<", ">>", ">>"][rng.gen_range(0..3)];
                let k = if rng.gen_bool(0.5) {
                    rng.gen_range(0..t.bits).to_string()
                } else {
                    let (b, _) = self.leaf(rng);
                    format!("(({b}) & {})", t.bits - 1)
                };
                (format!("(({a}) {op} {k})"), t)
            }
            11 => {
                let ((a, ta), (b, tb)) = if rng.gen_bool(0.5) {
                    (self.product(rng, d), self.expr(rng, d))
                } else {
                    (self.expr(rng, d), self.product(rng, d))
                };
                let t = Ty::common(ta, tb);
                (t.divide(&a, &b, ["/", "%"][rng.gen_range(0..2)]), t)
            }
            12 => {
                let ((a, ta), (b, tb)) = (self.expr(rng, d), self.expr(rng, d));
                let op = ["&", "|", "^"][rng.gen_range(0..3)];
                (format!("({a} {op} {b})"), Ty::common(ta, tb))
            }
            13 | 14 => {
                let t = any_ty(rng);
                let (a, _) = self.expr(rng, d);
                if rng.gen_ratio(1, 8) {
                    (format!("((_Bool){a})"), INT)
                } else {
                    (format!("(({}){a})", t.name()), t.promote())
                }
            }
            16 => {
                // An element at a position computed from a product.
                let (p, _) = self.product(rng, d);
                let (w, c) = (Self::who(rng), ["x", "y"][rng.gen_range(0..2)]);
                let t = if c == "x" { self.x } else { self.y };
                (format!("{w}.{c}[(uint32_t)({p}) % N]"), t)
            }
            17 => {
                let ((a, _), (b, _), (c, _)) = (
                    self.expr(rng, d),
                    self.operand(rng, d),
                    self.operand(rng, d),
                );
                (format!("mac({a}, {b}, {c})"), ty(64, true))
            }
            15 => {
                let (a, ta) = self.expr(rng, d);
                let op = ["-", "~"][rng.gen_range(0..2)];
                (format!("({op}{a})"), ta.promote())
            }
            _ => {
                let (a, _) = self.expr(rng, d);
                (format!("(!{a})"), INT)
            }
        }
    }

    /// A comparison, usually of a product.
    fn compare(&mut self, rng: &mut impl Rng, depth: u32) -> String {
        let (a, _) = self.product(rng, depth);
        let (b, _) = self.expr(rng, depth);
        let op = ["<", "<=", ">", ">=", "==", "!="][rng.gen_range(0..6)];
        format!("({a} {op} {b})")
    }

    /// A product, of one of many shapes.
    fn product(&mut self, rng: &mut impl Rng, depth: u32) -> (String, Ty) {
        let d = depth.saturating_sub(1);
        match rng.gen_range(0..11) {
            0..=2 => {
                let ((a, ta), (b, tb)) = (self.operand(rng, d), self.operand(rng, d));
                (format!("({a} * {b})"), Ty::common(ta, tb))
            }
            3 => {
                // A value times itself.
                let (a, ta) = self.operand(rng, d);
                (format!("({a} * {a})"), ta.promote())
            }
            4 => {
                // Both factors extended (or cut) first.
                let t = any_ty(rng);
                let ((a, _), (b, _)) = (self.operand(rng, d), self.operand(rng, d));
                (format!("(({n}){a} * ({n}){b})", n = t.name()), t.promote())
            }
            5 => {
                // A product cut to a narrower type, multiplied again.
                let t = any_ty(rng);
                let ((a, _), (b, _)) = (self.operand(rng, d), self.operand(rng, d));
                let (c, tc) = self.operand(rng, d);
                let cut = format!("(({})({a} * {b}))", t.name());
                (format!("({cut} * {c})"), Ty::common(t, tc))
            }
            6 => {
                let (a, ta) = self.operand(rng, d);
                let (k, tk) = Self::constant(rng);
                (format!("({a} * {k})"), Ty::common(ta, tk))
            }
            7 if !self.counters.is_empty() => {
                let (a, ta) = self.operand(rng, d);
                let (c, _) = &self.counters[rng.gen_range(0..self.counters.len())];
                let c = if rng.gen_bool(0.5) {
                    c.clone()
                } else {
                    format!("({c} + 1)")
                };
                (format!("({c} * {a})"), ta.promote())
            }
            8 => {
                // A sum of products.
                let ((a, ta), (b, tb)) = (self.secret(rng), self.secret(rng));
                let ((c, tc), (e, te)) = (self.secret(rng), self.operand(rng, d));
                let op = ["+", "-"][rng.gen_range(0..2)];
                let t = Ty::common(Ty::common(ta, tb), Ty::common(tc, te));
                (format!("({a} * {b} {op} {c} * {e})"), t)
            }
            9 => {
                // A product of sums.
                let ((a, ta), (b, tb)) = (self.secret(rng), self.operand(rng, d));
                let ((c, tc), (e, te)) = (self.secret(rng), self.secret(rng));
                let t = Ty::common(Ty::common(ta, tb), Ty::common(tc, te));
                (format!("(({a} + {b}) * ({c} - {e}))"), t)
            }
            _ => {
                let ((a, ta), (b, tb)) = (self.secret(rng), self.secret(rng));
                let (c, tc) = self.operand(rng, d);
                (
                    format!("({a} * {b} * {c})"),
                    Ty::common(Ty::common(ta, tb), tc),
                )
            }
        }
    }

    /// A factor: mostly a secret word, else an expression.
    fn operand(&mut self, rng: &mut impl Rng, depth: u32) -> (String, Ty) {
        match rng.gen_range(0..9) {
            0..=4 => self.secret(rng),
            5 => self.sliced(rng),
            _ => self.expr(rng, depth),
        }
    }

    /// A secret word with some of its bits known: shifted, masked, cut
    /// by a cast, made odd, or a comparison's 0 or 1.
    fn sliced(&self, rng: &mut impl Rng) -> (String, Ty) {
        let (a, ta) = self.secret(rng);
        let t = ta.promote();
        match rng.gen_range(0..6) {
            0 => (format!("({a} >> {})", rng.gen_range(1..t.bits)), t),
            1 => (format!("({a} << {})", rng.gen_range(1..t.bits)), t),
            2 => {
                let (k, tk) = [
                    ("0xFF", INT),
                    ("0xFF00", INT),
                    ("3", INT),
                    ("0x7FFFFFFF", INT),
                    ("(-16)", INT),
                    ("0xF0F0F0F0u", ty(32, false)),
                    ("0xFFFFFFFF00LL", ty(64, true)),
                ][rng.gen_range(0..7)];
                (format!("({a} & {k})"), Ty::common(t, tk))
            }
            3 => {
                let c = any_ty(rng);
                (format!("(({}){a})", c.name()), c.promote())
            }
            4 => (format!("({a} | 1)"), t),
            _ => {
                let (b, _) = self.secret(rng);
                (format!("({a} < {b})"), INT)
            }
        }
    }

    /// A local to write: its name and type.
    fn var(&self, rng: &mut impl Rng) -> (String, Ty) {
        let k = rng.gen_range(0..self.vars.len());
        (format!("v{k}"), self.vars[k])
    }

    /// Runs `f` with counter `c` (below `bound`) in scope.
    fn with_counter<T>(&mut self, c: &str, bound: usize, f: impl FnOnce(&mut Gen) -> T) -> T {
        self.counters.push((c.to_string(), bound));
        let t = f(self);
        self.counters.pop();
        t
    }

    /// Statements, one to three.
    fn block(&mut self, rng: &mut impl Rng, depth: u32, indent: usize, out: &mut String) {
        for _ in 0..rng.gen_range(1..=3) {
            self.stmt(rng, depth, indent, out);
        }
    }

    /// One statement, indented by `indent` levels.
    fn stmt(&mut self, rng: &mut impl Rng, depth: u32, indent: usize, out: &mut String) {
        let pad = "    ".repeat(indent);
        let (v, tv) = self.var(rng);
        let acc = any_ty(rng).name();
        let text = match rng.gen_range(0..if depth == 0 { 4 } else { 18 }) {
            3 => {
                // A write at a position computed from a product.
                let (p, _) = self.product(rng, 1);
                let (e, _) = self.expr(rng, 1);
                format!("out.v[(uint32_t)({p}) % N] += {e};\n")
            }
            13 => {
                // A loop left when a sum of products passes a bound.
                let i = self.fresh("i");
                let ((p, _), (e, _)) =
                    self.with_counter(&i, self.n, |g| (g.product(rng, 1), g.expr(rng, 1)));
                let op = ["<", ">"][rng.gen_range(0..2)];
                format!(
                    "for (int {i} = 0; {i} < N; {i}++) {{\n{pad}    {v} += {p};\n{pad}    if ({v} {op} {e})\n{pad}        break;\n{pad}}}\n"
                )
            }
            14 => {
                // Products in called functions, one through a pointer.
                let ((a, _), (b, _)) = (self.operand(rng, 1), self.operand(rng, 1));
                let ((c, _), (e, _)) = (self.operand(rng, 1), self.operand(rng, 1));
                format!(
                    "{{\n{pad}    int32_t t = {v};\n{pad}    accum(&t, {a}, {b});\n{pad}    {v} = ({})mac(t, {c}, {e});\n{pad}}}\n",
                    tv.name()
                )
            }
            0 | 1 => {
                let (e, _) = self.expr(rng, 2);
                let op = ["=", "+=", "-=", "*=", "^="][rng.gen_range(0..5)];
                format!("{v} {op} {e};\n")
            }
            2 => {
                let i = self.index(rng, self.n);
                let (e, _) = self.expr(rng, 2);
                let op = ["=", "+=", "*="][rng.gen_range(0..3)];
                format!("out.v[{i}] {op} {e};\n")
            }
            4 | 15 => self.dot(rng, &v, &acc, &pad),
            12 => {
                // Horner's rule at a secret point.
                let i = self.fresh("i");
                let (t, _) = self.secret(rng);
                let (w, c) = (Self::who(rng), ["x", "y"][rng.gen_range(0..2)]);
                format!(
                    "{{\n{pad}    {acc} p = {w}.{c}[N - 1];\n{pad}    for (int {i} = N - 2; {i} >= 0; {i}--)\n{pad}        p = p * ({acc}){t} + {w}.{c}[{i}];\n{pad}    {v} += p;\n{pad}}}\n"
                )
            }
            5 => {
                // A matrix product into the output.
                let (i, j, k) = (self.fresh("i"), self.fresh("j"), self.fresh("k"));
                let op = ["=", "+=", "^="][rng.gen_range(0..3)];
                let cast = if rng.gen_bool(0.5) {
                    format!("({acc})")
                } else {
                    String::new()
                };
                format!(
                    "for (int {i} = 0; {i} < M; {i}++)\n{pad}    for (int {j} = 0; {j} < M; {j}++) {{\n{pad}        {acc} s = 0;\n{pad}        for (int {k} = 0; {k} < M; {k}++)\n{pad}            s += {cast}INPUT_A.m[{i}][{k}] * INPUT_B.m[{k}][{j}];\n{pad}        out.mm[{i}][{j}] {op} s;\n{pad}    }}\n"
                )
            }
            6 => {
                // A convolution (a product of polynomials), folded.
                let (i, j) = (self.fresh("i"), self.fresh("j"));
                let k = self.n.min(4);
                let (a, b) = (Self::who(rng), Self::who(rng));
                format!(
                    "{{\n{pad}    {acc} c[{len}];\n{pad}    for (int {i} = 0; {i} < {len}; {i}++)\n{pad}        c[{i}] = 0;\n{pad}    for (int {i} = 0; {i} < {k}; {i}++)\n{pad}        for (int {j} = 0; {j} < {k}; {j}++)\n{pad}            c[{i} + {j}] += ({acc}){a}.x[{i}] * {b}.y[{j}];\n{pad}    for (int {i} = 0; {i} < {len}; {i}++)\n{pad}        {v} = {v} * 3 + c[{i}];\n{pad}}}\n",
                    len = 2 * k - 1
                )
            }
            7 | 8 => {
                let c = self.compare(rng, 1);
                let mut s = format!("if ({c}) {{\n");
                self.block(rng, depth - 1, indent + 1, &mut s);
                if rng.gen_bool(0.6) {
                    s.push_str(&format!("{pad}}} else {{\n"));
                    self.block(rng, depth - 1, indent + 1, &mut s);
                }
                s.push_str(&format!("{pad}}}\n"));
                s
            }
            9 => {
                // A loop whose body branches on a product.
                let i = self.fresh("i");
                let (c, (p, _), (e, _)) = self.with_counter(&i, self.n, |g| {
                    (g.compare(rng, 1), g.product(rng, 1), g.expr(rng, 1))
                });
                format!(
                    "for (int {i} = 0; {i} < N; {i}++) {{\n{pad}    if ({c})\n{pad}        {v} += {p};\n{pad}    else\n{pad}        {v} = {v} * 3 - {e};\n{pad}}}\n"
                )
            }
            10 => {
                // The least or greatest of products in a loop.
                let i = self.fresh("i");
                let (first, _) = self.product(rng, 1);
                let (p, _) = self.with_counter(&i, self.n, |g| g.product(rng, 1));
                let op = ["<", ">"][rng.gen_range(0..2)];
                format!(
                    "{{\n{pad}    {acc} best = {first};\n{pad}    for (int {i} = 1; {i} < N; {i}++) {{\n{pad}        {acc} p = {p};\n{pad}        if (p {op} best)\n{pad}            best = p;\n{pad}    }}\n{pad}    {v} ^= best;\n{pad}}}\n"
                )
            }
            16 => {
                // The least squared distance (biometric matching): a
                // difference kept in a local, squared, and compared.
                let (i, j) = (self.fresh("i"), self.fresh("j"));
                let (a, b) = (Self::who(rng), Self::who(rng));
                let t = any_ty(rng).name();
                format!(
                    "{{\n{pad}    {acc} best = 0;\n{pad}    for (int {i} = 0; {i} < M; {i}++) {{\n{pad}        {acc} d = 0;\n{pad}        for (int {j} = 0; {j} < M; {j}++) {{\n{pad}            {t} t = {a}.m[{i}][{j}] - {b}.y[{j} % N];\n{pad}            d += t * t;\n{pad}        }}\n{pad}        if ({i} == 0 || d < best)\n{pad}            best = d;\n{pad}    }}\n{pad}    {v} += best;\n{pad}}}\n"
                )
            }
            11 => {
                // A product cut short and multiplied again.
                let ((a, _), (b, _), (c, _)) =
                    (self.secret(rng), self.secret(rng), self.secret(rng));
                let t = any_ty(rng).name();
                format!(
                    "{{\n{pad}    {t} t = ({t})({a} * {b});\n{pad}    {acc} u = t * {c};\n{pad}    {v} = ({})(u * t + {v});\n{pad}}}\n",
                    tv.name()
                )
            }
            _ => {
                // Elements of the output computed from products.
                let i = self.fresh("i");
                let (e, _) = self.with_counter(&i, self.n, |g| g.expr(rng, 2));
                let op = ["=", "+=", "-="][rng.gen_range(0..3)];
                format!("for (int {i} = 0; {i} < N; {i}++)\n{pad}    out.v[{i}] {op} {e};\n")
            }
        };
        out.push_str(&pad);
        out.push_str(&text);
    }

    /// A dot product (or a variant) accumulated into `v`.
    fn dot(&mut self, rng: &mut impl Rng, v: &str, acc: &str, pad: &str) -> String {
        let i = self.fresh("i");
        let (a, b) = (Self::who(rng), Self::who(rng));
        let term = match rng.gen_range(0..10) {
            0 => format!("({acc}){a}.x[{i}] * ({acc}){b}.y[{i}]"),
            1 => format!("{a}.x[{i}] * {b}.y[{i}]"),
            2 => format!("({acc}){a}.x[{i}] * {a}.x[{i}]"),
            3 => format!(
                "{a}.x[{i}] * {b}.y[N - 1 - {i}] * {}",
                rng.gen_range(-9..10)
            ),
            4 => format!("({a}.x[{i}] + {b}.x[{i}]) * {b}.y[{i}]"),
            5 => format!("{a}.x[{i}] * {b}.y[{i}] - {b}.x[{i}] * {a}.y[{i}]"),
            6 => format!("{a}.x[{i}] * {i}"),
            7 => {
                // A squared difference: a linear combination read twice.
                let d = format!("({acc})({a}.x[{i}] - {b}.y[{i}])");
                format!("{d} * {d}")
            }
            8 => {
                // Linear combinations with constants, a negation and casts.
                let (k, _) = Self::constant(rng);
                format!(
                    "({k} * {a}.x[{i}] - {b}.y[{i}] + 5) * ({acc})(-{b}.x[{i}] + ({acc}){a}.y[{i}])"
                )
            }
            _ => self.with_counter(&i, self.n, |g| g.product(rng, 2)).0,
        };
        let (init, _) = if rng.gen_bool(0.5) {
            ("0".to_string(), INT)
        } else {
            self.product(rng, 1)
        };
        let (op, fold) = (
            ["+=", "-="][rng.gen_range(0..2)],
            ["=", "+=", "^="][rng.gen_range(0..3)],
        );
        format!(
            "{{\n{pad}    {acc} s = {init};\n{pad}    for (int {i} = 0; {i} < N; {i}++)\n{pad}        s {op} {term};\n{pad}    {v} {fold} s;\n{pad}}}\n"
        )
    }
}
