"""What the fixture checkers (tests/owntests, tests/reach, tests/verdicts: check_*.py) share:
each expectation printed as it is judged and remembered when it fails, so that one run names
every one that does not hold; a cell's results file read; one check's results picked out.
A checker imports it from tests/scripts, found from the checker's own location."""
import json
import os
import sys

failures = []


def expect(what, ok, detail=""):
    """Print `ok WHAT`, or `FAIL WHAT: DETAIL` and remember WHAT (finish() exits 1 for it)."""
    print("%-4s %s%s" % ("ok" if ok else "FAIL", what, (": %s" % (detail,)) if not ok else ""))
    if not ok:
        failures.append(what)


def read_cell(results, name):
    """The results file of cell NAME in the results folder RESULTS."""
    with open(os.path.join(results, name + ".json")) as f:
        return json.load(f)


def of(cell_results, check, op=None):
    """A cell's results of CHECK, only OP's when OP is given."""
    return [c for c in cell_results["checks"] if c["check"] == check and (op is None or c.get("op", "") == op)]


def finish():
    """Exit 1 when any expectation failed, 0 otherwise."""
    sys.exit(1 if failures else 0)
