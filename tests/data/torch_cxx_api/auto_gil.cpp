// Old API: AutoGIL from torch/csrc/utils/auto_gil.h.
#include <torch/csrc/utils/auto_gil.h>

void with_gil() { AutoGIL gil; }
