// Issue 28's loop that computes with its counter: 20,000 iterations of
// t += i * x + (y ^ i). Unrolled, the sum collects its like terms (the
// products are multiples of x, the XORs flip y's bits): 20,933 AND gates.
// (From 131,072 iterations on, the product becomes a running sum and the
// loop is kept, at 92 AND gates an iteration.) Not among the examples the
// tests run.
#include <stdint.h>

uint32_t mpc_main(uint32_t INPUT_A_x, uint32_t INPUT_B_y)
{
    uint32_t t = 0;
    for (uint32_t i = 0; i < 20000; i++)
        t += i * INPUT_A_x + (INPUT_B_y ^ i);
    return t;
}
