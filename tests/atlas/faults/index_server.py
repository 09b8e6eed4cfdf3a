"""A package index on 127.0.0.1 for the atlas's fault test (run_atlas_faults.sh): PyPI's JSON API
(what fetch_pypi.py reads) and its simple index (what pip reads) over the wheels of one folder,
with faults turned on and off between runs by files in that folder:
    DROP       names a file whose download stops halfway (the connection closed under the client)
    SLOW       seconds every file download waits before its first byte
    index_server.py FOLDER URL_FILE [ADDRESS]   # writes its URL to URL_FILE, serves until killed
ADDRESS: 127.0.0.1 (the default), or 0.0.0.0 where containers reach it as host.containers.internal.
"""
import hashlib
import http.server
import json
import os
import sys
import time


def wheels(folder):
    """{project: {version: [filename]}} of FOLDER's *.whl (name-version-...whl, '_' for '-')."""
    found = {}
    for f in sorted(os.listdir(folder)):
        if f.endswith(".whl"):
            name, version = f.split("-")[:2]
            found.setdefault(name.replace("_", "-"), {}).setdefault(version, []).append(f)
    return found


def entry(folder, url, filename):
    with open(os.path.join(folder, filename), "rb") as f:
        body = f.read()
    return {"filename": filename, "url": "%s/files/%s" % (url, filename), "packagetype": "bdist_wheel",
            "digests": {"sha256": hashlib.sha256(body).hexdigest()}, "size": len(body),
            "upload_time_iso_8601": "2026-01-01T00:00:00Z", "yanked": False}


def control(folder, name):
    path = os.path.join(folder, name)
    return open(path).read().strip() if os.path.isfile(path) else ""


def handler(folder, url):
    class Handler(http.server.BaseHTTPRequestHandler):
        def send(self, status, body, content_type="application/json"):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):  # noqa: N802 - http.server's name
            parts = [p for p in self.path.split("?")[0].split("/") if p]
            projects = wheels(folder)
            if parts[:1] == ["pypi"] and len(parts) in (3, 4) and parts[1] in projects:
                releases = {v: [entry(folder, url[0], f) for f in fs] for v, fs in projects[parts[1]].items()}
                version = parts[2] if len(parts) == 4 else max(releases)
                page = {"info": {"name": parts[1], "version": version}, "releases": releases,
                        "urls": releases.get(version, [])}
                return self.send(200, json.dumps(page).encode())
            if parts[:1] == ["simple"] and len(parts) == 2 and parts[1] in projects:
                links = "".join('<a href="%s/files/%s#sha256=%s">%s</a>\n' % (
                    url[0], f, entry(folder, url[0], f)["digests"]["sha256"], f)
                    for fs in projects[parts[1]].values() for f in fs)
                return self.send(200, ("<html><body>\n%s</body></html>\n" % links).encode(), "text/html")
            if parts[:1] == ["files"] and len(parts) == 2 and os.path.isfile(os.path.join(folder, parts[1])):
                time.sleep(float(control(folder, "SLOW") or 0))
                with open(os.path.join(folder, parts[1]), "rb") as f:
                    body = f.read()
                if control(folder, "DROP") == parts[1]:
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body[:len(body) // 2])
                    self.wfile.flush()
                    self.connection.shutdown(2)  # the network drops mid-download
                    return
                return self.send(200, body, "application/octet-stream")
            return self.send(404, b"{}")

        def log_message(self, *args):
            pass

    return Handler


def main():
    folder, port_file = sys.argv[1], sys.argv[2]
    address = sys.argv[3] if len(sys.argv) > 3 else "127.0.0.1"
    url = [""]
    server = http.server.ThreadingHTTPServer((address, 0), handler(folder, url))
    url[0] = "http://%s:%d" % ("127.0.0.1" if address == "127.0.0.1" else "host.containers.internal", server.server_address[1])
    with open(port_file + ".tmp", "w") as f:
        f.write(url[0] + "\n")
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
