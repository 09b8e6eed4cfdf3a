// Old API: c10::variant reached through ATen's headers, without including c10/util/variant.h.
#include <ATen/ATen.h>

#include <cstdint>

using Number = c10::variant<int64_t, double>;
