// Edit (Levenshtein) distance of two 128-bit strings (a workload of Siim's
// hybrid-protocol thesis): A and B each give a string of 16 8-bit characters
// (16 x 8 = 128 bits; every byte value is a character, no terminator); the
// output is the least number of single-character insertions, deletions and
// substitutions that turn A's string into B's (0..16).
//
// The same dynamic program as levenshtein.c, one row at a time. 8-bit cells
// suffice (a distance never exceeds 16); the compiler's range analysis
// narrows the cells as far either way (with int cells: the same gates).
#include <stdint.h>

#define LEN 16

typedef struct {
    uint8_t s[LEN];
} String;

int mpc_main(String INPUT_A, String INPUT_B)
{
    uint8_t prev[LEN + 1];
    uint8_t cur[LEN + 1];
    for (int j = 0; j <= LEN; j++)
        prev[j] = j;
    for (int i = 1; i <= LEN; i++) {
        cur[0] = i;
        for (int j = 1; j <= LEN; j++) {
            uint8_t del = prev[j] + 1;
            uint8_t ins = cur[j - 1] + 1;
            uint8_t sub = prev[j - 1] + (INPUT_A.s[i - 1] != INPUT_B.s[j - 1]);
            uint8_t best = del < ins ? del : ins;
            cur[j] = sub < best ? sub : best;
        }
        for (int j = 0; j <= LEN; j++)
            prev[j] = cur[j];
    }
    return prev[LEN];
}
