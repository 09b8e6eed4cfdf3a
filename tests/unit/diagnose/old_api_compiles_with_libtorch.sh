#!/bin/bash
# The old-API sources of tests/data/torch_cxx_api against this machine's own LibTorch (Debian's
# libtorch-dev, torch 1.13): each compiles there, before the torch release that breaks it
# (diagnose/torch_cxx_api_rules.cpp); at_check.cpp fails, since AT_CHECK was gone in 1.5 already,
# with the words that at_check.gxx-1.13.log records. Syntax only (-fsyntax-only): 5 to 30 s a source.
# Skips (exit 77, reason printed) without libtorch-dev.
set -u
data=$1/torch_cxx_api
if [ ! -f /usr/include/ATen/ATen.h ] || [ ! -d /usr/lib/x86_64-linux-gnu/cmake/Torch ]; then
  echo "SKIP: no libtorch-dev (Debian's torch headers under /usr/include) on this machine"
  exit 77
fi
version=$(sed -n 's/^#define TORCH_VERSION_\(MAJOR\|MINOR\) \([0-9]*\)/\2/p' \
  /usr/include/torch/csrc/api/include/torch/version.h | paste -sd.)
if [ "$version" != "1.13" ]; then
  echo "SKIP: this machine's LibTorch is torch $version; the sources' breaks are measured from torch 1.13"
  exit 77
fi
python_h=$(ls -d /usr/include/python3*/Python.h 2>/dev/null | head -1)
failed=0
compile() {  # compile SOURCE into $out; its exit status
  out=$(timeout 120 g++ -std=c++17 -fsyntax-only -w ${python_h:+-I"$(dirname "$python_h")"} "$data/$1" 2>&1)
}
# Not c10_variant_no_header.cpp: it reaches c10::variant through ATen.h, which includes
# c10/util/variant.h in torch 2.1 (it compiles with 2.1.2's headers) but not in 1.13.
for src in dispatch_type.cpp dispatch_and_half.cpp is_variable.cpp is_integral_type.cpp c10_variant.cpp \
           auto_gil.cpp; do
  if [ "$src" = auto_gil.cpp ] && [ -z "$python_h" ]; then
    echo "skip $src: no Python.h (python3-dev) for torch/csrc/utils/auto_gil.h"
    continue
  fi
  start=$SECONDS
  if compile "$src"; then
    echo "ok   $src compiles with torch 1.13 ($((SECONDS - start)) s)"
  else
    echo "FAIL $src does not compile with torch 1.13:"; echo "$out" | head -20; failed=1
  fi
done
if compile at_check.cpp; then
  echo "FAIL at_check.cpp compiles with torch 1.13, whose headers have no AT_CHECK"; failed=1
elif ! grep -q "at_check.cpp:4:[0-9]*: error: .AT_CHECK. was not declared in this scope" <<<"$out"; then
  echo "FAIL at_check.cpp: not the words at_check.gxx-1.13.log records:"; echo "$out" | head -10; failed=1
else
  echo "ok   at_check.cpp fails with torch 1.13 as recorded"
fi
exit $failed
