//! Loops kept as loops: random programs whose loops carry values, index
//! arrays by the loop variable, shift by it, nest and reduce compute what
//! gcc computes, and what the same program fully unrolled (`loops: false`)
//! computes, with about as many AND gates; the examples' loops are kept or
//! unrolled as they should be.

mod common;

use common::agree_with_gcc;
use rand::SeedableRng;
use twofold_compiler::{compile, compile_file, CompileOptions, CompiledProgram};
use twofold_testkit::{random_loop_program, random_ranking_program};

fn compiled(src: &str, name: &str, opts: &CompileOptions) -> CompiledProgram {
    compile(src, name, opts).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

/// The program fully unrolled (`--no-loops`).
fn unrolled(src: &str, name: &str) -> CompiledProgram {
    let opts = CompileOptions {
        loops: false,
        ..CompileOptions::default()
    };
    compiled(src, name, &opts)
}

#[test]
fn random_loop_programs_agree_with_gcc_and_with_their_unrolled_form() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2024);
    let (mut kept, mut unrolled_loops, mut blocks) = (0, 0, 0);
    // Kept sorting networks: loops whose skipped iterations make no block
    // instance.
    let mut networks = 0;
    // Programs with a loop counting down in its condition, and with a
    // counting `while`.
    let (mut down, mut whiles) = (0, 0);
    for round in 0..60 {
        let src = random_loop_program(&mut rng);
        down += usize::from(src.contains("-- > 0") || src.contains("--)") || src.contains("0 < k"));
        whiles += usize::from(src.contains("while (k"));
        let name = format!("loops{round}.c");
        let with = compiled(&src, &name, &CompileOptions::default());
        let flat = unrolled(&src, &name);
        let sequential = compiled(
            &src,
            &name,
            &CompileOptions {
                regions: false,
                ..CompileOptions::default()
            },
        );
        assert!(flat.program.blocks.is_empty());
        kept += with.loops.iter().filter(|l| l.kept()).count();
        unrolled_loops += with.loops.iter().filter(|l| !l.kept()).count();
        blocks += with.program.blocks.len();
        networks += with
            .loops
            .iter()
            .filter(|l| l.kept() && l.disabled > 0)
            .count();
        // Kept loops compute the same gates, but for sharing the unrolled
        // form finds across iterations (and reductions rebuilt as trees).
        // A known exception: repeated squaring modulo 2^w, whose unrolled
        // iterations collapse bit by bit (bit i of a square depends only
        // on bits up to i) in a way one body cannot; and merges reading at
        // secret positions, whose ranges (how far each array has been
        // taken) grow every iteration, where a body serves several
        // iterations only over a wider range (a mux over more positions;
        // see docs/loops.md). Both are checked for gcc's results only.
        let (a, b) = (with.program.and_count(), flat.program.and_count());
        let known = squares_a_carried_value(&src) || src.contains("takea");
        assert!(
            known || a * 100 <= b * 110 + 1000,
            "round {round}: {a} AND gates kept, {b} unrolled\n{src}"
        );
        agree_with_gcc(
            &src,
            &[&with, &flat, &sequential],
            4,
            77 + round,
            &format!("loops{round}"),
        );
    }
    assert!(
        kept > 60 && unrolled_loops > 20 && blocks > 60 && networks >= 3,
        "{kept} kept, {unrolled_loops} unrolled, {blocks} blocks, {networks} networks"
    );
    assert!(
        down >= 5 && whiles >= 5,
        "{down} counting down, {whiles} whiles"
    );
}

/// Random rankings (values of random types and counts, ties broken by
/// position one way or the other) compute what gcc and their unrolled
/// form compute, with about as many AND gates (the partials' tree costs a
/// little more than the unrolled count's carry-save sum), their inner
/// loops kept as
/// regions in most programs (not where the runs before and after `i`
/// are both shorter than a block's least).
#[test]
fn random_rankings_agree_with_gcc_and_keep_their_inner_loops() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2026);
    let mut kept = 0;
    let rounds = 12;
    for round in 0..rounds {
        let src = random_ranking_program(&mut rng);
        let name = format!("rank{round}.c");
        let with = compiled(&src, &name, &CompileOptions::default());
        let flat = unrolled(&src, &name);
        if with.program.blocks.iter().any(|b| b.parallel) {
            kept += 1;
        }
        let (a, b) = (with.program.and_count(), flat.program.and_count());
        assert!(
            a * 100 <= b * 110 + 1000,
            "round {round}: {a} AND gates kept, {b} unrolled\n{src}"
        );
        agree_with_gcc(
            &src,
            &[&with, &flat],
            3,
            500 + round,
            &format!("rank{round}"),
        );
    }
    assert!(kept * 4 >= rounds * 3, "{kept} of {rounds} kept");
}

/// Whether a statement of `src` squares a variable into itself
/// (`x = x * x ...`).
fn squares_a_carried_value(src: &str) -> bool {
    src.lines().any(|line| {
        let line = line.trim();
        line.split_once(" = ").is_some_and(|(x, rhs)| {
            !x.is_empty()
                && x.chars().all(|c| c.is_alphanumeric() || c == '_')
                && rhs.starts_with(&format!("{x} * {x}"))
        })
    })
}

fn example(name: &str) -> CompiledProgram {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    compile_file(&path, &CompileOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// The loops of the examples that should be kept are, in full; those whose
/// iterations differ (or use the loop variable as a value) are not.
#[test]
fn examples_keep_the_loops_they_should() {
    let kept_fully = |p: &CompiledProgram, line: u32| {
        let l = p.loops.iter().find(|l| l.line == line).expect("the loop");
        assert!(l.kept(), "line {line}: {l:?}");
        l.clone()
    };
    // MExp: the region over the 32 exponentiations and, inside it, the
    // square-and-multiply loop (all but its first iteration, where the
    // result is still the constant 1).
    let mexp = example("mexp.c");
    assert!(kept_fully(&mexp, 22).is_region());
    let inner = kept_fully(&mexp, 25);
    assert_eq!(
        (inner.blocks.clone(), inner.unrolled),
        (vec![(31, false)], 1)
    );
    // Matrix loops: every level a region.
    let mm = example("matmul5x5.c");
    for line in [13, 14, 16] {
        assert!(kept_fully(&mm, line).is_region(), "matmul5x5 line {line}");
    }
    let mv = example("mvmul.c");
    for line in [17, 19] {
        assert!(kept_fully(&mv, line).is_region(), "mvmul line {line}");
    }
    let bio = example("biomatch.c");
    assert!(kept_fully(&bio, 18).is_region());
    // The recurrence of match_and_risk: a loop (after one warm-up iteration).
    let mr = example("match_and_risk.c");
    assert!(!kept_fully(&mr, 49).blocks[0].1);
    // The DP loops: rows and the loop over rows kept (values of different
    // widths read padded to the widest), at the price of AND gates: at most
    // 2.5 times those of the unrolled form, which narrows every cell to its
    // own range (see docs/loops.md).
    for (name, lines) in [("levenshtein.c", [16, 18]), ("smith_waterman.c", [50, 57])] {
        let p = example(name);
        for line in lines {
            let l = p.loops.iter().find(|l| l.line == line).expect("the loop");
            assert!(l.kept() && l.unrolled * 4 < l.iterations, "{name}: {l:?}");
        }
        let flat = compile_file(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../examples")
                .join(name),
            &CompileOptions {
                loops: false,
                ..CompileOptions::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let (a, b) = (p.program.and_count(), flat.program.and_count());
        assert!(a * 10 <= b * 25, "{name}: {a} AND gates kept, {b} unrolled");
        if name == "levenshtein.c" {
            // A cell's `del < ins ? del : ins` compares and selects the two
            // values before their common `+ 1` (see tests/sums.rs), as the
            // unrolled form shares that increment between rows.
            assert!(
                a * 100 <= b * 115,
                "{name}: {a} AND gates kept, {b} unrolled"
            );
        }
        if name == "smith_waterman.c" {
            // Its gap scores start far below zero (see the next test).
            assert!(a * 10 <= b * 13, "{name}: {a} AND gates kept, {b} unrolled");
        }
    }
}

/// A DP row whose carried gap score starts far below zero (Smith-Waterman's
/// `e = NEG`): values of its objects are read padded to the widest seen,
/// and a negative value that fits the padded width must leave it that wide
/// (not one bit wider each time the loop is probed again, up to all 32,
/// which made the kept form several times the unrolled AND gates).
#[test]
fn dp_rows_with_negative_gap_scores_stay_narrow() {
    let src = r#"
#define N 40
#define MAX(a, b) ((a) > (b) ? (a) : (b))
typedef struct { unsigned char s[N]; } Seq;
int mpc_main(Seq INPUT_A, Seq INPUT_B)
{
    int hprev[N + 1], hcur[N + 1];
    int best = 0;
    for (int j = 0; j <= N; j++)
        hprev[j] = 0;
    for (int i = 1; i <= N; i++) {
        int e = -1000;
        hcur[0] = 0;
        for (int j = 1; j <= N; j++) {
            e = MAX(e - 7, hcur[j - 1] - 19);
            int h = hprev[j - 1] + (INPUT_A.s[i - 1] == INPUT_B.s[j - 1]);
            h = MAX(h, e);
            h = MAX(h, 0);
            hcur[j] = h;
            best = MAX(best, h);
        }
        for (int j = 0; j <= N; j++)
            hprev[j] = hcur[j];
    }
    return best;
}
"#;
    let kept = compiled(src, "gap.c", &CompileOptions::default());
    let flat = unrolled(src, "gap.c");
    // The loop over rows and each row's loop.
    for line in [11, 14] {
        let l = kept
            .loops
            .iter()
            .find(|l| l.line == line)
            .expect("the loop");
        assert!(l.kept(), "line {line}: {l:?}");
    }
    // Padded to all 32 bits, the kept form had 8.5 times the AND gates of
    // the unrolled one; at the padding the cells need, it stays within
    // the bound of the DP examples above (the unrolled form narrows each
    // cell to its own range; `MAX` of ranges keeps both narrow).
    let (a, b) = (kept.program.and_count(), flat.program.and_count());
    assert!(a * 10 <= b * 25, "{a} AND gates kept, {b} unrolled");
    agree_with_gcc(src, &[&kept, &flat], 8, 7, "gap");
}

/// A running maximum that starts at a sentinel far below its values: the
/// sentinel is read by the first iteration only, so it must not make every
/// iteration compare and select at its width (the template was read
/// padded to the sentinel's 18 bits: twice the unrolled AND gates).
#[test]
fn a_sentinel_before_the_first_value_does_not_widen_the_loop() {
    let src = r#"
#define N 48
typedef struct { unsigned short v[N]; } V;
int mpc_main(V INPUT_A, V INPUT_B)
{
    int best = -100000, trace = 0;
    for (int j = 0; j < N; j++) {
        int x = (INPUT_A.v[j] ^ INPUT_B.v[j]) & 511;
        best = x > best ? x : best;
        trace ^= best;
    }
    return trace;
}
"#;
    let kept = compiled(src, "sentinel.c", &CompileOptions::default());
    let flat = unrolled(src, "sentinel.c");
    assert!(kept.loops[0].kept(), "{:?}", kept.loops[0]);
    let (a, b) = (kept.program.and_count(), flat.program.and_count());
    assert!(a * 100 <= b * 102, "{a} AND gates kept, {b} unrolled");
    agree_with_gcc(src, &[&kept, &flat], 8, 7, "sentinel");
}

/// Asserts that the first loop of `p` was unrolled for a reason that says
/// `why`.
fn assert_unrolled_because(p: &CompiledProgram, why: &str) {
    let l = &p.loops[0];
    let said = l.why.as_deref().is_some_and(|w| w.contains(why));
    assert!(!l.kept() && said, "{l:?}");
}

/// A selection sort: the inner loop (its minimum's index a secret that
/// grows with the counter) keeps nothing however it is probed. After
/// three of its runs probed and kept nothing, its later runs are
/// unrolled without probing (probing them all made the compile 1.7 times
/// the unrolled one's), with the unrolled AND gates; it sorts as gcc does.
#[test]
fn an_inner_loop_that_never_keeps_stops_being_probed() {
    let src = "#include <stdint.h>\n#define N 32\ntypedef struct { uint32_t v[N / 2]; } H;\ntypedef struct { uint32_t v[N]; } A;\nA mpc_main(H INPUT_A, H INPUT_B) {\n    A a;\n    for (int i = 0; i < N / 2; i++) { a.v[i] = INPUT_A.v[i]; a.v[i + N / 2] = INPUT_B.v[i]; }\n    for (int i = 0; i < N - 1; i++) {\n        int m = i;\n        for (int j = i + 1; j < N; j++) if (a.v[j] < a.v[m]) m = j;\n        uint32_t t = a.v[i]; a.v[i] = a.v[m]; a.v[m] = t;\n    }\n    return a;\n}\n";
    let p = compiled(src, "selection.c", &CompileOptions::default());
    let flat = unrolled(src, "selection.c");
    let inner = p
        .loops
        .iter()
        .find(|l| l.line == 10)
        .expect("the inner loop");
    let said = inner.why.as_deref() == Some("its last 3 runs probed and kept nothing");
    assert!(!inner.kept() && said, "{inner:?}");
    assert_eq!(p.program.and_count(), flat.program.and_count());
    agree_with_gcc(src, &[&p, &flat], 4, 15, "selection");
}

/// A histogram: the inner loop over the bins only adds to lazy counts, so
/// each of its runs makes no gates and is lowered plainly. After three
/// such runs it is unrolled without probing: probing each of the 128 runs
/// cost a third of the compile, and settled the counts' sums early (more
/// AND gates than unrolled). Now it has the unrolled AND gates and counts
/// as gcc does.
#[test]
fn an_inner_loop_of_gateless_runs_stops_being_probed() {
    let src = "#include <stdint.h>\ntypedef struct { uint8_t v[128]; } V;\ntypedef struct { int h[16]; } H;\nH mpc_main(V INPUT_A, V INPUT_B) {\n    H r;\n    for (int k = 0; k < 16; k++) r.h[k] = 0;\n    for (int i = 0; i < 128; i++)\n        for (int k = 0; k < 16; k++)\n            if (((INPUT_A.v[i] ^ INPUT_B.v[i]) & 15) == k) r.h[k]++;\n    return r;\n}\n";
    let p = compiled(src, "histogram.c", &CompileOptions::default());
    let flat = unrolled(src, "histogram.c");
    let bins = p
        .loops
        .iter()
        .find(|l| l.line == 8)
        .expect("the bins' loop");
    let said = bins.why.as_deref() == Some("its last 3 runs probed and kept nothing");
    assert!(!bins.kept() && said, "{bins:?}");
    assert_eq!(p.program.and_count(), flat.program.and_count());
    agree_with_gcc(src, &[&p, &flat], 4, 16, "histogram");
}

/// A 0/1 knapsack with public weights (`w` counting down): each row is a
/// region. Many cells of a row read the same wires (the capacities every
/// item so far fits in) and are one instance, as structural hashing makes
/// them one set of gates unrolled: about the unrolled AND gates, where an
/// instance each had 2.8 times as many. It computes what gcc computes.
#[test]
fn region_instances_that_read_the_same_wires_are_one() {
    let src = "#include <stdint.h>\n#define ITEMS 32\n#define CAP 128\ntypedef struct { uint16_t val[ITEMS]; } Vals;\ntypedef struct { uint8_t take[ITEMS]; } Mask;\nuint32_t mpc_main(Vals INPUT_A, Mask INPUT_B) {\n    static const int wt[ITEMS] = {3, 7, 2, 9, 4, 5, 1, 8, 6, 3, 7, 2, 9, 4, 5, 1, 8, 6, 3, 7, 2, 9, 4, 5, 1, 8, 6, 3, 7, 2, 9, 4};\n    uint32_t dp[CAP + 1];\n    for (int w = 0; w <= CAP; w++) dp[w] = 0;\n    for (int i = 0; i < ITEMS; i++)\n        for (int w = CAP; w >= wt[i]; w--) {\n            uint32_t c = dp[w - wt[i]] + (INPUT_B.take[i] ? INPUT_A.val[i] : 0);\n            if (c > dp[w]) dp[w] = c;\n        }\n    return dp[CAP];\n}\n";
    let p = compiled(src, "knapsack.c", &CompileOptions::default());
    let flat = unrolled(src, "knapsack.c");
    let row = p.loops.iter().find(|l| l.line == 11).expect("a row");
    assert!(row.kept(), "{row:?}");
    let (a, b) = (p.program.and_count(), flat.program.and_count());
    assert!(a * 100 <= b * 110, "{a} AND gates kept, {b} unrolled");
    agree_with_gcc(src, &[&p, &flat], 6, 17, "knapsack");
}

/// A `while` loop whose body ends by stepping the variable its condition
/// compares (`while (i < N) { ...; i++; }`) is the `for` loop it spells,
/// and is kept as one; one whose body may `continue` past the step (which
/// a `for` loop would run) stays a `while` loop. Both compute what gcc
/// and the unrolled form compute, with the unrolled AND gates.
#[test]
fn counting_while_loops_are_kept() {
    let src = "#include <stdint.h>\n#define N 300\ntypedef struct { uint32_t v[N]; } V;\nuint32_t mpc_main(V INPUT_A, V INPUT_B) {\n    uint32_t t = 0;\n    int i = 0;\n    while (i < N) {\n        t = (t ^ INPUT_A.v[i]) + (INPUT_B.v[i] & t);\n        i++;\n    }\n    int j = 0;\n    while (j < N) { if ((j & 3) == 1) { j += 2; continue; } t += INPUT_B.v[j] * 3; j++; }\n    return t + i + j;\n}\n";
    let p = compiled(src, "while.c", &CompileOptions::default());
    let flat = unrolled(src, "while.c");
    let counted = p
        .loops
        .iter()
        .find(|l| l.line == 7)
        .expect("the first loop");
    assert!(counted.kept(), "{counted:?}");
    assert!(p.loops.iter().all(|l| l.line != 12), "{:?}", p.loops);
    assert_eq!(p.program.and_count(), flat.program.and_count());
    agree_with_gcc(src, &[&p, &flat], 4, 16, "while");
}

/// A condition that adds a constant to the variable (`j + 1 < N`, `2 +
/// j <= N`, `j - 1 < N`) counts the loop as `j < N - 1` would: an odd-even
/// transposition sort keeps every pass as a region, with the unrolled
/// AND gates, and sorts as gcc does. A variable that the offset would
/// take past its type's values (`uint8_t j` up to 251, plus 10) is
/// unrolled, and computes what gcc computes.
#[test]
fn conditions_with_an_offset_are_counted() {
    let src = "#include <stdint.h>\n#define N 32\ntypedef struct { uint32_t v[N / 2]; } H;\ntypedef struct { uint32_t v[N]; uint32_t s; } A;\nA mpc_main(H INPUT_A, H INPUT_B) {\n    A a;\n    for (int i = 0; i < N / 2; i++) { a.v[i] = INPUT_A.v[i]; a.v[i + N / 2] = INPUT_B.v[i]; }\n    for (int r = 0; r < N; r++)\n        for (int j = r % 2; j + 1 < N; j += 2) {\n            uint32_t x = a.v[j], y = a.v[j + 1];\n            if (x > y) { a.v[j] = y; a.v[j + 1] = x; }\n        }\n    a.s = 0;\n    for (int j = 1; 2 + j <= N; j++) a.s += a.v[j] ^ a.v[j + 1];\n    for (int j = 3; j - 1 < N - 2; j++) a.s += a.v[j] & INPUT_B.v[j % 16];\n    for (uint8_t j = 240; j + 10 < 262; j++) a.s = a.s * 3 + (a.v[j % N] >> (j % 7));\n    return a;\n}\n";
    let p = compiled(src, "oddeven.c", &CompileOptions::default());
    let flat = unrolled(src, "oddeven.c");
    let pass = p.loops.iter().find(|l| l.line == 9).expect("a pass");
    assert!(pass.kept(), "{pass:?}");
    for line in [14, 15] {
        let l = p.loops.iter().find(|l| l.line == line).expect("the loop");
        assert!(
            l.why.as_deref()
                != Some("the condition is not a comparison of a variable with a bound"),
            "line {line}: {l:?}"
        );
    }
    assert_eq!(p.program.and_count(), flat.program.and_count());
    agree_with_gcc(src, &[&p, &flat], 6, 14, "oddeven");
}

/// A merge reading at secret positions (how far each array has been
/// taken, whose ranges grow every iteration). Its positions are written in
/// secret branches and read first where the branches merge; that read
/// once counted as one after the iteration's write, so no probe could be
/// applied to another iteration, and probing stopped after 32 probes
/// (a 256 + 256 merge took 3.8 s and 388 MB). Now runs are kept between
/// the iterations where the positions' ranges widen, with a few more AND
/// gates than unrolled (wider ranges within a run), and it merges as gcc
/// does.
#[test]
fn a_merge_at_secret_positions_is_kept_in_runs() {
    let src = "#include <stdint.h>\ntypedef struct { uint32_t v[64]; } In;\ntypedef struct { uint32_t v[128]; } Out;\nOut mpc_main(In INPUT_A, In INPUT_B) {\n    Out o;\n    int i = 0, j = 0;\n    for (int k = 0; k < 128; k++) {\n        uint32_t x = i < 64 ? INPUT_A.v[i] : 0xffffffffu;\n        uint32_t y = j < 64 ? INPUT_B.v[j] : 0xffffffffu;\n        if (x <= y) { o.v[k] = x; i++; } else { o.v[k] = y; j++; }\n    }\n    return o;\n}\n";
    let p = compiled(src, "merge.c", &CompileOptions::default());
    let flat = unrolled(src, "merge.c");
    let l = &p.loops[0];
    assert!(l.kept() && l.blocks.len() >= 4, "{l:?}");
    let (a, b) = (p.program.and_count(), flat.program.and_count());
    assert!(a * 100 <= b * 103, "{a} AND gates kept, {b} unrolled");
    agree_with_gcc(src, &[&p, &flat], 4, 13, "merge");
}

/// A loop that uses its variable as a value (other than storing it) is
/// probed iteration by iteration; when every iteration lowers to other
/// gates (a remainder by another constant) it is unrolled, and says so.
#[test]
fn loops_whose_iterations_all_differ_are_unrolled() {
    let src = "#include <stdint.h>\nint32_t mpc_main(int32_t INPUT_A, int32_t INPUT_B) {\n    int32_t t = 0;\n    for (int i = 0; i < 8; i++)\n        t += INPUT_A % (i + 3) + INPUT_B;\n    return t;\n}\n";
    let p = compiled(src, "value.c", &CompileOptions::default());
    assert_unrolled_because(&p, "lower alike are shorter");
    agree_with_gcc(src, &[&p], 3, 4, "value");
}

/// A bitonic sort of 64 values, written as the textbook loop nest: the
/// inner loop computes its partner (`i ^ j`), skips half its iterations
/// (`l > i`) and picks a direction (`i & k`) from its counters. Every
/// stage is one region, with no instance for a skipped iteration and the
/// direction wired in per instance, with exactly the AND gates of the
/// unrolled sort; it sorts as gcc does.
#[test]
fn a_bitonic_sort_keeps_its_inner_loops() {
    let src = "#include <stdint.h>\n#define N 64\ntypedef struct { uint32_t v[N / 2]; } Half;\ntypedef struct { uint32_t v[N]; } All;\nAll mpc_main(Half INPUT_A, Half INPUT_B) {\n    All a;\n    for (int i = 0; i < N / 2; i++) { a.v[i] = INPUT_A.v[i]; a.v[i + N / 2] = INPUT_B.v[i]; }\n    for (int k = 2; k <= N; k <<= 1)\n        for (int j = k >> 1; j > 0; j >>= 1)\n            for (int i = 0; i < N; i++) {\n                int l = i ^ j;\n                if (l > i) {\n                    uint32_t x = a.v[i], y = a.v[l];\n                    if (((i & k) == 0) == (x > y)) { a.v[i] = y; a.v[l] = x; }\n                }\n            }\n    return a;\n}\n";
    let p = compiled(src, "bitonic.c", &CompileOptions::default());
    let flat = unrolled(src, "bitonic.c");
    // 21 stages of 32 compare-swaps of 64 AND gates.
    assert_eq!(flat.program.and_count(), 21 * 32 * 64);
    assert_eq!(p.program.and_count(), flat.program.and_count());
    // Each of the 21 stages (its runs are the loop's, reported together):
    // one region of its 32 active iterations; the 32 others are skipped.
    let inner = p
        .loops
        .iter()
        .find(|l| l.line == 10)
        .expect("the inner loop");
    assert_eq!(inner.blocks, vec![(32, true); 21], "{inner:?}");
    assert_eq!((inner.disabled, inner.unrolled), (21 * 32, 0), "{inner:?}");
    let regions = p.program.blocks.iter().filter(|b| b.parallel).count();
    assert_eq!(regions, 21);
    assert!(p.program.blocks.iter().all(|b| b.count == 32));
    agree_with_gcc(src, &[&p, &flat], 4, 9, "bitonic");
}

/// A ranking: each value's rank counts the values below it, ties broken
/// by position (`j < i`, a decision of both counters). The inner loop
/// reduces into its count, so it is kept as regions (one for the
/// iterations before `i`, one after), each iteration yielding its term:
/// carried from one iteration to the next, the growing sum made every
/// iteration lower differently and the loop was unrolled after probing
/// (twice the unrolled compile). About the unrolled AND gates; it ranks
/// as gcc does, ties included (8-bit values).
#[test]
fn a_ranking_keeps_its_inner_loop_as_regions() {
    let src = "#include <stdint.h>\n#define N 64\ntypedef struct { uint8_t v[N / 2]; } Half;\ntypedef struct { uint32_t r[N]; } Ranks;\nRanks mpc_main(Half INPUT_A, Half INPUT_B) {\n    uint8_t a[N];\n    Ranks out;\n    for (int i = 0; i < N / 2; i++) { a[i] = INPUT_A.v[i]; a[i + N / 2] = INPUT_B.v[i]; }\n    for (int i = 0; i < N; i++) {\n        uint32_t r = 0;\n        for (int j = 0; j < N; j++)\n            r += (a[j] < a[i]) || (a[j] == a[i] && j < i);\n        out.r[i] = r;\n    }\n    return out;\n}\n";
    let p = compiled(src, "rank.c", &CompileOptions::default());
    let flat = unrolled(src, "rank.c");
    let inner = p
        .loops
        .iter()
        .find(|l| l.line == 11)
        .expect("the inner loop");
    assert!(inner.kept(), "{inner:?}");
    let regions = p.program.blocks.iter().filter(|b| b.parallel).count();
    assert!(regions >= 64, "{regions} regions: {:?}", p.loops);
    let (a, b) = (p.program.and_count(), flat.program.and_count());
    assert!(a * 100 <= b * 105, "{a} AND gates kept, {b} unrolled");
    agree_with_gcc(src, &[&p, &flat], 6, 12, "rank");
}

/// A loop whose two subscripts (`p = 2 * i` and `l`, which is `p` in the
/// iterations with `i & 16` and `p + 1` in the others) meet in runs of 16
/// iterations and not in the 16 between: where they meet, an iteration
/// reads what it wrote, so it is never replayed from a template of one
/// where they do not (nor the other way round), and the program computes
/// what gcc and the unrolled form do.
#[test]
fn iterations_whose_subscripts_meet_are_not_replayed_from_others() {
    let src = "#include <stdint.h>\ntypedef struct { uint32_t v[256]; } A;\nA mpc_main(A INPUT_A, A INPUT_B) {\n    A a;\n    for (int i = 0; i < 256; i++) a.v[i] = INPUT_A.v[i] ^ INPUT_B.v[i];\n    for (int i = 0; i < 128; i++) {\n        int p = 2 * i;\n        int l = (i & 16) ? p : p + 1;\n        uint32_t x = a.v[p], y = a.v[l];\n        a.v[l] = x * y;\n        a.v[p] = a.v[p] ^ (y >> 1);\n    }\n    return a;\n}\n";
    let p = compiled(src, "meet.c", &CompileOptions::default());
    let flat = unrolled(src, "meet.c");
    let l = p.loops.iter().find(|l| l.line == 6).expect("the loop");
    assert!(l.kept(), "{l:?}");
    agree_with_gcc(src, &[&p, &flat], 6, 11, "meet");
}

/// A loop whose products are only read after it (`a[i] = a[i] * a[i +
/// 8]`) makes no gates in its iterations: the products are reduced where
/// the output reads them. It is unrolled, and says why.
#[test]
fn a_loop_that_makes_no_gates_says_why_it_is_unrolled() {
    let src = "#include <stdint.h>\ntypedef struct { uint32_t v[16]; } A;\nA mpc_main(A INPUT_A, A INPUT_B) {\n    A a = INPUT_A;\n    for (int i = 0; i < 8; i++)\n        a.v[i] = a.v[i] * a.v[i + 8] + INPUT_B.v[i];\n    return a;\n}\n";
    let p = compiled(src, "lazy.c", &CompileOptions::default());
    assert_unrolled_because(&p, "make no gates");
    agree_with_gcc(src, &[&p], 3, 5, "lazy");
}

/// A multiply chain of 10^5 iterations compiles to a loop of its own, in
/// a program whose size does not depend on the trip count.
#[test]
fn a_long_chain_is_one_loop() {
    let chain = |n: u64| {
        format!(
            "#include <stdint.h>\nuint32_t mpc_main(uint32_t INPUT_A, uint32_t INPUT_B) {{\n    uint32_t acc = 0;\n    for (int i = 0; i < {n}; i++)\n        acc = acc * INPUT_B + INPUT_A;\n    return acc;\n}}\n"
        )
    };
    let small = compiled(&chain(10_000), "chain.c", &CompileOptions::default());
    let big = compiled(&chain(100_000), "chain.c", &CompileOptions::default());
    assert_eq!(small.program.blocks.len(), 1);
    let kept = big.program.blocks[0].count;
    assert_eq!(kept, 100_000 - 3);
    assert_eq!(
        big.program.and_count(),
        1024 * kept + big.program.main.and_count() as u64
    );
    assert_eq!(
        big.program.and_count(),
        small.program.and_count() + 1024 * 90_000
    );
    let size = |p: &CompiledProgram| {
        let mut bytes = Vec::new();
        twofold_circuit::binary::write_program(&p.program, &mut bytes).unwrap();
        bytes.len()
    };
    assert_eq!(size(&small), size(&big));
    agree_with_gcc(&chain(100_000), &[&big], 3, 5, "chain");
}

/// A short steady run (a chain whose later iterations are not simulated)
/// that is inlined rather than kept: its result is the last iteration's,
/// whatever the trip count.
#[test]
fn short_steady_chains_end_with_their_last_iteration() {
    for n in 3..=9 {
        let src = format!(
            "#include <stdint.h>\ntypedef struct {{ uint16_t x; uint16_t u; }} In;\nuint16_t mpc_main(In INPUT_A, In INPUT_B) {{\n    uint16_t u = INPUT_A.u;\n    for (int k = 0; k < {n}; k++) u = u * u + INPUT_B.x;\n    return u;\n}}\n"
        );
        let p = compiled(&src, "steady.c", &CompileOptions::default());
        agree_with_gcc(&src, &[&p], 4, n, &format!("steady{n}"));
    }
}

/// Iterations of a kept loop whose values nothing reads cost nothing, as
/// they cost nothing unrolled: here only the first row of the matrix
/// product reaches the output.
#[test]
fn iterations_nothing_reads_are_dropped() {
    let src = "#include <stdint.h>\n#define N 9\ntypedef struct { int32_t x[N]; int32_t y[N]; } In;\nint32_t mpc_main(In INPUT_A, In INPUT_B) {\n    int32_t a[N];\n    for (int i = 0; i < N; i++) {\n        int32_t s = 0;\n        for (int j = 0; j < N; j++)\n            s += INPUT_A.x[i] * INPUT_B.x[j];\n        a[i] = s;\n    }\n    return a[0] ^ INPUT_B.y[0];\n}\n";
    let with = compiled(src, "dead.c", &CompileOptions::default());
    let flat = unrolled(src, "dead.c");
    assert!(with.loops.iter().any(|l| l.kept()), "{:?}", with.loops);
    let (a, b) = (with.program.and_count(), flat.program.and_count());
    assert!(a * 100 <= b * 110, "{a} AND gates kept, {b} unrolled");
    agree_with_gcc(src, &[&with, &flat], 4, 9, "dead");
}

/// A chain of which only the low bit is read after the loop computes only
/// what that bit depends on, as it does unrolled.
#[test]
fn carried_bits_nothing_reads_are_dropped() {
    let src = "#include <stdint.h>\nuint32_t mpc_main(uint32_t INPUT_A, uint32_t INPUT_B) {\n    uint32_t t = INPUT_A;\n    for (int i = 0; i < 200; i++)\n        t = t * INPUT_B + INPUT_A;\n    return t & 1;\n}\n";
    let with = compiled(src, "low.c", &CompileOptions::default());
    let flat = unrolled(src, "low.c");
    assert_eq!(with.program.blocks.len(), 1, "{:?}", with.loops);
    let (a, b) = (with.program.and_count(), flat.program.and_count());
    assert!(
        a * 100 <= b * 110 + 1000,
        "{a} AND gates kept, {b} unrolled"
    );
    agree_with_gcc(src, &[&with, &flat], 4, 21, "low");
}

#[test]
fn loops_counting_down_by_steps_are_counted() {
    // (first, comparison, bound, step down, trips): the trip count of a
    // loop counting down used to round the wrong way when the distance
    // is a multiple of the step (and `i >= b` with an odd distance), and
    // such loops were refused as "could wrap".
    let cases = [
        (62, ">", 0, 2, 31),
        (63, ">", 0, 2, 32),
        (63, ">=", 0, 2, 32),
        (62, ">=", 0, 2, 32),
        (63, ">=", 5, 3, 20),
        (60, ">", 4, 4, 14),
    ];
    for (n, (first, op, bound, step, trips)) in cases.into_iter().enumerate() {
        let src = format!(
            "#include <stdint.h>\n\
             typedef struct {{ uint32_t v[64]; }} Row;\n\
             Row mpc_main(Row INPUT_A, Row INPUT_B) {{\n\
             \x20   Row o = {{0}};\n\
             \x20   for (int i = {first}; i {op} {bound}; i -= {step})\n\
             \x20       o.v[i] = INPUT_A.v[i] * INPUT_B.v[i];\n\
             \x20   return o;\n\
             }}\n"
        );
        let p = compiled(&src, "down.c", &CompileOptions::default());
        let l = p.loops.iter().find(|l| l.line == 5).expect("the loop");
        assert!(l.kept(), "{first} {op} {bound} by {step}: {l:?}");
        assert_eq!(l.iterations, trips, "{first} {op} {bound} by {step}");
        agree_with_gcc(&src, &[&p], 2, 400 + n as u64, &format!("down{n}"));
    }
}

/// A value each iteration of a nest overwrites, in a loop hoisted out of
/// the one around it: the hoisted loop gives the same wire in several
/// iterations' outputs, which became two inputs of the kept body
/// ("internal: a kept loop's body: invalid circuit: wire N is two
/// inputs", about one random loop nest in 250).
#[test]
fn nests_overwriting_a_value_keep_their_loops() {
    let srcs = [
        "int mpc_main(int INPUT_A[8], int INPUT_B[8]) {\n    int w = 0;\n    for (int i = 0; i < 2; i++)\n        for (int j = 0; j < 2; j++)\n            for (int k = 0; k < 2; k++)\n                w = INPUT_A[(k + 5) & 7] == INPUT_B[k];\n    return w;\n}\n",
        "int mpc_main(int INPUT_A, int INPUT_B[2]) {\n    int g = INPUT_A, r = 0;\n    struct { int y; } s[2];\n    for (int i = 0; i < 2; i++) {\n        for (int j = 0; j < 2; j++) {\n            int v = g;\n            for (int k = 0; k < 2; k++) {\n                r = !v;\n                s[i].y = v;\n            }\n        }\n        g = INPUT_B[i];\n    }\n    return r + s[1].y;\n}\n",
    ];
    kept_and_unrolled_agree_with_gcc(&srcs, "overwrite", 31);
}

/// Each of `srcs`, kept and unrolled, agrees with gcc on random inputs.
fn kept_and_unrolled_agree_with_gcc(srcs: &[&str], tag: &str, seed: u64) {
    for (n, src) in srcs.iter().enumerate() {
        let name = format!("{tag}{n}");
        let kept = compiled(src, &format!("{name}.c"), &CompileOptions::default());
        let flat = unrolled(src, &format!("{name}.c"));
        agree_with_gcc(src, &[&kept, &flat], 8, seed + n as u64, &name);
    }
}

/// A kept loop whose first iteration takes another branch than the rest
/// (`if (i > 0) r += a[i - 1]; else ...`, `j == 0 ? x : d[j - 1]`): its
/// iterations' template reads the condition as an input, so the branch
/// not taken is lowered too, on a path that may never run; its index
/// out of bounds there was an error ("pointer arithmetic leaves the
/// object", "array index -1 is out of bounds").
#[test]
fn a_first_iteration_guarded_by_the_counter() {
    let srcs = [
        "int mpc_main(int INPUT_A[8], int INPUT_B) {\n    int r = INPUT_B;\n    for (int i = 0; i < 9; i++)\n        if (i > 0) r += INPUT_A[i - 1]; else r += 5;\n    return r;\n}\n",
        "int mpc_main(int INPUT_A, int INPUT_B) {\n    int d[8];\n    for (int j = 0; j < 8; j++)\n        d[j] = j == 0 ? INPUT_A : d[j - 1] + INPUT_B;\n    return d[7];\n}\n",
    ];
    kept_and_unrolled_agree_with_gcc(&srcs, "first", 41);
}

/// A loop that runs once is lowered as written, without a probe (around
/// a region of 8,192 exchanges it took 0.3 s and 130 MB instead of 0.08 s
/// and 37 MB), and `stats` says why; the region inside is still kept.
#[test]
fn a_loop_run_once_is_not_probed() {
    let src = "typedef struct { unsigned v[512]; } All;
All mpc_main(All INPUT_A, int INPUT_B)
{
    All a = INPUT_A;
    for (int k = 1; k <= 1; k++)
        for (int j = 0; j < 511; j += 2) {
            unsigned x = a.v[j], y = a.v[j + k];
            if (x > y) {
                a.v[j] = y;
                a.v[j + k] = x;
            }
        }
    return a;
}";
    let p = common::agree_kept_and_unrolled("once", src, 5);
    let once = p.loops.iter().find(|l| l.line == 5).expect("the loop");
    assert_eq!(once.why.as_deref(), Some("it runs once"), "{once:?}");
    let inner = p
        .loops
        .iter()
        .find(|l| l.line == 6)
        .expect("the inner loop");
    assert!(inner.is_region(), "{inner:?}");
}

/// With every loop unrolled, each loop still has its verdict, saying
/// why: `stats --no-loops` (and a program compiled again flat after its
/// kept compilation passed the work limit) listed no loops at all.
#[test]
fn unrolled_programs_list_their_loops() {
    let src = "int mpc_main(int INPUT_A, int INPUT_B)
{
    int s = 0;
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < i; j++)
            s += (INPUT_A >> j) & INPUT_B;
    return s;
}";
    let p = unrolled(src, "flat.c");
    let lines: Vec<u32> = p.loops.iter().map(|l| l.line).collect();
    assert_eq!(lines, [4, 5]);
    for l in &p.loops {
        assert!(!l.kept(), "{l:?}");
        assert_eq!(l.why.as_deref(), Some(twofold_compiler::NO_LOOPS), "{l:?}");
    }
}

/// A kept loop counts its iterations from its condition and step once, so
/// a body that changes what they read where the source does not show it
/// (through a pointer, in a function it calls) makes the rest of the loop
/// run as written. The count stayed: 200 iterations where gcc runs 60
/// (a bound cut through a pointer or a called function), the old step
/// kept after a called function changed it, or the loop variable moved
/// through a pointer.
#[test]
fn a_body_that_changes_its_count_behind_the_scenes_runs_as_written() {
    let src = "int n = 200, k = 1;
static void cut(void) { n = 60; }
static void bump(void) { k++; }
typedef struct { int r[5]; } Out;
Out mpc_main(int INPUT_A, int INPUT_B)
{
    Out o = {{0, 0, 0, 0, 0}};
    for (int j = 0; j < n; j++) {
        o.r[0] += (INPUT_A >> (j & 7)) & INPUT_B;
        if (j > 50)
            cut();
    }
    int m = 200;
    int *p = &m;
    for (int j = 0; j < m; j++) {
        o.r[1] += (INPUT_A >> (j & 7)) & INPUT_B;
        if (j > 50)
            *p = 70;
    }
    for (int j = 0; j < 200; j += k) {
        o.r[2] += (INPUT_A >> (j & 7)) & INPUT_B;
        if (j > 50)
            bump();
    }
    int s = 1;
    int *q = &s;
    for (int j = 0; j < 300; j += 2 * s) {
        o.r[3] += (INPUT_B >> (j & 7)) & INPUT_A;
        if (j > 100)
            *q = 3;
    }
    int i;
    int *pi = &i;
    for (i = 0; i < 200; i++) {
        o.r[4] += (INPUT_A >> (i & 7)) & INPUT_B;
        if (i == 50)
            *pi = 150;
    }
    return o;
}";
    let p = common::agree_kept_and_unrolled("changed_count", src, 9);
    for line in [8, 15] {
        let l = p.loops.iter().find(|l| l.line == line).expect("the loop");
        assert!(
            l.why.as_deref().is_some_and(|w| w.contains("changes")),
            "{l:?}"
        );
    }
}
