"""Compiling a schedule into a kernel called on NumPy arrays.

build(schedule, target="host") JIT-compiles with Halide for this CPU: "host"
is the target codegen/host_target.h derives from CPUID (never Halide's own
CPU-model guess, which is wrong on AMD Zen 4); host_target() shows it.

A Kernel is called with one C-contiguous NumPy array per input, in
Schedule.inputs order, of the input's exact dtype and shape, and returns
the output (a tuple when there are several). Arrays are used in place, not
copied: a wrong dtype or shape, a non-contiguous view or a read-only out=
array raises KernelRuntimeError naming the argument. Kernels assume only
element alignment of a pointer, so any NumPy array is used as it is; a view
whose data is not even aligned to its element size is copied into an
aligned array (inputs) or refused (out=). Arrays the kernel allocates
(outputs without out=) are 64-byte aligned.

    f = build(s)
    c = f(a, b)                   # new output array
    f(a, b, out=c)                # into c
    f.time(a, b, repeat=50)       # median milliseconds
    print(f.lower())              # Halide's lowered loop nest
"""
from ._core import Kernel, build, host_target, set_num_threads, num_threads, flop_count

__all__ = ["Kernel", "build", "lower", "host_target", "set_num_threads", "num_threads", "flop_count"]


def lower(schedule, target="host"):
    """The lowered loop nest of schedule as Halide pseudo-code (compiles it: 0.1-0.3 s)."""
    return build(schedule, target=target).lower()
