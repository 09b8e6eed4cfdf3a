#include "util/hash.h"

#include <fmt/format.h>

namespace opmatrix {

Fnv64& Fnv64::add(const std::string& bytes) {
  for (unsigned char c : bytes) {
    h_ ^= c;
    h_ *= 0x100000001b3ull;
  }
  // A separator, so ("ab","c") and ("a","bc") differ.
  h_ ^= 0xff;
  h_ *= 0x100000001b3ull;
  return *this;
}

std::string Fnv64::hex() const { return fmt::format("{:016x}", h_); }

}  // namespace opmatrix
