#include "examples/ocr/preprocess.h"

#include <stb/stb_image.h>

#include <algorithm>
#include <cmath>

#include "base/errors.h"

namespace tetune {
namespace ocr {

Image load_image(const std::string &path) {
  int w = 0, h = 0, n = 0;
  unsigned char *p = stbi_load(path.c_str(), &w, &h, &n, 4);
  if (!p) {
    const char *why = stbi_failure_reason();
    throw Error(path + ": cannot load image (" + (why ? why : "unknown error") + ")");
  }
  Image img;
  img.width = w;
  img.height = h;
  img.rgb.resize(static_cast<size_t>(w) * h * 3);
  for (size_t i = 0; i < static_cast<size_t>(w) * h; i++) {
    int a = p[i * 4 + 3];
    for (int c = 0; c < 3; c++)  // over white
      img.rgb[i * 3 + c] = static_cast<uint8_t>((p[i * 4 + c] * a + 255 * (255 - a) + 127) / 255);
  }
  stbi_image_free(p);
  return img;
}

namespace {

void check(const Image &img, const PreprocessOptions &opt) {
  if (img.width <= 0 || img.height <= 0)
    throw ShapeError("ocr::preprocess: empty image (" + std::to_string(img.width) + "x" + std::to_string(img.height) + ")");
  if (img.rgb.size() != static_cast<size_t>(img.width) * img.height * 3)
    throw ShapeError("ocr::preprocess: image buffer holds " + std::to_string(img.rgb.size()) + " bytes, expected " +
                     std::to_string(static_cast<size_t>(img.width) * img.height * 3));
  if (opt.height <= 0 || opt.width <= 0)
    throw ShapeError("ocr::preprocess: model size " + std::to_string(opt.height) + "x" + std::to_string(opt.width) +
                     " must be positive");
}

int natural_width(const Image &img, const PreprocessOptions &opt) {
  // PaddleOCR: math.ceil(imgH * ratio) with ratio = w / float(h)
  return static_cast<int>(std::ceil(opt.height * (static_cast<double>(img.width) / img.height)));
}

}  // namespace

int model_width(const Image &img, const PreprocessOptions &opt) {
  check(img, opt);
  if (!opt.grow_width) return opt.width;
  int w = std::max(opt.width, natural_width(img, opt));
  return (w + 7) / 8 * 8;
}

int resized_width(const Image &img, const PreprocessOptions &opt) {
  return std::max(1, std::min(natural_width(img, opt), model_width(img, opt)));
}

NDArray preprocess(const Image &img, const PreprocessOptions &opt) {
  const int H = opt.height, W = model_width(img, opt), rw = resized_width(img, opt);
  NDArray out({1, 3, H, W}, float32());  // zero = the padding value
  float *o = out.data<float>();
  const double sy = static_cast<double>(img.height) / H, sx = static_cast<double>(img.width) / rw;
  for (int y = 0; y < H; y++) {
    double fy = (y + 0.5) * sy - 0.5;
    int y0 = static_cast<int>(std::floor(fy));
    double wy = fy - y0;
    int ya = std::clamp(y0, 0, img.height - 1), yb = std::clamp(y0 + 1, 0, img.height - 1);
    for (int x = 0; x < rw; x++) {
      double fx = (x + 0.5) * sx - 0.5;
      int x0 = static_cast<int>(std::floor(fx));
      double wx = fx - x0;
      int xa = std::clamp(x0, 0, img.width - 1), xb = std::clamp(x0 + 1, 0, img.width - 1);
      for (int c = 0; c < 3; c++) {
        double v = (1 - wy) * ((1 - wx) * img.at(ya, xa, c) + wx * img.at(ya, xb, c)) +
                   wy * ((1 - wx) * img.at(yb, xa, c) + wx * img.at(yb, xb, c));
        v = std::clamp(std::round(v), 0.0, 255.0);  // cv2.resize keeps uint8
        int oc = opt.bgr ? 2 - c : c;
        o[(static_cast<size_t>(oc) * H + y) * W + x] = static_cast<float>((v / 255.0 - 0.5) / 0.5);
      }
    }
  }
  return out;
}

}  // namespace ocr
}  // namespace tetune
