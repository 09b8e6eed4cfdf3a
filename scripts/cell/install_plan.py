"""What `pip install NAME==VERSION` would do next to the cell's torch, as pip's own resolver says
(a dry run with the cell's packages installed; the release itself only as a wheel): install it as
it is, replace torch (and which other torch-family packages, from which version to which), or
find no wheel for this Python and platform. An atlas pair's first answer; runs with network.

    install_plan.py --requirement NAME==VERSION --cache DIR

Which pip resolves: pip reads each candidate wheel's dependencies from its METADATA. PyPI serves
that file beside each wheel (PEP 658); an index that does not (this project's PyPI mirror) makes
pip download every wheel of the plan in full, 2-3 GB for a torch with its NVIDIA wheels (30 s a
pair), and pip 23 (Debian bookworm's, and so the PyPI runtimes') downloads them even when the
index serves the METADATA. So RESOLVER, a pip fetched once into DIR like any wheel and run by the
runtime's own Python next to its installed packages, resolves against metadata_index.py: the
real index's pages with each wheel's METADATA served from DIR (read once per file by range
requests). Its answer is taken when it resolves; a refusal (no wheel, unresolvable) is asked
again of the runtime's own pip against the real index, whose words stand, so that nothing a
newer pip is stricter about becomes a finding. The answer names the pip that gave it ("resolver").

The answer is kept as DIR/plans/<key>.json (key: the requirement, the Python, the platform and the
torch family installed), written atomically, so a second run needs no network.

Where the wheel requires torch only under an extra (deepmd-kit's `torch==2.11.0; extra == "torch"`),
the plan is that of NAME[EXTRA]==VERSION, what its torch side's users install ("torch_extra").

stdout: one JSON object, {"ok": true, "plan": "installs"|"replaces_torch", "requirement",
"install": [{"name", "version"}], "torch_family": [{"name", "from", "to"}], "resolver", "cached": bool,
"torch_extra" where there is one} or
{"ok": false, "error": KIND, "message": ...} (exit 1), KIND one of no_wheel, unresolvable,
network, internal."""
import argparse
import json
import os
import re
import sys
import zipfile

import fetch_pypi
from fetch_pypi import normalise, write_atomic
from metadata_index import MetadataIndex
from requirements import (NETWORK_WORDS, PIP, SOURCE_BUILD_BOUND_S, TIMED_OUT, TORCH_FAMILY, Failure, cache_key,
                          refuse_index_elsewhere, run, source_build_past_bound, torch_family_pins, without_wheel)
from wheel_metadata import metadata, torch_extra

# The pip that resolves first (see above): one whose dry run downloads no wheel where the index
# serves METADATA, and that runs on every runtime's Python (>= 3.9).
RESOLVER = "pip==26.3"


def installed_versions():
    from importlib import metadata
    return {normalise(d.metadata["Name"] or ""): d.version for d in metadata.distributions()}


def no_wheel(out):
    """pip's words where the release has no file it may install here, or None."""
    for line in out.splitlines():
        if re.search(r"No matching distribution found for|Could not find a version that satisfies", line):
            return line.strip()
    return None


def wanted_in(line):
    """The requirement pip's no-wheel line names ("torch==2.0.1" of "... satisfies the requirement
    torch==2.0.1 (from torchdata) ..."): the release itself, or one of its requirements."""
    m = re.search(r"(?:satisfies the requirement|distribution found for)\s+([A-Za-z0-9._-]+)([^\s(]*)", line)
    return (normalise(m.group(1)), m.group(1) + m.group(2)) if m else (None, None)


# PyTorch's own index, by a local version label of the torch family (torch==2.13.0+cpu): PyPI
# serves no local versions (PEP 440: a wheel with one cannot be uploaded there).
PYTORCH_INDEX_LABEL = re.compile(r"^(cpu|cu\d+|rocm\d+(?:\.\d+)*|xpu)$")


def local_version_pin(spelled, line):
    """Where pip's "Could not find a version" names a requirement pinned to a local version
    ("torch==2.13.0+cpu", torch-rbln 0.12.0's): {"public", "label", "index" (PyTorch's own for the
    torch family's labels, else ""), "listed": whether the index has the public release}; else None."""
    m = re.match(r"^([A-Za-z0-9._-]+)===?([0-9][^+\s,;]*)\+([A-Za-z0-9.]+)$", spelled or "")
    if not m:
        return None
    name, public, label = normalise(m.group(1)), m.group(2), m.group(3)
    listed = re.search(r"\(from versions: ([^)]*)\)", line)
    versions = [v.strip() for v in listed.group(1).split(",")] if listed else []
    index = ("https://download.pytorch.org/whl/" + label.lower()
             if TORCH_FAMILY.match(name) and PYTORCH_INDEX_LABEL.match(label.lower()) else "")
    return {"public": public, "label": label, "index": index, "listed": public in versions}


def local_version_words(requirement, spelled, wanted, local):
    """What a pin to a local version means for a user of PyPI: no Python or platform has it there."""
    held = ("the index holds %s %s, not its +%s build" % (wanted, local["public"], local["label"]) if local["listed"]
            else "the index has no %s %s at all" % (wanted, local["public"]))
    where = ("; that build is on PyTorch's own index, %s, where pip would take it in place of this runtime's %s" % (
        local["index"], wanted) if local["index"] else "; only its publisher's own index can serve it")
    return ("pip cannot install %s from PyPI: it requires %s, a local version (+%s), which PyPI never serves "
            "(%s): it fails so on every Python and platform%s" % (requirement, spelled, local["label"], held, where))


def judged(requirement, install, name=None, extra=None):
    """pip's install list, judged against what is installed: a replacement is a torch-family
    package installed here that would change version (with what comes along with it: triton, the
    NVIDIA wheels a new torch brings). Torch-family packages that are only added (the NVIDIA CUDA
    12 runtime wheels a library needs beside a torch that has none) replace nothing."""
    name = name or normalise(requirement.split("==")[0].split("[")[0])
    have = installed_versions()
    family = [{"name": i["name"], "from": have.get(i["name"]), "to": i["version"]} for i in install
              if TORCH_FAMILY.match(i["name"]) and i["name"] != name]
    if not any(f["from"] is not None for f in family):
        family = []
    out = {"ok": True, "requirement": requirement, "plan": "replaces_torch" if family else "installs",
           "install": install, "torch_family": family}
    if extra:
        out["torch_extra"] = extra
    return out


def runtime_pip():
    """"this runtime's pip X.Y", what the answer names when the runtime's own pip gave it."""
    from importlib import metadata
    try:
        return "this runtime's pip %s" % metadata.version("pip")
    except metadata.PackageNotFoundError:
        return "this runtime's pip"


def resolver_pip(cache):
    """(argv, its name) of RESOLVER, fetched into the cache once (by sha256, as PyPI lists it), run
    as a zip by the runtime's Python; None where it cannot be had (the runtime's pip then resolves)."""
    try:
        got = fetch_pypi.fetch(argparse.Namespace(kind="wheel", requirement=RESOLVER, cache=cache, index_url=None))
    except fetch_pypi.Failure as f:
        print("install_plan.py: %s cannot be fetched (%s): this runtime's own pip resolves" % (RESOLVER, f),
              file=sys.stderr, flush=True)
        return None
    argv = [sys.executable, os.path.join(got["path"], "pip")] + PIP[3:]
    return argv, "pip %s reading wheel METADATA alone" % got["version"]


def dry_run(pip, name, requirement, report, index=()):
    """pip's dry run of REQUIREMENT, the release itself as a wheel; stopped past SOURCE_BUILD_BOUND_S
    (a requirement pip builds from source to read its metadata), which then names that requirement:
    asking pip again would build it again."""
    # --report: without it Debian's pip refuses even a dry run (externally managed environment).
    rc, out = run(pip + ["install", "--dry-run", "--quiet", "--only-binary", name, "--report", report] +
                  list(index) + [requirement], timeout=SOURCE_BUILD_BOUND_S)
    if rc != TIMED_OUT:
        return rc, out
    python = "%d.%d" % sys.version_info[:2]
    wheel_less = without_wheel([requirement], pip=pip, index=index)
    if wheel_less and normalise(re.split(r"[=<>!~;\[ ]", wheel_less)[0]) != name:
        raise Failure("requirement_no_wheel", "pip cannot install %s here without building a requirement from "
                      "source: %s" % (requirement, source_build_past_bound(wheel_less, python)),
                      python=python, requirement=wheel_less)
    raise Failure("internal", "pip's dry run of %s ran past %d s, and no requirement of it lacks a wheel here: "
                  "its words are in the log" % (requirement, SOURCE_BUILD_BOUND_S))


def with_torch_extra(requirement, cache):
    """REQUIREMENT with the extra that holds the library's torch side, where its wheel requires
    torch only there (deepmd-kit==3.2.0 -> deepmd-kit[torch]==3.2.0: what its torch side's users
    install); (requirement, extra or None). The wheel is the one the fetch step left in the cache:
    nothing is downloaded here (where there is none, the dry run says why in pip's words)."""
    try:
        name, version = fetch_pypi.parse_requirement(requirement)
        folder = fetch_pypi.release_folder(cache, name, version)
        with open(os.path.join(folder, fetch_pypi.LISTING)) as f:
            listing = json.load(f)
        entry, _ = fetch_pypi.choose("wheel", name, listing["version"], listing["files"])
        extra = torch_extra(metadata(os.path.join(folder, entry["filename"]))[1])
    except (fetch_pypi.Failure, OSError, ValueError, KeyError, zipfile.BadZipFile):
        return requirement, None
    if not extra:
        return requirement, None
    return "%s[%s]==%s" % (name, extra, version), extra


def plan(requirement, cache):
    name = normalise(requirement.split("==")[0])
    requirement, extra = with_torch_extra(requirement, cache)
    pins = torch_family_pins()
    folder = os.path.join(cache, "plans")
    kept = os.path.join(folder, cache_key([requirement], pins) + ".json")
    if os.path.isfile(kept):
        # pip's answer is kept; the judgement is made again (a kept answer outlives a rule).
        with open(kept) as f:
            answer = json.load(f)
        return dict(judged(requirement, answer["install"], name, extra),
                    resolver=answer.get("resolver", runtime_pip()), cached=True)
    os.makedirs(folder, exist_ok=True)
    report = kept + ".report"
    rc, fast = 1, resolver_pip(cache)
    if fast is not None:
        with MetadataIndex(cache) as index:
            rc, out = dry_run(fast[0], name, requirement, report, ["--index-url", index.url, "--trusted-host", "127.0.0.1"])
        print("install_plan.py: the metadata index: %s" % json.dumps(index.stats), file=sys.stderr, flush=True)
        resolver = fast[1]
    if rc != 0:
        # A refusal is the runtime's own pip's to make (and where RESOLVER could not run, it answers).
        rc, out = dry_run(PIP, name, requirement, report)
        resolver = runtime_pip()
    if rc != 0:
        python = "%d.%d" % sys.version_info[:2]
        if any(w in out for w in NETWORK_WORDS):
            raise Failure("network", "pip could not reach the index (exit %d): the infrastructure, not the library; "
                          "run again" % rc)
        refuse_index_elsewhere(out, "resolving " + requirement)
        line = no_wheel(out)
        wanted, spelled = wanted_in(line) if line else (None, None)
        if wanted == name:
            raise Failure("no_wheel", "pip finds no wheel of %s for this cell's Python %s and platform (pip: %s)" % (
                requirement, python, line), python=python)
        if wanted and fetch_pypi.absent_from_index(wanted):
            raise Failure("requirement_not_on_index", "pip cannot install %s: it requires %s, and %s (pip: %s)" % (
                requirement, spelled, fetch_pypi.not_on_index(wanted), line), requirement=spelled)
        local = local_version_pin(spelled, line) if wanted else None
        if local:
            raise Failure("requirement_local_version", local_version_words(requirement, spelled, wanted, local),
                          requirement=spelled, index=local["index"])
        if wanted:
            # torchdata 0.6.1 in Python 3.13: its wheel is there, the torch==2.0.1 it pins has none.
            raise Failure("requirement_no_wheel", "pip cannot install %s here: it requires %s, which has no wheel "
                          "for this cell's Python %s and platform (pip: %s)" % (requirement, spelled, python, line),
                          python=python, requirement=spelled)
        conflict = [l.strip() for l in out.splitlines() if re.search(r"\bconflict|\brequires\b.*\bbut\b", l, re.I)]
        raise Failure("unresolvable", "pip cannot resolve %s next to this cell's packages for Python %s: %s" % (
            requirement, python, " ".join(conflict[:3]) or line or "pip exit %d; its words are in the log" % rc))
    with open(report) as f:
        items = json.load(f).get("install", [])
    os.unlink(report)
    install = [{"name": normalise(i["metadata"]["name"]), "version": i["metadata"]["version"]} for i in items]
    answer = dict(judged(requirement, install, name, extra), resolver=resolver)
    write_atomic(kept, json.dumps(answer, indent=1) + "\n")
    return dict(answer, cached=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requirement", required=True, help="NAME==VERSION")
    ap.add_argument("--cache", required=True, help="cache folder")
    args = ap.parse_args()
    try:
        out, code = plan(args.requirement, args.cache), 0
    except Failure as f:
        out, code = f.out, 1
    except Exception as e:  # noqa: BLE001 - the harness needs JSON, not a traceback
        out, code = {"ok": False, "error": "internal", "message": "install_plan.py: %s: %s" % (type(e).__name__, e)}, 1
    print(json.dumps(out))
    return code


if __name__ == "__main__":
    sys.exit(main())
