#pragma once

#include <cstdint>
#include <string>

namespace opmatrix {

// FNV-1a, 64 bit: a cache key, not a security boundary.
class Fnv64 {
 public:
  Fnv64& add(const std::string& bytes);
  std::string hex() const;  // 16 lowercase hex digits

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ull;
};

}  // namespace opmatrix
