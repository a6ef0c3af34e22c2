//! A region's iterations whose partials subtract few secret bits (`s +=
//! a[i] - (b[i] & 1)`): each partial is made carry-save with its constant
//! (the subtraction's `+ 1`) kept apart, so a region costs no more AND
//! gates than unrolled iterations, whose constants fold into one. In the
//! columns, the `+ 1` carried through every bit: a full adder a bit in
//! each iteration, before adding the partial (3,880 AND gates over 64
//! terms, 1,984 unrolled). Partials of two full words (`a[i] - b[i]`)
//! keep that chain, as their second word would cost the total about as
//! much (and the region's work stays in the region): within 3% of
//! unrolled. Each must agree with gcc (on 24 random input sets, kept and
//! unrolled).

mod common;

use common::kept_within;

/// Terms of a running total over `a` and `b` (the parties' arrays) at
/// `i` whose second word has few secret bits.
const SPARSE: &[&str] = &[
    "a[i] - (b[i] & 1)",
    "(a[i] ^ b[i]) - (a[i] & 7)",
    "(a[i] > b[i]) - (a[i] < b[i])",
];

/// Terms whose carry-save words are both full.
const DENSE: &[&str] = &[
    "a[i] - b[i]",
    "a[i] * b[i] - b[i]",
    "-(a[i] * b[i])",
    "(a[i] - b[i]) * 3",
];

fn program(term: &str) -> String {
    format!(
        "#include <stdint.h>\n\
         typedef struct {{ uint32_t v[40]; }} In;\n\
         uint32_t mpc_main(In INPUT_A, In INPUT_B)\n\
         {{\n\
         \x20   uint32_t *a = INPUT_A.v, *b = INPUT_B.v, s = 0;\n\
         \x20   for (int i = 0; i < 40; i++)\n\
         \x20       s += {term};\n\
         \x20   return s;\n\
         }}\n"
    )
}

#[test]
fn subtracting_terms_cost_no_more_kept_than_unrolled() {
    for (n, term) in SPARSE.iter().enumerate() {
        kept_within(&format!("sparse{n}"), &program(term), 1800 + n as u64, 0);
    }
    for (n, term) in DENSE.iter().enumerate() {
        kept_within(&format!("dense{n}"), &program(term), 1810 + n as u64, 3);
    }
}
