"""Which GPU code a built library carries: the SASS (cubin) and PTX of its fat binary, as
`cuobjdump --list-elf` / `--list-ptx` list them. Prints ONE JSON object; never raises.

    fatbin.py [--cuda-root DIR] LIB [LIB...]

One library: its object. Several (a package's libraries, read in one container rather than one
container each): {"libraries": [its object, ...]} in the order given.

Without cuobjdump (a cell whose toolkit has none) the .nv_fatbin section is read directly: a
sequence of fat binary headers (magic 0xBA55ED50), each followed by entries whose header
carries the kind (1 = PTX, 2 = ELF/SASS) and the SM number. Arch-specific (sm_90a) variants
are not told apart on that path. With cuobjdump, its lists are the answer and the direct
reading only a cross-check: "cross_check" says whether the two agree (SM numbers compared)."""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys

FATBIN_MAGIC = 0xBA55ED50


def cuobjdump(cuda_root):
    for candidate in [os.path.join(cuda_root, "bin", "cuobjdump") if cuda_root else "", shutil.which("cuobjdump") or ""]:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def listed(tool, flag, lib):
    p = subprocess.run([tool, flag, lib], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    text = p.stdout.decode("utf-8", "replace")
    # "ELF file    1: libopmatrix_ops.1.sm_90.cubin" / "PTX file    1: libopmatrix_ops.1.sm_90.ptx"
    archs = sorted(set(re.findall(r"\.(sm_\d+[af]?)\.(?:cubin|ptx)", text)), key=lambda s: (int(re.sub(r"\D", "", s)), s))
    # cuobjdump exits 255 with "does not contain device code" for a CPU-only library.
    return archs, (None if p.returncode == 0 or "does not contain" in text else text.strip()[-2000:])


def elf_section(data, wanted):
    """(offset, size) of an ELF64 little-endian section, or None."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return None
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = headers[shstrndx][4]
    for h in headers:
        name = data[names + h[0]:data.index(b"\0", names + h[0])]
        if name == wanted:
            return h[4], h[5]
    return None


def read_fatbin(lib):
    """(elf archs, ptx archs) from the library's .nv_fatbin section."""
    with open(lib, "rb") as f:
        data = f.read()
    section = elf_section(data, b".nv_fatbin")
    if section is None:
        return [], []
    start, size = section
    elf, ptx = set(), set()
    pos = start
    while pos + 16 <= start + size:
        magic, _version, header_size, fat_size = struct.unpack_from("<IHHQ", data, pos)
        if magic != FATBIN_MAGIC:
            pos += 8  # headers are 8-byte aligned
            continue
        entry, end = pos + header_size, pos + header_size + fat_size
        while entry + 32 <= end:
            kind, _unused, entry_header, entry_size = struct.unpack_from("<HHIQ", data, entry)
            arch = struct.unpack_from("<I", data, entry + 28)[0]
            (ptx if kind == 1 else elf).add("sm_%d" % arch)
            if entry_header == 0:
                break
            entry += entry_header + entry_size
        pos = end
    key = lambda s: int(s[3:])  # noqa: E731
    return sorted(elf, key=key), sorted(ptx, key=key)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cuda-root", default="")
    ap.add_argument("library", nargs="+")
    args = ap.parse_args()
    tool = cuobjdump(args.cuda_root)
    read = [one_library(tool, lib) for lib in args.library]
    return read[0] if len(read) == 1 else {"libraries": read}


def one_library(tool, library):
    out = {"library": library, "tool": None, "elf": [], "ptx": [], "error": None}
    if tool is None:
        out["tool"] = "the .nv_fatbin section read directly (no cuobjdump in this cell)"
        try:
            out["elf"], out["ptx"] = read_fatbin(library)
        except (OSError, struct.error, ValueError) as e:
            out["error"] = "no cuobjdump in this cell, and the fat binary could not be read: %s" % e
        return out
    out["tool"] = tool
    try:
        out["elf"], err_elf = listed(tool, "--list-elf", library)
        out["ptx"], err_ptx = listed(tool, "--list-ptx", library)
        out["error"] = err_elf or err_ptx
    except (OSError, subprocess.SubprocessError) as e:
        out["error"] = "%s: %s" % (type(e).__name__, e)
    if out["error"] is None:
        out["cross_check"] = cross_check(library, out["elf"], out["ptx"])
    return out


def cross_check(lib, elf, ptx):
    """'agrees', or what the direct reading of the section says otherwise."""
    sm = lambda archs: sorted({re.sub(r"[af]$", "", a) for a in archs}, key=lambda s: int(s[3:]))  # noqa: E731
    try:
        direct_elf, direct_ptx = read_fatbin(lib)
    except (OSError, struct.error, ValueError) as e:
        return "the direct reader failed: %s" % e
    if (sm(elf), sm(ptx)) == (direct_elf, direct_ptx):
        return "agrees"
    return "differs: the section read directly holds SASS %s and PTX %s" % (direct_elf, direct_ptx)


if __name__ == "__main__":
    print(json.dumps(main()))
    sys.stdout.flush()
