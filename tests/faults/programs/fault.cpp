// One program, one fault per mode (the smoke step of the fault cells):
//   fault ok            exits 0
//   fault segv          dereferences a null pointer (SIGSEGV)
//   fault sleep SECONDS sleeps (a hang, or a container to kill from outside)
//   fault oom CAP_MIB   allocates and touches 64 MiB blocks until killed; exit 3 at CAP_MIB
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

extern "C" int opmatrix_fault_answer();

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "ok";
  std::setvbuf(stdout, nullptr, _IONBF, 0);  // every line reaches the log before the fault
  if (mode == "ok") {
    std::printf("fault: ok (answer %d)\n", opmatrix_fault_answer());
    return 0;
  }
  if (mode == "segv") {
    std::printf("fault: dereferencing a null pointer\n");
    int* volatile p = nullptr;  // volatile: the compiler cannot see that it is null
    *p = opmatrix_fault_answer();
    std::printf("fault: still alive after the null dereference?\n");
    return 2;
  }
  if (mode == "sleep") {
    const int seconds = argc > 2 ? std::atoi(argv[2]) : 600;
    std::printf("fault: sleeping %d s\n", seconds);
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
    std::printf("fault: woke up\n");
    return 0;
  }
  if (mode == "oom") {
    const long cap_mib = argc > 2 ? std::atol(argv[2]) : 4096;
    const long block = 64L << 20;
    std::vector<char*> blocks;
    for (long total = 0; total < cap_mib << 20; total += block) {
      char* b = static_cast<char*>(std::malloc(block));
      if (!b) {
        std::printf("fault: malloc returned null after %ld MiB\n", total >> 20);
        return 4;
      }
      std::memset(b, 1, block);  // touch every page: resident, not just reserved
      blocks.push_back(b);
      std::printf("fault: %ld MiB allocated and touched\n", (total + block) >> 20);
    }
    std::printf("fault: reached %ld MiB without being killed (no memory limit?)\n", cap_mib);
    return 3;
  }
  std::fprintf(stderr, "fault: unknown mode '%s'\n", mode.c_str());
  return 2;
}
