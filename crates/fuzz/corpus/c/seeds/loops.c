typedef struct { int x; int y; } P;
typedef struct { P p[8]; } Points;
int dist(P a, P b) { int dx = a.x - b.x, dy = a.y - b.y; return dx * dx + dy * dy; }
int mpc_main(Points INPUT_A, P INPUT_B) {
    int best = 0x7fffffff;
    int d[8];
    for (int i = 0; i < 8; i++) d[i] = dist(INPUT_A.p[i], INPUT_B);
    for (int i = 0; i < 8; i++) best = d[i] < best ? d[i] : best;
    unsigned acc = 1;
    for (int r = 0; r < 40; r++) acc = acc * 3u + (unsigned)best;
    return best + (int)(acc % 7u);
}
