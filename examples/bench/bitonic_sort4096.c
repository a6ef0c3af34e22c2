// The bitonic sort of 4,096 values (2,048 from each party) that issue 28
// compares with EMP-sh2pc's sort() (../shared/tools/emp/emp_sort.cpp):
// 10,223,616 AND gates. Not among the examples the tests run.
#define N 4096
#include "../bitonic_sort.c"
