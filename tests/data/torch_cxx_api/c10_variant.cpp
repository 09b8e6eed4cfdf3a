// Old API: c10::variant from c10/util/variant.h.
#include <c10/util/variant.h>

#include <cstdint>

double as_double(const c10::variant<int64_t, double>& v) {
  return c10::holds_alternative<double>(v) ? c10::get<double>(v) : static_cast<double>(c10::get<int64_t>(v));
}
