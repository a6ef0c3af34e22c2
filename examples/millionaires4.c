// Millionaires' problem on 4-bit values (a workload of Siim's hybrid-protocol
// thesis, "mil4"): A and B each give an unsigned 4-bit value (the low 4 bits
// of a uint8_t; the high bits are ignored); the output is 1 if A's value is
// greater than B's, else 0.
#include <stdint.h>

int mpc_main(uint8_t INPUT_A, uint8_t INPUT_B)
{
    return (INPUT_A & 0xF) > (INPUT_B & 0xF);
}
