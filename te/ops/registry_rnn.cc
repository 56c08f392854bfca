// Registry entries: one time step of the ONNX recurrent ops (te/ops/rnn.h), with
// ONNX's default activations, no clipping or peepholes: the per-step task
// relay_import/lowering_rnn.cc unrolls a recurrent node into.
#include "te/ops/registry_families.h"
#include "te/ops/rnn.h"

namespace tetune {
namespace ops {
namespace registry_detail {

std::vector<OpEntry> rnn_entries() {
  return {
      {"rnn_cell", "B,H", "H_t = tanh(xw + h rt), xw [B,H], h [B,H], rt [H,H] (one step of ONNX RNN)", "4,16",
       [](const Dims &s) {
         Tensor xw = input({s[0], s[1]}, "xw"), h = input({s[0], s[1]}, "h"), rt = input({s[1], s[1]}, "rt");
         return OpWorkload{{xw, h, rt}, {rnn_cell(xw, h, rt, rnn_activation("Tanh"), 0)}, {rt}};
       }},
      {"lstm_cell", "B,H",
       "H_t, C_t of gates i, o, f, c from xw [B,4H] + h [B,H] rt [H,4H], cell c [B,H] (one step of ONNX LSTM)", "4,16",
       [](const Dims &s) {
         int64_t B = s[0], H = s[1];
         Tensor xw = input({B, 4 * H}, "xw"), h = input({B, H}, "h"), c = input({B, H}, "c");
         Tensor rt = input({H, 4 * H}, "rt");
         std::vector<RnnActivation> acts = {rnn_activation("Sigmoid"), rnn_activation("Tanh"), rnn_activation("Tanh")};
         return OpWorkload{{xw, h, c, rt}, lstm_cell(xw, h, c, rt, Tensor(), acts, 0), {rt}};
       }},
      {"gru_cell", "B,H",
       "H_t of gates z, r, h from xw [B,3H] + h [B,H] rt [H,3H], linear_before_reset 0 (one step of ONNX GRU)",
       "4,16",
       [](const Dims &s) {
         int64_t B = s[0], H = s[1];
         Tensor xw = input({B, 3 * H}, "xw"), h = input({B, H}, "h"), rt = input({H, 3 * H}, "rt");
         std::vector<RnnActivation> acts = {rnn_activation("Sigmoid"), rnn_activation("Tanh")};
         return OpWorkload{{xw, h, rt}, {gru_cell(xw, h, rt, Tensor(), acts, 0, false)}, {rt}};
       }},
  };
}

}  // namespace registry_detail
}  // namespace ops
}  // namespace tetune
