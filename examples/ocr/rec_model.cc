#include "examples/ocr/rec_model.h"

#include "runtime/model.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "codegen/kernel.h"
#include "relay_import/executor.h"
#include "runtime/io.h"
#include "relay_import/onnx_importer.h"
#include "base/errors.h"

namespace tetune {
namespace ocr {

namespace {

std::string shape_str(const Shape &s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); i++) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

class TetuneRecModel : public RecognitionModel {
 public:
  TetuneRecModel(const std::string &path, int width, int threads) : path_(path), width_(width) {
    if (threads > 0) set_num_threads(threads);
    relay::ImportOptions io;
    io.input_shapes["x"] = {1, 3, 48, width};
    relay::CompileOptions co;
    if (threads > 0) co.threads = threads;
    model_ = relay::compile_model(relay::import_onnx(path, io), co);
  }
  NDArray run(const NDArray &x) override {
    Shape want = {1, 3, 48, width_};
    if (x.shape() != want)
      throw ShapeError("tetune rec model " + path_ + ": input x is " + shape_str(x.shape()) + ", compiled for " +
                       shape_str(want));
    std::vector<NDArray> y = model_.run({x});
    if (y.size() != 1) throw RuntimeError("tetune rec model " + path_ + ": expected 1 output, got " + std::to_string(y.size()));
    return std::move(y[0]);
  }
  std::string name() const override { return "tetune"; }

 private:
  std::string path_;
  int width_;
  relay::CompiledModel model_;
};

std::string quote(const std::string &s) {
  std::string r = "'";
  for (char c : s) r += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return r + "'";
}

std::string slurp(const std::string &path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

class OrtReferenceModel : public RecognitionModel {
 public:
  OrtReferenceModel(const std::string &path, const std::string &script, const std::string &work_dir)
      : path_(path), script_(script), dir_(work_dir) {
    struct stat st;
    if (::stat(script.c_str(), &st) != 0) throw Error(script + ": onnxruntime reference script not found");
    if (::stat(path.c_str(), &st) != 0) throw Error(path + ": model file not found");
    if (dir_.empty()) {
      const char *t = getenv("TEST_TMPDIR");
      if (!t) t = getenv("TMPDIR");
      std::string tmpl = std::string(t ? t : "/tmp") + "/ocr_ort_XXXXXX";
      std::vector<char> buf(tmpl.begin(), tmpl.end());
      buf.push_back(0);
      if (!mkdtemp(buf.data())) throw Error(tmpl + ": cannot create scratch directory");
      dir_ = buf.data();
    } else {
      ::mkdir(dir_.c_str(), 0755);
    }
  }
  NDArray run(const NDArray &x) override {
    std::string in = dir_ + "/in.npy", log = dir_ + "/node.log", json = dir_ + "/ref.json";
    std::remove(json.c_str());
    rt::write_npy_file(in, x);
    std::string cmd = "node " + quote(script_) + " --model " + quote(path_) + " --input x=" + quote(in) +
                      " --output-dir " + quote(dir_) + " --threads 1 >" + quote(json) + " 2>" +
                      quote(log);
    int rc = std::system(cmd.c_str());
    if (rc != 0) throw Error("onnxruntime reference (" + script_ + ") failed on " + path_ + ": " + slurp(log));
    // {"model":..,"outputs":[{"name":..,"shape":..,"dtype":..,"file":"DIR/NAME.npy"}]}: the first output's file
    std::string j = slurp(json), key = "\"file\":\"";
    size_t a = j.find(key);
    size_t b = a == std::string::npos ? a : j.find('"', a + key.size());
    if (b == std::string::npos) throw Error(json + ": no output file in onnxruntime reference result: " + j);
    return rt::read_npy_file(j.substr(a + key.size(), b - a - key.size()));
  }
  std::string name() const override { return "onnxruntime"; }

 private:
  std::string path_, script_, dir_;
};

}  // namespace

std::unique_ptr<RecognitionModel> make_tetune_model(const std::string &onnx_path, int width, int threads) {
  return std::make_unique<TetuneRecModel>(onnx_path, width, threads);
}

std::unique_ptr<RecognitionModel> make_ort_model(const std::string &onnx_path, const std::string &script,
                                                 const std::string &work_dir) {
  return std::make_unique<OrtReferenceModel>(onnx_path, script, work_dir);
}

namespace {
class CompiledRecModel : public RecognitionModel {
 public:
  CompiledRecModel(const std::string &dir, int threads) : model_(rt::Model::load(dir)), dir_(dir) {
    if (threads > 0) model_->set_num_threads(threads);
  }
  NDArray run(const NDArray &x) override { return model_->run(std::vector<NDArray>{x}).at(0); }
  std::string name() const override { return "tetune compiled (" + dir_ + ")"; }

 private:
  std::unique_ptr<rt::Model> model_;
  std::string dir_;
};
}  // namespace

std::unique_ptr<RecognitionModel> make_compiled_model(const std::string &dir, int threads) {
  return std::make_unique<CompiledRecModel>(dir, threads);
}

}  // namespace ocr
}  // namespace tetune
