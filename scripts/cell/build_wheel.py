"""Builds a setup.py / pyproject op library as users get it: a wheel, against the cell's torch
(no build isolation, no dependencies, no network), then installs it into a folder of its own.

    build_wheel.py SOURCE BUILD

SOURCE (read-only) is a project folder or an sdist (.tar.gz, .tgz, .tar.bz2, .tar.xz, .zip).
A folder is copied over BUILD/src (timestamps kept, earlier build products kept, so a rebuild
is incremental; .git, __pycache__, .opmatrix, *.egg-info and a top-level build/ or dist/ are
not copied: a project at the matrix's own folder "." would copy the harness's work folder into
itself, and host build products into the cell's build). An sdist is unpacked safely into
BUILD/src (its one top-level folder's contents), and not again while its sha256 matches
BUILD/src.sha256, so setuptools and ccache reuse the objects of an earlier build.
`pip wheel --no-deps --no-build-isolation` (BUILD/build-deps, the build requirements the
requirements step installed, on PYTHONPATH) writes BUILD/wheel/, and
`pip install --no-deps --no-index --target BUILD/site` installs it (put BUILD/site on
PYTHONPATH to import it). pip's own output goes to stderr (the step's log); the last line on
stdout is one JSON object: {"ok": true, "wheel": path, "site": folder, "tags": [...],
"requires": [...], "libraries": [.so files under site]} (with no library, "no_extension": where
the project's setup.py decides to build none in this runtime, by design: {"where": "setup.py:N",
"line": its code, "words": what it prints then}), or {"ok": false, "error": KIND,
"message": ...} for an sdist that is refused. Exit status: pip's, when it fails."""
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

import build_requires
from fetch_pypi import sha256_of
from wheel_metadata import metadata

PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", "--no-cache-dir"]
SKIP_ANYWHERE = (".git", "__pycache__", ".opmatrix", "*.egg-info")
SKIP_AT_TOP = ("build", "dist")  # deeper down, a folder of these names may be the project's source
ARCHIVES = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar", ".zip")


class Refused(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


def copy_tree(src, dst, build=None):
    """SOURCE over BUILD/src: new and changed files copied with their times, nothing removed
    but what vanished from SOURCE's own files (build products stay for incremental builds).
    `build` (BUILD itself) is never walked into, wherever it lies."""
    own = os.path.realpath(build) if build else None
    for root, dirs, files in os.walk(src):
        top = root == src  # os.walk's first folder is SOURCE as given
        dirs[:] = [d for d in dirs if not any(fnmatch.fnmatch(d, p) for p in SKIP_ANYWHERE)
                   and not (top and d in SKIP_AT_TOP) and os.path.realpath(os.path.join(root, d)) != own]
        rel = os.path.relpath(root, src)
        os.makedirs(os.path.join(dst, rel), exist_ok=True)
        for f in files:
            s, d = os.path.join(root, f), os.path.join(dst, rel, f)
            st = os.stat(s)
            if not os.path.exists(d) or os.stat(d).st_mtime != st.st_mtime or os.stat(d).st_size != st.st_size:
                shutil.copy2(s, d)


def outside(name):
    """An archive member name that would land outside the folder it is unpacked into."""
    parts = name.replace("\\", "/").split("/")
    return name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name) is not None or ".." in parts


def check_tar(archive, members):
    for m in members:
        if outside(m.name):
            raise Refused("unsafe_archive", "%s holds %r, a path outside the folder it unpacks into: refused, "
                          "nothing unpacked" % (archive, m.name))
        if m.issym() or m.islnk():
            # A symlink's target is relative to its folder, a hard link's to the archive's root.
            target = os.path.join(os.path.dirname(m.name), m.linkname) if m.issym() else m.linkname
            if os.path.isabs(m.linkname) or outside(os.path.normpath(target)):
                raise Refused("unsafe_archive", "%s holds the link %r -> %r, which leaves the folder it unpacks "
                              "into: refused, nothing unpacked" % (archive, m.name, m.linkname))
        elif not (m.isfile() or m.isdir()):
            raise Refused("unsafe_archive", "%s holds %r, a device or fifo, which no sdist has: refused, nothing "
                          "unpacked" % (archive, m.name))


def extract(archive, dest):
    """Unpacks archive into dest after checking every member: no absolute path, no '..', no link
    leaving dest. Python's "data" filter (3.12, and backported) checks the same again."""
    try:
        if archive.endswith(".zip"):
            with zipfile.ZipFile(archive) as z:
                for name in z.namelist():
                    if outside(name):
                        raise Refused("unsafe_archive", "%s holds %r, a path outside the folder it unpacks into: "
                                      "refused, nothing unpacked" % (archive, name))
                z.extractall(dest)  # zipfile writes links as plain files
            return
        with tarfile.open(archive) as t:
            check_tar(archive, t.getmembers())
            if hasattr(tarfile, "data_filter"):
                t.extractall(dest, filter="data")
            else:
                t.extractall(dest)
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as e:
        if isinstance(e, getattr(tarfile, "FilterError", ())):  # what the checks above missed
            raise Refused("unsafe_archive", "%s: %s: refused" % (archive, e))
        raise Refused("bad_archive", "%s cannot be unpacked (%s: %s): fetch it again" % (archive, type(e).__name__, e))


def unpack(archive, src):
    """archive's one top-level folder becomes src (the whole archive when it has several
    entries at the top), unless src came from this very archive already."""
    digest, stamp = sha256_of(archive), src + ".sha256"
    try:
        with open(stamp) as f:
            if f.read().strip() == digest and os.path.isdir(src):
                print("build_wheel.py: %s unpacked already (sha256 %s): reusing %s" % (archive, digest[:12], src),
                      file=sys.stderr, flush=True)
                return
    except OSError:
        pass
    parent = os.path.dirname(os.path.abspath(src))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=parent, prefix=".unpack-")
    try:
        extract(archive, tmp)
        entries = os.listdir(tmp)
        top = os.path.join(tmp, entries[0]) if len(entries) == 1 and os.path.isdir(os.path.join(tmp, entries[0])) else tmp
        if os.path.exists(stamp):
            os.unlink(stamp)
        shutil.rmtree(src, ignore_errors=True)
        os.rename(top, src)
        with open(stamp, "w") as f:
            f.write(digest + "\n")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def prepare(source, src, build):
    """BUILD/src from SOURCE, a folder or an sdist."""
    if os.path.isdir(source):
        stamp = src + ".sha256"
        if os.path.exists(stamp):  # src was an sdist's: start over, not on top of it
            os.unlink(stamp)
            shutil.rmtree(src, ignore_errors=True)
        copy_tree(source, src, build)
    elif source.endswith(ARCHIVES) and os.path.isfile(source):
        unpack(source, src)
    else:
        raise Refused("bad_source", "%s is neither a project folder nor an sdist (%s)" % (source, ", ".join(ARCHIVES)))


def run(argv, env=None):
    print("+", " ".join(argv), file=sys.stderr, flush=True)
    return subprocess.run(argv, stdout=sys.stderr, stderr=sys.stderr, env=env).returncode


# run_captured's exit status for a command stopped at its time limit (no process exits with it).
TIMED_OUT = -1000


def run_captured(argv, env=None, timeout=None):
    """argv's exit status and its output, which also goes to stderr (the step's log). Past
    TIMEOUT seconds the command and everything it started (pip's build of an sdist: its compilers)
    are killed, and the status is TIMED_OUT."""
    print("+", " ".join(argv), file=sys.stderr, flush=True)
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, env=env,
                         start_new_session=timeout is not None)
    try:
        out, _ = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        out, _ = p.communicate()
        rc = TIMED_OUT
    sys.stderr.write(out)
    sys.stderr.flush()
    return rc, out


def install(wheel, site):
    """What a user's `pip install --no-deps` gets, into site (emptied first). Returns pip's exit
    status and its output, which also goes to stderr (the step's log)."""
    shutil.rmtree(site, ignore_errors=True)
    return run_captured(PIP + ["install", "--no-deps", "--no-index", "--no-compile", "--target", site, wheel])


SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c")
JIT_BUILD = re.compile(r"\btorch\.utils\.cpp_extension\b|\bcpp_extension\s+import\b")
# A setup script shipped in the package (hqq 0.2.8's hqq/kernels/setup_cuda.py, which users or its
# setup.py run as `python setup_cuda.py install`): it builds an extension at install, by hand,
# never when the package is first used.
SETUP_SCRIPT = re.compile(r"^\s*setup\s*\(", re.M)


def beside_its_requirements(site, deps):
    """pip puts a package and its requirements in one site-packages; the requirements step
    installed them into DEPS. Each of DEPS's top-level folders SITE lacks gets a link in SITE, so
    a library's relative RPATH into a requirement's folder resolves as in a user's install
    (cuequivariance-ops-torch's extension: $ORIGIN/../cuequivariance_ops/lib/libcue_ops.so). A
    package the two share (featomic-torch's featomic/torch/ beside featomic's own
    featomic/__init__.py: one folder in a user's site-packages, where `import featomic.torch`
    works; two here, where Python takes the regular package in DEPS alone and never finds
    featomic.torch) gets the requirement's entries it lacks linked into SITE's folder, folder by
    folder, so that it is one package again. os.walk does not follow linked folders, and the
    package's own libraries are told from linked ones (linked_here): they stay the ones judged."""
    if os.path.isdir(deps):
        link_what_it_lacks(site, deps, top=True)


def link_what_it_lacks(into, source, top=False):
    """Links in INTO each entry of SOURCE it lacks (at the top: folders alone, as pip's --target
    leaves them), and does the same inside each folder both have."""
    folder = lambda path: os.path.isdir(path) and not os.path.islink(path)  # noqa: E731
    for entry in sorted(os.listdir(source)):
        here, there = os.path.join(into, entry), os.path.join(source, entry)
        if top and (entry == "bin" or not os.path.isdir(there)):
            continue
        if not os.path.lexists(here):
            os.symlink(os.path.relpath(there, into), here)
        elif folder(here) and folder(there):
            link_what_it_lacks(here, there)


def linked_here(path, site):
    """A requirement's file linked into the package's folder (beside_its_requirements), not the
    package's own."""
    return os.path.islink(path) and not os.path.realpath(path).startswith(os.path.realpath(site) + os.sep)


def jit_sources(site):
    """What a wheel that compiles its own C++/CUDA code at first use ships for it: the count of its
    source files by suffix, and its Python files that build them with torch.utils.cpp_extension
    (gsplat 1.5: 20 .cu and 216 .cpp files, built by gsplat/cuda/_backend.py). None where either
    is missing."""
    counts, builders = {}, []
    for root, _, files in os.walk(site):
        for f in sorted(files):
            path = os.path.join(root, f)
            suffix = os.path.splitext(f)[1]
            if suffix in SOURCE_SUFFIXES:
                counts[suffix] = counts.get(suffix, 0) + 1
            elif suffix == ".py":
                with open(path, encoding="utf-8", errors="replace") as text:
                    code = text.read()
                    if JIT_BUILD.search(code) and not SETUP_SCRIPT.search(code):
                        builders.append(os.path.relpath(path, site))
    if not counts or not builders:
        return None
    return {"sources": dict(sorted(counts.items())), "builders": sorted(builders)}


# CUDA device code shipped as files, not inside a shared library: what a package loads through the
# CUDA driver (cuModuleLoad) when its functions run (cpm-kernels 1.0.11: 11 .fatbin files).
DEVICE_CODE_SUFFIXES = (".fatbin", ".cubin", ".ptx")


def device_code(site):
    """The CUDA device code files a wheel without shared libraries ships: their count by suffix and
    the first few paths. None where it ships none."""
    counts, paths = {}, []
    for root, _, files in os.walk(site):
        for f in sorted(files):
            suffix = os.path.splitext(f)[1]
            if suffix in DEVICE_CODE_SUFFIXES:
                counts[suffix] = counts.get(suffix, 0) + 1
                paths.append(os.path.relpath(os.path.join(root, f), site))
    if not counts:
        return None
    return {"files": dict(sorted(counts.items())), "paths": sorted(paths)[:3]}


# Programs shipped in place of libraries: ELF executables the package runs as subprocesses (pnnx
# 20261020: pnnx/pnnx, an 88 MB torch-to-ncnn converter with its own libtorch linked in). ET_EXEC
# always; ET_DYN (a PIE) only with its executable bit, since a shared library is ET_DYN too.
ELF_EXEC, ELF_DYN = 2, 3
SHARED_LIBRARY_NAME = re.compile(r"\.so(\.[0-9]+)*$")  # libfoo.so, libfoo.so.1.2
TORCH_LIBRARY_NAME = re.compile(r"^lib(?:torch|c10)\w*\.so")


def elf_kind_and_machine(path):
    """(e_type, e_machine) of an ELF file, or None."""
    try:
        with open(path, "rb") as f:
            head = f.read(20)
    except OSError:
        return None
    if len(head) < 20 or head[:4] != b"\x7fELF":
        return None
    return int.from_bytes(head[16:18], "little"), int.from_bytes(head[18:20], "little")


def is_program(path, machine):
    """An ELF program for MACHINE (this one's e_machine): a GPU's code object is an ELF file too
    (amd-aiter ships 2498 `.co` files for AMD GPUs, e_machine AMDGPU), and no program here."""
    elf = elf_kind_and_machine(path)
    if elf is None or elf[1] != machine:
        return False
    return elf[0] == ELF_EXEC or (elf[0] == ELF_DYN and os.access(path, os.X_OK))


def programs(site):
    """The ELF programs a wheel without shared libraries ships: their count, the first few paths,
    and what ldd says of the first few: the libraries of torch each links (none where it carries
    its own torch) and those not found here. None where it ships none."""
    machine = elf_kind_and_machine(sys.executable)[1]
    paths = sorted(os.path.relpath(os.path.join(root, f), site) for root, _, files in os.walk(site) for f in files
                   if not SHARED_LIBRARY_NAME.search(f) and not os.path.islink(os.path.join(root, f))
                   and is_program(os.path.join(root, f), machine))
    if not paths:
        return None
    torch_libraries, missing = set(), set()
    for rel in paths[:3]:
        ldd = subprocess.run(["ldd", os.path.join(site, rel)], capture_output=True, text=True)
        for line in ldd.stdout.splitlines():
            name, _, where = line.strip().partition(" => ")
            if TORCH_LIBRARY_NAME.match(name):
                torch_libraries.add(name)
            if where.startswith("not found"):
                missing.add(name)
    return {"count": len(paths), "paths": paths[:3], "torch_libraries": sorted(torch_libraries),
            "missing": sorted(missing)}


def summary(wheel, site):
    """The JSON object both build_wheel.py and install_wheel.py print."""
    tags, requires = metadata(wheel)
    libraries = sorted(os.path.relpath(os.path.join(root, f), site) for root, _, files in os.walk(site)
                       for f in files if SHARED_LIBRARY_NAME.search(f) and not linked_here(os.path.join(root, f), site))
    out = {"ok": True, "wheel": wheel, "site": site, "tags": tags, "requires": requires, "libraries": libraries}
    jit = jit_sources(site) if not libraries else None
    if jit:
        out["jit"] = jit
    device = device_code(site) if not libraries else None
    if device:
        out["device_code"] = device
    program = programs(site) if not libraries else None
    if program:
        out["programs"] = program
    return out


# A setup.py line that builds the extension only with CUDA (or only where a GPU or a toolkit is
# found), and what such a project prints when it builds none: "Compiling without CUDA".
CUDA_GATE = re.compile(r"^\s*(?:el)?if\b.*(?:torch\.cuda\.is_available\(\)|CUDA_HOME|FORCE_CUDA|WITH_CUDA|"
                       r"BUILD_CUDA|nvcc)")
NO_CUDA_WORDS = re.compile(r"""(["'])([^"'\n]*(?:without (?:cuda|gpu)|cuda (?:is )?not (?:available|found)|"""
                           r"""no cuda|cpu[- ]only|skip\w* (?:the )?(?:cuda|extension))[^"'\n]*)\1""", re.I)
# An `except` whose block empties the extension list: the build of the extension may fail, and the
# package installs without it (sam2 1.1.0: "Failed to build the SAM 2 CUDA extension … it's OK to
# ignore the error above"), and the words it prints then.
EMPTIES_EXTENSIONS = re.compile(r"^\s*(?:self\.extensions|ext_modules)\s*=\s*\[\s*\]")
FAILED_WORDS = re.compile(r"""(["'])([^"'\n]*failed to (?:build|compile)[^"'\n]*extension[^"'\n]*)\1""", re.I)


# What a gate's block does when it decides the extension: names it (ext_modules, an Extension),
# or ends the build of it (return, raise, exit).
DECIDES_EXTENSION = re.compile(r"ext_modules|\b\w*Extension\(|\.builder\(\)|^\s*(?:return|raise)\b|sys\.exit")
# A list of extensions assigned (basicsr 1.4.2: `ext_modules = [make_cuda_ext(...), ...]` under
# `if cuda_ext == 'True':`), or one appended.
ADDS_EXTENSION = re.compile(r"ext_modules\s*(?:\.append|\.extend|\+=|=\s*\[(?!\s*\]))|\.append\(\s*\w*Extension\(")
# An environment variable read: os.getenv("X"), os.environ.get("X"), os.environ["X"].
READS_ENVIRONMENT = re.compile(r"""os\.(?:getenv|environ\.get)\(\s*["'](\w+)["']|os\.environ\[\s*["'](\w+)["']\s*\]""")


def indent_of(line):
    return len(line) - len(line.lstrip())


def block_of(lines, i):
    """The lines the compound statement at line i governs (its block and the else/elif branches
    that follow it at its own indentation)."""
    out, indent = [], indent_of(lines[i])
    for line in lines[i + 1:]:
        code = line.strip()
        if code and not code.startswith("#") and indent_of(line) <= indent and \
                not re.match(r"(?:elif|else)\b", code):
            break
        out.append(line)
    return out


def enclosing_if(lines, i):
    """The nearest `if` line whose block holds line i, or None."""
    indent = indent_of(lines[i])
    for j in range(i - 1, -1, -1):
        code = lines[j].strip()
        if not code or code.startswith("#") or indent_of(lines[j]) >= indent:
            continue
        if re.match(r"(?:el)?if\b", code):
            return j
        indent = indent_of(lines[j])
    return None


def switch_of(lines, gate):
    """The environment variable the `if` at GATE reads, in its condition or through a name assigned
    from it before (basicsr 1.4.2: `cuda_ext = os.getenv('BASICSR_EXT')`, then `if cuda_ext ==
    'True':`): an opt-in switch of the build. None where it reads none."""
    condition = lines[gate].strip()[len("if"):]
    m = READS_ENVIRONMENT.search(condition)
    if m:
        return m.group(1) or m.group(2)
    for line in reversed(lines[:gate]):
        assigned = re.match(r"\s*(\w+)\s*=(?!=)(.*)", line)
        if assigned and re.search(r"\b%s\b" % re.escape(assigned.group(1)), condition):
            m = READS_ENVIRONMENT.search(assigned.group(2))
            if m:
                return m.group(1) or m.group(2)
    return None


def why_no_extension(src):
    """Where SRC's setup.py decides to build no extension in this runtime, or None: an `except`
    that drops the extension when its build fails (sam2), else the first CUDA condition whose block decides the extension (a CUDA condition that decides something else,
    DeepSpeed's bf16 probe, is not why), else the condition under which it adds its extensions
    (DeepSpeed: `if op_enabled(op_name) and op_compatible:`, its ops compiled at first use unless
    DS_BUILD_OPS=1)."""
    path = os.path.join(src, "setup.py")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    swallow = next((i for i, line in enumerate(lines) if re.match(r"\s*except\b", line)
                    and any(EMPTIES_EXTENSIONS.search(b) for b in block_of(lines, i))), None)
    if swallow is not None:
        words = next((m.group(2) for line in lines for m in [FAILED_WORDS.search(line)] if m), None)
        return {"where": "setup.py:%d" % (swallow + 1), "line": lines[swallow].strip(), "words": words,
                "how": "drops it where its build fails"}
    gate = next((i for i, line in enumerate(lines)
                 if CUDA_GATE.search(line) and any(DECIDES_EXTENSION.search(b) for b in block_of(lines, i))), None)
    switch = None
    if gate is None:
        gate = next((g for i, line in enumerate(lines) if ADDS_EXTENSION.search(line)
                     for g in [enclosing_if(lines, i)] if g is not None), None)
        switch = switch_of(lines, gate) if gate is not None else None
    if gate is None:
        return None
    near = lines[max(0, gate - 3):gate + 1] + block_of(lines, gate)
    words = next((m.group(2) for line in near for m in [NO_CUDA_WORDS.search(line)] if m), None)
    out = {"where": "setup.py:%d" % (gate + 1), "line": lines[gate].strip(), "words": words,
           "how": "builds it only there"}
    if switch:
        # An opt-in: `pip install NAME` builds none, in a CUDA runtime as in any.
        out.update(switch=switch, how="builds it only where the environment variable %s asks for it, which a "
                                      "plain `pip install` leaves unset" % switch)
    return out


def fail(kind, message):
    """A refusal: plain words on stderr (the log) and one JSON object on stdout; exit 1."""
    print("%s: %s" % (os.path.basename(sys.argv[0]), message), file=sys.stderr)
    print(json.dumps({"ok": False, "error": kind, "message": message}))
    return 1


def build(source, build_dir):
    src, wheel_dir, site = (os.path.join(build_dir, d) for d in ("src", "wheel", "site"))
    prepare(source, src, build_dir)
    shutil.rmtree(wheel_dir, ignore_errors=True)
    shutil.rmtree(site, ignore_errors=True)
    # The build requirements a user's isolated build would have, which the requirements step
    # installed into BUILD/build-deps (build_requires.py).
    rc = run(PIP + ["wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", wheel_dir, src],
             build_requires.env(build_dir))
    if rc != 0:
        return rc
    wheels = sorted(f for f in os.listdir(wheel_dir) if f.endswith(".whl"))
    if len(wheels) != 1:
        print("build_wheel.py: expected one wheel in %s, found %s" % (wheel_dir, wheels or "none"), file=sys.stderr)
        return 1
    wheel = os.path.join(wheel_dir, wheels[0])
    rc, _ = install(wheel, site)
    if rc != 0:
        return rc
    beside_its_requirements(site, os.path.join(build_dir, "deps"))
    report = summary(wheel, site)
    if not report["libraries"]:
        report["no_extension"] = why_no_extension(src)
    print(json.dumps(report))
    return 0


def main():
    if len(sys.argv) != 3:
        print("usage: build_wheel.py SOURCE BUILD", file=sys.stderr)
        return 2
    try:
        return build(sys.argv[1], sys.argv[2])
    except Refused as e:
        return fail(e.kind, str(e))
    except Exception as e:  # noqa: BLE001 - the harness needs JSON, not a traceback
        return fail("internal", "%s: %s" % (type(e).__name__, e))


if __name__ == "__main__":
    sys.exit(main())
