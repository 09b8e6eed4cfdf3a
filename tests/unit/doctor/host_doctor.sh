#!/usr/bin/env bash
# `opmatrix doctor` against this machine's own torch + torchvision (Debian's python3-torch and
# python3-torchvision under /usr/bin/python3), run from a folder that is not the repository so
# that only the scripts embedded in the binary can be imported. Checks what doctor reports
# against what the interpreter itself says: torchvision's version, each op's kernels (CPU,
# CUDA, Meta, Autograd), and that no known failure APPLIES unless it is true here.
# Exit 77 (skip, reason printed) where /usr/bin/python3 has no torchvision.
#   tests/unit/doctor/host_doctor.sh OPMATRIX [PYTHON]
set -euo pipefail
opmatrix=$(realpath "$1")
py=${2:-/usr/bin/python3}
if [ ! -x "$py" ]; then echo "SKIP: no $py"; exit 77; fi
if ! "$py" -c 'import torch, torchvision' >/dev/null 2>&1; then
  echo "SKIP: $py cannot import torch and torchvision (install Debian's python3-torchvision)"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/opmatrix-host-doctor-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/cwd" "$work/tmp"
cd "$work/cwd"  # neither the repository nor scripts/cell
set +e
TMPDIR="$work/tmp" "$opmatrix" doctor --python "$py" --json >"$work/doctor.json" 2>"$work/doctor.err"
rc_json=$?
TMPDIR="$work/tmp" "$opmatrix" doctor --python "$py" >"$work/doctor.txt" 2>>"$work/doctor.err"
rc_text=$?
set -e
echo "doctor exit: --json $rc_json, text $rc_text; working folder $PWD"
cat "$work/doctor.txt"
cat "$work/doctor.err" >&2
leftover=$(ls -A "$work/tmp")
if [ -n "$leftover" ]; then echo "FAIL: doctor left in TMPDIR: $leftover"; exit 1; fi
"$py" - "$work/doctor.json" "$work/doctor.txt" "$rc_json" "$rc_text" <<'PY'
import json, re, shutil, subprocess, sys

doc = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
rc_json, rc_text = int(sys.argv[3]), int(sys.argv[4])
failures = []

def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)

import torch, torchvision
has = torch._C._dispatch_has_kernel_for_dispatch_key
env = doc["environment"]
view = env.get("torchvision_view") or {}
check(doc["failed_scripts"] == [], "every script ran: %s" % doc["failed_scripts"])
check(view.get("import_ok") is True, "torchvision imports (doctor's view)")
check(view.get("torchvision") == torchvision.__version__,
      "torchvision %s reported (import says %s)" % (view.get("torchvision"), torchvision.__version__))
try:
    codename = re.search(r"^VERSION_CODENAME=(\w+)", open("/etc/os-release").read(), re.M).group(1)
except (OSError, AttributeError):
    codename = ""
if codename == "bookworm" and torchvision.__file__.startswith("/usr/lib/python3/"):
    check(torchvision.__version__.startswith("0.14.1"), "Debian bookworm's torchvision is 0.14.1")
ops = view.get("ops", {})
for op in ["nms", "roi_align", "deform_conv2d"]:
    check(ops.get(op, {}).get("CPU") is True, "torchvision::%s has a CPU kernel" % op)
    for key in ["CPU", "CUDA", "Meta", "Autograd"]:
        truth = bool(has("torchvision::" + op, key))
        check(ops.get(op, {}).get(key) is truth, "torchvision::%s %s kernel: doctor %s, dispatcher %s"
              % (op, key, ops.get(op, {}).get(key), truth))
    row = re.search(r"^ +%s +(\S+) +(\S+) +(\S+) +(\S+)$" % op, text, re.M)
    check(row is not None and row.group(1) == "yes", "text output lists %s's kernels: %s" % (op, row and row.group(0)))
check(("torchvision  " + torchvision.__version__) in text, "text output: torchvision %s" % torchvision.__version__)
for wrong in ["does not import", "no torchvision", "[unknown]", "FAILED"]:
    check(wrong not in text, "text output does not say %r" % wrong)

# What is true here, from the interpreter and the machine, not from doctor.
torch_cuda = torch.version.cuda
tv_cuda = None
try:
    v = int(torch.ops.torchvision._cuda_version())
    tv_cuda = None if v < 0 else "%d.%d" % (v // 1000, (v % 1000) // 10)
except Exception:
    pass
nvcc = None
if shutil.which("nvcc"):
    m = re.search(r"release ([\d.]+)", subprocess.run(["nvcc", "--version"], stdout=subprocess.PIPE,
                                                      universal_newlines=True).stdout)
    nvcc = m.group(1) if m else None
gpu = shutil.which("nvidia-smi") is not None and subprocess.run(
    ["nvidia-smi", "-L"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
truth = {
    "cuda_backend": bool(torch_cuda) and (not has("torchvision::nms", "CUDA") or tv_cuda != torch_cuda),
    "meta_kernel": not has("torchvision::deform_conv2d", "Meta"),
    "undefined_symbol": False,
    "torchvision_import": False,
    "torch_without_cuda": not torch_cuda and (nvcc is not None or gpu),
    "cuda_versions": bool(torch_cuda) and nvcc is not None and torch_cuda.split(".")[0] != nvcc.split(".")[0],
}
if not gpu:
    truth["gpu_arch"] = False
findings = {f["id"]: f for f in doc["findings"]}
for fid, expected in truth.items():
    f = findings.get(fid)
    check(f is not None and f["known"] and f["applies"] == expected,
          "%s: doctor %s, true here: %s (%s)" % (fid, f and ("APPLIES" if f["applies"] else "ok"),
                                                "applies" if expected else "does not apply", f and f["detail"]))
any_applies = any(f["applies"] for f in doc["findings"])
check(rc_json == rc_text == (1 if any_applies else 0), "exit status %d/%d for %s" %
      (rc_json, rc_text, "findings that apply" if any_applies else "none applying"))
if failures:
    print("%d check(s) failed" % len(failures))
    sys.exit(1)
print("all checks passed")
PY
