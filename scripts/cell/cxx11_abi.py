"""Check `cxx11_abi`: each built library calls torch's C++ API with the std::string ABI this
torch was built with (_GLIBCXX_USE_CXX11_ABI). A library compiled with the other one asks for
symbols torch does not have, and users see
`undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKSs` at import; this check names the
cause, where the load check can only name the symbol.

    cxx11_abi.py LIBRARY...

Reads each library's undefined dynamic symbols in torch's namespaces (c10::, at::, torch::)
with binutils' `nm -D --undefined-only -C`: one spelled with std::__cxx11:: strings was
compiled with the new ABI, one with std::string / std::basic_string with the old ABI.
Prints {"checks": [...]} as the harness's script checks read it; never raises."""
import os
import shutil
import subprocess
import sys

from script_check import result, run, torch_cxx11_abi

CHECK = "cxx11_abi"
TORCH_NAMESPACES = ("c10::", "at::", "torch::")
NEW_ABI = "std::__cxx11::"
OLD_ABI = ("std::string", "std::basic_string<")


def torch_symbols(library):
    """The library's undefined symbols from torch's namespaces, demangled."""
    out = subprocess.run(["nm", "-D", "--undefined-only", "-C", library], capture_output=True, text=True, check=True)
    names = (line.split(None, 1)[-1].strip() for line in out.stdout.splitlines() if line.strip())
    return [n for n in names if n.startswith(TORCH_NAMESPACES)]


def abi_of(symbols):
    """(new-ABI symbols, old-ABI symbols) among them: those whose parameters hold a std::string."""
    new = [s for s in symbols if NEW_ABI in s]
    old = [s for s in symbols if NEW_ABI not in s and any(o in s for o in OLD_ABI)]
    return new, old


def abi_name(new_abi):
    return "the new (C++11) std::string ABI, _GLIBCXX_USE_CXX11_ABI=1" if new_abi else \
        "the old std::string ABI, _GLIBCXX_USE_CXX11_ABI=0"


def library_result(library, torch_new_abi):
    name = os.path.basename(library)
    new, old = abi_of(torch_symbols(library))
    if not new and not old:
        return result(CHECK, "skip", f"{name} calls no torch C++ function that takes a std::string: "
                                     "the std::string ABI cannot break its link")
    wrong = old if torch_new_abi else new
    if not wrong:
        return result(CHECK, "pass", f"{name} calls torch with {abi_name(torch_new_abi)}, as this torch does "
                                     f"({len(new) + len(old)} such symbols)")
    message = (f"{name} was compiled with {abi_name(not torch_new_abi)}, but this torch uses "
               f"{abi_name(torch_new_abi)}: {len(wrong)} torch symbol(s) it needs do not exist here, e.g. {wrong[0]}")
    return result(CHECK, "fail", message, kind="cxx11_abi_mismatch",
                  summary=message + "; importing it fails with \"undefined symbol\"",
                  fix="build against the torch it runs with, letting torch set the flag (torch.utils.cpp_extension, "
                      "or find_package(Torch) and TORCH_CXX_FLAGS); do not set -D_GLIBCXX_USE_CXX11_ABI by hand",
                  evidence="\n".join(wrong[:5]))


def report(libraries):
    if not libraries:
        return [result(CHECK, "skip", "no built library to read")]
    if shutil.which("nm") is None:
        return [result(CHECK, "skip", "this cell has no nm (binutils): the libraries' symbols cannot be read")]
    torch_new_abi = torch_cxx11_abi()  # the cell's own torch: its flag is the one that counts
    return [library_result(lib, torch_new_abi) for lib in libraries]


if __name__ == "__main__":
    run(CHECK, lambda: report(sys.argv[1:]))
