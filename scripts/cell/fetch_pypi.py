"""Fetches one release file of a project from PyPI into a cache folder: the sdist a `pypi:` project
builds, or the wheel a `wheel:` project installs. Runs inside the cell (its own Python decides
which wheel fits) in the one step of a run that has network; stdlib only.

    fetch_pypi.py --kind sdist|wheel --requirement NAME==VERSION --cache DIR [--index-url URL]

The index (default https://pypi.org, else $OPMATRIX_PYPI_URL, else --index-url) answers
{index}/pypi/NAME/VERSION/json; a 404 there is asked again as {index}/pypi/NAME/json (a
missing project or version is told apart there, and mirrors without the per-version page
still work). The release's file list is kept as DIR/NAME-VERSION/release.json and the file
as DIR/NAME-VERSION/FILENAME with a FILENAME.sha256 beside it, both written atomically, so
a second run with the same cache needs no network. $SSL_CERT_FILE is the CA bundle when set.

stdout: one JSON object, {"ok": true, ...} or {"ok": false, "error": KIND, "message": ...}
(exit 1); docs/cell-contract.md lists both."""
import argparse
import hashlib
import http.client
import json
import os
import re
import ssl
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

from wheel_tags import best_wheel, interpreter_tags, wheel_tags, why_none_fits

DEFAULT_INDEX = "https://pypi.org"
ATTEMPTS = 3        # a dropped connection or a 5xx is retried: the step fails only on a lasting outage
TIMEOUT_S = 60
LISTING = "release.json"


class Failure(Exception):
    def __init__(self, kind, message, **extra):
        super().__init__(message)
        self.out = dict({"ok": False, "error": kind, "message": message}, **extra)


class Parser(argparse.ArgumentParser):
    def error(self, message):  # the harness reads JSON: a usage error is one too
        raise Failure("usage", "fetch_pypi.py: %s (%s)" % (message, self.format_usage().strip()))


def parse_requirement(text):
    """NAME==VERSION, exactly: the cell pins one release, so anything looser is refused."""
    m = re.match(r"^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*==\s*([A-Za-z0-9][A-Za-z0-9.+!_-]*)\s*$", text)
    if not m:
        raise Failure("bad_requirement", "%r is not NAME==VERSION: a pypi:/wheel: project pins one release, "
                      "e.g. torch-scatter==2.1.2" % text)
    return m.group(1), m.group(2)


def normalise(name):
    return re.sub(r"[-_.]+", "-", name).lower()  # PEP 503


def parse_version(text):
    """A comparable version, or None where no `packaging` is at hand or the text is no PEP 440."""
    try:
        from packaging.version import Version
    except ImportError:
        try:
            from pip._vendor.packaging.version import Version
        except ImportError:
            return None
    try:
        return Version(text)
    except Exception:  # noqa: BLE001 - InvalidVersion of whichever packaging this is
        return None


def ssl_context():
    bundle = os.environ.get("SSL_CERT_FILE")
    if not bundle:
        return ssl.create_default_context()
    if not os.path.isfile(bundle):
        raise Failure("network", "SSL_CERT_FILE=%s does not exist in the cell: the fetch step mounts the CA "
                      "bundle there; check the harness's CA bundle setting, or unset SSL_CERT_FILE" % bundle)
    return ssl.create_default_context(cafile=bundle)


def network_failure(url, reason):
    return Failure("network", "could not fetch %s: %s. This is the infrastructure, not the project: check the "
                   "fetch step's network (proxy, DNS, SSL_CERT_FILE) and run again; a file fetched once is "
                   "then reused from the cache without network" % (url, reason), url=url)


def opened(url, use, headers=None):
    """use(response) on url's answer; None on a 404. Retries what may pass (no connection, a
    timeout, 429, 5xx); anything else that fails is a `network` Failure."""
    request = urllib.request.Request(url, headers=dict(headers or {}, **{"User-Agent": "opmatrix-fetch_pypi (urllib)"}))
    for attempt in range(1, ATTEMPTS + 1):
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S, context=ssl_context()) as response:
                return use(response)
        except urllib.error.HTTPError as e:
            if e.code == 404:
                return None
            reason, again = "HTTP %d %s" % (e.code, e.reason), e.code == 429 or e.code >= 500
        except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
            reason, again = str(getattr(e, "reason", None) or e) or type(e).__name__, True
        if not again or attempt == ATTEMPTS:
            raise network_failure(url, reason + ("" if attempt == 1 else " (%d attempts)" % attempt))
        print("fetch_pypi.py: %s: %s; again in %d s" % (url, reason, attempt), file=sys.stderr, flush=True)
        time.sleep(attempt)


def get_json(url):
    def read(response):
        try:
            return json.loads(response.read().decode("utf-8"))
        except ValueError:
            raise network_failure(url, "the index answered with something that is not JSON")
    return opened(url, read)


def absent_from_index(name, index=None):
    """Whether the index has no project of this name at all (its JSON page answers 404): a
    requirement that no Python or platform can meet (cumesh 0.1.0 requires `python (>=3.8)`).
    False where the index cannot be asked (pip itself is kept off any: PIP_NO_INDEX)."""
    if os.environ.get("PIP_NO_INDEX"):
        return False
    try:
        return get_json("%s/pypi/%s/json" % (index_url(index), normalise(name))) is None
    except Failure:
        return False


def not_on_index(name):
    """The words for a required project the index does not have, with the fix where it is known."""
    return "the index has no project named %s: pip cannot install it on any Python or platform%s" % (
        name, "; Python's own version belongs in Requires-Python, not in Requires-Dist" if name == "python" else "")


def file_entries(files, page_url):
    """What we keep of a release's files in PyPI's JSON; a name that is not a plain file name
    (a path, a hidden file) is never written to the cache. URLs may be relative to the page
    (some mirrors)."""
    return [file_entry(f, page_url) for f in files if re.match(r"^[A-Za-z0-9][A-Za-z0-9._+!-]*$", f.get("filename", ""))]


def file_entry(f, page_url):
    return {"filename": f["filename"], "url": urllib.parse.urljoin(page_url, f["url"]), "sha256": f.get("digests", {}).get("sha256", ""),
            "size": f.get("size"), "packagetype": f.get("packagetype", ""),
            "yanked": f.get("yanked_reason") or bool(f.get("yanked"))}


def newest_versions(releases, count=5):
    """Newest first: final releases first, pre-releases after; empty releases left out."""
    have = [v for v, files in releases.items() if files]
    keyed = [(parse_version(v), v) for v in have]
    if all(k is not None for k, _ in keyed):
        keyed.sort(key=lambda kv: (not kv[0].is_prerelease, kv[0]), reverse=True)
        return [v for _, v in keyed[:count]]
    latest = {v: max(f.get("upload_time_iso_8601") or "" for f in releases[v]) for v in have}
    return sorted(have, key=lambda v: latest[v], reverse=True)[:count]


def release_listing(index, name, version):
    """{"version", "files"} of the release, from the index (asked by the normalised name, which
    PyPI answers directly and mirrors key on)."""
    name = normalise(name)
    page_url = "%s/pypi/%s/%s/json" % (index, name, version)
    page = get_json(page_url)
    if page is not None:
        return {"version": page.get("info", {}).get("version", version),
                "files": file_entries(page.get("urls", []), page_url)}
    page_url = "%s/pypi/%s/json" % (index, name)
    project = get_json(page_url)
    if project is None:
        raise Failure("no_such_project", "%s has no project %r (%s/pypi/%s/json is 404): check the name's "
                      "spelling on %s/project/%s/" % (index, name, index, name, index, name), index=index)
    releases = project.get("releases") or {}
    wanted = parse_version(version)
    for key, files in releases.items():
        if key == version or (wanted is not None and parse_version(key) == wanted):
            return {"version": key, "files": file_entries(files, page_url)}
    newest = newest_versions(releases)
    raise Failure("no_such_version", "%s has no version %s of %s%s: pin one it has" % (
        index, version, project.get("info", {}).get("name", name),
        " (newest: %s)" % ", ".join(newest) if newest else ""), versions=newest)


def choose(kind, name, version, files):
    """(file entry, matched tag or None) the cell wants from the release's files."""
    wheels = [f for f in files if f["filename"].endswith(".whl")]
    if kind == "sdist":
        sdists = [f for f in files if f["packagetype"] == "sdist"]
        if not sdists:
            raise Failure("no_sdist", "%s %s has no sdist on the index, only wheels (%s): use `wheel:` to check "
                          "a prebuilt wheel, or a `path:` to the library's source" % (
                              name, version, ", ".join(f["filename"] for f in wheels) or "none"),
                          wheels=[f["filename"] for f in wheels])
        sdists.sort(key=lambda f: not f["filename"].endswith(".tar.gz"))  # .tar.gz over an old .zip
        return sdists[0], None
    accepted = interpreter_tags()
    if accepted is None:
        raise Failure("image_missing_prerequisite", "this cell's Python has no `packaging` module and no pip to "
                      "take it from, so which wheel fits cannot be told: the image must have pip")
    picked = best_wheel([f["filename"] for f in wheels], accepted)
    if picked is None:
        raise Failure("no_compatible_wheel", "%s %s has no wheel this cell can install: %s. Pick a version with "
                      "a wheel for this cell, or a cell whose Python and platform its wheels are for" % (
                          name, version, why_none_fits([f["filename"] for f in wheels], accepted)),
                      wheels=[f["filename"] for f in wheels], accepted_tags=accepted[:5],
                      python="%d.%d" % sys.version_info[:2])
    return next(f for f in wheels if f["filename"] == picked[0]), picked[1]


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_atomic(path, text):
    """text (str, or bytes) to path through a temporary file beside it."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix="." + os.path.basename(path) + ".")
    try:
        with os.fdopen(fd, "wb" if isinstance(text, bytes) else "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def in_cache(path, sha256):
    """The cached file is good: its sidecar names this digest and its bytes hash to it."""
    try:
        with open(path + ".sha256") as f:
            recorded = f.read().split()[0]
    except (OSError, IndexError):
        return False
    return recorded == sha256 and os.path.isfile(path) and sha256_of(path) == sha256


def download(entry, path):
    """entry's file to path, through a temporary file beside it: only a file whose bytes match
    the index's sha256 ever gets the final name."""
    def save(response):
        try:
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix="." + os.path.basename(path) + ".")
        except OSError as e:
            raise Failure("cache", "cannot write into %s: %s" % (os.path.dirname(path), e.strerror or e))
        try:
            h, size = hashlib.sha256(), 0
            with os.fdopen(fd, "wb") as out:
                for block in iter(lambda: response.read(1 << 20), b""):  # an OSError here is the network's
                    h.update(block)
                    size += len(block)
                    try:
                        out.write(block)
                    except OSError as e:  # ... and here the cache's (a full disk): no retry
                        raise Failure("cache", "cannot write %s: %s" % (tmp, e.strerror or e))
            expected = int(response.headers.get("Content-Length") or entry.get("size") or 0)
            if size < expected:
                # The connection closed before the end (urllib's read() then just stops): the
                # network's, tried again like any, never a verdict on the file.
                raise OSError("the download stopped after %d of %d bytes (the connection closed)" % (size, expected))
            if h.hexdigest() != entry["sha256"]:
                raise Failure("hash_mismatch", "%s downloaded with sha256 %s, but the index says %s: the download "
                              "was altered or cut (a proxy?); nothing was kept, run again" % (
                                  entry["filename"], h.hexdigest(), entry["sha256"]),
                              url=entry["url"], expected=entry["sha256"], got=h.hexdigest())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        return True
    if opened(entry["url"], save) is None:
        raise network_failure(entry["url"], "HTTP 404 (the index lists a file it does not serve)")
    write_atomic(path + ".sha256", "%s  %s\n" % (entry["sha256"], entry["filename"]))


def index_url(explicit=None):
    """The index asked: --index-url, else $OPMATRIX_PYPI_URL, else PyPI."""
    return (explicit or os.environ.get("OPMATRIX_PYPI_URL") or DEFAULT_INDEX).rstrip("/")


def release_folder(cache, name, version):
    """CACHE's folder of one release: its listing (LISTING) and the files fetched of it."""
    return os.path.join(cache, "%s-%s" % (normalise(name), version))


def fetch(args):
    name, version = parse_requirement(args.requirement)
    index = index_url(args.index_url)
    folder = release_folder(args.cache, name, version)
    listing_path = os.path.join(folder, LISTING)
    try:
        with open(listing_path) as f:
            listing = json.load(f)  # a release's files do not change: no network for a second run
    except (OSError, ValueError):
        listing = release_listing(index, name, version)
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as e:
            raise Failure("cache", "cannot create the cache folder %s: %s" % (folder, e.strerror or e))
        write_atomic(listing_path, json.dumps(listing, indent=1) + "\n")
    entry, tag = choose(args.kind, name, listing["version"], listing["files"])
    if not re.match(r"^[0-9a-f]{64}$", entry["sha256"]):
        raise Failure("hash_mismatch", "the index gives no sha256 for %s, so the download cannot be checked: "
                      "use an index that does (PyPI does)" % entry["filename"], url=entry["url"])
    path = os.path.join(folder, entry["filename"])
    cached = in_cache(path, entry["sha256"])
    if not cached:
        download(entry, path)
    size = os.path.getsize(path)
    out = {"ok": True, "kind": args.kind, "requirement": args.requirement, "name": name,
           "version": listing["version"], "file": os.path.relpath(path, args.cache), "path": os.path.abspath(path),
           "filename": entry["filename"], "sha256": entry["sha256"], "url": entry["url"],
           "size": size, "cached": cached, "download_bytes": size}  # download_bytes: what an empty cache downloads
    if tag is not None:
        out.update(tags=wheel_tags(entry["filename"]), tag=tag)
    if entry.get("yanked"):
        out["yanked"] = entry["yanked"]
    return out


def main():
    try:
        parser = Parser(description="Fetch one sdist or wheel from PyPI into a cache folder.")
        parser.add_argument("--kind", required=True, choices=["sdist", "wheel"])
        parser.add_argument("--requirement", required=True, help="NAME==VERSION")
        parser.add_argument("--cache", required=True, help="cache folder")
        parser.add_argument("--index-url", help="index root (default $OPMATRIX_PYPI_URL, else %s)" % DEFAULT_INDEX)
        out, code = fetch(parser.parse_args()), 0
    except Failure as f:
        out, code = f.out, 2 if f.out["error"] == "usage" else 1
    except OSError as e:
        out, code = {"ok": False, "error": "cache", "message": "writing the cache failed: %s" % e}, 1
    except Exception as e:  # noqa: BLE001 - the harness needs JSON, not a traceback
        out, code = {"ok": False, "error": "internal", "message": "fetch_pypi.py failed: %s: %s" % (
            type(e).__name__, e)}, 1
    print(json.dumps(out))
    return code


if __name__ == "__main__":
    sys.exit(main())
