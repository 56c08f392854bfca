"""Schedules: how a compute is computed, as a replayable trace of primitives.

A Schedule(outputs) starts with one stage per compute tensor, each at root
with the loop order of its axes. Each primitive (split, tile, fuse, reorder,
vectorize, unroll, parallel, compute_at, compute_inline, compute_root,
cache_read, cache_write, pack_layout, reorder_storage, rfactor, bind) takes
the stage as its Tensor or its name and loop axes by name ("i", "i_o",
"i_i", "i_j_f"); schedule/schedule.h documents each. An illegal step raises
ScheduleError and leaves the schedule unchanged.

    s = Schedule(C)
    io, ii = s.split(C, "i", 32)
    s.trace_json()                         # the steps as JSON text
    Schedule.from_json(C, text)            # the same steps replayed on C
"""
from ._core import Schedule, Stage, LeafAxis

__all__ = ["Schedule", "Stage", "LeafAxis"]
