"""scripts/cell/metadata_index.py: an index on 127.0.0.1 that serves each wheel's METADATA (PEP 658)
read out of the real index's wheel by range requests, once per file. Against a real index of our
own on 127.0.0.1 (two wheels made here, served with Range support) and this machine's real pip."""
import hashlib
import http.server
import io
import json
import os
import re
import subprocess
import sys
import threading
import urllib.request
import zipfile

import pytest

from conftest import CELL

sys.path.insert(0, str(CELL))
import metadata_index  # noqa: E402


def wheel_bytes(name, version, requires=(), padding=0):
    """A wheel with a payload of `padding` bytes before its METADATA (so reading it needs a seek)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("%s/__init__.py" % name, "x = 1\n")
        if padding:
            z.writestr("%s/blob.bin" % name, os.urandom(padding), compress_type=zipfile.ZIP_STORED)
        info = "%s-%s.dist-info/" % (name, version)
        meta = "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version)
        meta += "".join("Requires-Dist: %s\n" % r for r in requires)
        z.writestr(info + "METADATA", meta)
        z.writestr(info + "WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(info + "RECORD", "")
    return out.getvalue()


class Upstream:
    """A PEP 691 index: /simple/NAME/ as JSON, /files/FILE with Range support; counts what is asked."""

    def __init__(self, wheels):
        self.files = {}  # filename -> bytes
        self.projects = {}
        for name, version, data in wheels:
            filename = "%s-%s-py3-none-any.whl" % (name, version)
            self.files[filename] = data
            self.projects.setdefault(name, []).append({
                "filename": filename, "url": "/files/" + filename, "size": len(data),
                "hashes": {"sha256": hashlib.sha256(data).hexdigest()}, "requires-python": ">=3.8"})
        self.asked = {"pages": 0, "ranges": 0, "whole": 0}
        upstream = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):  # noqa: N802
                m = re.match(r"^/simple/([^/]+)/$", self.path)
                if m and m.group(1) in upstream.projects:
                    upstream.asked["pages"] += 1
                    body = json.dumps({"meta": {"api-version": "1.0"}, "name": m.group(1),
                                       "files": upstream.projects[m.group(1)]}).encode()
                    return self.send(200, body, [("Content-Type", "application/vnd.pypi.simple.v1+json")])
                m = re.match(r"^/files/(.+)$", self.path)
                if m and m.group(1) in upstream.files:
                    data = upstream.files[m.group(1)]
                    wanted = re.match(r"^bytes=(\d+)-(\d+)$", self.headers.get("Range", ""))
                    if wanted:
                        upstream.asked["ranges"] += 1
                        start, end = int(wanted.group(1)), min(int(wanted.group(2)), len(data) - 1)
                        return self.send(206, data[start:end + 1], [("Content-Range", "bytes %d-%d/%d" % (
                            start, end, len(data)))])
                    upstream.asked["whole"] += 1
                    return self.send(200, data)
                self.send(404, b"")

            def send(self, code, body, headers=()):
                self.send_response(code)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def upstream():
    index = Upstream([("libx", "1.0", wheel_bytes("libx", "1.0", ["liby>=2"], padding=300_000)),
                      ("liby", "2.1", wheel_bytes("liby", "2.1"))])
    yield index
    index.close()


def get(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.status, r.read()


def test_a_wheels_metadata_takes_a_few_range_requests_not_the_wheel(upstream):
    data = upstream.files["libx-1.0-py3-none-any.whl"]
    metadata, requests = metadata_index.wheel_metadata(upstream.url + "/files/libx-1.0-py3-none-any.whl", len(data))
    assert b"Name: libx\nVersion: 1.0\nRequires-Dist: liby>=2\n" in metadata
    assert requests <= 4 and upstream.asked == {"pages": 0, "ranges": requests, "whole": 0}


def test_pages_mark_each_wheels_metadata_and_it_is_read_once(upstream, tmp_path):
    with metadata_index.MetadataIndex(str(tmp_path), upstream=upstream.url) as index:
        status, page = get(index.url + "libx/")
        assert status == 200
        link = re.search(r'<a href="([^"]+)" ([^>]*)>libx-1.0-py3-none-any.whl</a>', page.decode())
        assert link, page
        sha256 = hashlib.sha256(upstream.files["libx-1.0-py3-none-any.whl"]).hexdigest()
        assert link.group(1) == "/files/%s/libx-1.0-py3-none-any.whl#sha256=%s" % (sha256, sha256)
        assert 'data-core-metadata="true"' in link.group(2) and 'data-requires-python="&gt;=3.8"' in link.group(2)
        where = index.url.replace("/simple/", "") + link.group(1).split("#")[0]
        assert b"Requires-Dist: liby>=2" in get(where + ".metadata")[1]
        ranges = upstream.asked["ranges"]
        assert b"Requires-Dist: liby>=2" in get(where + ".metadata")[1]
        assert upstream.asked["ranges"] == ranges and index.stats["metadata_kept"] == 1
        assert (tmp_path / "metadata" / (sha256 + ".metadata")).is_file()
        # The wheel itself: a redirect to the real file.
        with pytest.raises(urllib.error.HTTPError) as moved:
            urllib.request.build_opener(NoRedirect).open(where)
        assert moved.value.code == 302 and moved.value.headers["Location"] == upstream.url + "/files/libx-1.0-py3-none-any.whl"
        # A page is kept: asked again, the real index is not.
        pages = upstream.asked["pages"]
        get(index.url + "libx/")
        assert upstream.asked["pages"] == pages
        assert get(index.url + "libx/")[0] == 200
    with metadata_index.MetadataIndex(str(tmp_path), upstream=upstream.url) as index:
        with pytest.raises(urllib.error.HTTPError) as missing:
            get(index.url + "nosuch/")
        assert missing.value.code == 404


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kw):
        return None


def test_real_pip_resolves_through_it(upstream, tmp_path):
    # This machine's pip, as a runtime's would be run: its dry run reads both wheels' METADATA
    # from the index, which read each by range requests and never asked for a whole wheel.
    report = tmp_path / "plan.json"
    with metadata_index.MetadataIndex(str(tmp_path / "cache"), upstream=upstream.url) as index:
        p = subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", "install",
                            "--dry-run", "--ignore-installed", "--no-cache-dir", "--index-url", index.url,
                            "--report", str(report), "libx==1.0"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
    assert p.returncode == 0, p.stdout
    plan = sorted((i["metadata"]["name"], i["metadata"]["version"]) for i in json.loads(report.read_text())["install"])
    assert plan == [("libx", "1.0"), ("liby", "2.1")]
    assert index.stats["metadata"] == 2 and upstream.asked["ranges"] >= 2
