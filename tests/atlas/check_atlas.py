"""Holds the fixture atlas (tests/atlas/atlas.yaml) to what was checked by hand in the same images:

    check_atlas.py ATLAS_FOLDER RERUN_STDERR

- torchao 0.18.0 in PyPI torch 2.15 (CUDA 13.2): pip installs it as it is; its libraries load and
  its ops register (◐: CUDA-only ops, some without a fake kernel, archs per library);
- torchao 0.18.0 next to Debian trixie's CPU torch 2.6: its libraries need CUDA 13's runtime and
  `import torchao` refuses this torch in its own words ("Please upgrade to torch >= 2.11.0"; then
  torch.utils._pytree.register_constant, newer than 2.6, is missing): ✘, and its metadata names no
  torch (a disagreement);
- fbgemm-gpu-cpu 1.0.0 in trixie (Python 3.13): no cp313 wheel: ○ not run, saying so;
- fbgemm-gpu-cpu 1.0.0 in torch 2.15: undefined symbols (built for torch 2.5, old C++ ABI): ✘;
- the rerun with nothing new ran no pair again (every pair cached)."""
import json
import os
import sys


def main():
    folder, rerun = sys.argv[1], sys.argv[2]
    with open(os.path.join(folder, "atlas.json")) as f:
        atlas = json.load(f)
    pairs = {p["id"]: p for p in atlas["pairs"]}
    failures = []

    def expect(pair_id, verdict, *words):
        p = pairs.get(pair_id)
        if p is None:
            failures.append("%s: not in atlas.json" % pair_id)
            return None
        m = p["measured"]
        text = " ".join([m.get("text", "")] + m.get("broken", []) + m.get("limits", []) + [m.get("not_run", "")])
        if m["verdict"] != verdict:
            failures.append("%s: measured %s, expected %s (%s)" % (pair_id, m["verdict"], verdict, text[:300]))
        for w in words:
            if w not in text:
                failures.append("%s: %r not in what it says: %s" % (pair_id, w, text[:400]))
        return p

    p = expect("torchao-0.18.0--pypi-torch2.15.0-cu13.2", "limits", "some of its libraries only")
    if p and "installs it next to this torch as it is" not in p["pip"]:
        failures.append("torchao in 2.15: pip should install it as it is: %s" % p["pip"])
    p = expect("torchao-0.18.0--trixie-torch2.6-cpu", "fail", "libcudart.so.13", "upgrade to torch >= 2.11.0")
    if p and "names no torch" not in p.get("disagreement", ""):
        failures.append("torchao in trixie: the disagreement (declares no torch, broken) is missing: %s" % p)
    p = expect("fbgemm-gpu-cpu-1.0.0--trixie-torch2.6-cpu", "notrun", "cp313")
    if p and not p["no_wheel"]:
        failures.append("fbgemm-gpu-cpu in trixie: no_wheel should be set")
    expect("fbgemm-gpu-cpu-1.0.0--pypi-torch2.15.0-cu13.2", "fail", "undefined symbol")

    index = open(os.path.join(folder, "index.md")).read()
    for link in ("[torchao](torchao.md) 0.18.0", "(fbgemm-gpu-cpu.md#fbgemm-gpu-cpu-1.0.0--trixie-torch2.6-cpu)"):
        if link not in index:
            failures.append("index.md lacks %r" % link)
    ran_again = [l for l in open(rerun) if ": probe ..." in l]
    if ran_again:
        failures.append("the rerun with nothing new ran pairs again: %s" % ran_again[:2])
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("ok: 4 pairs as checked by hand; the rerun ran none again; atlas.json read back by opmatrix diff")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
