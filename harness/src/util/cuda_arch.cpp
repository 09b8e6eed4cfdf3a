#include "util/cuda_arch.h"

namespace opmatrix {

std::string cmake_arch(const std::string& arch) {
  std::string out;
  for (char c : arch)
    if (c != '.') out += c;
  return out;
}

std::string dotted_arch(const std::string& arch) {
  if (arch.find('.') != std::string::npos) return arch;
  const std::size_t digits = arch.find_first_not_of("0123456789") == std::string::npos ? arch.size()
                                                                                          : arch.find_first_not_of("0123456789");
  return digits > 1 ? arch.substr(0, digits - 1) + "." + arch.substr(digits - 1) : arch;
}

std::string sm_name(const std::string& arch) { return "sm_" + cmake_arch(arch); }

int arch_number(std::string arch) {
  const auto us = arch.rfind('_');
  if (us != std::string::npos) arch = arch.substr(us + 1);
  std::string digits;
  for (char c : arch)
    if (c >= '0' && c <= '9') digits += c;
  return digits.empty() || digits.size() > 9 ? -1 : std::stoi(digits);  // more digits than an int holds: none
}

bool arch_specific(const std::string& arch) { return !arch.empty() && (arch.back() == 'a' || arch.back() == 'f'); }

std::string torch_arch_list(const std::vector<std::string>& archs) {
  std::string out;
  for (const auto& a : archs) out += (out.empty() ? "" : ";") + dotted_arch(a);
  return out;
}

}  // namespace opmatrix
