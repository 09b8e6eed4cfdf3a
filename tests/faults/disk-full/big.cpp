// 16 MiB of initialised data: the object file (and the library) are that large.
extern "C" {
char opmatrix_fault_big[16 << 20] = {1};
int opmatrix_fault_big_first() { return opmatrix_fault_big[0]; }
}
