"""ONNX models from Python: tune their kernels, compile them, run the export on NumPy arrays.

    from tetune import model
    model.tune_model("m.onnx", input_shapes={"x": (1, 3, 224, 224)}, time_budget_s=600, db="m.db")
    model.compile_model("m.onnx", "out/", input_shapes={"x": (1, 3, 224, 224)}, db="m.db")
    runner = model.load("out/")
    y = runner.run(x=np.zeros((1, 3, 224, 224), np.float32))     # {output name: array}
    runner.time(repeat=50)                                         # median ms

These are the code paths of `tetune tune`, `tetune compile` and `tetune run`:
the same tasks (fused kernel groups, deduplicated by workload key), the same
log lookup (db, else the user's log, then the shipped one), the same export
directory (libmodel.so, graph.bin, weights.bin, manifest.json) and the
compiler-free runtime. input_shapes: {name: shape} or the command line's
"x=1,3,224,224" text; needed for each dynamic input.
"""
from ._core import model as _core_model
from ._core.model import ExportResult, ModelTaskResult, ModelTuneResult, Runner

__all__ = ["tune_model", "compile_model", "load", "Runner", "ModelTuneResult", "ModelTaskResult", "ExportResult",
           "parse_input_shapes"]


def parse_input_shapes(spec):
    """'x=1,3,224,224;y=...' (the --input-shape form) -> {name: shape tuple}; ParseError naming the bad part."""
    return {name: tuple(shape) for name, shape in _core_model.parse_input_shapes(spec).items()}


def _shapes(input_shapes):
    if input_shapes is None:
        return {}
    if isinstance(input_shapes, str):
        return parse_input_shapes(input_shapes)
    return {name: tuple(int(d) for d in shape) for name, shape in dict(input_shapes).items()}


def tune_model(onnx_path, *, input_shapes=None, trials=0, time_budget_s=0.0, db=None, threads=None,
               policy="evolutionary", cost_model="xgb", seed=0, batch=16, shipped_log=True, timeout_s=20.0,
               small_task_flops=1e5, small_task_trials=2, measure_baseline=True, layout="blocked", progress=None):
    """Tunes every task of an ONNX model into the log (`tetune tune`); returns a ModelTuneResult.

    Budget: trials (records over all tasks, stored ones count) and / or time_budget_s (the measurement
    in flight finishes first); one of them is required. A task without records first gets its default
    schedule measured (measure_baseline). The gradient-based task scheduler spreads the trials.
    policy: a registered name (tetune.autotune.policy_names(), Python policies included).
    progress: called with a dict between records; Ctrl-C or an exception it raises stops tuning after
    the measurement in flight (committed) and propagates.
    layout: 'blocked' (convolution chains in NCHW[16]c, 3x3 convs by Winograd F(4x4, 3x3) or F(2x2, 3x3) on small planes),
        'blocked-direct' (the same, every conv direct) or 'nchw'; compile with the same one.
    """
    from . import autotune  # a Python policy class is registered by name as tune() does
    policy = autotune._registered(policy, autotune.register_policy, autotune.SearchPolicy, "policy")
    cost_model = autotune._registered(cost_model, autotune.register_cost_model, autotune.CostModel, "cost_model")
    return _core_model.tune_model(str(onnx_path), input_shapes=_shapes(input_shapes), trials=trials,
                                  time_budget_s=time_budget_s, db=db, threads=threads, policy=policy,
                                  cost_model=cost_model, seed=seed, batch=batch, shipped_log=shipped_log,
                                  timeout_s=timeout_s, small_task_flops=small_task_flops,
                                  small_task_trials=small_task_trials, measure_baseline=measure_baseline,
                                  layout=layout, progress=progress)


def compile_model(onnx_path, out_dir, *, input_shapes=None, db=None, threads=None, target="host", tuned=True,
                  shipped_log=True, cost_model="", cxx="", keep_build=False, verbose=False, layout="blocked", jobs=0):
    """AOT-compiles an ONNX model into out_dir (`tetune compile`); returns an ExportResult.

    Each task gets the best record of db (default: the user's log; it must exist), then of the shipped
    log, else its default schedule; tuned=False reads no log. threads must be the count the records
    were tuned with (default: this machine's cores, as tune_model's). cost_model: '' (analytical
    default), 'shipped' or a saved model's path, for tasks without a record. Writes only its own files
    into out_dir (libmodel.so, graph.bin, weights.bin, manifest.json). layout: 'blocked' (convolution
    chains in NCHW[16]c, the default), 'blocked-direct' or 'nchw', as the log was tuned with. jobs:
    kernels compiled at once, each in a child process (0: one per CPU; 1: one after another here).
    """
    return _core_model.compile_model(str(onnx_path), str(out_dir), input_shapes=_shapes(input_shapes), db=db,
                                     threads=threads, target=target, tuned=tuned, shipped_log=shipped_log,
                                     cost_model=cost_model, cxx=cxx, keep_build=keep_build, verbose=verbose,
                                     layout=layout, jobs=jobs)


class LoadedModel:
    """An export loaded by the compiler-free runtime; run() and time() take NumPy arrays by input name."""

    def __init__(self, runner):
        self._runner = runner

    @property
    def inputs(self):
        """[{name, shape, dtype}] in graph-input order."""
        return self._runner.inputs

    @property
    def outputs(self):
        return self._runner.outputs

    @property
    def dir(self):
        return self._runner.dir

    def run(self, inputs=None, **named):
        """run({"x": a}) or run(x=a) -> {output name: new array}; arrays of the exact dtype and shape."""
        return self._runner.run({**(inputs or {}), **named})

    def time(self, inputs=None, *, repeat=50, warmup=1, **named):
        """Median ms of `repeat` runs (each timed on its own) after `warmup`; inputs not given are zeros."""
        return self._runner.time({**(inputs or {}), **named}, repeat=repeat, warmup=warmup)

    def __repr__(self):
        names = ", ".join(i["name"] for i in self.inputs)
        return f"LoadedModel({self.dir!r}, inputs: {names})"


def load(export_dir, threads=None):
    """Loads an export (ExportCheckError, before loading, when this CPU cannot run it or a file differs from
    its manifest). threads: kernel threads, set before the first run (default: this machine's cores)."""
    return LoadedModel(_core_model.load(str(export_dir), threads=threads))
