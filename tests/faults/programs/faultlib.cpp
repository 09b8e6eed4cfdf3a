// The "op library" of the fault cells: something for the load step to dlopen.
extern "C" int opmatrix_fault_answer() { return 42; }
