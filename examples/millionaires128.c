// Millionaires' problem on 128-bit values (a workload of Siim's hybrid-protocol
// thesis, "mil128"): A and B each give an unsigned 128-bit value as four
// 32-bit words, least significant first (w[0] holds bits 0..31); the output is
// 1 if A's value is greater than B's, else 0. (twofold's C has no
// `unsigned __int128` or `_BitInt`, so the comparison runs over the words.)
#include <stdint.h>

#define WORDS 4

typedef struct {
    uint32_t w[WORDS];
} U128;

int mpc_main(U128 INPUT_A, U128 INPUT_B)
{
    // B - A, word by word with the borrow: A > B exactly when it borrows out
    // of the top word.
    uint32_t borrow = 0;
    for (int i = 0; i < WORDS; i++) {
        uint64_t d = (uint64_t)INPUT_B.w[i] - INPUT_A.w[i] - borrow;
        borrow = (uint32_t)(d >> 63);
    }
    return borrow;
}
