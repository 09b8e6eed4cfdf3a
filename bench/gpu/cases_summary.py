#!/usr/bin/env python3
"""Sums up the JSON files gtest wrote for the case binaries (GTEST_OUTPUT=json:DIR/): how many
tests ran, passed, failed and skipped, each failure with its message and each skip with its
reason (the cases' skip_reason property), by op and check. Prints the counts, writes the whole
summary as JSON. Exit 1 if a test failed or no test ran.

    cases_summary.py DIR [--json OUT]"""
import argparse
import collections
import glob
import json
import os
import sys


def tests(folder):
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(path) as f:
            report = json.load(f)
        binary = os.path.splitext(os.path.basename(path))[0]
        for suite in report.get("testsuites", []):
            for case in suite.get("testsuite", []):
                yield binary, suite.get("name", ""), case


def outcome(case):
    if case.get("failures"):
        return "failed"
    if case.get("result") == "SKIPPED" or case.get("status") == "NOTRUN":
        return "skipped"
    return "passed"


def summarize(folder):
    counts = collections.Counter()
    failures, skips, by_check = [], [], collections.Counter()
    for binary, suite, case in tests(folder):
        what = outcome(case)
        counts[what] += 1
        name = "%s.%s" % (suite, case.get("name", ""))
        by_check["%s %s %s" % (case.get("op", "?"), case.get("check", "?"), what)] += 1
        if what == "failed":
            failures.append({"binary": binary, "test": name,
                             "message": "\n".join(f.get("failure", "") for f in case["failures"])[:2000]})
        elif what == "skipped":
            skips.append({"binary": binary, "test": name, "reason": case.get("skip_reason", "")})
    return {"ran": sum(counts.values()), "passed": counts["passed"], "failed": counts["failed"],
            "skipped": counts["skipped"], "by_op_check": dict(sorted(by_check.items())),
            "failures": failures, "skips": skips}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folder")
    p.add_argument("--json")
    a = p.parse_args()
    summary = summarize(a.folder)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=1)
    print("cases: %(ran)d ran, %(passed)d passed, %(failed)d failed, %(skipped)d skipped" % summary)
    for s in summary["skips"]:
        print("  skipped %s: %s" % (s["test"], s["reason"]))
    for f in summary["failures"]:
        print("  FAILED %s: %s" % (f["test"], f["message"].splitlines()[0] if f["message"] else ""))
    return 1 if summary["failed"] or not summary["ran"] else 0


if __name__ == "__main__":
    sys.exit(main())
