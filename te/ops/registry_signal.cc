// Registry entries: signal processing and small linear algebra (te/ops/dft.h, det.h).
// Complex values have a trailing axis of 2 (real, imaginary), real ones of 1.
#include "te/ops/det.h"
#include "te/ops/dft.h"
#include "te/ops/registry_families.h"

namespace tetune {
namespace ops {
namespace registry_detail {

std::vector<OpEntry> signal_entries() {
  return {
      {"dft", "B,N", "DFT of N real samples x [B,N,1] -> [B,N,2] complex, direct O(N^2) sum (ONNX DFT, axis 1)",
       "2,16",
       [](const Dims &s) {
         Tensor x = input({s[0], s[1], 1}, "x");
         return OpWorkload{{x}, {dft(x, 1, s[1], false, false)}};
       }},
      {"stft", "B,L,frame,step",
       "short-time Fourier transform of signal [B,L,1] with window [frame] -> [B,F,frame/2+1,2] (ONNX STFT, onesided)",
       "1,64,16,8",
       [](const Dims &s) {
         Tensor x = input({s[0], s[1], 1}, "signal"), w = input({s[2]}, "window");
         return OpWorkload{{x, w}, {stft(x, s[3], w, s[2], true)}};
       }},
      {"det", "B,M", "determinants of B matrices [B,M,M], M <= 3, by cofactors (ONNX Det)", "5,3",
       [](const Dims &s) {
         Tensor x = input({s[0], s[1], s[1]}, "x");
         return OpWorkload{{x}, {det_small(x)}};
       }},
  };
}

}  // namespace registry_detail
}  // namespace ops
}  // namespace tetune
