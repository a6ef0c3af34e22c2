// Batcher's odd-even merge sort of 1,024 unsigned 32-bit values, 512 from
// each party, as textbooks write it: the inner loop is bounded by a
// conjunction and compares a pair where a quotient of the counters says.
// Not among the examples the tests run.
#include <stdint.h>
#define N 1024
typedef struct { uint32_t v[N / 2]; } Half;
typedef struct { uint32_t v[N]; } All;
static void cs(uint32_t *x, uint32_t *y)
{
    uint32_t a = *x, b = *y;
    int s = a > b;
    *x = s ? b : a;
    *y = s ? a : b;
}
All mpc_main(Half INPUT_A, Half INPUT_B)
{
    All a;
    for (int i = 0; i < N / 2; i++) {
        a.v[i] = INPUT_A.v[i];
        a.v[i + N / 2] = INPUT_B.v[i];
    }
    for (int p = 1; p < N; p <<= 1)
        for (int k = p; k >= 1; k >>= 1)
            for (int j = k % p; j + k < N; j += 2 * k)
                for (int i = 0; i < k && i + j + k < N; i++)
                    if ((i + j) / (2 * p) == (i + j + k) / (2 * p))
                        cs(&a.v[i + j], &a.v[i + j + k]);
    return a;
}
