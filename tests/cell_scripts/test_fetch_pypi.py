"""scripts/cell/fetch_pypi.py against a small index served here over real HTTP (http.server on
127.0.0.1, real urllib, real sha256; the index data is made up, as it tests our own logic),
then once against the real PyPI, skipped when pypi.org cannot be reached."""
import hashlib
import http.server
import json
import os
import subprocess
import threading
import urllib.request

import pytest

from conftest import CELL, CELL_PYTHON, cell_env, run_json, run_script

SCRIPT = "fetch_pypi.py"


@pytest.fixture(scope="module")
def accepted():
    """The cell Python's tags, best first, as fetch_pypi.py sees them."""
    code = "import json, sys; sys.path.insert(0, %r); import wheel_tags; print(json.dumps(wheel_tags.interpreter_tags()))"
    p = subprocess.run([CELL_PYTHON, "-c", code % str(CELL)], stdout=subprocess.PIPE, universal_newlines=True)
    tags = json.loads(p.stdout) if p.returncode == 0 else None
    if not tags:
        pytest.skip("%s has no packaging module (nor pip's): wheel tags cannot be listed" % CELL_PYTHON)
    return tags


class Index:
    """A PyPI JSON API of made-up projects: routes {path: (status, bytes[, declared length])};
    anything else 404. A declared length past the bytes is a connection that closes mid-download."""

    def __init__(self):
        self.routes = {}
        routes = self.routes

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                status, body, *declared = routes.get(self.path, (404, b""))  # declared: a longer Content-Length
                self.send_response(status)
                self.send_header("Content-Length", str(declared[0] if declared else len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        if self.server:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def file(self, filename, body=None, sha256=None, relative=False):
        """Serves a file; returns its entry for a release, PyPI's fields."""
        body = body if body is not None else ("contents of %s\n" % filename).encode()
        self.routes["/files/" + filename] = (200, body)
        return {"filename": filename, "url": "../../files/" + filename if relative else self.url + "/files/" + filename,
                "digests": {"sha256": sha256 or hashlib.sha256(body).hexdigest()}, "size": len(body),
                "packagetype": "bdist_wheel" if filename.endswith(".whl") else "sdist",
                "upload_time_iso_8601": "2024-01-01T00:00:00Z", "yanked": False}

    def project(self, name, releases, version_pages=True):
        """releases: {version: [file entries]}; the project page always, a page per version unless
        version_pages is false (a mirror without them)."""
        page = {"info": {"name": name, "version": sorted(releases)[-1]}, "releases": releases, "urls": []}
        self.routes["/pypi/%s/json" % name] = (200, json.dumps(page).encode())
        for version, files in releases.items():
            if version_pages:
                self.routes["/pypi/%s/%s/json" % (name, version)] = (
                    200, json.dumps({"info": {"name": name, "version": version}, "urls": files}).encode())


@pytest.fixture
def index(accepted):
    """opm-demo, with releases for every case, on an index that stops after the test."""
    idx = Index()
    interp, abi, plat = accepted[0].split("-")
    best = "opm_demo-1.0-1-%s-%s-opm_foreign_arch.%s.whl" % (interp, abi, plat)  # build tag + compressed set
    idx.best = best
    idx.project("opm-demo", {
        # the preferred wheel listed after a lesser one that also fits, and one that fits nothing
        "1.0": [idx.file("opm_demo-1.0-py2.py3-none-any.whl"), idx.file("opm_demo-1.0-cp27-cp27mu-win32.whl"),
                idx.file(best), idx.file("opm_demo-1.0.tar.gz")],
        "0.9": [idx.file("opm_demo-0.9-cp27-cp27mu-manylinux1_x86_64.whl"), idx.file("opm_demo-0.9-cp35-cp35m-win32.whl"),
                idx.file("opm_demo-0.9.tar.gz")],
        "0.8": [idx.file("opm_demo-0.8-cp27-none-win32.whl"), idx.file("opm_demo-0.8-py3-none-any.whl")],
        "1.1": [idx.file("opm_demo-1.1.tar.gz")],
        "2.0rc1": [idx.file("opm_demo-2.0rc1.tar.gz")],
        "1.2": [idx.file("opm_demo-1.2.tar.gz", sha256="0" * 64)],
        "0.1": [],
    })
    yield idx
    idx.stop()


def env(**extra):
    return cell_env(no_proxy="127.0.0.1,localhost", NO_PROXY="127.0.0.1,localhost", **extra)


def fetch(index_url, cache, kind, requirement, *more):
    args = ["--kind", kind, "--requirement", requirement, "--cache", cache] + list(more)
    if index_url:
        args += ["--index-url", index_url]
    return run_script(SCRIPT, *args, env=env())


def fetched(index_url, cache, kind, requirement):
    out, _ = run_json(SCRIPT, "--kind", kind, "--requirement", requirement, "--cache", cache,
                      "--index-url", index_url, env=env())
    assert out["ok"] is True, out
    return out


def failed(r, kind):
    """The failure contract: exit 1, one JSON object, the error kind, plain words."""
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert len(r.stdout.strip().splitlines()) == 1 and r.json, r.stdout
    assert r.json["ok"] is False and r.json["error"] == kind, r.json
    assert "Traceback" not in r.stdout + r.stderr
    return r.json


def test_sdist_is_fetched_checked_and_laid_out(index, tmp_path):
    out = fetched(index.url, tmp_path, "sdist", "opm_demo==1.0")
    body = b"contents of opm_demo-1.0.tar.gz\n"
    assert out["file"] == "opm-demo-1.0/opm_demo-1.0.tar.gz"
    assert out["path"] == str(tmp_path / out["file"])
    assert (out["filename"], out["sha256"], out["size"], out["cached"]) == (
        "opm_demo-1.0.tar.gz", hashlib.sha256(body).hexdigest(), len(body), False)
    assert out["download_bytes"] == len(body)  # what a cold run downloads: the dry run counts it
    assert out["url"] == index.url + "/files/opm_demo-1.0.tar.gz" and "tags" not in out
    assert (tmp_path / out["file"]).read_bytes() == body
    assert (tmp_path / (out["file"] + ".sha256")).read_text().split()[0] == out["sha256"]
    # Nothing else: no temporary file left beside them.
    assert sorted(os.listdir(str(tmp_path / "opm-demo-1.0"))) == [
        "opm_demo-1.0.tar.gz", "opm_demo-1.0.tar.gz.sha256", "release.json"]


def test_wheel_is_the_interpreters_first_choice(index, tmp_path, accepted):
    out = fetched(index.url, tmp_path, "wheel", "opm-demo==1.0")
    assert out["filename"] == index.best  # not the py2.py3-none-any listed first
    assert out["tag"] == accepted[0]
    interp, abi, plat = accepted[0].split("-")
    assert out["tags"] == ["%s-%s-opm_foreign_arch" % (interp, abi), accepted[0]]


def test_second_run_needs_no_network(index, tmp_path):
    first = [fetched(index.url, tmp_path, kind, "opm-demo==1.0") for kind in ("sdist", "wheel")]
    index.stop()
    for kind, before in zip(("sdist", "wheel"), first):
        again = fetched(index.url, tmp_path, kind, "opm-demo==1.0")
        assert again["cached"] is True
        assert dict(again, cached=False) == before  # download_bytes too: a cold run's figure


def test_a_damaged_cached_file_is_fetched_again(index, tmp_path):
    out = fetched(index.url, tmp_path, "sdist", "opm-demo==1.0")
    (tmp_path / out["file"]).write_bytes(b"damaged")
    again = fetched(index.url, tmp_path, "sdist", "opm-demo==1.0")
    assert again["cached"] is False
    assert hashlib.sha256((tmp_path / out["file"]).read_bytes()).hexdigest() == out["sha256"]


def test_hash_mismatch_keeps_nothing(index, tmp_path):
    err = failed(fetch(index.url, tmp_path, "sdist", "opm-demo==1.2"), "hash_mismatch")
    assert err["expected"] == "0" * 64 and "nothing was kept" in err["message"]
    assert os.listdir(str(tmp_path / "opm-demo-1.2")) == ["release.json"]  # no partial or temporary file


def test_no_such_project(index, tmp_path):
    err = failed(fetch(index.url, tmp_path, "sdist", "opm-absent==1.0"), "no_such_project")
    assert "opm-absent" in err["message"] and "spelling" in err["message"]
    assert os.listdir(str(tmp_path)) == []  # no empty cache folder for a failure


def test_no_such_version_lists_the_newest(index, tmp_path):
    err = failed(fetch(index.url, tmp_path, "sdist", "opm-demo==3.0"), "no_such_version")
    assert err["versions"] == ["1.2", "1.1", "1.0", "0.9", "0.8"]  # finals first, empty 0.1 left out
    assert "3.0" in err["message"] and "1.2, 1.1" in err["message"]


def test_an_equal_version_spelled_otherwise_is_found(index, tmp_path):
    out = fetched(index.url, tmp_path, "sdist", "opm-demo==1.1.0")
    assert (out["version"], out["filename"]) == ("1.1", "opm_demo-1.1.tar.gz")


def test_no_sdist_lists_the_wheels(index, tmp_path):
    err = failed(fetch(index.url, tmp_path, "sdist", "opm-demo==0.8"), "no_sdist")
    assert err["wheels"] == ["opm_demo-0.8-cp27-none-win32.whl", "opm_demo-0.8-py3-none-any.whl"]
    assert "wheel:" in err["message"]


def test_no_compatible_wheel_says_what_this_python_needs(index, tmp_path, accepted):
    err = failed(fetch(index.url, tmp_path, "wheel", "opm-demo==0.9"), "no_compatible_wheel")
    assert err["wheels"] == ["opm_demo-0.9-cp27-cp27mu-manylinux1_x86_64.whl", "opm_demo-0.9-cp35-cp35m-win32.whl"]
    assert err["accepted_tags"] == accepted[:5]
    py = "cp" + err["python"].replace(".", "")
    assert "cp27/cp35 wheels" in err["message"] and "needs %s" % py in err["message"], err["message"]


def test_a_wheel_for_this_python_but_another_platform_is_said_so(tmp_path, accepted):
    idx = Index()
    try:
        interp, abi, _ = accepted[0].split("-")
        idx.project("opm-plat", {"1.0": [idx.file("opm_plat-1.0-%s-%s-opm_other_os_arm64.whl" % (interp, abi))]})
        err = failed(fetch(idx.url, tmp_path, "wheel", "opm-plat==1.0"), "no_compatible_wheel")
        assert "the wheel is for another platform" in err["message"]
    finally:
        idx.stop()


def test_a_wheel_file_not_named_as_a_wheel_is_named(tmp_path):
    # multiscaledeformableattention 1.0's one file: MultiScaleDeformableAttention-0.1-none-any.whl (no
    # Python tag): pip skips it, and "it has no wheels" would hide that it tried to ship one.
    idx = Index()
    try:
        idx.project("opm-bad", {"1.0": [idx.file("opm_bad-0.1-none-any.whl")]})
        err = failed(fetch(idx.url, tmp_path, "wheel", "opm-bad==1.0"), "no_compatible_wheel")
        assert "its one .whl file, opm_bad-0.1-none-any.whl, is not named as PEP 427 requires " \
               "(name-version-python-abi-platform.whl): pip skips it" in err["message"], err["message"]
    finally:
        idx.stop()


@pytest.mark.parametrize("requirement", ["opm-demo", "opm-demo>=1.0", "opm-demo==1.*", "opm-demo[x]==1.0",
                                         "opm-demo===1.0", "../x==1.0", ""])
def test_bad_requirement(requirement, tmp_path):
    err = failed(fetch("http://127.0.0.1:9", tmp_path, "sdist", requirement), "bad_requirement")
    assert "NAME==VERSION" in err["message"]


def test_no_index_is_a_network_error(tmp_path):
    idx = Index()
    url = idx.url
    idx.stop()  # a port nobody listens on
    err = failed(fetch(url, tmp_path, "sdist", "opm-demo==1.0"), "network")
    assert "infrastructure" in err["message"] and err["url"] == url + "/pypi/opm-demo/1.0/json"


def test_a_server_error_is_a_network_error(tmp_path):
    idx = Index()
    try:
        idx.routes["/pypi/opm-demo/1.0/json"] = (503, b"")
        err = failed(fetch(idx.url, tmp_path, "sdist", "opm-demo==1.0"), "network")
        assert "HTTP 503" in err["message"] and "3 attempts" in err["message"]
    finally:
        idx.stop()


def test_a_download_the_network_cuts_is_a_network_error_never_a_hash_verdict(index, tmp_path):
    # The connection closes halfway: urllib's read() just stops. Tried again, then the
    # infrastructure's error (the pair is run again later), and nothing is kept.
    path = "/files/opm_demo-1.1.tar.gz"
    status, body = index.routes[path]
    index.routes[path] = (status, body[:len(body) // 2], len(body))
    err = failed(fetch(index.url, tmp_path, "sdist", "opm-demo==1.1"), "network")
    assert "the download stopped after %d of %d bytes" % (len(body) // 2, len(body)) in err["message"], err
    assert "3 attempts" in err["message"]
    assert not [f for f in os.listdir(tmp_path / "opm-demo-1.1") if f.endswith(".tar.gz")]


def test_a_mirror_without_version_pages_and_with_relative_urls(tmp_path):
    idx = Index()
    try:
        idx.project("opm-mirror", {"2.0": [idx.file("opm_mirror-2.0.tar.gz", relative=True)]}, version_pages=False)
        out = fetched(idx.url, tmp_path, "sdist", "opm-mirror==2.0")
        assert out["url"] == idx.url + "/files/opm_mirror-2.0.tar.gz"
    finally:
        idx.stop()


def test_the_index_comes_from_the_environment_too(index, tmp_path):
    r = run_script(SCRIPT, "--kind", "sdist", "--requirement", "opm-demo==1.1", "--cache", tmp_path,
                   env=env(OPMATRIX_PYPI_URL=index.url + "/"))
    assert r.returncode == 0 and r.json["url"] == index.url + "/files/opm_demo-1.1.tar.gz", r.stdout


def test_usage_error_is_json(tmp_path):
    r = run_script(SCRIPT, "--kind", "egg", "--cache", tmp_path, env=env())
    assert r.returncode == 2 and r.json["error"] == "usage" and "--kind" in r.json["message"]


# ---------------------------------------------------------------------------------------------
# The real PyPI

PYPI = "https://pypi.org"


def test_live_pypi(tmp_path, accepted):
    try:
        urllib.request.urlopen(PYPI + "/pypi/torch-scatter/json", timeout=20).close()
    except Exception as e:  # noqa: BLE001 - any reason at all means: not reachable from here
        print("pypi.org unreachable: %s" % e)
        pytest.skip("pypi.org unreachable from here (%s): the live check of fetch_pypi.py did not run" % e)
    out = fetched(PYPI, tmp_path, "sdist", "torch-scatter==2.1.2")
    assert (out["filename"], out["sha256"], out["size"]) == (
        "torch_scatter-2.1.2.tar.gz", "69b3aa435f2424ac6a1bfb6ff702da6eb73b33ca0db38fb26989c74159258e47", 108045)
    # fbgemm-gpu-cpu 1.0.0 has cp39-cp312 wheels for manylinux2014 x86_64 and aarch64, nothing else.
    r = fetch(PYPI, tmp_path, "wheel", "fbgemm-gpu-cpu==1.0.0")
    want = [t for t in accepted if t.startswith(("cp39-cp39-", "cp310-cp310-", "cp311-cp311-", "cp312-cp312-"))
            and t.endswith(("-manylinux2014_x86_64", "-manylinux2014_aarch64"))]
    if want:
        assert r.returncode == 0, r.stdout
        assert r.json["tag"] == want[0] and r.json["filename"] == "fbgemm_gpu_cpu-1.0.0-%s.whl" % want[0]
    else:
        failed(r, "no_compatible_wheel")


def test_a_project_the_index_lacks_is_told_from_one_it_holds(index, monkeypatch):
    # cumesh 0.1.0 requires `python (>=3.8)`: the index's page for it is a 404, no Python or platform
    # can install it. Kept off any index (PIP_NO_INDEX), nothing is asked.
    monkeypatch.syspath_prepend(str(CELL))
    import fetch_pypi
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.delenv("PIP_NO_INDEX", raising=False)
    assert fetch_pypi.absent_from_index("python", index.url) is True
    assert fetch_pypi.absent_from_index("opm_demo", index.url) is False
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    assert fetch_pypi.absent_from_index("python", index.url) is False
    assert fetch_pypi.not_on_index("python").endswith("Python's own version belongs in Requires-Python, not in "
                                                      "Requires-Dist")
