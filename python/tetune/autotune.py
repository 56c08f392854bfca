"""Auto-tuning one compute: tasks, the C++ tuner, and search policies or cost models written in Python.

    task = autotune.Task.from_op("matmul", [256, 256, 256])     # or autotune.Task(C) for your own compute
    r = autotune.tune(task, trials=64, db="tune.db")             # records go into the log as measured
    r.best                                                      # tetune.log.Record of the best schedule
    r.curve                                                     # best GFLOP/s after each trial (NumPy)
    kernel = tetune.build(task.schedule(r.best))

tune() runs the C++ loop of autotune/tuner.h with the GIL released: a policy
proposes candidates of the search space, each is compiled and timed in a
child process and checked against the plain-loop reference before its
record counts (failed ones are stored too, with their error code), and the
cost model is retrained after each batch. Ctrl-C raises KeyboardInterrupt
once the batch being measured comes back: the records committed before it
stay in the log (with resume=True a rerun continues from them), the rest of
that batch is dropped.

Policies ("evolutionary", "random", "annealing") and cost models ("xgb",
"random") are looked up by name; policy_names() / cost_model_names() list
them. Your own, in Python: subclass SearchPolicy (next_batch(n) -> list of
Candidates, optionally notify(outcomes)) or CostModel (update(X, y),
predict(X)), and pass the class as policy= / cost_model= (or register it
under a name with register_policy / register_cost_model). A policy's
constructor receives a SearchContext: sample / mutate / crossover points of
the space, is_fresh, schedule_key, predict (the cost model), task.

    class RandomPolicy(autotune.SearchPolicy):
        def __init__(self, ctx):
            super().__init__()
            self.ctx, self.rng = ctx, random.Random(ctx.seed)
        def next_batch(self, n):
            picked = {}
            for _ in range(20 * n):
                p = self.ctx.sample(seed=self.rng.getrandbits(64))
                if len(picked) < n and self.ctx.is_fresh(p):
                    picked.setdefault(self.ctx.schedule_key(p), p)
            return list(picked.values())

Measuring children inherit this process's kernel thread count, so tune()
sets it to the task's (tetune.set_num_threads), which fails with UsageError
once kernels ran here with another count: tune with the threads your kernels
run with (default: this machine's cores), or set it before the first run.
"""
from ._core.autotune import (
    Candidate,
    CostModel,
    Outcome,
    SearchContext,
    SearchPolicy,
    Task,
    TuneResult,
    cost_model_names,
    default_space_name,
    feature_names,
    make_cost_model,
    policy_names,
    register_cost_model,
    register_policy,
    space_names,
)
from ._core import autotune as _core_autotune

__all__ = [
    "Task", "tune", "TuneResult", "SearchPolicy", "CostModel", "SearchContext", "Candidate", "Outcome",
    "register_policy", "register_cost_model", "policy_names", "cost_model_names", "space_names",
    "default_space_name", "make_cost_model", "feature_names",
]


def _registered(plugin, register, base, what):
    """The registry name of plugin: a name as it is, a class registered under 'python:<module>.<qualname>'."""
    if isinstance(plugin, str):
        return plugin
    if not (isinstance(plugin, type) and issubclass(plugin, base)):
        raise TypeError(f"{what}: expected a registered name or a subclass of tetune.autotune.{base.__name__}, "
                        f"got {plugin!r}")
    name = f"python:{plugin.__module__}.{plugin.__qualname__}"
    register(name, plugin)
    return name


def tune(task, *, trials=64, policy="evolutionary", cost_model="xgb", db=None, threads=None, seed=0,
         space="", batch_size=16, resume=False, shipped_log=True, timeout_s=20.0, cache="warm",
         confirm=True, op_name="", progress=None):
    """Tunes task with the C++ tuner (autotune::tune) and returns a TuneResult.

    task: a Task, or the output tensor(s) of a compute (made into Task(outputs)).
    trials: records wanted for (workload, target) in db; with resume=True stored ones count and train
      the model. The last quarter at most re-measures the best schedules (confirm=False turns it off).
    policy / cost_model: a name of policy_names() / cost_model_names(), or a SearchPolicy / CostModel
      subclass (registered under 'python:<module>.<class>').
    db: the log written into: a SQLite path or a postgresql:// URI; None = the user's log ($TETUNE_DB,
      else ~/.cache/tetune/tetune.db). shipped_log: also read tetune's shipped log (read-only).
    threads: kernel threads (default task.threads); part of the target records are stored under.
    cache: what the caches hold when a timed run starts: "warm" (runs back to back), "cold" (inputs and
      outputs flushed) or "model" (the task's constant inputs flushed); ValueError-like TetuneError otherwise.
    progress: called after each record with a dict (trials_done, trials_total, best_gflops, errors,
      elapsed_s, eta_s, record); an exception it raises stops tuning and propagates.
    Returns TuneResult: best (tetune.log.Record or None), best_gflops, curve (NumPy), measured, errors,
    total_records, elapsed_s, target_key. Raises TetuneError subclasses for bad options or when the
    log or the measuring machinery fails (a failing candidate is a record, not an exception).
    """
    if not isinstance(task, Task):
        task = Task(task)
    policy = _registered(policy, register_policy, SearchPolicy, "policy")
    cost_model = _registered(cost_model, register_cost_model, CostModel, "cost_model")
    return _core_autotune.tune(task, trials=trials, policy=policy, cost_model=cost_model, space=space, db=db,
                               shipped_log=shipped_log, resume=resume, seed=seed, batch_size=batch_size,
                               timeout_s=timeout_s, cache=cache, confirm=confirm, threads=threads,
                               op_name=op_name, progress=progress)
