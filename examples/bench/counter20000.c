// Issue 28's loop that computes with its counter: 20,000 iterations of
// t += i * x + (y ^ i). The product becomes a running sum (strength
// reduction) and the loop is kept. Not among the examples the tests run.
#include <stdint.h>

uint32_t mpc_main(uint32_t INPUT_A_x, uint32_t INPUT_B_y)
{
    uint32_t t = 0;
    for (uint32_t i = 0; i < 20000; i++)
        t += i * INPUT_A_x + (INPUT_B_y ^ i);
    return t;
}
