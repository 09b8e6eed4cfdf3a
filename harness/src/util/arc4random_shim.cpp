// Linked into the wheel's binary only (OPMATRIX_STATIC_DEPS). The static libstdc++ of GCC 12
// built on glibc 2.36 calls arc4random (new in glibc 2.36) from std::random_device, which its
// COW-string instantiations pull in even though opmatrix never draws a random number. Defined
// here, the executable's own definition satisfies that reference, so the binary asks nothing of
// glibc newer than 2.34 and the wheel installs on glibc 2.34 and 2.35 systems too (RHEL 9,
// Ubuntu 22.04): auditwheel's tag goes from manylinux_2_36 to manylinux_2_34.
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

extern "C" std::uint32_t arc4random(void) {
  std::uint32_t value = 0;
  // getrandom (glibc 2.25) with flags 0 blocks only until the kernel's pool is first seeded;
  // 4 bytes come whole or not at all (EINTR before any).
  ssize_t n = 0;
  do n = getrandom(&value, sizeof value, 0);
  while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(sizeof value)) std::abort();
  return value;
}
