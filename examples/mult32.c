// 32x32-bit multiplication (a workload of Siim's hybrid-protocol thesis,
// "mult-32x32"): A and B each give an unsigned 32-bit value; the output is
// their full 64-bit product.
#include <stdint.h>

uint64_t mpc_main(uint32_t INPUT_A, uint32_t INPUT_B)
{
    return (uint64_t)INPUT_A * INPUT_B;
}
