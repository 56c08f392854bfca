"""te.ops.registry() and build_op(): the operator registry of `tetune ops` (te/ops/registry.h) from Python.

Every entry builds for its example --shape, with as many inputs as its compute reads; a few of them
compile and match the reference interpreter. (//tests/te:op_registry_test checks every entry's kernel.)
"""
import numpy as np
import pytest

import tetune
from tetune import te

ENTRIES = te.ops.registry()


def test_registry_lists_the_operator_library():
    names = [e["name"] for e in ENTRIES]
    assert names == sorted(names) and len(set(names)) == len(names)
    assert len(names) >= 60
    # The first sixteen keep their names (tuning logs key records on them) and new families are there.
    for name in ("matmul", "conv2d", "conv2d_nchwc", "depthwise_conv2d", "softmax", "layer_norm", "relu",
                 "conv2d_transpose", "conv3d", "lstm_cell", "resize_linear", "topk", "quantize_linear"):
        assert name in names
    for e in ENTRIES:
        assert set(e) == {"name", "shape_help", "description", "example"}
        assert "ONNX" in e["description"], e["name"]


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_every_entry_builds_for_its_example(entry):
    shape = [int(d) for d in entry["example"].split(",")]
    inputs, outputs = te.ops.build_op(entry["name"], shape)
    assert outputs, entry["name"]
    assert len(tetune.Schedule(outputs).inputs) == len(inputs)


@pytest.mark.parametrize("name", ["conv2d", "softmax", "topk"])
def test_registered_ops_compile_and_match_the_interpreter(name, rng):
    entry = next(e for e in ENTRIES if e["name"] == name)
    inputs, outputs = te.ops.build_op(name, [int(d) for d in entry["example"].split(",")])
    data = [rng.uniform(-2, 2, t.shape).astype(t.dtype) for t in inputs]
    expected = te.evaluate(outputs, inputs, data)
    kernel = tetune.build(tetune.Schedule(outputs))
    by_name = {t.name: a for t, a in zip(inputs, data)}
    got = kernel(*[by_name[t["name"]] for t in kernel.inputs])
    got = got if isinstance(got, tuple) else (got,)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)


def test_bad_shapes_name_the_op():
    with pytest.raises(tetune.UsageError, match="op 'conv3d' expects --shape"):
        te.ops.build_op("conv3d", [1, 4, 6, 8])
    with pytest.raises(tetune.OpAttributeError, match="no_such_op"):
        te.ops.build_op("no_such_op", [4])
