"""The Python examples (examples/python/) run end to end with small budgets and exit 0."""
import os
import subprocess
import sys

import pytest

EXAMPLES = "examples/python"  # in the test's runfiles (the working directory of a bazel test)


def run_example(name, *args):
    path = os.path.join(EXAMPLES, name)
    assert os.path.exists(path), f"{path} is not in the runfiles (tests/python/BUILD data)"
    done = subprocess.run([sys.executable, path, *args], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, f"{name} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_tune_and_plot_writes_the_curve(tmp_path):
    pytest.importorskip("matplotlib", reason="python3-matplotlib is not installed (tools/setup.sh installs it)")
    png = tmp_path / "curve.png"
    out = run_example("tune_and_plot.py", str(png), "--trials", "8", "--shape", "1,16,14,14,16,3,3,1,1",
                      "--db", str(tmp_path / "t.db"))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    assert "8/8 trials" in out and "against NumPy" in out


def test_custom_policy_against_random(tmp_path):
    out = run_example("custom_policy.py", "--trials", "20", "--shape", "96,64,80")
    lines = [line for line in out.splitlines() if " best " in line]
    assert [line.split(" best ")[0].strip() for line in lines] == ["python model-guided sampling", "built-in random"]
    assert all("after 20 trials, 0 failed" in line for line in lines)


def test_matmul_schedule_equals_numpy():
    out = run_example("matmul_schedule.py", "--size", "67", "45", "33", "--repeat", "3")
    assert "max error / max |C|" in out and "hand" in out, out  # it exits 1 past its tolerance
