// Private set intersection by all-pairs equality: party A holds 32 uint32_t
// values, party B holds 32 uint32_t values; both learn, for each of A's
// values in A's order, whether it occurs among B's: OUTPUT in[i] is 1 if
// INPUT_A.v[i] equals some INPUT_B.v[j], else 0 (a uint8_t flag per value).
// Every pair is compared (32 x 32 equality tests of 32 bits), so nothing
// depends on where or how often a value matches.
#include <stdint.h>

#define N 32

typedef struct {
    uint32_t v[N];
} Set;

typedef struct {
    uint8_t in[N];
} Membership;

Membership mpc_main(Set INPUT_A, Set INPUT_B)
{
    Membership r;
    for (int i = 0; i < N; i++) {
        uint8_t found = 0;
        for (int j = 0; j < N; j++)
            found |= (INPUT_A.v[i] == INPUT_B.v[j]);
        r.in[i] = found;
    }
    return r;
}
