// MExp (ParCC benchmark): 32 independent modular exponentiations base^exp mod M of 32-bit values (A's bases, B's exponents, public prime M), square-and-multiply over 32 exponent bits.
#include <stdint.h>

#define K 32
#define M 4294967291ULL

typedef struct {
    uint32_t base[K];
} Bases;

typedef struct {
    uint32_t exp[K];
} Exponents;

typedef struct {
    uint32_t r[K];
} Results;

Results mpc_main(Bases INPUT_A, Exponents INPUT_B)
{
    Results out;
    for (int k = 0; k < K; k++) {
        uint64_t b = INPUT_A.base[k] % M;
        uint64_t r = 1;
        for (int i = 31; i >= 0; i--) {
            r = (r * r) % M;
            if ((INPUT_B.exp[k] >> i) & 1)
                r = (r * b) % M;
        }
        out.r[k] = (uint32_t)r;
    }
    return out;
}
