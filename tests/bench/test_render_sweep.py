"""bench/kernels/render_sweep.py: the figures it derives from kernel_sweep's rows, and how it
rewrites the README (only between its markers, atomically)."""
import json
import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "bench" / "kernels" / "render_sweep.py"
sys.path.insert(0, str(SCRIPT.parent))
import render_sweep  # noqa: E402


def row(op, shape, dtype, threads, ref, ours, ok=True):
    return {"op": op, "shape": shape, "dtype": dtype, "reference": "torchvision", "threads": threads,
            "reference_ms": ref, "ours_ms": ours, "check": "equal" if ok else "DIFFER", "ok": ok}


ROWS = [
    row("nms", "1k", "float32", 1, 10.0, 1.0),
    row("nms", "1k", "float32", 2, 10.0, 0.8),
    row("nms", "50k", "float32", 1, 100.0, 5.0),
    row("nms", "50k", "float32", 2, 100.0, 2.5),
    row("nms", "50k", "float64", 1, 400.0, 80.0),   # longest reference, but float64
]


def write(tmp_path, rows):
    path = tmp_path / "rows.json"
    path.write_text(json.dumps({"torch": "1.13", "ops_library": "x.so", "torchvision_extension": "_C.so",
                                "cpu": "test cpu", "cores": 2, "rows": rows}))
    return path


def test_ratios_and_scaling_of_the_largest_float32_shape():
    s = render_sweep.summarise(ROWS)["nms"]
    assert s["worst"] == 0.2 and s["best"] == 0.025
    assert s["median"] == 0.08
    assert s["scaling"]["shape"] == "50k" and s["scaling"]["dtype"] == "float32"
    assert s["scaling"]["ours"] == 2.0 and s["scaling"]["reference"] == 1.0
    assert s["meets"] == {"worst": True, "median": True, "scaling": True}


def test_a_target_missed_is_reported_missed():
    rows = ROWS + [row("nms", "2k", "float32", 1, 10.0, 9.0)]
    assert render_sweep.summarise(rows)["nms"]["meets"]["worst"] is False


def test_readme_rewritten_between_markers_only(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"before\n{render_sweep.BEGIN}\nold figures\n{render_sweep.END}\nafter\n")
    out = subprocess.run([sys.executable, str(SCRIPT), str(write(tmp_path, ROWS)), "--readme", str(readme)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    text = readme.read_text()
    assert text.startswith("before\n") and text.endswith("after\n")
    assert "old figures" not in text
    assert "| nms | torchvision | 3 | 0.200 | 0.080 | 0.025 |" in text
    assert not (tmp_path / "README.md.tmp").exists()


def test_no_markers_is_an_error_and_leaves_the_file(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("no markers here\n")
    out = subprocess.run([sys.executable, str(SCRIPT), str(write(tmp_path, ROWS)), "--readme", str(readme)],
                         capture_output=True, text=True)
    assert out.returncode != 0 and "no sweep markers" in out.stderr
    assert readme.read_text() == "no markers here\n"


def test_differing_results_fail_the_run(tmp_path):
    rows = ROWS + [row("nms", "2k", "float32", 1, 10.0, 1.0, ok=False)]
    out = subprocess.run([sys.executable, str(SCRIPT), str(write(tmp_path, rows))], capture_output=True, text=True)
    assert out.returncode == 1 and "RESULTS DIFFER: 2k" in out.stdout
