// Bitonic sort of N unsigned 32-bit values (256 unless N is defined first):
// party A holds the first half, party B the second; the output is all N
// sorted. The textbook loop nest: the inner loop computes its partner
// (i ^ j), skips the iterations where it is not the lower of the pair and
// takes its direction from i & k, so every stage is kept as one region.
#include <stdint.h>

#ifndef N
#define N 256
#endif

typedef struct {
    uint32_t v[N / 2];
} Half;

typedef struct {
    uint32_t v[N];
} All;

All mpc_main(Half INPUT_A, Half INPUT_B)
{
    All a;
    for (int i = 0; i < N / 2; i++) {
        a.v[i] = INPUT_A.v[i];
        a.v[i + N / 2] = INPUT_B.v[i];
    }
    for (int k = 2; k <= N; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1)
            for (int i = 0; i < N; i++) {
                int l = i ^ j;
                if (l > i) {
                    uint32_t x = a.v[i], y = a.v[l];
                    if (((i & k) == 0) == (x > y)) {
                        a.v[i] = y;
                        a.v[l] = x;
                    }
                }
            }
    return a;
}
