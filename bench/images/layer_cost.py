#!/usr/bin/env python3
"""What each image adds to podman's storage, given the images before it: the layers of an
image's chain that none of the earlier images has. `podman images` counts every layer in every
image, so it cannot say what one more torch minor costs once its CUDA libraries are there.

usage: layer_cost.py [--json] [--graphroot DIR] IMAGE...

Reads the storage's own tables: GRAPHROOT/overlay-layers/layers.json (id, parent, diff-size)
and GRAPHROOT/overlay-images/images.json (each image's names and top layer). Prints, per image in the order
given: its whole size, the bytes new to the set so far, and the running total of the set.
The last line is the set's total (each layer once). Build-stage images that are not named
(the pins and nvcc stages) are not counted: `df` tells the whole storage.
"""
import json
import subprocess
import sys


def podman(*args):
    return subprocess.run(["podman", *args], check=True, stdout=subprocess.PIPE, universal_newlines=True).stdout


def storage_tables(root):
    root = root or json.loads(podman("info", "--format", "json"))["store"]["graphRoot"]
    with open(root + "/overlay-layers/layers.json") as f:
        layers = {layer["id"]: layer for layer in json.load(f)}
    with open(root + "/overlay-images/images.json") as f:
        tops = {name: image["layer"] for image in json.load(f) for name in image.get("names") or []}
    return layers, tops


def chain(layers, top):
    ids = []
    while top:
        ids.append(top)
        top = layers[top].get("parent", "")
    return ids


def main(argv):
    args = argv[1:]
    as_json = "--json" in args
    args = [a for a in args if a != "--json"]
    root = None
    if "--graphroot" in args:
        at = args.index("--graphroot")
        root = args[at + 1] if at + 1 < len(args) else ""
        del args[at:at + 2]
    images = args
    if not images or root == "":
        sys.stderr.write("usage: layer_cost.py [--json] [--graphroot DIR] IMAGE...\n")
        return 2
    layers, tops = storage_tables(root)
    seen, rows, total = set(), [], 0
    for image in images:
        if image not in tops:
            sys.stderr.write("layer_cost: no image named %s in podman's storage\n" % image)
            return 1
        ids = chain(layers, tops[image])
        size = sum(layers[i].get("diff-size", 0) for i in ids)
        new = sum(layers[i].get("diff-size", 0) for i in ids if i not in seen)
        seen.update(ids)
        total += new
        rows.append({"image": image, "bytes": size, "new_bytes": new, "set_bytes": total, "layers": len(ids)})
    if as_json:
        print(json.dumps(rows, indent=1))
        return 0
    print("%-56s %9s %9s %9s" % ("image", "size GB", "new GB", "set GB"))
    for r in rows:
        print("%-56s %9.2f %9.2f %9.2f" % (r["image"], r["bytes"] / 1e9, r["new_bytes"] / 1e9, r["set_bytes"] / 1e9))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
