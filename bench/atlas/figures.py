#!/usr/bin/env python3
"""What an atlas run cost, per runtime, from its results folder: a Markdown table for
bench/atlas/README.md (pairs, no-wheel pairs, sum and median of the pair times, the median of
each step, the slowest pair) and the same for the whole folder.

    bench/atlas/figures.py RESULTS_DIR [--since ISO8601]

--since keeps only the pairs that started at or after it (one run's, in a folder several runs
wrote). A pair's time is its own steps' (results' "seconds"), not the wall time of a run that
ran two at once."""
import argparse
import glob
import json
import os
import statistics

STEPS = ["fetch", "install-plan", "requirements", "build", "load"]


def pairs(folder, since):
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        if os.path.basename(path).startswith("_"):
            continue
        result = json.load(open(path, encoding="utf-8"))
        if since and result.get("started_at", "") < since:
            continue
        yield result


def no_wheel(result):
    return any(c.get("diagnosis", {}) and c["diagnosis"].get("kind") in ("no_wheel", "no_compatible_wheel")
               for c in result["checks"])


def row(name, results):
    times = [r["seconds"] for r in results]
    steps = {s: [x["seconds"] for r in results for x in r.get("steps", []) if x["name"] == s] for s in STEPS}
    slowest = max(results, key=lambda r: r["seconds"])
    return "| %s | %d | %d | %.0f s | %.1f s | %s | %.1f s (%s) |" % (
        name, len(results), sum(1 for r in results if no_wheel(r)), sum(times), statistics.median(times),
        " / ".join("%.1f" % statistics.median(steps[s]) if steps[s] else "-" for s in STEPS),
        slowest["seconds"], slowest["cell"]["id"].split("--")[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--since", default="")
    args = ap.parse_args()
    by_runtime = {}
    for r in pairs(args.results, args.since):
        by_runtime.setdefault(r["cell"]["id"].split("--")[1], []).append(r)
    if not by_runtime:
        raise SystemExit("figures.py: no pair results in %s" % args.results)
    print("| runtime | pairs | no wheel | sum | median pair | median step: %s | slowest |" % " / ".join(STEPS))
    print("|---|---:|---:|---:|---:|---|---|")
    for runtime, results in by_runtime.items():
        print(row(runtime, results))
    print(row("all", [r for rs in by_runtime.values() for r in rs]))


if __name__ == "__main__":
    main()
