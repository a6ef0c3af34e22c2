// Dijkstra's single-source shortest paths on a 50-node directed graph (a
// workload of Siim's hybrid-protocol thesis, "Dijkstra-50").
//
// A gives the graph: w[u][v] is the weight of the edge u -> v, an unsigned
// 8-bit value 1..255, or 0 for no edge (w[u][u] is ignored). B gives the
// source node, 0..49 (a value out of range leaves every distance
// unreachable). The output is the distance from the source to every node:
// dist[v] is the least sum of edge weights on a path from the source to v,
// or 0xFFFF if v cannot be reached (a path has at most 49 edges, so a
// distance is at most 49 * 255 = 12495).
//
// Data-oblivious: every loop has a public trip count. Each round scans all
// nodes for the nearest unvisited one (ties go to the lowest number), reads
// its row of the matrix at that secret index (a mux tree over the rows), and
// relaxes every edge out of it; the secret conditions become selects.
#include <stdint.h>

#define N 50
#define INF 0xFFFF

typedef struct {
    uint8_t w[N][N];
} Graph;

typedef struct {
    uint16_t dist[N];
} Distances;

Distances mpc_main(Graph INPUT_A, uint8_t INPUT_B)
{
    Distances out;
    _Bool done[N];
    for (int v = 0; v < N; v++) {
        out.dist[v] = v == INPUT_B ? 0 : INF;
        done[v] = 0;
    }
    // After N - 1 rounds the last node left has its final distance: it has
    // no unvisited node left to relax.
    for (int round = 0; round < N - 1; round++) {
        // The nearest node not yet done.
        uint16_t best = INF;
        uint8_t u = 0;
        for (int v = 0; v < N; v++) {
            _Bool nearer = !done[v] && out.dist[v] < best;
            best = nearer ? out.dist[v] : best;
            u = nearer ? v : u;
        }
        // If every node left is unreachable (best == INF), marking u done and
        // relaxing from it changes no distance.
        for (int v = 0; v < N; v++)
            done[v] = done[v] | (v == u);
        for (int v = 0; v < N; v++) {
            uint8_t w = INPUT_A.w[u][v];
            uint16_t d = best + w;
            _Bool shorter = w != 0 && best != INF && d < out.dist[v];
            out.dist[v] = shorter ? d : out.dist[v];
        }
    }
    return out;
}
