"""The assertions of run_owntests.sh on the two cells' results and the run's JUnit report.
Prints each expectation; exits 1 naming those that do not hold."""
import os
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from fixture_checks import expect, finish, of, read_cell  # noqa: E402

results, junit = sys.argv[1], sys.argv[2]


def cell(name):
    return read_cell(results, name)


good, broken = cell("tallyops-trixie-torch2.6-cpu"), cell("tallyops-broken-trixie-torch2.6-cpu")
for r in (good, broken):
    req = of(r, "requirements")
    expect("%s: its requirement tabulate and pytest are installed" % r["cell"]["id"],
           len(req) == 1 and req[0]["status"] == "pass" and "tabulate" in req[0]["message"]
           and "pytest" in req[0]["message"], [c["message"] for c in req])
    load = [c for c in of(r, "load") if "import tallyops" in c["message"]]
    expect("%s: import tallyops passes (its _C from the wheel, tabulate from the requirements)" % r["cell"]["id"],
           load and load[0]["status"] == "pass", [c["message"][:200] for c in of(r, "load")])
    smoke = of(r, "smoke")
    expect("%s: its smoke passes from a copy without its package folder" % r["cell"]["id"],
           smoke and smoke[0]["status"] == "pass", [c["message"][:200] for c in smoke])
    gpu = [c for c in of(r, "tests") if c["status"] == "skip" and "need a GPU" in c["message"]]
    expect("%s: the CUDA test skips for want of a GPU, neither pass nor fail" % r["cell"]["id"],
           gpu and gpu[0]["tests"] == ["test/test_scaled_sum.py::test_scaled_sum_on_cuda"], [c["message"] for c in of(r, "tests")])

tests = of(good, "tests")
expect("the suite passes: all 4 tests that ran", any(c["status"] == "pass" and c["message"] == "all 4 tests pass (1 skipped)"
                                                     for c in tests), [c["message"] for c in tests])
expect("scaled_sum's own tests are counted on the op", any(c.get("op") == "scaled_sum" and c["status"] == "pass"
                                                           for c in tests), [(c.get("op"), c["message"]) for c in tests])
expect("the good cell passes", good["status"] == "pass", good["status"])

bad = [c for c in of(broken, "tests") if c["status"] == "fail"]
test_id = "broken/test_deliberately_broken.py::test_scaled_sum_deliberately_broken"
expect("the broken test is the one red, by its id, on its op",
       len(bad) == 1 and bad[0]["tests"] == [test_id] and bad[0].get("op") == "scaled_sum", [c["message"] for c in bad])
if bad:
    expect("its message is the assertion's", "three ones scaled by 2 sum to 6, not 7" in bad[0]["message"], bad[0]["message"])
    repro = (bad[0].get("diagnosis") or {}).get("repro", "")
    expect("its repro runs that one test", repro.endswith("-m pytest -q " + test_id), repro)
expect("the broken cell fails", broken["status"] == "fail", broken["status"])

cases = [c for c in ET.parse(junit).getroot().iter("testcase") if test_id in (c.get("name", "") + (c.findtext("failure") or "")
                                                                              + " ".join(f.get("message", "") for f in c.iter("failure")))]
expect("the JUnit report has a failing testcase naming the test", cases and cases[0].find("failure") is not None,
       len(cases))
finish()
