// Merge of A's and B's sorted lists of 256 unsigned 32-bit values, each
// step reading both lists at secret positions (how far each has been
// taken). Not among the examples the tests run.
#include <stdint.h>
#define N 256
typedef struct { uint32_t v[N]; } Half;
typedef struct { uint32_t v[2 * N]; } All;
All mpc_main(Half INPUT_A, Half INPUT_B)
{
    All out;
    int ia = 0, ib = 0;
    for (int k = 0; k < 2 * N; k++) {
        uint32_t a = ia < N ? INPUT_A.v[ia] : 0xffffffffu;
        uint32_t b = ib < N ? INPUT_B.v[ib] : 0xffffffffu;
        if (a <= b) {
            out.v[k] = a;
            ia++;
        } else {
            out.v[k] = b;
            ib++;
        }
    }
    return out;
}
