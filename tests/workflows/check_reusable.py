#!/usr/bin/env python3
"""Checks the reusable workflow .github/workflows/opmatrix.yml and the workflows that call it
(our own matrix.yml, the snippet examples/caller-workflow.yml that other repositories paste)
for what actionlint and GitHub's JSON schema cannot know:

  - the reusable workflow is `on: workflow_call` with a `matrix` input;
  - every `inputs.X` it reads (in `${{ }}` and in `if:`) is a declared input;
  - it installs opmatrix's wheel instead of building the harness: one job makes the wheel
    (scripts/build-wheel.sh) and uploads it as `opmatrix-wheel`; no step runs cmake or
    install-deps.sh; every job that runs opmatrix downloads that wheel and pip-installs it first;
  - every `opmatrix validate|list|github-matrix|run` it runs passes `--matrix` from
    `inputs.matrix`, and no matrix file name is written anywhere else in it;
  - each caller's `uses:` names .github/workflows/opmatrix.yml (ours: `./`; the snippet:
    OWNER/opmatrix/...@REF), its `with:` gives declared inputs of the right type and every
    required one, and it grants every permission the reusable workflow's jobs declare (GitHub
    refuses to start the run otherwise, skipped jobs included);
  - our matrix.yml passes `matrix: matrix.yaml` (or a dispatch's `matrix` input, default matrix.yaml);
  - docs/github.md shows the snippet exactly as examples/caller-workflow.yml has it;
  - the atlas's reusable workflow .github/workflows/atlas.yml reads only declared inputs and
    installs opmatrix's wheel the same way (its own wheel job, no harness build).

  check_reusable.py REPO            the checks
  check_reusable.py REPO --self-test each check against a broken copy: it must fail

Needs ruamel.yaml (check-jsonschema's dependency, in the workflow test's venv).
"""
import copy
import re
import sys
from pathlib import Path

from ruamel.yaml import YAML

REUSABLE = ".github/workflows/opmatrix.yml"
OWN_CALLER = ".github/workflows/matrix.yml"
EXAMPLE_CALLER = "examples/caller-workflow.yml"
DOCS = "docs/github.md"
ATLAS = ".github/workflows/atlas.yml"

# The subcommands that read a matrix file (`report` and `cross-load` read results).
MATRIX_SUBCOMMANDS = ("validate", "list", "github-matrix", "run")
# `"$opmatrix" run`, `"$RUNNER_TEMP/opmatrix/bin/opmatrix" run`, `build/.../opmatrix validate`.
INVOCATION = re.compile(r'(?:\$\{?opmatrix\}?|[\w${}./-]*/opmatrix)"?\s+(' + "|".join(MATRIX_SUBCOMMANDS) + r")\b(.*)")
MATRIX_FLAG = re.compile(r'--matrix(?:=|\s+)("[^"]*"|\'[^\']*\'|\S+)')
INPUT_REF = re.compile(r"\binputs\s*(?:\.\s*([A-Za-z_][\w-]*)|\[\s*'([^']+)'\s*\])")
EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.S)
MATRIX_FILE_NAME = re.compile(r"matrix\.ya?ml\b")
FROM_MATRIX_INPUT = re.compile(r"\$\{\{\s*inputs\.matrix\s*\}\}")
REMOTE_USES = re.compile(r"^[A-Za-z0-9_.-]+/opmatrix/\.github/workflows/opmatrix\.yml@[^@\s]+$")
LOCAL_USES = "./.github/workflows/opmatrix.yml"
LEVEL = {"none": 0, "read": 1, "write": 2}
# What a caller that declares no permissions is sure to have: the restricted default.
RESTRICTED_DEFAULT = {"contents": "read", "packages": "read"}


def load(path):
    return YAML(typ="safe").load(Path(path).read_text())


def on_of(wf):
    # YAML 1.1 loaders read the key `on` as True.
    return wf.get("on", wf.get(True)) or {}


def declared_inputs(reusable):
    on = on_of(reusable)
    call = on.get("workflow_call") if isinstance(on, dict) else None
    return (call or {}).get("inputs") or {}


def strings(node, path=()):
    """Every string in the document with its path of keys."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from strings(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from strings(v, path + (i,))
    elif isinstance(node, str):
        yield path, node


def where(path):
    return ".".join(str(p) for p in path)


# ---- the reusable workflow ---------------------------------------------------------------

def check_workflow_call(reusable):
    on = on_of(reusable)
    if not isinstance(on, dict) or "workflow_call" not in on:
        return [f"{REUSABLE}: not `on: workflow_call`"]
    inputs = declared_inputs(reusable)
    errors = []
    if "matrix" not in inputs:
        errors.append(f"{REUSABLE}: workflow_call has no `matrix` input")
    elif (inputs["matrix"] or {}).get("type") != "string":
        errors.append(f"{REUSABLE}: the `matrix` input is not a string")
    for name, spec in inputs.items():
        if not (spec or {}).get("description"):
            errors.append(f"{REUSABLE}: input `{name}` has no description")
    return errors


def check_inputs_declared(reusable, workflow=REUSABLE):
    declared = set(declared_inputs(reusable))
    errors = []
    for path, text in strings(reusable.get("jobs") or {}, ("jobs",)):
        exprs = [m.group(1) for m in EXPRESSION.finditer(text)]
        if path and path[-1] == "if":
            exprs.append(text)  # `if:` is an expression without ${{ }}
        for expr in exprs:
            for m in INPUT_REF.finditer(expr):
                input_name = m.group(1) or m.group(2)
                if input_name not in declared:
                    errors.append(f"{workflow}: {where(path)} reads inputs.{input_name}, which is not a declared input")
    return errors


def commands(script):
    """The script's commands, backslash-continued lines joined."""
    return re.sub(r"\\\n\s*", " ", script).splitlines()


def check_matrix_from_input(reusable):
    errors, seen = [], set()
    jobs = reusable.get("jobs") or {}
    for job_name, job in jobs.items():
        for i, step in enumerate((job or {}).get("steps") or []):
            script = step.get("run")
            if not isinstance(script, str):
                continue
            env = {**(job.get("env") or {}), **(step.get("env") or {})}
            for line in commands(script):
                for m in INVOCATION.finditer(line):
                    sub, rest = m.group(1), m.group(2)
                    at = f"{REUSABLE}: jobs.{job_name}.steps[{i}] (`opmatrix {sub}`)"
                    seen.add(sub)
                    flag = MATRIX_FLAG.search(rest)
                    if not flag:
                        errors.append(f"{at}: no --matrix (the default is ./opmatrix.yaml, else ./matrix.yaml: a hard-coded file)")
                        continue
                    value = flag.group(1).strip("\"'")
                    var = re.fullmatch(r"\$\{?(\w+)\}?", value)
                    source = str(env.get(var.group(1), "")) if var else value
                    if not FROM_MATRIX_INPUT.search(source):
                        errors.append(f"{at}: --matrix {flag.group(1)} is not taken from inputs.matrix")
    for sub in ("validate", "github-matrix", "run"):
        if sub not in seen:
            errors.append(f"{REUSABLE}: runs no `opmatrix {sub}` (the plan or cell job lost it?)")
    for path, text in strings(reusable.get("jobs") or {}, ("jobs",)):
        if MATRIX_FILE_NAME.search(text):
            errors.append(f"{REUSABLE}: {where(path)} names a matrix file itself: {text.strip()[:80]!r}")
    return errors


WHEEL_ARTIFACT = "opmatrix-wheel"
# Any run of the installed binary: `"$opmatrix" report`, `"$RUNNER_TEMP/opmatrix/bin/opmatrix" run`.
RUNS_OPMATRIX = re.compile(r'(?:\$\{?opmatrix\}?|[\w${}./-]*/opmatrix)"?\s+[a-z-]+')
HARNESS_BUILD = re.compile(r"\bcmake\b|install-deps\.sh")
PIP_INSTALLS_WHEEL = re.compile(r"pip\S*\s+install\b[^\n]*opmatrix-\*\.whl")


def check_installs_wheel(reusable, workflow=REUSABLE):
    errors, makers = [], []
    for job_name, job in (reusable.get("jobs") or {}).items():
        steps = (job or {}).get("steps") or []
        downloaded = installed = False
        for i, step in enumerate(steps):
            at = f"{workflow}: jobs.{job_name}.steps[{i}]"
            script = step.get("run") if isinstance(step.get("run"), str) else ""
            uses = str(step.get("uses", ""))
            name = str((step.get("with") or {}).get("name", ""))
            if uses.startswith("actions/upload-artifact") and name == WHEEL_ARTIFACT:
                makers.append(job_name)
            if uses.startswith("actions/download-artifact") and name == WHEEL_ARTIFACT:
                downloaded = True
            if HARNESS_BUILD.search(script):
                errors.append(f"{at} builds the harness ({HARNESS_BUILD.search(script).group(0)}): install the wheel instead")
            if PIP_INSTALLS_WHEEL.search(script):
                installed = downloaded
            if RUNS_OPMATRIX.search(script) and not installed:
                errors.append(f"{at} runs opmatrix before the job downloads and pip-installs the {WHEEL_ARTIFACT} artifact")
                break
    if len(makers) != 1:
        errors.append(f"{workflow}: {len(makers)} jobs upload {WHEEL_ARTIFACT} (one must: {makers or 'none'})")
    else:
        runs = " ".join(str(st.get("run", "")) for st in reusable["jobs"][makers[0]].get("steps") or [])
        if "scripts/build-wheel.sh" not in runs:
            errors.append(f"{workflow}: jobs.{makers[0]} uploads {WHEEL_ARTIFACT} but never runs scripts/build-wheel.sh")
    return errors


# ---- the callers -------------------------------------------------------------------------

def effective_permissions(caller, job):
    perms = job.get("permissions", caller.get("permissions"))
    if perms is None:
        return dict(RESTRICTED_DEFAULT)
    if perms == "write-all":
        return {"*": "write"}
    if perms == "read-all":
        return {"*": "read"}
    return dict(perms or {})


def check_caller(name, caller, reusable, *, remote):
    inputs = declared_inputs(reusable)
    calls = [(n, j) for n, j in (caller.get("jobs") or {}).items() if isinstance(j, dict) and "uses" in j]
    if not calls:
        return [f"{name}: no job calls the reusable workflow"]
    errors = []
    for job_name, job in calls:
        at = f"{name}: jobs.{job_name}"
        uses = str(job["uses"])
        ok = REMOTE_USES.match(uses) if remote else uses == LOCAL_USES
        if not ok:
            want = "OWNER/opmatrix/.github/workflows/opmatrix.yml@REF" if remote else LOCAL_USES
            errors.append(f"{at}: uses {uses!r}, not {want}")
        given = job.get("with") or {}
        for key, value in given.items():
            if key not in inputs:
                errors.append(f"{at}: with.{key} is not an input of {REUSABLE} (inputs: {', '.join(inputs)})")
                continue
            kind = (inputs[key] or {}).get("type")
            is_expr = isinstance(value, str) and "${{" in value
            if not is_expr and kind == "boolean" and not isinstance(value, bool):
                errors.append(f"{at}: with.{key} is {value!r}, the input is a boolean")
            if not is_expr and kind == "string" and not isinstance(value, str):
                errors.append(f"{at}: with.{key} is {value!r}, the input is a string")
        for key, spec in inputs.items():
            if (spec or {}).get("required") and key not in given:
                errors.append(f"{at}: the required input {key} is not given")
        granted = effective_permissions(caller, job)
        for nested_name, nested in (reusable.get("jobs") or {}).items():
            wanted = (nested or {}).get("permissions")
            if not isinstance(wanted, dict):
                continue
            for scope, level in wanted.items():
                have = granted.get(scope, granted.get("*", "none"))
                if LEVEL.get(have, 0) < LEVEL[level]:
                    errors.append(f"{at}: grants {scope}: {have}, the nested job {nested_name} declares "
                                  f"{scope}: {level} (GitHub would not start the run)")
    return errors


def check_own_caller(caller, reusable):
    errors = check_caller(OWN_CALLER, caller, reusable, remote=False)
    # matrix.yaml, or a workflow_dispatch's `matrix` input whose default is matrix.yaml (a smaller
    # matrix for a dispatch, e.g. scripts/run-workflow-locally.sh's) and matrix.yaml otherwise.
    on = caller.get("on", caller.get(True)) or {}
    dispatch = ((on.get("workflow_dispatch") or {}).get("inputs") or {}) if isinstance(on, dict) else {}
    allowed = {"matrix.yaml"}
    if (dispatch.get("matrix") or {}).get("default") == "matrix.yaml":
        allowed.add("${{ inputs.matrix || 'matrix.yaml' }}")
    for job_name, job in (caller.get("jobs") or {}).items():
        if isinstance(job, dict) and job.get("uses") == LOCAL_USES and (job.get("with") or {}).get("matrix") not in allowed:
            errors.append(f"{OWN_CALLER}: jobs.{job_name} does not pass matrix: matrix.yaml")
    return errors


def check_docs_snippet(example_text, docs_text):
    blocks = re.findall(r"```ya?ml\n(.*?)```", docs_text, re.S)
    if example_text not in blocks:
        return [f"{DOCS}: no ```yaml block is exactly {EXAMPLE_CALLER} (the snippet to paste)"]
    return []


# ---- driver ------------------------------------------------------------------------------

def all_checks(docs):
    r, own, ex = docs["reusable"], docs["own"], docs["example"]
    return {
        "workflow_call with a matrix input": check_workflow_call(r),
        "every inputs.X declared": check_inputs_declared(r),
        "--matrix from inputs.matrix": check_matrix_from_input(r),
        "installs the wheel, builds no harness": check_installs_wheel(r),
        "matrix.yml calls it": check_own_caller(own, r),
        "the snippet calls it": check_caller(EXAMPLE_CALLER, ex, r, remote=True),
        "docs show the snippet": check_docs_snippet(docs["example_text"], docs["docs_text"]),
        "atlas.yml: every inputs.X declared": check_inputs_declared(docs["atlas"], ATLAS),
        "atlas.yml: installs the wheel, builds no harness": check_installs_wheel(docs["atlas"], ATLAS),
    }


def first_run_step(doc, job, needle):
    for step in doc["jobs"][job]["steps"]:
        if needle in str(step.get("run", "")):
            return step
    raise KeyError(needle)


# Each mutation breaks what one check guards; that check must then fail.
def _undeclared_input(d):
    d["reusable"]["jobs"]["cell"]["steps"][0].setdefault("with", {})["path"] = "${{ inputs.checkout-path }}"


def _undeclared_in_if(d):
    d["reusable"]["jobs"]["pages"]["if"] = "inputs.deploy && always()"


def _hard_coded_matrix(d):
    step = first_run_step(d["reusable"], "cell", " run --matrix")
    step["env"]["MATRIX"] = "project/matrix.yaml"


def _no_matrix_flag(d):
    step = first_run_step(d["reusable"], "plan", " validate --matrix")
    step["run"] = step["run"].replace(' validate --matrix "$MATRIX"', " validate")


def _harness_built_again(d):
    d["reusable"]["jobs"]["plan"]["steps"].insert(1, {"name": "Build", "run": "cmake --build build --target opmatrix"})


def _report_without_the_wheel(d):
    steps = d["reusable"]["jobs"]["report"]["steps"]
    steps[:] = [st for st in steps if "pip" not in str(st.get("run", ""))]


def _wheel_never_built(d):
    for step in d["reusable"]["jobs"]["wheel"]["steps"]:
        if "build-wheel.sh" in str(step.get("run", "")):
            step["run"] = "true"


def _matrix_input_gone(d):
    del declared_inputs(d["reusable"])["matrix"]


def _not_workflow_call(d):
    d["reusable"]["on"] = {"push": None}


def _snippet_elsewhere(d):
    d["example"]["jobs"]["opmatrix"]["uses"] = "OWNER/opmatrix/.github/workflows/matrix.yml@main"


def _snippet_unknown_input(d):
    d["example"]["jobs"]["opmatrix"]["with"]["matrix-file"] = "opmatrix.yaml"


def _snippet_no_checks(d):
    del d["example"]["jobs"]["opmatrix"]["permissions"]["checks"]


def _snippet_bool_as_string(d):
    d["example"]["jobs"]["opmatrix"]["with"]["publish-pages"] = "yes"


def _own_other_matrix(d):
    d["own"]["jobs"]["matrix"]["with"]["matrix"] = "opmatrix.yaml"


def _atlas_undeclared_input(d):
    d["atlas"]["jobs"]["report"]["if"] = "always() && inputs.render"


def _atlas_runtime_without_the_wheel(d):
    steps = d["atlas"]["jobs"]["runtime"]["steps"]
    steps[:] = [st for st in steps if not PIP_INSTALLS_WHEEL.search(str(st.get("run", "")))]


def _docs_out_of_date(d):
    d["docs_text"] = d["docs_text"].replace("opmatrix.yml@main", "opmatrix.yml@v0")


MUTATIONS = [
    ("every inputs.X declared", _undeclared_input),
    ("every inputs.X declared", _undeclared_in_if),
    ("--matrix from inputs.matrix", _hard_coded_matrix),
    ("--matrix from inputs.matrix", _no_matrix_flag),
    ("installs the wheel, builds no harness", _harness_built_again),
    ("installs the wheel, builds no harness", _report_without_the_wheel),
    ("installs the wheel, builds no harness", _wheel_never_built),
    ("workflow_call with a matrix input", _matrix_input_gone),
    ("workflow_call with a matrix input", _not_workflow_call),
    ("the snippet calls it", _snippet_elsewhere),
    ("the snippet calls it", _snippet_unknown_input),
    ("the snippet calls it", _snippet_no_checks),
    ("the snippet calls it", _snippet_bool_as_string),
    ("matrix.yml calls it", _own_other_matrix),
    ("docs show the snippet", _docs_out_of_date),
    ("atlas.yml: every inputs.X declared", _atlas_undeclared_input),
    ("atlas.yml: installs the wheel, builds no harness", _atlas_runtime_without_the_wheel),
]


def main(argv):
    repo = Path(argv[1])
    example_text = (repo / EXAMPLE_CALLER).read_text()
    docs = {
        "reusable": load(repo / REUSABLE),
        "own": load(repo / OWN_CALLER),
        "atlas": load(repo / ATLAS),
        "example": load(repo / EXAMPLE_CALLER),
        "example_text": example_text,
        "docs_text": (repo / DOCS).read_text() if (repo / DOCS).exists() else "",
    }
    failed = False
    if "--self-test" in argv:
        for check, mutate in MUTATIONS:
            broken = copy.deepcopy(docs)
            mutate(broken)
            errors = all_checks(broken)[check]
            if errors:
                print(f"self-test: {mutate.__name__.strip('_')}: '{check}' fails as it must ({errors[0]})")
            else:
                print(f"self-test: {mutate.__name__.strip('_')}: '{check}' does NOT fail", file=sys.stderr)
                failed = True
        return 1 if failed else 0
    for check, errors in all_checks(docs).items():
        for e in errors:
            print(e, file=sys.stderr)
        failed |= bool(errors)
        print(f"reusable workflow: {check}: {'FAIL' if errors else 'ok'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
