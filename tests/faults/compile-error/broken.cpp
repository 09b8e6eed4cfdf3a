// Does not compile, on purpose (tests/faults): line 8 assigns a string to an int, and the
// fault test expects the compile_error diagnosis to name broken.cpp:8.
#include <string>

int opmatrix_fault_broken() {
  int answer = 42;
  std::string text = "forty-two";
  answer = text;
  return answer;
}
