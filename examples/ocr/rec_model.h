// Running the PaddleOCR recognition model: one small interface, two backends.
//
//   auto m = make_tetune_model("models/ppocr/ch_PP-OCRv4_rec_infer.onnx", 320);
//   NDArray probs = m->run(x);     // x [1,3,48,W] -> [1, W/8, 6625]
//
// TetuneRecModel imports the ONNX file with relay_import, specialised to input
// x = [1, 3, 48, width], and compiles it with the default (untuned)
// schedules; run() raises ShapeError for another input shape.
// OrtReferenceModel runs the same file with onnxruntime-node through
// tools/reference/run_reference.js (writes x as .npy to a scratch directory,
// calls node via std::system, reads the output .npy back) — the reference
// path used to check preprocessing and decoding independently of tetune.
#pragma once

#include <memory>
#include <string>

#include "base/ndarray.h"

namespace tetune {
namespace ocr {

class RecognitionModel {
 public:
  virtual ~RecognitionModel() = default;
  /** x: float32 [1, 3, 48, W] -> softmax probabilities float32 [1, T, C]. */
  virtual NDArray run(const NDArray &x) = 0;
  virtual std::string name() const = 0;
};

/** Import + compile with tetune. threads > 0 sets the JIT worker count. Raises tetune::Error on failure. */
std::unique_ptr<RecognitionModel> make_tetune_model(const std::string &onnx_path, int width, int threads = 0);

/**
 * A model exported by `tetune compile` (OUT/ with libmodel.so, graph.bin,
 * weights.bin), run by the compiler-free runtime (runtime/model.h). Its input
 * width is fixed at export; run() raises ShapeError for another shape.
 */
std::unique_ptr<RecognitionModel> make_compiled_model(const std::string &dir, int threads = 0);

/**
 * onnxruntime-node via `node <script> --model M --input x=in.npy --output-dir D`.
 * script = tools/reference/run_reference.js; work_dir receives in.npy and the
 * output (default: a fresh directory under $TMPDIR). Raises tetune::Error
 * (with node's stderr) when node fails.
 */
std::unique_ptr<RecognitionModel> make_ort_model(const std::string &onnx_path, const std::string &script,
                                                 const std::string &work_dir = "");

}  // namespace ocr
}  // namespace tetune
