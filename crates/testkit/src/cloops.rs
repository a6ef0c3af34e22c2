//! Random C programs whose loops a compiler may keep as loops: counted
//! `for` loops whose bodies use the loop variable to index arrays and to
//! shift, with values carried from one iteration to the next (scalars and
//! array elements), independent iterations, reductions, nested loops,
//! secret branches and `continue`; loops whose end depends on a secret
//! (breaks, found flags) but whose counter stays public on the paths
//! still running, so that they end without `--unwind`; loops that compute
//! with their
//! variable (sorting networks whose partners and directions are functions
//! of the counters, bitonic or odd-even merge sorts bounded by
//! conjunctions, counter-affine sums, rankings whose ties the
//! counters break); merges that read at secret positions; positions of
//! a running best or of the last match, moved from the counter.

use rand::Rng;

/// Element types of the input arrays, with their C names.
const TYPES: [&str; 6] = [
    "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "uint64_t",
];

/// A random program (C source) over inputs `INPUT_A` and `INPUT_B` of one
/// struct type, returning a struct of results.
pub fn random_loop_program(rng: &mut impl Rng) -> String {
    let mut g = LoopGen::new(rng);
    let statements = rng.gen_range(2..=5);
    for _ in 0..statements {
        g.statement(rng);
    }
    g.program()
}

/// A random program as [`random_loop_program`] makes them whose loops
/// (one to three) a secret ends early, each with a loop of another kind
/// before it half the time: they end without `--unwind`.
pub fn random_secret_exit_program(rng: &mut impl Rng) -> String {
    let mut g = LoopGen::new(rng);
    for _ in 0..rng.gen_range(1..=3) {
        if rng.gen_bool(0.5) {
            g.statement(rng);
        }
        let text = g.secret_exit(rng);
        g.body.push_str(&text);
    }
    g.program()
}

/// A random program as [`random_loop_program`] makes them, of 16 to 40
/// values, whose loops rank them (see `LoopGen::ranking`) once or twice.
pub fn random_ranking_program(rng: &mut impl Rng) -> String {
    let mut g = LoopGen::new(rng);
    g.n = rng.gen_range(16..=40);
    for _ in 0..rng.gen_range(1..=2) {
        let text = g.ranking(rng);
        g.body.push_str(&text);
    }
    g.program()
}

/// A random program as [`random_loop_program`] makes them whose loops
/// (one to three) track the position of a running best or of the last
/// match (the counter moved into a local) or sort by Batcher's odd-even
/// merge network (inner loops bounded by a conjunction).
pub fn random_position_program(rng: &mut impl Rng) -> String {
    let mut g = LoopGen::new(rng);
    for _ in 0..rng.gen_range(1..=3) {
        let text = if rng.gen_bool(0.5) {
            g.position(rng)
        } else {
            g.odd_even_network(rng)
        };
        g.body.push_str(&text);
    }
    g.program()
}

struct LoopGen {
    n: usize,
    ty: &'static str,
    acc_ty: &'static str,
    /// Functions the body calls, before `mpc_main`.
    functions: String,
    body: String,
    next_var: usize,
}

impl LoopGen {
    /// A program of random sizes and types, its statements yet to come.
    fn new(rng: &mut impl Rng) -> LoopGen {
        LoopGen {
            n: rng.gen_range(3..=12usize),
            ty: TYPES[rng.gen_range(0..TYPES.len())],
            acc_ty: TYPES[rng.gen_range(2..TYPES.len())],
            functions: String::new(),
            body: String::new(),
            next_var: 0,
        }
    }

    /// The program (C source) over inputs `INPUT_A` and `INPUT_B` of one
    /// struct type, returning a struct of results.
    fn program(&self) -> String {
        let (n, ty, acc_ty) = (self.n, self.ty, self.acc_ty);
        format!(
            "#include <stdint.h>\n\
             #define N {n}\n\
             typedef struct {{ {ty} x[N]; {ty} y[N]; {ty} m[N][N]; uint32_t s; }} In;\n\
             typedef struct {{ {acc_ty} r[N]; {acc_ty} t; {acc_ty} u; }} Out;\n\
             {}\
             Out mpc_main(In INPUT_A, In INPUT_B)\n{{\n\
             \x20   Out out;\n\
             \x20   {acc_ty} a[N];\n\
             \x20   {acc_ty} t = INPUT_B.s, u = 1;\n\
             \x20   const {ty} *py = INPUT_B.y;\n\
             \x20   for (int i = 0; i < N; i++) a[i] = INPUT_A.x[i];\n\
             {}\
             \x20   for (int i = 0; i < N; i++) out.r[i] = a[i];\n\
             \x20   out.t = t;\n\
             \x20   out.u = u;\n\
             \x20   return out;\n}}\n",
            self.functions, self.body
        )
    }

    fn var(&mut self) -> String {
        self.next_var += 1;
        format!("k{}", self.next_var)
    }

    /// An expression over inputs and state, indexed by `i` (and `j`).
    fn value(&self, rng: &mut impl Rng, i: &str, j: Option<&str>) -> String {
        match rng.gen_range(0..9) {
            0 => match rng.gen_range(0..3) {
                0 => format!("INPUT_A.x[{i}]"),
                1 => format!("INPUT_A.x[N - 1 - {i}]"),
                // Not affine: the loop is unrolled.
                _ => format!("INPUT_A.x[({i} * 2) % N]"),
            },
            // An array read through a pointer, as an array parameter is
            // (every other variable: no draw of `rng`).
            1 if self.next_var.is_multiple_of(2) => format!("py[{i}]"),
            1 => format!("INPUT_B.y[{i}]"),
            2 => match j {
                Some(j) => format!("INPUT_A.m[{i}][{j}]"),
                None => format!("INPUT_B.m[{i}][{i}]"),
            },
            3 => "t".to_string(),
            4 => format!("a[{i}]"),
            5 => format!("((INPUT_B.s >> {i}) & 1)"),
            6 => "u".to_string(),
            7 => format!("{}", rng.gen_range(1..100)),
            _ => format!("INPUT_A.y[N - 1 - {i}]"),
        }
    }

    /// A loop running `body` (one statement) for each `i` of `0..N`, in one
    /// of the forms C programs count with: up in a `for` or a `while`, or
    /// down in the condition (`i-- > 0`, `while (i--)`), where the
    /// variable outlives the loop or not. (The form follows the variables
    /// made so far, not `rng`, whose draws make the rest of the program.)
    fn over_n(&self, i: &str, body: &str) -> String {
        match self.next_var % 5 {
            0 => format!("    for (int {i} = 0; {i} < N; {i}++)\n        {body}\n"),
            1 => format!("    int {i} = 0;\n    while ({i} < N) {{\n        {body}\n        {i}++;\n    }}\n    t ^= {i};\n"),
            2 => format!("    for (unsigned {i} = N; {i}-- > 0; )\n        {body}\n"),
            3 => format!("    int {i} = N;\n    while ({i}--)\n        {body}\n    t += {i};\n"),
            _ => format!("    int {i} = N;\n    for (; 0 < {i}--; ) {{\n        {body}\n    }}\n    u -= {i};\n"),
        }
    }

    fn op(rng: &mut impl Rng) -> &'static str {
        ["+", "-", "*", "^", "&", "|"][rng.gen_range(0..6)]
    }

    /// One loop statement of the program.
    fn statement(&mut self, rng: &mut impl Rng) {
        let i = self.var();
        let acc = self.acc_ty;
        let (x, y) = (self.value(rng, &i, None), self.value(rng, &i, None));
        let op = Self::op(rng);
        let text = match rng.gen_range(0..14) {
            // A carried scalar (a chain).
            0 => format!(
                "    for (int {i} = 0; {i} < N; {i}++)\n        t = t * {x} {op} {y};\n"
            ),
            // Independent elements.
            1 => self.over_n(&i, &format!("a[{i}] = ({acc})({x} {op} {y});")),
            // A tape: each element from the one before.
            2 => format!(
                "    for (int {i} = 1; {i} < N; {i}++)\n        a[{i}] = a[{i} - 1] {op} ({acc}){x};\n"
            ),
            // A reduction.
            3 => self.over_n(&i, &format!("u += ({acc})({x} {op} {y});")),
            // A secret branch in the body, with continue.
            4 => format!(
                "    for (int {i} = 0; {i} < N; {i}++) {{\n        if (({x}) & 1) {{ t += {y}; continue; }}\n        u ^= t {op} {x};\n    }}\n"
            ),
            // Nested loops over the matrix.
            5 => {
                let j = self.var();
                let z = self.value(rng, &i, Some(&j));
                format!(
                    "    for (int {i} = 0; {i} < N; {i}++) {{\n        {acc} s = 0;\n        for (int {j} = 0; {j} < N; {j}++)\n            s += ({acc}){z} * ({acc})INPUT_B.x[{j}];\n        a[{i}] ^= s;\n    }}\n"
                )
            }
            // Square and multiply over the bits of a secret.
            6 => format!(
                "    for (int {i} = 31; {i} >= 0; {i}--) {{\n        u = u * u;\n        if ((INPUT_A.s >> {i}) & 1) u = u * ({acc})INPUT_B.x[0];\n    }}\n"
            ),
            // A row whose values grow by one at a time (their ranges too).
            9 => format!(
                "    for (int {i} = 1; {i} < N; {i}++)\n        a[{i}] = (a[{i} - 1] + 1 < ({acc}){x}) ? a[{i} - 1] + 1 : ({acc}){x};\n"
            ),
            // DP rows: the row number stored, each row from the last.
            10 => {
                let j = self.var();
                format!(
                    "    for (int {i} = 1; {i} < N; {i}++) {{\n        a[0] = {i};\n        for (int {j} = 1; {j} < N; {j}++) {{\n            {acc} d = a[{j} - 1] + 1;\n            {acc} e = a[{j}] + (({acc})INPUT_A.x[{j}] != ({acc})INPUT_B.x[{i}]);\n            a[{j}] = d < e ? d : e;\n        }}\n    }}\n"
                )
            }
            // The loop variable as a value.
            7 => format!("    for (int {i} = 0; {i} < N; {i}++)\n        t += ({acc}){i} * {x};\n"),
            11 => self.sorting_network(rng),
            // Counter-affine values over more iterations than the arrays.
            12 => {
                let trips = rng.gen_range(8..40);
                format!(
                    "    for (int {i} = 0; {i} < {trips}; {i}++)\n        t += ({acc}){i} * ({acc})INPUT_A.x[{i} % N] + (({acc})INPUT_B.y[{i} % N] ^ ({acc}){i});\n"
                )
            }
            13 => self.merge(),
            // A long carried chain.
            _ => {
                let rounds = rng.gen_range(4..80);
                format!(
                    "    for (int {i} = 0; {i} < {rounds}; {i}++)\n        t = (t ^ (t << 3)) {op} u;\n"
                )
            }
        };
        self.body.push_str(&text);
    }

    /// A bitonic sorting network over 8, 16 or 32 values made from the
    /// inputs (each its own: with repeated values, the unrolled network
    /// would share the gates of repeated compare-swaps): the partner (`i ^ j`), whether a pair is compared
    /// (`l > i`) and its direction (`(i & k) == 0`) are functions of the
    /// counters. The compare-swap is written in the loop, or called: a
    /// function swapping through pointers (which may count its swaps in a
    /// global, folded into `t`, or reach the partner as an offset from the
    /// first's place), or one comparing values. The sorted
    /// values are folded into `u`.
    fn sorting_network(&mut self, rng: &mut impl Rng) -> String {
        let acc = self.acc_ty;
        let (b, i, k, j) = (self.var(), self.var(), self.var(), self.var());
        let p = [8, 16, 32][rng.gen_range(0..3)];
        let descending = ["==", "!="][rng.gen_range(0..2)];
        let f = self.var();
        let up = format!("((({i} & {k}) == 0) {descending} 1)");
        let (swap, after) = match rng.gen_range(0..5) {
            0 => (
                format!(
                    "{acc} x = {b}[{i}], y = {b}[l];\n                        \
                     if ((({i} & {k}) == 0) {descending} (x > y)) {{ {b}[{i}] = y; {b}[l] = x; }}"
                ),
                String::new(),
            ),
            1 => {
                self.functions.push_str(&format!(
                    "static void {f}({acc} *x, {acc} *y, int up) {{\n\
                     \x20   if ((*x > *y) == up) {{ {acc} t = *x; *x = *y; *y = t; }}\n}}\n"
                ));
                (format!("{f}(&{b}[{i}], &{b}[l], {up});"), String::new())
            }
            2 => {
                self.functions.push_str(&format!(
                    "static uint32_t {f}_swaps = 0;\n\
                     static void {f}({acc} *x, {acc} *y, int up) {{\n\
                     \x20   if ((*x > *y) == up) {{ {acc} t = *x; *x = *y; *y = t; {f}_swaps++; }}\n}}\n"
                ));
                let fold = format!("        t = t * 5 + {f}_swaps;\n");
                (format!("{f}(&{b}[{i}], &{b}[l], {up});"), fold)
            }
            3 => {
                // The partner as an offset from the first's place.
                self.functions.push_str(&format!(
                    "static void {f}({acc} *x, int d, int up) {{\n\
                     \x20   if ((x[0] > x[d]) == up) {{ {acc} t = x[0]; x[0] = x[d]; x[d] = t; }}\n}}\n"
                ));
                (format!("{f}(&{b}[{i}], l - {i}, {up});"), String::new())
            }
            _ => {
                self.functions.push_str(&format!(
                    "static int {f}({acc} x, {acc} y) {{ return x > y; }}\n"
                ));
                (
                    format!(
                        "{acc} x = {b}[{i}], y = {b}[l];\n                        \
                         if ((({i} & {k}) == 0) {descending} {f}(x, y)) {{ {b}[{i}] = y; {b}[l] = x; }}"
                    ),
                    String::new(),
                )
            }
        };
        format!(
            "    {{\n        {acc} {b}[{p}];\n        \
             for (int {i} = 0; {i} < {p}; {i}++)\n            \
             {b}[{i}] = ({acc})INPUT_A.x[{i} % N] * 7 + ({acc})INPUT_B.y[({i} + 1) % N] + {i};\n        \
             for (int {k} = 2; {k} <= {p}; {k} <<= 1)\n            \
             for (int {j} = {k} >> 1; {j} > 0; {j} >>= 1)\n                \
             for (int {i} = 0; {i} < {p}; {i}++) {{\n                    \
             int l = {i} ^ {j};\n                    \
             if (l > {i}) {{\n                        \
             {swap}\n                    \
             }}\n                }}\n        \
             for (int {i} = 0; {i} < {p}; {i}++)\n            \
             u = u * 3 + {b}[{i}];\n{after}    }}\n"
        )
    }

    /// Batcher's odd-even merge sort over 8, 16 or 32 values made from the
    /// inputs: the inner loop is bounded by a conjunction
    /// (`i < k && i + j + k < p`), and whether a pair is compared is a
    /// quotient of the counters. The compare-swap is written in the loop or called through
    /// pointers. The sorted values are folded into `u`.
    fn odd_even_network(&mut self, rng: &mut impl Rng) -> String {
        let acc = self.acc_ty;
        let (b, q, k, j, i) = (self.var(), self.var(), self.var(), self.var(), self.var());
        let p = [8, 16, 32][rng.gen_range(0..3)];
        // (A factor of its own: two networks sorting the same values would
        // share their gates unrolled.)
        let salt = 2 * self.next_var + 1;
        let (x, y) = (format!("{b}[{i} + {j}]"), format!("{b}[{i} + {j} + {k}]"));
        let swap = if rng.gen_bool(0.5) {
            format!("{{ {acc} x = {x}, y = {y}; if (x > y) {{ {x} = y; {y} = x; }} }}")
        } else {
            let f = self.var();
            self.functions.push_str(&format!(
                "static void {f}({acc} *x, {acc} *y) {{\n\
                 \x20   if (*x > *y) {{ {acc} t = *x; *x = *y; *y = t; }}\n}}\n"
            ));
            format!("{f}(&{x}, &{y});")
        };
        format!(
            "    {{\n        {acc} {b}[{p}];\n        \
             for (int {i} = 0; {i} < {p}; {i}++)\n            \
             {b}[{i}] = ({acc})INPUT_A.x[{i} % N] * {salt} + ({acc})INPUT_B.y[({i} + 2) % N] + {i};\n        \
             for (int {q} = 1; {q} < {p}; {q} <<= 1)\n            \
             for (int {k} = {q}; {k} >= 1; {k} >>= 1)\n                \
             for (int {j} = {k} % {q}; {j} + {k} < {p}; {j} += 2 * {k})\n                    \
             for (int {i} = 0; {i} < {k} && {i} + {j} + {k} < {p}; {i}++)\n                        \
             if (({i} + {j}) / (2 * {q}) == ({i} + {j} + {k}) / (2 * {q}))\n                            \
             {swap}\n        \
             for (int {i} = 0; {i} < {p}; {i}++)\n            \
             u = u * 3 + {b}[{i}];\n    }}\n"
        )
    }

    /// The position of a running best or of the last match, moved from the
    /// loop variable under a secret branch or a selection, from a start of
    /// 0, -1 or N; folded into `t`, the best into `u`.
    fn position(&mut self, rng: &mut impl Rng) -> String {
        let acc = self.acc_ty;
        let (i, best, pos) = (self.var(), self.var(), self.var());
        let start = ["0", "-1", "N"][rng.gen_range(0..3)];
        let better = ["<", ">", "<=", ">="][rng.gen_range(0..4)];
        let x = self.value(rng, &i, None);
        let step = match rng.gen_range(0..3) {
            0 => format!("if (({acc}){x} {better} {best}) {{ {best} = ({acc}){x}; {pos} = {i}; }}"),
            1 => format!(
                "_Bool c = ({acc}){x} {better} {best};\n            \
                 {best} = c ? ({acc}){x} : {best};\n            \
                 {pos} = c ? {i} : {pos};"
            ),
            _ => format!("if ((({x}) & 3) == 1) {pos} = {i};"),
        };
        format!(
            "    {{\n        {acc} {best} = a[0];\n        int {pos} = {start};\n        \
             for (int {i} = 1; {i} < N; {i}++) {{\n            {step}\n        }}\n        \
             t += ({acc}){pos};\n        u ^= {best};\n    }}\n"
        )
    }

    /// A ranking of the values (each one's count of those before it in
    /// the order, ties broken by position: a decision of both counters),
    /// folded into the array. (Ties counted both ways, `j != i`, cost up
    /// to 4/3 the unrolled AND gates kept: see docs/loops.md.)
    fn ranking(&mut self, rng: &mut impl Rng) -> String {
        let acc = self.acc_ty;
        let (b, i, j, r) = (self.var(), self.var(), self.var(), self.var());
        let below = ["<", ">"][rng.gen_range(0..2)];
        let tie = ["<", ">"][rng.gen_range(0..2)];
        format!(
            "    {{\n        {acc} {b}[N];\n        \
             for (int {i} = 0; {i} < N; {i}++) {b}[{i}] = a[{i}];\n        \
             for (int {i} = 0; {i} < N; {i}++) {{\n            \
             {acc} {r} = 0;\n            \
             for (int {j} = 0; {j} < N; {j}++)\n                \
             {r} += ({b}[{j}] {below} {b}[{i}]) || ({b}[{j}] == {b}[{i}] && {j} {tie} {i});\n            \
             a[{i}] = a[{i}] * 3 + {r};\n        \
             }}\n    }}\n"
        )
    }

    /// A loop that a secret ends early (see the module docs): a `continue`
    /// and a secret `break`, a found flag in the condition, a `do`-`while`
    /// with a secret `break`, `for (;;)` with a secret `break` before a
    /// public one, or a `while` stepping its counter in secret branches
    /// that `continue` as well as after them (beside a secret `break`, or
    /// a second such branch). Folded into `t` and `u`.
    fn secret_exit(&mut self, rng: &mut impl Rng) -> String {
        let acc = self.acc_ty;
        let i = self.var();
        let (x, y) = (self.value(rng, &i, None), self.value(rng, &i, None));
        let stop = format!("(({acc})({x}) & 7) == (({acc})({y}) & 7)");
        let skip = format!("(INPUT_B.x[{i}] & 3) == 0");
        match rng.gen_range(0..6) {
            0 => format!(
                "    {{
        int {i} = 0;
                         for (; {i} < N; {i}++) {{
                             if ({skip}) continue;
                             if ({stop}) break;
                             u += ({acc}){x};
        }}
                         t += {i};
    }}
"
            ),
            1 => format!(
                "    {{
        int {i} = 0, found = 0;
                         while ({i} < N && !found) {{
                             if ({stop}) found = 1;
                             else {i}++;
        }}
                         t = t * 3 + {i} + found;
    }}
"
            ),
            2 => format!(
                "    {{
        int {i} = 0;
                         do {{
                             if ({stop}) break;
                             u ^= ({acc}){y};
                             {i}++;
        }} while ({i} < N);
                         t += {i};
    }}
"
            ),
            4 => format!(
                "    {{
        int {i} = 0;
                         while ({i} < N) {{
                             if ({stop}) break;
                             if ({skip}) {{ u += ({acc}){x}; {i}++; continue; }}
                             u ^= ({acc}){y};
                             {i} += 1;
        }}
                         t += {i};
    }}
"
            ),
            5 => format!(
                "    {{
        int {i} = 0;
                         while ({i} < N) {{
                             if ({skip}) {{ ++{i}; continue; }}
                             if ({stop}) {{ u -= ({acc}){x}; {i}++; continue; }}
                             u = u * 3 + ({acc}){y};
                             {i}++;
        }}
                         t ^= {i} + u;
    }}
"
            ),
            _ => format!(
                "    {{
        int {i} = 0;
                         for (;;) {{
                             if ({stop}) break;
                             u = u * 5 + ({acc}){x};
                             if (++{i} == N) break;
        }}
                         t ^= {i};
    }}
"
            ),
        }
    }

    /// A merge of two arrays, reading each at a secret position (how far
    /// it has been taken from), folded into `t`.
    fn merge(&mut self) -> String {
        let acc = self.acc_ty;
        let (i, pa, pb) = (self.var(), self.var(), self.var());
        format!(
            "    {{\n        int {pa} = 0, {pb} = 0;\n        \
             for (int {i} = 0; {i} < N; {i}++) {{\n            \
             {acc} va = a[{pa} < N ? {pa} : N - 1];\n            \
             {acc} vb = ({acc})INPUT_B.y[{pb} < N ? {pb} : N - 1];\n            \
             int takea = {pb} >= N || ({pa} < N && va <= vb);\n            \
             t = t * 5 + (takea ? va : vb);\n            \
             if (takea) {pa}++; else {pb}++;\n        \
             }}\n    }}\n"
        )
    }
}
