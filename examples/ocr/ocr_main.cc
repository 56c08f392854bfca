// ocr: recognise the text of one text-line image with the PaddleOCR v4
// recognition model.
//
//   ocr --model models/ppocr/ch_PP-OCRv4_rec_infer.onnx --dict models/ppocr/ppocr_keys_v1.txt
//       --image examples/ocr/images/hello.png [--width 320] [--grow-width]
//       [--backend tetune|ort] [--ort-script tools/reference/run_reference.js]
//       [--threads N] [--dump-input x.npy] [--dump-output y.npy] [-v]
//
// Prints the recognised text on stdout (one line); -v adds the confidence,
// shapes and timings on stderr. --backend tetune (default) compiles the model
// with tetune's relay_import executor; --backend ort runs onnxruntime-node
// through tools/reference/run_reference.js (needs node and its node_modules).
#include <chrono>
#include <cstdio>
#include <string>

#include "examples/ocr/ctc_decode.h"
#include "examples/ocr/preprocess.h"
#include "examples/ocr/rec_model.h"
#include "runtime/io.h"
#include "base/errors.h"

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: ocr --model REC.onnx --dict KEYS.txt --image LINE.png [--width 320] [--grow-width]\n"
               "           [--backend tetune|ort | --compiled OUT/ (from tetune compile)] [--ort-script tools/reference/run_reference.js] [--threads N]\n"
               "           [--no-space-char] [--dump-input X.npy] [--dump-output Y.npy] [-v]\n");
  return 2;
}

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

int main(int argc, char **argv) {
  using namespace tetune;
  std::string model, dict_path, image, backend = "tetune", script = "tools/reference/run_reference.js";
  std::string dump_in, dump_out, compiled;
  ocr::PreprocessOptions po;
  int threads = 0;
  bool verbose = false, space = true;
  try {
    for (int i = 1; i < argc; i++) {
      std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw Error(a + ": missing value");
        return argv[++i];
      };
      if (a == "--model") model = value();
      else if (a == "--dict") dict_path = value();
      else if (a == "--image") image = value();
      else if (a == "--width") po.width = std::stoi(value());
      else if (a == "--grow-width") po.grow_width = true;
      else if (a == "--backend") backend = value();
      else if (a == "--compiled") compiled = value(), backend = "compiled";
      else if (a == "--ort-script") script = value();
      else if (a == "--threads") threads = std::stoi(value());
      else if (a == "--no-space-char") space = false;
      else if (a == "--dump-input") dump_in = value();
      else if (a == "--dump-output") dump_out = value();
      else if (a == "-v" || a == "--verbose") verbose = true;
      else if (a == "-h" || a == "--help") return usage(), 0;
      else { std::fprintf(stderr, "ocr: unknown argument %s\n", a.c_str()); return usage(); }
    }
    if ((model.empty() && compiled.empty()) || dict_path.empty() || image.empty()) return usage();
    if (po.width <= 0 || po.width % 8 != 0) throw Error("--width " + std::to_string(po.width) + ": must be a positive multiple of 8");
    if (backend != "tetune" && backend != "ort" && backend != "compiled")
      throw Error("--backend " + backend + ": expected tetune, ort or compiled (with --compiled DIR)");

    ocr::CharDict dict = ocr::load_dict(dict_path, space);
    ocr::Image img = ocr::load_image(image);
    NDArray x = ocr::preprocess(img, po);
    if (!dump_in.empty()) rt::write_npy_file(dump_in, x);
    double t0 = now_s();
    std::unique_ptr<ocr::RecognitionModel> m =
        backend == "compiled" ? ocr::make_compiled_model(compiled, threads)
        : backend == "tetune" ? ocr::make_tetune_model(model, static_cast<int>(x.shape()[3]), threads)
                              : ocr::make_ort_model(model, script);
    double t1 = now_s();
    NDArray y = m->run(x);
    double t2 = now_s();
    if (!dump_out.empty()) rt::write_npy_file(dump_out, y);
    ocr::CtcResult r = ocr::ctc_greedy_decode(y, dict);
    std::printf("%s\n", r.text.c_str());
    if (verbose)
      std::fprintf(stderr,
                   "image %s %dx%d -> x [1,3,%d,%lld] (line %d px wide), backend %s: prepare %.2fs, run %.1f ms, "
                   "output [%lld,%lld,%lld], %zu characters, confidence %.4f\n",
                   image.c_str(), img.width, img.height, po.height, static_cast<long long>(x.shape()[3]),
                   ocr::resized_width(img, po), m->name().c_str(), t1 - t0, (t2 - t1) * 1e3,
                   static_cast<long long>(y.shape()[0]), static_cast<long long>(y.shape()[1]),
                   static_cast<long long>(y.shape()[2]), r.classes.size(), r.confidence);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "ocr: %s\n", e.what());
    return 1;
  }
  return 0;
}
