#include <stdint.h>
#include "include.h"
#define N 4
#if defined(N) && N > 2
int f(int x, int n) { return n == 0 ? x : f(x + 1, n - 1); }
#endif
typedef struct { uint8_t v[N]; } Bytes;
int mpc_main(Pair INPUT_A, Bytes INPUT_B) {
    int s = 0;
    for (int i = 0; i < N; i++) {
        if (INPUT_B.v[i] > INPUT_A.b) s += SQUARE(INPUT_B.v[i]);
        else s ^= INPUT_A.a[i & 1];
    }
    switch (s & 3) { case 0: s = -s; break; default: s = ~s; }
    int k = 0;
    while (k < 3) { s = (s << 1) | (s >> 31); k++; }
    return f(s, 3) + (int)sizeof(Pair);
}
