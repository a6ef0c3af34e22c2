int mpc_main(int INPUT_A, int INPUT_B) { _Alignas(3) int x = INPUT_A; return x; }
