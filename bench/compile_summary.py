#!/usr/bin/env python3
"""Per-TU compile cost tables from bench/tu_time.py logs.

    compile_summary.py LABEL=tu.log [LABEL=tu.log ...]      (or: compile_summary.py OUT_DIR)

Each log line: "wall_s cpu_s maxrss_kib output" (older logs: "wall_s maxrss_kib output").
Prints Markdown: totals per variant, the top 10 TUs of the first variant by CPU (or wall) time
with every variant's figures for the same TU, and the precompiled header's own cost.
"""
import re
import sys
from pathlib import Path


def read(path):
    tus = {}
    for line in Path(path).read_text().splitlines():
        f = line.split("\t")
        if len(f) == 4:
            wall, cpu, rss, out = float(f[0]), float(f[1]), int(f[2]), f[3]
        elif len(f) == 3:
            wall, cpu, rss, out = float(f[0]), None, int(f[1]), f[2]
        else:
            continue
        tus[short(out)] = (wall, cpu, rss / 1024)
    return tus


def short(out):
    out = re.sub(r"^.*CMakeFiles/", "", out)
    out = re.sub(r"\.dir/", ": ", out)
    return out.replace(".cpp.o", ".cpp").replace(".cc.o", ".cc")


def fmt(x, unit=""):
    return "–" if x is None else f"{x:.1f}{unit}"


def main():
    args = sys.argv[1:]
    if len(args) == 1 and Path(args[0]).is_dir():
        d = Path(args[0])
        args = [f"{p.name}={p / 'tu.log'}" for p in sorted(d.iterdir()) if (p / "tu.log").exists()]
    variants = [(a.split("=", 1)[0], read(a.split("=", 1)[1])) for a in args]
    print("## Compile cost per translation unit (kernels/ + cases/, trixie CPU image, g++ 14, -O3)")
    print()
    print("| variant | TUs | sum of wall (s) | sum of CPU (s) | peak RSS, max (MB) |")
    print("|---|---:|---:|---:|---:|")
    for name, tus in variants:
        cpus = [c for _, c, _ in tus.values() if c is not None]
        print(f"| {name} | {len(tus)} | {sum(w for w, _, _ in tus.values()):.0f} | "
              f"{sum(cpus):.0f} | {max(r for _, _, r in tus.values()):.0f} |" if cpus else
              f"| {name} | {len(tus)} | {sum(w for w, _, _ in tus.values()):.0f} | – | "
              f"{max(r for _, _, r in tus.values()):.0f} |")
    print()
    groups = (("kernels/ (no PCH)", lambda k: k.startswith("opmatrix_ops")),
              ("googletest", lambda k: k.startswith("gtest")),
              ("cases/ libraries (common, reference, main)",
               lambda k: k.split(":")[0] in ("opmatrix_cases_common", "opmatrix_reference", "opmatrix_cases_main")
               and "cmake_pch" not in k),
              ("cases/ test binaries (14)", lambda k: not k.split(":")[0].startswith(("opmatrix_", "gtest"))
               and "cmake_pch" not in k),
              ("precompiled headers", lambda k: "cmake_pch" in k))
    print("CPU seconds by part (kernels/ is compiled the same way in every variant: its ratio shows how much "
          "the shared machine's load moved the CPU figures between runs):")
    print()
    print("| part | " + " | ".join(f"{n}: TUs / CPU s" for n, _ in variants) + " |")
    print("|---|" + "---:|" * len(variants))
    for gname, sel in groups:
        row = []
        for _, tus in variants:
            sel_tus = [v for k, v in tus.items() if sel(k)]
            cpu = sum(v[1] for v in sel_tus if v[1] is not None)
            row.append(f"{len(sel_tus)} / {cpu:.0f}")
        print(f"| {gname} | " + " | ".join(row) + " |")
    print()
    base_name, base = variants[0]
    key = (lambda kv: kv[1][1]) if all(c is not None for _, c, _ in base.values()) else (lambda kv: kv[1][0])
    top = sorted(base.items(), key=key, reverse=True)[:10]
    head = " | ".join(f"{n}: wall s / CPU s / MB" for n, _ in variants)
    print(f"Top 10 TUs of `{base_name}` (by {'CPU' if key(top[0]) == top[0][1][1] else 'wall'} time):")
    print()
    print(f"| TU | {head} |")
    print("|---|" + "---:|" * len(variants))
    for tu, _ in top:
        cells = []
        for _, tus in variants:
            v = tus.get(tu)
            cells.append("–" if v is None else f"{v[0]:.1f} / {fmt(v[1])} / {v[2]:.0f}")
        print(f"| {tu} | " + " | ".join(cells) + " |")
    print()
    for name, tus in variants:
        pch = {k: v for k, v in tus.items() if "cmake_pch" in k}
        for k, v in pch.items():
            print(f"- `{name}`: the precompiled header itself ({k}): {v[0]:.1f} s wall, {fmt(v[1])} s CPU, {v[2]:.0f} MB")


if __name__ == "__main__":
    main()
