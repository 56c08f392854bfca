"""tetune.autotune: the C++ tuner from Python, with search policies and cost models written in Python."""
import random

import numpy as np
import pytest

import tetune
from tetune import autotune, log, te

from conftest import matmul

GEMM = ("matmul", [256, 256, 256])


class PythonRandomPolicy(autotune.SearchPolicy):
    """Random search in Python: fresh samples, one per schedule, from its own seeded generator."""
    instances = []

    def __init__(self, ctx):
        super().__init__()
        self.ctx, self.rng = ctx, random.Random(ctx.seed)
        self.proposed, self.notified = [], []  # schedule traces proposed, outcomes received
        PythonRandomPolicy.instances.append(self)

    def next_batch(self, n):
        picked = {}
        for _ in range(20 * n):
            if len(picked) == n:
                break
            p = self.ctx.sample(seed=self.rng.getrandbits(64))
            if self.ctx.is_fresh(p):
                picked.setdefault(self.ctx.schedule_key(p), p)
        self.proposed += [self.ctx.schedule_json(p) for p in picked.values()]
        return list(picked.values())

    def notify(self, outcomes):
        self.notified += outcomes


def records_of(db_path, result, task):
    with log.open_read_only(db_path) as db:
        return db.records(task.workload_key, result.target_key)


def test_python_policy_runs_32_trials_on_gemm_256_into_a_temporary_log(tmp_path, rng):
    PythonRandomPolicy.instances.clear()
    task = autotune.Task.from_op(*GEMM)
    assert task.name == "matmul_256x256x256" and task.flops == 2 * 256 ** 3
    db = str(tmp_path / "tune.db")
    result = autotune.tune(task, trials=32, policy=PythonRandomPolicy, db=db, shipped_log=False, seed=3)

    (policy,) = PythonRandomPolicy.instances
    records = records_of(db, result, task)
    assert len(records) == 32 == result.total_records == result.measured
    # Each record passed the reference check in its child (a wrong answer would be error_code 4, kept).
    assert [r.error_code for r in records] == [0] * 32 and result.errors == 0
    assert all(r.median_ms > 0 and r.gflops > 0 for r in records)
    # The search trials measured exactly what the Python policy proposed; the rest re-measured the best.
    searched = [r for r in records[: 32 - result.confirmed]]
    assert sorted(r.schedule_json for r in searched) == sorted(policy.proposed)
    assert len(policy.notified) == len(searched) and all(o.ok and o.gflops > 0 for o in policy.notified)
    assert result.best.id in {r.id for r in records} and result.best_gflops == result.best.gflops
    curve = result.curve
    assert curve.shape == (32,) and np.all(np.diff(curve) >= 0) and curve[-1] == max(r.gflops for r in records)

    # The best schedule replays on the task and computes the product.
    kernel = tetune.build(task.schedule(result.best))
    a, b = (rng.standard_normal((256, 256), dtype=np.float32) for _ in range(2))
    np.testing.assert_allclose(kernel(a, b), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


class LinearCostModel(autotune.CostModel):
    """Least squares on the features: scores are predicted GFLOP/s."""
    calls = []

    def __init__(self, seed):
        super().__init__()
        self.weights = None

    def update(self, features, throughputs):
        LinearCostModel.calls.append(("update", features.shape, features.dtype, throughputs.dtype))
        x = np.hstack([features, np.ones((len(features), 1), np.float32)])
        self.weights = np.linalg.lstsq(x, throughputs, rcond=None)[0]

    def predict(self, features):
        LinearCostModel.calls.append(("predict", features.shape))
        if self.weights is None:
            return np.zeros(len(features))
        return np.hstack([features, np.ones((len(features), 1), np.float32)]) @ self.weights


def test_python_cost_model_is_trained_and_guides_the_evolutionary_search(tmp_path):
    LinearCostModel.calls.clear()
    _, _, C = matmul(64, 64, 64)
    db = str(tmp_path / "cm.db")
    result = autotune.tune(C, trials=24, cost_model=LinearCostModel, db=db, shipped_log=False, confirm=False)
    assert result.total_records == 24 and result.errors == 0 and result.best is not None
    updates = [c for c in LinearCostModel.calls if c[0] == "update"]
    predicts = [c for c in LinearCostModel.calls if c[0] == "predict"]
    width = len(autotune.feature_names())
    # A fresh model after each of the first batches, fit on every record so far.
    assert [u[1] for u in updates[:1]] == [(16, width)] and updates[0][2] == np.float32
    assert updates[0][3] == np.float64
    assert predicts and all(p[1][1] == width for p in predicts)
    assert "python:autotune_test.LinearCostModel" in autotune.cost_model_names()


def test_built_in_cost_model_from_python():
    model = autotune.make_cost_model("xgb", seed=1)
    assert model.name() == "xgb" and not model.trained()
    x = np.random.default_rng(0).random((40, len(autotune.feature_names())), dtype=np.float32)
    y = x[:, 0] * 10.0  # the first feature decides
    model.update(x, y)
    scores = model.predict(x)
    assert model.trained() and scores.shape == (40,)
    assert np.corrcoef(scores, y)[0, 1] > 0.8
    with pytest.raises(tetune.ShapeError, match="40 numbers"):
        model.update(x, y[:3])


def test_registries_refuse_built_in_names_and_bad_factories(tmp_path):
    assert {"evolutionary", "random", "annealing"} <= set(autotune.policy_names())
    assert {"xgb", "random"} <= set(autotune.cost_model_names())
    assert "ansor" in autotune.space_names() and autotune.default_space_name() == "ansor"
    with pytest.raises(ValueError, match="'random' is a built-in search policy"):
        autotune.register_policy("random", PythonRandomPolicy)
    autotune.register_policy("py-random", PythonRandomPolicy)
    autotune.register_policy("py-random", PythonRandomPolicy)  # a Python name may be registered again
    assert "py-random" in autotune.policy_names()

    task = autotune.Task.from_op("matmul", [32, 32, 32])
    db = str(tmp_path / "r.db")
    with pytest.raises(tetune.TetuneError, match="unknown search policy 'nope'"):
        autotune.tune(task, trials=4, policy="nope", db=db, shipped_log=False)
    autotune.register_policy("not-a-policy", lambda ctx: object())
    with pytest.raises(TypeError, match="not an instance of a subclass of SearchPolicy"):
        autotune.tune(task, trials=4, policy="not-a-policy", db=db, shipped_log=False)
    with pytest.raises(TypeError, match="expected a registered name or a subclass"):
        autotune.tune(task, trials=4, policy=object, db=db, shipped_log=False)


def test_python_exceptions_stop_the_run_and_keep_its_records(tmp_path):
    task = autotune.Task.from_op("matmul", [64, 64, 64])
    db = str(tmp_path / "stop.db")
    seen = []

    def progress(p):
        seen.append(p["trials_done"])
        if p["trials_done"] == 5:
            raise KeyError("stop here")

    with pytest.raises(KeyError, match="stop here"):
        autotune.tune(task, trials=16, policy="random", db=db, shipped_log=False, progress=progress)
    assert seen == [1, 2, 3, 4, 5]
    with log.open_read_only(db) as opened:
        assert opened.count_all_records() == 5  # committed before the callback ran

    class Failing(autotune.SearchPolicy):
        def __init__(self, ctx):
            super().__init__()
            self.ctx = ctx
            Failing.ctx = ctx

        def next_batch(self, n):
            return 1 / 0

    with pytest.raises(ZeroDivisionError):
        autotune.tune(task, trials=8, policy=Failing, db=db, shipped_log=False)
    with pytest.raises(tetune.UsageError, match="tuning run that has ended"):
        Failing.ctx.sample()  # its pointers into the tuner died with the run


def test_context_gives_the_space_and_the_model(tmp_path):
    looked = {}

    class Inspecting(autotune.SearchPolicy):
        def __init__(self, ctx):
            super().__init__()
            self.ctx = ctx

        def name(self):
            return "inspecting"

        def next_batch(self, n):
            ctx = self.ctx
            points = ctx.sample_fresh(n, seed=5)
            child = ctx.crossover(points[0], ctx.mutate(points[1], seed=1), seed=2)
            looked.update(task=ctx.task.name, space=ctx.space_name, n=len(points), seeds=len(ctx.seeds()),
                          scores=ctx.predict(points), features=ctx.features(points), child=child,
                          trained=ctx.model_trained, keys={ctx.schedule_key(p) for p in points})
            return points

    task = autotune.Task.from_op("matmul", [64, 64, 64])
    result = autotune.tune(task, trials=4, policy=Inspecting, db=str(tmp_path / "c.db"), shipped_log=False,
                           batch_size=4)
    assert result.total_records == 4
    assert looked["task"] == "matmul_64x64x64" and looked["space"] == "ansor" and looked["n"] == 4
    assert looked["seeds"] >= 1 and len(looked["keys"]) == 4 and isinstance(looked["child"], autotune.Candidate)
    assert not looked["trained"] and np.all(looked["scores"] == 0)  # nothing measured yet: untrained
    assert looked["features"].shape == (4, len(autotune.feature_names()))


def test_task_of_a_user_compute_and_bad_arguments():
    A = te.placeholder((32, 48), "float32", name="A")
    Y = te.compute((32, 48), lambda i, j: te.exp(A[i, j]) * 2.0, name="Y")
    task = autotune.Task(Y, threads=1)
    assert task.name == "Y" and task.threads == 1 and task.workload_key == te.workload_key([Y])
    assert [t.name for t in task.inputs] == ["A"] and task.target == "host"
    assert task.default_schedule().trace()  # the analytical default schedules the stage
    with pytest.raises(tetune.OpAttributeError):
        autotune.Task.from_op("no_such_op", [1])
    with pytest.raises(tetune.ShapeError, match="shape 100000,100000,100000: matmul"):
        autotune.Task.from_op("matmul", [100000, 100000, 100000])
    with pytest.raises(ValueError, match="threads must be"):
        autotune.Task(Y, threads=0)
    with pytest.raises(tetune.CodegenError, match="unknown target"):
        autotune.Task(Y, target="vax")
    with pytest.raises(ValueError, match="trials must be >= 0"):
        autotune.tune(task, trials=-1)


def test_another_thread_count_after_kernels_ran_is_refused(tmp_path):
    task = autotune.Task.from_op("matmul", [16, 16, 16])
    db = str(tmp_path / "threads.db")
    assert autotune.tune(task, trials=1, db=db, shipped_log=False).total_records == 1  # fixes task.threads
    a = np.ones((16, 16), np.float32)
    np.testing.assert_array_equal(tetune.build(task.default_schedule())(a, a), a @ a)  # a kernel ran here
    other = task.threads % 2 + 1
    # The measuring children could not switch: one clear error, before anything is measured.
    with pytest.raises(tetune.UsageError, match=f"threads={other}: JIT kernels already ran"):
        autotune.tune(task, trials=2, threads=other, db=db, shipped_log=False)
    with log.open_read_only(db) as opened:
        assert opened.count_all_records() == 1
