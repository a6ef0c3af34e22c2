// Levenshtein (edit) distance of A's and B's strings of 200 8-bit characters (FastGC's dynamic program, one row at a time).
#include <stdint.h>

#define LEN 200

typedef struct {
    uint8_t s[LEN];
} String;

int mpc_main(String INPUT_A, String INPUT_B)
{
    int prev[LEN + 1];
    int cur[LEN + 1];
    for (int j = 0; j <= LEN; j++)
        prev[j] = j;
    for (int i = 1; i <= LEN; i++) {
        cur[0] = i;
        for (int j = 1; j <= LEN; j++) {
            int del = prev[j] + 1;
            int ins = cur[j - 1] + 1;
            int sub = prev[j - 1] + (INPUT_A.s[i - 1] != INPUT_B.s[j - 1]);
            int best = del < ins ? del : ins;
            cur[j] = sub < best ? sub : best;
        }
        for (int j = 0; j <= LEN; j++)
            prev[j] = cur[j];
    }
    return prev[LEN];
}
