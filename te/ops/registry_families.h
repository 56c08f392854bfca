// The operator registry's entries by family (internal to te/ops/registry*.cc):
// each registry_<family>.cc returns its entries, registry.cc joins and sorts them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "te/ops/registry.h"

namespace tetune {
namespace ops {
namespace registry_detail {

using Dims = std::vector<int64_t>;

/** d[from, from + n). */
Dims take(const Dims &d, size_t from, size_t n);
/** d[i] when the shape gave it (an optional trailing number), else fallback. */
int64_t opt(const Dims &d, size_t i, int64_t fallback);
/** A float32 placeholder. */
Tensor input(const Dims &shape, const std::string &name);

std::vector<OpEntry> matmul_entries();       // registry_matmul.cc
std::vector<OpEntry> conv_entries();         // registry_conv.cc
std::vector<OpEntry> pool_entries();         // registry_pool.cc
std::vector<OpEntry> elementwise_entries();  // registry_elementwise.cc
std::vector<OpEntry> reduce_norm_entries();  // registry_reduce.cc: reductions, softmax, normalisation, scans
std::vector<OpEntry> transform_entries();    // registry_transform.cc: data movement, resampling
std::vector<OpEntry> signal_entries();       // registry_signal.cc: DFT, STFT, Det
std::vector<OpEntry> quant_entries();        // registry_quant.cc: (de)quantization, integer products
std::vector<OpEntry> rnn_entries();          // registry_rnn.cc: one step of RNN / LSTM / GRU

}  // namespace registry_detail
}  // namespace ops
}  // namespace tetune
