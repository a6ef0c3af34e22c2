// Identification and a risk score in one computation (a showcase for the
// overlap of main code with parallel regions under --ipp).
//
// Party A (a bank) holds N enrolled biometric samples (D 64-bit features
// each, as in BioMatch) and the two weights of its risk model; party B (a
// customer) holds a fresh sample and the amounts of her last T
// transactions. Outputs: the smallest squared Euclidean distance between
// B's sample and A's records (is she enrolled?) and an exponentially
// weighted score of her spending under A's secret weights.
//
// The distance loop becomes a parallel region. The score is a recurrence
// (each step needs the previous one), so it stays in the main circuit; it
// needs none of the distances, so under --ipp it runs while party B garbles
// its share of the region.
#include <stdint.h>

#define N 256
#define D 4
#define T 1024

typedef struct {
    uint64_t db[N][D];
    uint32_t alpha;
    uint32_t beta;
} Bank;

typedef struct {
    uint64_t sample[D];
    uint32_t amounts[T];
} Customer;

typedef struct {
    uint64_t min_distance;
    uint32_t risk;
} Result;

Result mpc_main(Bank INPUT_A, Customer INPUT_B)
{
    uint64_t dist[N];
    for (int i = 0; i < N; i++) {
        uint64_t d = 0;
        for (int j = 0; j < D; j++) {
            uint64_t t = INPUT_A.db[i][j] - INPUT_B.sample[j];
            d += t * t;
        }
        dist[i] = d;
    }
    uint32_t risk = 0;
    for (int t = 0; t < T; t++)
        risk = (risk * INPUT_A.alpha + INPUT_B.amounts[t] * INPUT_A.beta) >> 8;
    uint64_t best = dist[0];
    for (int i = 1; i < N; i++)
        if (dist[i] < best)
            best = dist[i];
    Result r;
    r.min_distance = best;
    r.risk = risk;
    return r;
}
