// The PyTorch model zoo (bench/zoo/export_zoo.py writes models/zoo/): one
// table shared by the zoo test and `bazel run //bench:models`, so that both
// look at the same files, inputs and outputs. Keep it in step with ZOO in
// export_zoo.py.
#pragma once

#include <string>
#include <vector>

namespace tetune {
namespace zoo {

struct ZooModel {
  /** models/zoo/<name>.onnx; its one input is models/zoo/<name>.<input>.npy (seeded by the export). */
  std::string name;
  std::string input;
  /** The graph outputs, in order (onnxruntime writes <output>.npy). */
  std::vector<std::string> outputs;
  /**
   * Small enough for CI (2 cores, the whole suite in well under 90 min): the
   * test target zoo_models_test runs these; the others run in
   * zoo_models_big_test (tag manual) and `bazel run //bench:models`.
   */
  bool small;
  /** Why a big model is left out of CI. */
  std::string big_reason;
  /** Timed runs in bench/models (fewer for slow models). */
  int bench_repeat;
};

/**
 * Measured on 2 Zen 4 cores: export 16-19 s each, test (compile, onnxruntime,
 * two runs) ~9 s each; but the .onnx files are 346 and 434 MB, and export and
 * test each hold the weights several times over.
 */
constexpr const char *kBigReason =
    "fp32 weights of 346 MB (ViT-B/16) / 434 MB (BERT-base): ~0.8 GB written by the export and several GB of memory "
    "at peak, more than a fresh CI machine should be asked for";

/** The zoo, smallest first. */
inline const std::vector<ZooModel> &zoo_models() {
  static const std::vector<ZooModel> m = {
      {"yolo_nms", "x", {"boxes", "scores", "labels"}, true, "", 50},
      {"lstm_speech", "features", {"log_probs"}, true, "", 100},
      {"squeezenet1_0", "x", {"logits"}, true, "", 50},
      {"shufflenet_v2", "x", {"logits"}, true, "", 50},
      {"regnet_y_400mf", "x", {"logits"}, true, "", 50},
      {"mobilenet_v3_large", "x", {"logits"}, true, "", 50},
      {"efficientnet_b0", "x", {"logits"}, true, "", 30},
      {"googlenet", "x", {"logits"}, true, "", 20},
      {"densenet121", "x", {"logits"}, true, "", 10},
      {"resnet50", "x", {"logits"}, true, "", 10},
      {"resnext50_32x4d", "x", {"logits"}, true, "", 10},
      {"swin_t", "x", {"logits"}, true, "", 10},
      {"convnext_tiny", "x", {"logits"}, true, "", 10},
      {"vit_b_16", "x", {"logits"}, false, kBigReason, 5},
      {"bert_base", "input_ids", {"hidden"}, false, kBigReason, 5},
  };
  return m;
}

}  // namespace zoo
}  // namespace tetune
