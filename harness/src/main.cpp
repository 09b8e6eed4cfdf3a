#include <iostream>

#include "cli/app.h"

int main(int argc, char** argv) {
  return opmatrix::run_cli(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
}
