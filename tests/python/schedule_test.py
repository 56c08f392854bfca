"""tetune.Schedule: every primitive from Python, the trace as JSON and its replay."""
import copy

import numpy as np
import pytest

import tetune
from tetune import te

from conftest import assert_close, matmul


def run_matmul(s, A, B, rng):
    a = rng.standard_normal(A.shape).astype("float32")
    b = rng.standard_normal(B.shape).astype("float32")
    return tetune.build(s)(a, b), a.astype("float64") @ b.astype("float64")


def test_new_schedule_has_one_root_stage_per_compute():
    A, B, C = matmul(6, 5, 4)
    s = tetune.Schedule(C)
    assert [st.name for st in s.stages] == ["C"]
    st = s.stage(C)
    assert (st.loops, st.spatial_axes, st.reduce_axes, st.attach) == (["i", "j", "k"], ["i", "j"], ["k"], ("root", "", ""))
    assert s.inputs == [A, B] and s.outputs == [C]
    assert tetune.Schedule([C]).trace() == []


def test_tile_reorder_annotate_on_odd_shapes(rng):
    A, B, C = matmul(37, 29, 13)
    s = tetune.Schedule(C)
    assert s.tile(C, "i", "j", 8, 4) == ["i_o", "j_o", "i_i", "j_i"]
    s.reorder(C, ["i_o", "j_o", "k", "i_i", "j_i"])
    s.unroll(C, "i_i")
    s.vectorize(C, "j_i")
    s.parallel(C, "i_o")
    leaves = s.stage("C").leaves
    assert [(l.name, l.annotation) for l in leaves] == [
        ("i_o", "parallel"), ("j_o", ""), ("k", ""), ("i_i", "unroll"), ("j_i", "vectorize")]
    c, ref = run_matmul(s, A, B, rng)
    assert_close(c, ref)


def test_fuse_then_split(rng):
    A, B, C = matmul(11, 9, 6)
    s = tetune.Schedule(C)
    assert s.fuse(C, "i", "j") == "i_j_f"
    fo, fi = s.split(C, "i_j_f", 16)  # 99 = 6 * 16 + 3
    with pytest.raises(tetune.ScheduleError, match="tail"):
        s.copy().fuse(C, fo, fi)  # fusing the parts of a tailed split would lose the tail guard
    s.parallel(C, fo)
    assert s.stage(C).loops == ["i_j_f_o", "i_j_f_i", "k"]
    c, ref = run_matmul(s, A, B, rng)
    assert_close(c, ref)


def test_split_tail_strategies_and_nparts(rng):
    A, B, C = matmul(23, 21, 5)
    s = tetune.Schedule(C)
    assert s.split(C, "j", 8, tail="guard_with_if") == ("j_o", "j_i")
    assert s.split_nparts("C", "i", 3) == ("i_o", "i_i")
    assert s.stage(C).leaves[3].has_tail  # 21 = 2 * 8 + 5
    assert "guard_with_if" in s.trace()[0]
    c, ref = run_matmul(s, A, B, rng)
    assert_close(c, ref)
    with pytest.raises(tetune.ParseError, match="no_such_tail"):
        s.split(C, "k", 2, tail="no_such_tail")


def test_cache_write_cache_read_pack_layout_compute_at(rng):
    A, B, C = matmul(13, 24, 9)
    s = tetune.Schedule(C)
    local = s.cache_write(C)
    packed = s.cache_read(B, [local])
    assert (local, packed) == ("C.local", "B.cache")
    assert s.pack_layout(packed, "ax1", 4) == ("ax1_o", "ax1_i")
    io, _ = s.split(C, "i", 5)
    s.compute_at(local, C, io)
    s.compute_at(packed, local, "i")
    assert s.stage(local).attach == ("at", "C", "i_o")
    c, ref = run_matmul(s, A, B, rng)
    assert_close(c, ref)


def test_compute_inline_root_reorder_storage_rfactor(rng):
    X = te.placeholder((6, 40), name="X")
    Y = te.compute((6, 40), lambda i, j: X[i, j] * 2.0, name="Y")
    k = te.reduce_axis(40, name="k")
    Z = te.compute((6,), lambda i: te.sum(Y[i, k], axis=k), name="Z")
    s = tetune.Schedule(Z)
    s.compute_inline(Y)
    assert s.stage(Y).attach[0] == "inline"
    s.compute_root(Y)
    s.reorder_storage(Y, ["j", "i"])
    ko, _ = s.split(Z, "k", 8)
    rf = s.rfactor(Z, ko)
    assert rf == "Z.rf" and s.stage(rf).loops[0] == ko
    x = rng.standard_normal((6, 40)).astype("float32")
    assert_close(tetune.build(s)(x), (2.0 * x.astype("float64")).sum(axis=1))


def test_illegal_step_raises_schedule_error_and_changes_nothing():
    _, _, C = matmul(8, 8, 8)
    s = tetune.Schedule(C)
    s.split(C, "i", 4)
    before = s.trace_json()
    with pytest.raises(tetune.ScheduleError, match="no leaf axis 'nope'"):
        s.vectorize(C, "nope")
    with pytest.raises(tetune.ScheduleError):
        s.fuse(C, "i_i", "i_o")  # not outer-then-inner
    with pytest.raises(tetune.ScheduleError):
        s.stage("no_such_stage")
    assert s.trace_json() == before


def test_trace_json_round_trips_and_replays_to_the_same_kernel(rng):
    A, B, C = matmul(19, 33, 7)
    s = tetune.Schedule(C)
    s.split(C, "j", 8)
    s.reorder(C, ["i", "j_o", "k", "j_i"])
    s.vectorize(C, "j_i")
    s.parallel(C, "i")
    text = s.trace_json()
    # The same compute built afresh, with other names: the trace names tensors canonically.
    A2 = te.placeholder((19, 7), name="lhs")
    B2 = te.placeholder((7, 33), name="rhs")
    k = te.reduce_axis(7, name="k")
    C2 = te.compute((19, 33), lambda i, j: te.sum(A2[i, k] * B2[k, j], axis=k), name="out")
    r = tetune.Schedule.from_json(C2, text)
    assert r.trace_json() == text
    assert [st.loops for st in r.stages] == [st.loops for st in s.stages]
    a = rng.standard_normal((19, 7)).astype("float32")
    b = rng.standard_normal((7, 33)).astype("float32")
    np.testing.assert_array_equal(tetune.build(s)(a, b), tetune.build(r)(a, b))
    with pytest.raises(tetune.ParseError):
        tetune.Schedule.from_json(C2, '{"version": 2, "steps": [{"kind": "warp"}]}')
    # A compute with as many tensors but other axis names: the trace's steps do not apply.
    C3 = te.compute((19, 33), lambda p, q: te.sum(A2[p, k] * B2[k, q], axis=k), name="other")
    with pytest.raises(tetune.ScheduleError, match="has no axis 'j'"):
        tetune.Schedule.from_json(C3, text)


def test_copy_is_independent():
    _, _, C = matmul(8, 8, 8)
    s = tetune.Schedule(C)
    t = s.copy()
    u = copy.deepcopy(s)
    t.split(C, "i", 2)
    assert s.trace() == [] and u.trace() == [] and len(t.trace()) == 1
