"""tetune.model: tune an ONNX model, compile it with the log, run the export on NumPy arrays."""
import json
import os
import pathlib

import numpy as np
import pytest

import tetune
from tetune import model

import onnx_writer

PPOCR_CLS = "models/ppocr/ch_ppocr_mobile_v2.0_cls_infer.onnx"


@pytest.fixture(scope="module")
def small_cnn(tmp_path_factory):
    """Conv 3->8 3x3 pad 1 + bias, Relu, GlobalAveragePool, Flatten, Gemm 8->4 on x [1, 3, 32, 32]: (path, weights)."""
    rng = np.random.default_rng(11)
    w = {"W": rng.standard_normal((8, 3, 3, 3), dtype=np.float32), "B": rng.standard_normal(8, dtype=np.float32),
         "G": rng.standard_normal((4, 8), dtype=np.float32)}
    nodes = [
        onnx_writer.node("Conv", ["x", "W", "B"], ["c"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        onnx_writer.node("Relu", ["c"], ["r"]),
        onnx_writer.node("GlobalAveragePool", ["r"], ["p"]),
        onnx_writer.node("Flatten", ["p"], ["f"], axis=1),
        onnx_writer.node("Gemm", ["f", "G"], ["y"], transB=1),
    ]
    path = tmp_path_factory.mktemp("onnx") / "small_cnn.onnx"
    path.write_bytes(onnx_writer.model(nodes, {"x": (1, 3, 32, 32)}, {"y": (1, 4)}, w))
    return path, w


def reference(x, w):
    """The small CNN in NumPy (float64)."""
    padded = np.pad(x[0].astype(np.float64), ((0, 0), (1, 1), (1, 1)))
    conv = sum(np.einsum("chw,oc->ohw", padded[:, i:i + 32, j:j + 32], w["W"][:, :, i, j])
               for i in range(3) for j in range(3)) + w["B"][:, None, None]
    pooled = np.maximum(conv, 0).mean(axis=(1, 2))
    return (pooled @ w["G"].T.astype(np.float64))[None]


def test_tune_compile_load_run(small_cnn, tmp_path):
    path, w = small_cnn
    db = str(tmp_path / "model.db")
    steps = []
    # NCHW on every CPU: the task names below are NCHW ones, and with AVX2's 8-channel block the
    # default layout would run the 8-channel conv blocked (with AVX-512's 16 it stays NCHW).
    tuned = model.tune_model(path, trials=12, db=db, shipped_log=False, progress=steps.append, layout="nchw")
    names = [t.name for t in tuned.tasks]
    assert names == ["g0_Conv_Relu", "g1_GlobalAveragePool", "g3_Gemm"]
    assert tuned.trials_used == 12 and tuned.errors == 0 and steps and not tuned.interrupted
    assert all(t.trials >= 1 and 0 < t.best_ms < float("inf") for t in tuned.tasks)
    assert tuned.estimated_after_ms <= tuned.baseline_ms * 1.5  # the baselines are records too: never much worse
    assert tuned.estimated_as_in_model_ms > 0  # the conv's and Gemm's bests were timed again with their weights cold
    assert tuned.confirmable_tasks == 2 and tuned.picks_timed_as_in_model == 2  # the conv and the Gemm hold weights

    out = tmp_path / "export"
    result = model.compile_model(path, out, db=db, shipped_log=False, layout="nchw")
    assert result.tasks == 3 and result.task_sources == {"record": 3, "cost model": 0, "analytical": 0}
    assert {t["workload_key"] for t in result.task_schedules} == {t.workload_key for t in tuned.tasks}
    assert sorted(os.listdir(out)) == ["graph.bin", "libmodel.so", "manifest.json", "weights.bin"]
    assert json.loads((out / "manifest.json").read_text())["tasks_by_source"]["record"] == 3

    runner = model.load(out)
    assert runner.inputs == [{"name": "x", "shape": (1, 3, 32, 32), "dtype": "float32"}]
    assert [o["name"] for o in runner.outputs] == ["y"]
    x = np.random.default_rng(1).standard_normal((1, 3, 32, 32), dtype=np.float32)
    y = runner.run(x=x)
    assert list(y) == ["y"] and y["y"].dtype == np.float32
    np.testing.assert_allclose(y["y"], reference(x, w), rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(runner.run({"x": x})["y"], y["y"])
    assert 0 < runner.time(repeat=5) < 1000

    with pytest.raises(tetune.ShapeError, match="input 'x' is missing"):
        runner.run()
    with pytest.raises(tetune.ShapeError, match="unknown input 'z'"):
        runner.run(x=x, z=x)
    with pytest.raises(tetune.ShapeError, match="expected dtype float32, got float64"):
        runner.run(x=x.astype(np.float64))
    with pytest.raises(tetune.ShapeError, match="expected shape"):
        runner.run(x=x[:, :2])


def test_compile_without_a_log_and_errors(small_cnn, tmp_path):
    path, w = small_cnn
    result = model.compile_model(path, tmp_path / "untuned", tuned=False)
    assert result.task_sources["record"] == 0 and result.task_sources["analytical"] == 3
    runner = model.load(tmp_path / "untuned", threads=1)
    x = np.ones((1, 3, 32, 32), np.float32)
    np.testing.assert_allclose(runner.run(x=x)["y"], reference(x, w), rtol=1e-4, atol=1e-4)
    here = model.compile_model(path, tmp_path / "untuned_here", tuned=False, jobs=1)  # no child processes
    assert [t["workload_key"] for t in here.task_schedules] == [t["workload_key"] for t in result.task_schedules]
    np.testing.assert_array_equal(model.load(tmp_path / "untuned_here", threads=1).run(x=x)["y"], runner.run(x=x)["y"])

    with pytest.raises(tetune.TuningLogError, match="missing.db"):
        model.compile_model(path, tmp_path / "o2", db=str(tmp_path / "missing.db"))
    with pytest.raises(tetune.ShapeError, match="'x'"):
        model.compile_model(path, tmp_path / "o3", input_shapes="x=1,3,16", tuned=False)
    with pytest.raises(tetune.ModelImportError):
        bad = tmp_path / "bad.onnx"
        bad.write_bytes(b"not a model")
        model.compile_model(bad, tmp_path / "o4", tuned=False)
    with pytest.raises(ValueError, match="jobs must be >= 0"):
        model.compile_model(path, tmp_path / "o6", tuned=False, jobs=-1)
    assert not (tmp_path / "o6").exists()
    with pytest.raises(ValueError, match="give trials=N or time_budget_s=T"):
        model.tune_model(path)
    for call in (lambda: model.tune_model(path, trials=1, layout="nchw16c"),
                 lambda: model.compile_model(path, tmp_path / "o5", tuned=False, layout="nchw16c")):
        with pytest.raises(tetune.UsageError, match="layout 'nchw16c'") as e:
            call()
        assert isinstance(e.value, ValueError)
    assert not (tmp_path / "o5").exists()
    with pytest.raises(tetune.ExportCheckError):
        (tmp_path / "untuned" / "weights.bin").write_bytes(b"changed")
        model.load(tmp_path / "untuned")
    assert model.parse_input_shapes("x=1,3,48,320") == {"x": (1, 3, 48, 320)}


def repo_root():
    """$TETUNE_ROOT, else the checkout this file's runfile links to (as tests/relay_import/test_util.h finds it)."""
    return os.environ.get("TETUNE_ROOT") or str(pathlib.Path(os.path.realpath(__file__)).parents[2])


def test_ppocr_classifier_compiles_and_runs(tmp_path):
    """The PaddleOCR direction classifier (60 tasks), untuned: two-class probabilities that depend on the input."""
    source = os.path.join(repo_root(), PPOCR_CLS)
    if not os.path.exists(source):
        pytest.skip(f"{PPOCR_CLS} is absent (git-ignored; tools/setup.sh fetches it)")
    result = model.compile_model(source, tmp_path / "cls", input_shapes="x=1,3,48,192", tuned=False)
    assert result.tasks > 10
    runner = model.load(tmp_path / "cls")
    x = np.random.default_rng(0).standard_normal((1, 3, 48, 192), dtype=np.float32)
    (probs,) = runner.run(x=x).values()
    (flat,) = runner.run(x=np.zeros_like(x)).values()
    assert probs.shape == (1, 2) and np.all(probs >= 0) and np.allclose(probs.sum(axis=1), 1, atol=1e-5)
    assert np.abs(probs - flat).max() > 1e-3
