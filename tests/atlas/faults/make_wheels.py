"""The fault test's op libraries, as pure-Python wheels (py3-none-any) in FOLDER:
    opm-good   imports, says nothing
    opm-abort  kills its process at import (os.abort(): SIGABRT, as a library's static
               initialiser that throws does)
    opm-drop   imports; its download is the one the index drops halfway
    make_wheels.py FOLDER"""
import base64
import hashlib
import os
import sys
import zipfile

LIBRARIES = {
    "opm_good": "VALUE = 1\n",
    "opm_abort": "import os\nos.abort()\n",
    "opm_drop": "VALUE = 1\n" + "# padding, so that half a download is a real part of it\n" * 200,
}


def record_line(path, body):
    digest = base64.urlsafe_b64encode(hashlib.sha256(body).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d\n" % (path, digest, len(body))


def wheel(folder, module, init):
    name, version = module.replace("_", "-"), "1.0"
    info = "%s-%s.dist-info" % (module, version)
    files = {"%s/__init__.py" % module: init.encode(),
             info + "/METADATA": ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version)).encode(),
             info + "/WHEEL": b"Wheel-Version: 1.0\nGenerator: opmatrix-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = "".join(record_line(p, b) for p, b in files.items()) + info + "/RECORD,,\n"
    path = os.path.join(folder, "%s-%s-py3-none-any.whl" % (module, version))
    with zipfile.ZipFile(path, "w") as z:
        for p, b in files.items():
            z.writestr(p, b)
        z.writestr(info + "/RECORD", record)


def main():
    os.makedirs(sys.argv[1], exist_ok=True)
    for module, init in LIBRARIES.items():
        wheel(sys.argv[1], module, init)


if __name__ == "__main__":
    main()
