#!/usr/bin/env python3
"""Figures of one run of the README's main command (scripts/run-matrix.sh), from what it left:
its console log, its results folder and a disk-use log sampled beside it (measure.sh writes both).

    figures.py RESULTS_DIR CONSOLE_LOG DISK_LOG WALL_SECONDS

Prints a Markdown table: wall time of the whole command and of `opmatrix run`, the images'
build seconds, the compile seconds (every cell's `build` step), the downloads (apt's own
"Fetched N in S" lines, pip's "Downloading NAME (SIZE)" lines, the PyPI fetch steps), the peak
disk the run added (podman storage, work dir, caches: all on one filesystem here) and each
cell's status and seconds.
"""
import json
import re
import sys
from pathlib import Path

UNITS = {"B": 1, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9}


def size(number, unit):
    return float(number) * UNITS.get(unit, 1)


def downloads(results):
    """apt bytes and seconds (apt prints both), pip bytes (pip prints no time), per image log."""
    apt_bytes = apt_seconds = pip_bytes = 0.0
    seen = set()
    for log in sorted(results.glob("logs/*/image.log")):
        text = log.read_text(errors="replace")
        key = hash(text)  # a build's output counted once, should two cells' logs both hold it
        if key in seen:
            continue
        seen.add(key)
        for n, unit, secs in re.findall(r"^Fetched ([\d.]+) (\w?B) in (\d+)s", text, re.M):
            apt_bytes += size(n, unit)
            apt_seconds += float(secs)
        for n, unit in re.findall(r"^\s*Downloading \S+ \(([\d.]+) (\w?B)\)", text, re.M):
            pip_bytes += size(n, unit)
    return apt_bytes, apt_seconds, pip_bytes


def disk_peak(disk_log):
    rows = [line.split() for line in Path(disk_log).read_text().splitlines() if line.strip()]
    used = [int(r[1]) for r in rows]
    return (max(used) - used[0]) if used else 0.0, (used[-1] - used[0]) if used else 0.0


def main():
    results, console, disk_log, wall = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], float(sys.argv[4])
    text = console.read_text(errors="replace")
    run_wall = re.search(r"cells run, .* \(([\d.]+) s\)", text)
    cold = re.search(r"^cold images: .*$", text, re.M)
    cells = []
    for f in sorted(results.glob("[!_]*.json")):
        j = json.loads(f.read_text())
        steps = {s["name"]: s for s in j.get("steps", [])}
        cells.append((j["cell"]["id"], j["status"], j.get("meets_expectations"), j.get("seconds", 0.0),
                      steps.get("build", {}).get("seconds", 0.0), steps.get("fetch", {}).get("seconds", 0.0)))
    apt_bytes, apt_seconds, pip_bytes = downloads(results)
    peak, end = disk_peak(disk_log)
    compile_s = sum(c[4] for c in cells)
    fetch_s = sum(c[5] for c in cells)
    print("| figure | value |")
    print("|---|---|")
    print(f"| wall time of `scripts/run-matrix.sh` (set-up, harness build, run, report) | {wall:.0f} s ({wall / 60:.1f} min) |")
    if run_wall:
        print(f"| of it `opmatrix run` (images, cells, cross-load) | {float(run_wall.group(1)):.0f} s |")
    if cold:
        print(f"| the run's closing line | {cold.group(0)} |")
    print(f"| compile time (every cell's `build` step) | {compile_s:.0f} s |")
    print(f"| downloads: apt (its own timing) | {apt_bytes / 1e9:.2f} GB in {apt_seconds:.0f} s |")
    print(f"| downloads: pip into the images (pip prints no time; inside the image builds) | {pip_bytes / 1e9:.2f} GB |")
    print(f"| downloads: PyPI sdists and wheels of projects (`fetch` steps) | {fetch_s:.0f} s |")
    print(f"| disk the run added at its peak (podman storage + work dir + caches, one filesystem) | {peak / 1e9:.1f} GB (at the end: {end / 1e9:.1f} GB) |")
    print(f"| cells as declared | {sum(1 for c in cells if c[2])} of {len(cells)} |")
    print()
    print("| cell | status | as declared | seconds | of it build |")
    print("|---|---|---|---:|---:|")
    for cid, status, ok, secs, build, _ in cells:
        print(f"| {cid} | {status} | {'yes' if ok else 'no'} | {secs:.0f} | {build:.0f} |")


if __name__ == "__main__":
    main()
