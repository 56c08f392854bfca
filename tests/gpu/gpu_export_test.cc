// CUDA exports run by the compiler-free runtime: the device-resident run
// (weights, buffers and inputs on the GPU, one download per output) must give
// the CPU export's outputs, also on a second run with other inputs (the
// inputs are uploaded again, nothing stale is reused). Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "base/ndarray.h"
#include "relay_import/export/export.h"
#include "relay_import/onnx_importer.h"
#include "runtime/model.h"
#include "tests/gpu/gpu_test_util.h"

namespace tetune {
namespace {

// libonnx-testdata's models ($ONNX_TESTDATA_DIR overrides, for a GPU machine without the package).
std::string data_dir() {
  const char *d = std::getenv("ONNX_TESTDATA_DIR");
  return d ? std::string(d) + "/" : "/usr/share/libonnx-testdata/data/";
}

std::unique_ptr<rt::Model> exported(const std::string &model, const std::string &dir, bool gpu) {
  relay::ExportOptions eo;
  if (gpu) eo.compile.target = Target{"cuda"};
  relay::export_model(relay::import_onnx(data_dir() + model, relay::ImportOptions()), dir, eo);
  return rt::Model::load(dir);
}

TEST(GpuExport, DeviceResidentRunsMatchTheCpuExport) {
  SKIP_WITHOUT_GPU();
  for (const std::string model : {"pytorch-converted/test_Conv2d/model.onnx", "pytorch-converted/test_BatchNorm2d_eval/model.onnx",
                                  "node/test_softmax_axis_1/model.onnx"}) {
    SCOPED_TRACE(model);
    std::string tag = std::to_string(std::hash<std::string>()(model));
    auto cpu = exported(model, gputest::out_dir("export_cpu_" + tag), false);
    auto gpu = exported(model, gputest::out_dir("export_gpu_" + tag), true);
    for (uint64_t seed : {1, 2}) {
      std::vector<NDArray> in;
      for (size_t i = 0; i < cpu->input_names().size(); i++) in.push_back(NDArray::random(cpu->input_shape(i), float32(), seed * 10 + i));
      std::vector<NDArray> want = cpu->run(in), got = gpu->run(in);
      ASSERT_EQ(got.size(), want.size());
      for (size_t k = 0; k < got.size(); k++)
        EXPECT_LE(scaled_max_error(got[k], want[k]), 1e-5) << "output " << k << ", inputs of seed " << seed;
    }
  }
}

}  // namespace
}  // namespace tetune
