"""A package index on 127.0.0.1 in front of the real one that serves each wheel's METADATA on its
own (PEP 658 / PEP 714), for pip's dry runs: stdlib only.

pip reads every candidate wheel's dependencies from its METADATA. PyPI serves that file beside
each wheel, so a dry run downloads no wheel; an index that does not (a mirror such as this
project's) makes pip download every wheel of the plan in full, 2-3 GB for a torch and its NVIDIA
wheels, and pip's own range-request reader (`--use-feature=fast-deps`) reads a wheel's central
directory 10 KB at a time (20 s for a torch wheel). This index answers the project pages of the
real one with every wheel marked as having its metadata, and answers `<wheel>.metadata` from a
cache folder: the METADATA read out of the wheel by three or four HTTP range requests (the zip's
end, its central directory, the member), once per file (keyed by the index's sha256). Asked for a
wheel itself, it redirects to the real file. Project pages are kept PAGE_TTL_S seconds.

    with MetadataIndex(cache_dir) as index:
        pip install --dry-run --index-url index.url ...

Errors reaching the real index are answered as 502 with the reason, which pip reports as it
would the real index's (pip's output then names the network)."""
import html
import http.server
import io
import json
import os
import re
import threading
import time
import urllib.parse
import zipfile

from fetch_pypi import Failure, index_url, normalise, opened, write_atomic

PAGE_TTL_S = 3600  # a release uploaded while an atlas runs is seen within the hour
JSON_PAGE = "application/vnd.pypi.simple.v1+json"
TAIL_BYTES = 64 * 1024  # the zip's end record and usually its whole central directory


class RangeFile(io.RawIOBase):
    """A remote file read by HTTP range requests, each span fetched once: what zipfile needs."""

    def __init__(self, url, size):
        super().__init__()
        self.url, self.size, self.pos, self.spans, self.requests = url, size, 0, [], 0

    def readable(self):
        return True

    def seekable(self):
        return True

    def tell(self):
        return self.pos

    def seek(self, offset, whence=io.SEEK_SET):
        self.pos = {io.SEEK_SET: 0, io.SEEK_CUR: self.pos, io.SEEK_END: self.size}[whence] + offset
        return self.pos

    def fetch(self, start, end):
        """Bytes [start, end) into the spans, by one range request."""
        self.requests += 1
        data = opened(self.url, lambda r: r.read(), headers={"Range": "bytes=%d-%d" % (start, end - 1)})
        if data is None or len(data) != end - start:
            raise Failure("network", "%s: a range request for bytes %d-%d got %s" % (
                self.url, start, end - 1, "404" if data is None else "%d bytes" % len(data)))
        self.spans.append((start, data))

    def cached(self, start, end):
        for s, data in self.spans:
            if s <= start and end <= s + len(data):
                return data[start - s:end - s]
        return None

    def read(self, n=-1):
        end = self.size if n is None or n < 0 else min(self.size, self.pos + n)
        if end <= self.pos:
            return b""
        data = self.cached(self.pos, end)
        if data is None:
            # A miss near the end is the central directory (zipfile reads it whole); elsewhere a
            # member's header and data: fetch a little more than asked, the member follows its header.
            self.fetch(self.pos, min(self.size, max(end, self.pos + TAIL_BYTES)))
            data = self.cached(self.pos, end)
        self.pos = end
        return data

    def readinto(self, b):
        data = self.read(len(b))
        b[:len(data)] = data
        return len(data)


def wheel_metadata(url, size):
    """(METADATA bytes, range requests made) of the wheel at url, without downloading it."""
    remote = RangeFile(url, size)
    remote.fetch(max(0, size - TAIL_BYTES), size)
    with zipfile.ZipFile(remote) as wheel:
        names = [n for n in wheel.namelist() if re.match(r"^[^/]+\.dist-info/METADATA$", n)]
        if len(names) != 1:
            raise Failure("internal", "%s holds %d .dist-info/METADATA files, not one" % (url, len(names)))
        return wheel.read(names[0]), remote.requests


class MetadataIndex:
    """The index, serving on a thread while the `with` block runs; `url` is its /simple/."""

    def __init__(self, cache_dir, upstream=None):
        self.upstream = index_url(upstream)
        self.pages = os.path.join(cache_dir, "index-pages")
        self.metadata = os.path.join(cache_dir, "metadata")
        self.files = {}  # the path this index gives a wheel -> (its real URL, sha256, size)
        self.lock = threading.Lock()
        self.stats = {"pages": 0, "pages_kept": 0, "metadata": 0, "metadata_kept": 0, "range_requests": 0}
        for folder in (self.pages, self.metadata):
            os.makedirs(folder, exist_ok=True)
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), self.handler())
        self.url = "http://127.0.0.1:%d/simple/" % self.server.server_address[1]

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    # --- project pages ---------------------------------------------------------------------

    def page(self, project):
        """The real index's page of project (PEP 691 JSON), kept PAGE_TTL_S; None where it has none."""
        name = normalise(project)
        kept = os.path.join(self.pages, name + ".json")
        url = self.upstream + "/simple/%s/" % name
        try:
            if time.time() - os.path.getmtime(kept) < PAGE_TTL_S:
                with open(kept) as f:
                    self.count("pages_kept")
                    return json.load(f), url
        except (OSError, ValueError):
            pass
        page = opened(url, lambda r: json.loads(r.read().decode("utf-8")), headers={"Accept": JSON_PAGE})
        if page is not None:
            write_atomic(kept, json.dumps(page))
            self.count("pages")
        return page, url

    def html_page(self, project, page, page_url):
        """page as PEP 503 HTML, each wheel served from here and marked as having its metadata
        (HTML, not JSON: pip 23.0 reads PEP 658's mark only as HTML's string "true")."""
        links = []
        for f in page.get("files", []):
            name, sha256 = f.get("filename", ""), f.get("hashes", {}).get("sha256", "")
            attrs = []
            if f.get("requires-python"):
                attrs.append('data-requires-python="%s"' % html.escape(f["requires-python"]))
            if f.get("yanked"):
                attrs.append('data-yanked="%s"' % html.escape(f["yanked"] if isinstance(f["yanked"], str) else ""))
            url = urllib.parse.urljoin(page_url, f["url"])
            if name.endswith(".whl") and re.match(r"^[0-9a-f]{64}$", sha256) and f.get("size"):
                path = "/files/%s/%s" % (sha256, urllib.parse.quote(name))
                with self.lock:
                    self.files[path] = (url, sha256, int(f["size"]))
                url = path
                attrs.append('data-dist-info-metadata="true" data-core-metadata="true"')  # PEP 658's name, PEP 714's
            href = url.split("#")[0] + ("#sha256=" + sha256 if sha256 else "")
            links.append('<a href="%s" %s>%s</a><br/>' % (html.escape(href), " ".join(attrs), html.escape(name)))
        return ("<!DOCTYPE html>\n<html><head><meta name=\"pypi:repository-version\" content=\"1.0\"><title>Links for %s"
                "</title></head><body><h1>Links for %s</h1>\n%s\n</body></html>\n" % (
                    html.escape(project), html.escape(project), "\n".join(links))).encode()

    # --- metadata --------------------------------------------------------------------------

    def metadata_of(self, path):
        """The METADATA of the wheel this index serves at path: kept, else read by range requests."""
        url, sha256, size = self.files[path]
        kept = os.path.join(self.metadata, sha256 + ".metadata")
        try:
            with open(kept, "rb") as f:
                self.count("metadata_kept")
                return f.read()
        except OSError:
            pass
        data, requests = wheel_metadata(url, size)
        write_atomic(kept, data)
        self.count("metadata")
        self.count("range_requests", requests)
        return data

    def count(self, what, n=1):
        with self.lock:
            self.stats[what] += n

    # --- HTTP ------------------------------------------------------------------------------

    def handler(self):
        index = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):  # pip's log says what was asked
                pass

            def answer(self, code, body=b"", kind="text/plain", headers=()):
                self.send_response(code)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):  # noqa: N802 - http.server's name
                path = urllib.parse.urlsplit(self.path).path
                try:
                    m = re.match(r"^/simple/([^/]+)/?$", path)
                    if m:
                        page, page_url = index.page(urllib.parse.unquote(m.group(1)))
                        if page is None:
                            return self.answer(404, b"no such project")
                        project = urllib.parse.unquote(m.group(1))
                        return self.answer(200, index.html_page(project, page, page_url), "text/html")
                    if path.endswith(".metadata") and path[:-9] in index.files:
                        return self.answer(200, index.metadata_of(path[:-9]), "application/octet-stream")
                    if path in index.files:
                        return self.answer(302, headers=[("Location", index.files[path][0])])
                    return self.answer(404, b"not a page of this index")
                except Failure as f:
                    return self.answer(502, str(f).encode())

        return Handler
