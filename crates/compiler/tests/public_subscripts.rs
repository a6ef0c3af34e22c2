//! Subscripts read from tables of public positions in loops (`a[p[i]]`,
//! a sorting network's comparators, an edge list's endpoints): each
//! iteration reads its own public position, which a kept loop's template
//! would read as an input, selecting over the whole array in every
//! iteration (64 times the unrolled AND gates at 64 values, 110 times for
//! a sorting network of 64). Such loops are lowered plainly, and cost
//! what unrolling does.

mod common;

use common::kept_within;

/// Kept, `src` costs the AND gates unrolled does, agreeing with gcc, and
/// its loop at `line` says why it was unrolled.
fn costs_what_unrolling_does(name: &str, src: &str, line: u32, seed: u64) {
    let (kept, flat) = kept_within(name, src, seed, 0);
    let (k, f) = (kept.program.and_count(), flat.program.and_count());
    assert_eq!(k, f, "{name}: {k} AND gates kept, {f} unrolled");
    let l = (kept.loops.iter())
        .find(|l| l.line == line)
        .unwrap_or_else(|| panic!("{name}: a loop at line {line}"));
    let why = l.why.as_deref().unwrap_or_default();
    assert!(why.contains("table of positions"), "{name}: {l:?}");
}

/// A public permutation: 115,066 AND gates kept before, 1,792 unrolled.
#[test]
fn a_gather_through_a_permutation_costs_what_unrolling_does() {
    let src = "#include <stdint.h>\n\
        #define N 64\n\
        static const int P[N] = {21,31,20,46,8,47,41,52,26,50,13,17,58,22,53,15,42,27,16,63,\n\
        18,23,61,14,24,48,43,7,36,45,1,3,4,33,0,10,44,25,38,2,34,5,9,19,56,6,51,39,40,30,62,\n\
        11,12,37,60,32,28,29,49,59,54,35,55,57};\n\
        typedef struct { uint32_t v[N]; } V;\n\
        V mpc_main(V INPUT_A, V INPUT_B) {\n\
        \x20   V o;\n\
        \x20   for (int i = 0; i < N; i++) o.v[i] = (INPUT_A.v[P[i]] ^ INPUT_B.v[i]) > 7;\n\
        \x20   return o;\n\
        }\n";
    costs_what_unrolling_does("gather", src, 9, 71);
}

/// Positions computed into a table at run time, read through a pointer
/// moved by a value computed from them: 59,328 AND gates kept before,
/// 1,792 unrolled.
#[test]
fn positions_computed_from_a_table_cost_what_unrolling_does() {
    let src = "#include <stdint.h>\n\
        #define N 64\n\
        typedef struct { uint32_t v[N]; } V;\n\
        V mpc_main(V INPUT_A, V INPUT_B) {\n\
        \x20   int idx[N]; V o;\n\
        \x20   for (int i = 0; i < N; i++) idx[i] = (i * 37) % N;\n\
        \x20   for (int i = 0; i < N; i++)\n\
        \x20       o.v[i] = (*(INPUT_A.v + 2 * (idx[i] / 2)) ^ INPUT_B.v[i]) > 7;\n\
        \x20   return o;\n\
        }\n";
    costs_what_unrolling_does("computed", src, 7, 72);
}

/// An odd-even transposition sort of 16 values given as its 120
/// comparators' positions, read and written: 206,544 AND gates kept
/// before, 7,680 unrolled.
#[test]
fn a_sorting_network_from_a_comparator_table_costs_what_unrolling_does() {
    let n = 16;
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|r| (r % 2..n - 1).step_by(2).map(|k| (k, k + 1)))
        .collect();
    let table = |f: fn(&(usize, usize)) -> usize| {
        pairs
            .iter()
            .map(|p| f(p).to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let src = format!(
        "#include <stdint.h>\n\
        #define N {n}\n\
        #define C {}\n\
        static const int LO[C] = {{{}}};\n\
        static const int HI[C] = {{{}}};\n\
        typedef struct {{ int32_t v[N]; }} V;\n\
        V mpc_main(V INPUT_A, V INPUT_B) {{\n\
        \x20   V a;\n\
        \x20   for (int i = 0; i < N; i++) a.v[i] = INPUT_A.v[i] ^ INPUT_B.v[i];\n\
        \x20   for (int c = 0; c < C; c++) {{\n\
        \x20       int32_t x = a.v[LO[c]], y = a.v[HI[c]];\n\
        \x20       int s = x > y;\n\
        \x20       a.v[LO[c]] = s ? y : x;\n\
        \x20       a.v[HI[c]] = s ? x : y;\n\
        \x20   }}\n\
        \x20   return a;\n\
        }}\n",
        pairs.len(),
        table(|p| p.0),
        table(|p| p.1)
    );
    costs_what_unrolling_does("network", &src, 10, 73);
}
