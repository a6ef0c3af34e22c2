#define SQUARE(x) ((x) * (x))
typedef struct { int a[2]; char b; } Pair;
