#!/usr/bin/env bash
# Packs tetune's GPU tools with every shared library they load that a bare
# CUDA machine lacks (Halide 14, LLVM 14, z3, ONNX, XGBoost, ...) into
# OUT.tar.xz (default .gpu/tc.tar.xz, under 55 MB), for a GPU machine that has
# the NVIDIA driver and the CUDA 13 toolkit but not Debian's packages. There:
#   mkdir -p /tmp/tc && tar -xJf tc.tar.xz -C /tmp/tc
#   export LD_LIBRARY_PATH=/tmp/tc/lib TETUNE_MEASURE_RUNNER=/tmp/tc/bin/tetune_measure_runner
#   /tmp/tc/bin/gemm 4096; /tmp/tc/bin/conv; /tmp/tc/bin/tetune tune-op --target cuda ...
# libicudata (31 MB, only reached through libxml2's encodings, which LLVM's
# CUDA path never calls) is replaced by an empty stub so the bundle fits a
# 64 MB transfer.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
OUT=${1:-.gpu/tc.tar.xz}
TARGETS=(//bench/gpu:gemm //bench/gpu:conv //tools:tetune //runtime:tetune_measure_runner //runtime:tetune_run
         //tests/gpu:gpu_run_test //tests/gpu:gpu_export_test)
bazel build --symlink_prefix=.bazel/ "${TARGETS[@]}"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$(dirname "$OUT")"
for t in "${TARGETS[@]}"; do
  b=.bazel/bin/${t#//}; b=${b/://}
  cp -L "$b" "$stage/bin/"
  ldd "$b" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
    case $(basename "$lib") in
      libc.so*|libm.so*|libpthread*|libdl.so*|librt.so*|ld-linux*|libgcc_s*|libstdc++*|libcuda*|libcudart*|libcublas*|libcudnn*|libicudata*) ;;
      *) cp -L -n "$lib" "$stage/lib/" ;;
    esac
  done
done
echo 'char icudt72_dat[64];' > "$stage/stub.c"
gcc -shared -fPIC -Wl,-soname,libicudata.so.72 "$stage/stub.c" -o "$stage/lib/libicudata.so.72"
rm "$stage/stub.c"
tar -C "$stage" -cf - bin lib | xz -T2 -6 > "$OUT"
echo "wrote $OUT ($(du -h "$OUT" | cut -f1))"
