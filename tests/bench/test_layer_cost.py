"""bench/images/layer_cost.py: what each image adds to the storage, each layer counted once,
on a storage table written here (the format of podman's overlay-layers/overlay-images)."""
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "images" / "layer_cost.py"


def storage(tmp_path):
    # base <- tools <- cuda-libs <- torch-a ; cuda-libs <- torch-b ; other-base <- x
    layers = [{"id": "base", "diff-size": 100}, {"id": "tools", "parent": "base", "diff-size": 50},
              {"id": "cuda", "parent": "tools", "diff-size": 1000},
              {"id": "torch-a", "parent": "cuda", "diff-size": 300}, {"id": "torch-b", "parent": "cuda", "diff-size": 200},
              {"id": "other", "diff-size": 7}]
    images = [{"id": "i1", "names": ["localhost/a:1"], "layer": "torch-a"},
              {"id": "i2", "names": ["localhost/b:1", "localhost/b:latest"], "layer": "torch-b"},
              {"id": "i3", "names": ["localhost/c:1"], "layer": "other"}]
    (tmp_path / "overlay-layers").mkdir()
    (tmp_path / "overlay-images").mkdir()
    (tmp_path / "overlay-layers" / "layers.json").write_text(json.dumps(layers))
    (tmp_path / "overlay-images" / "images.json").write_text(json.dumps(images))
    return str(tmp_path)


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)


def test_new_bytes_count_each_layer_once(tmp_path):
    r = run("--json", "--graphroot", storage(tmp_path), "localhost/a:1", "localhost/b:latest", "localhost/c:1")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [(x["bytes"], x["new_bytes"], x["set_bytes"], x["layers"]) for x in rows] == [
        (1450, 1450, 1450, 4), (1350, 200, 1650, 4), (7, 7, 1657, 1)]


def test_order_decides_what_is_new(tmp_path):
    r = run("--json", "--graphroot", storage(tmp_path), "localhost/b:1", "localhost/a:1")
    assert [x["new_bytes"] for x in json.loads(r.stdout)] == [1350, 300]


def test_unknown_image_and_usage(tmp_path):
    r = run("--graphroot", storage(tmp_path), "localhost/absent:1")
    assert r.returncode == 1
    assert r.stderr.strip() == "layer_cost: no image named localhost/absent:1 in podman's storage"
    assert run("--graphroot").returncode == 2
    assert run().returncode == 2
