// The position of the greatest of 4,096 sums of A's and B's values (an
// arg max: `at = i` beside a running best). The loop is kept, the counter
// wired in per iteration as wide as its own value. Not among the examples
// the tests run.
#include <stdint.h>
#define N 4096
typedef struct { int32_t v[N]; } T;
int mpc_main(T INPUT_A, T INPUT_B)
{
    int32_t best = INPUT_A.v[0] + INPUT_B.v[0];
    int at = 0;
    for (int i = 1; i < N; i++) {
        int32_t s = INPUT_A.v[i] + INPUT_B.v[i];
        if (s > best) {
            best = s;
            at = i;
        }
    }
    return at;
}
