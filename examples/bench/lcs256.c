// Length of the longest common subsequence of A's and B's 256-byte
// strings, one DP row at a time; each cell is written in both branches
// of a secret `if`. Not among the examples the tests run.
#include <stdint.h>
#define N 256
typedef struct { uint8_t s[N]; } Str;
int mpc_main(Str INPUT_A, Str INPUT_B)
{
    uint16_t prev[N + 1], cur[N + 1];
    for (int j = 0; j <= N; j++)
        prev[j] = 0;
    for (int i = 1; i <= N; i++) {
        cur[0] = 0;
        for (int j = 1; j <= N; j++) {
            if (INPUT_A.s[i - 1] == INPUT_B.s[j - 1])
                cur[j] = prev[j - 1] + 1;
            else
                cur[j] = prev[j] > cur[j - 1] ? prev[j] : cur[j - 1];
        }
        for (int j = 0; j <= N; j++)
            prev[j] = cur[j];
    }
    return prev[N];
}
