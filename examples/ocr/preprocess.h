// PaddleOCR text-recognition preprocessing (ppocr/.../predict_rec.py
// resize_norm_img) for one text-line image.
//
//   Image img = load_image("line.png");              // RGB, 8 bit
//   NDArray x = preprocess(img);                      // [1, 3, 48, 320] float32
//
// Steps: channel order RGB -> BGR (PaddleOCR reads with cv2, which gives BGR,
// and feeds BGR to the model); resize to height 48 keeping the aspect ratio,
// resized_w = ceil(48 * w / h) capped at the model width (bilinear with
// half-pixel centres like cv2.INTER_LINEAR, rounded back to 8 bit as cv2 does
// for uint8 images); v / 255, (v - 0.5) / 0.5; CHW; right-padded with zeros
// to the model width.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/ndarray.h"

namespace tetune {
namespace ocr {

/** An 8-bit RGB image, row-major, interleaved (h * w * 3 bytes). */
struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;
  uint8_t at(int y, int x, int c) const { return rgb[(static_cast<size_t>(y) * width + x) * 3 + c]; }
};

/**
 * Loads a PNG / JPEG / BMP (anything stb_image reads) as RGB; gray is
 * expanded, alpha is composited over white. Raises tetune::Error naming the
 * file when it cannot be read or decoded.
 */
Image load_image(const std::string &path);

struct PreprocessOptions {
  int height = 48;            // model input height (the rec model wants 48)
  int width = 320;            // model input width: the resized line is capped at it and padded to it
  /**
   * PaddleOCR's predict_rec widens the batch to the line's aspect ratio
   * instead of squeezing a long line: with this set, the output width is
   * max(width, ceil(height * w / h)) rounded up to a multiple of 8.
   */
  bool grow_width = false;
  bool bgr = true;            // swap RGB -> BGR as PaddleOCR does
};

/** Width (in pixels) the line occupies after resizing, before padding. */
int resized_width(const Image &img, const PreprocessOptions &opt = PreprocessOptions());
/** Model input width for this image (opt.width, or wider with grow_width). */
int model_width(const Image &img, const PreprocessOptions &opt = PreprocessOptions());

/** [1, 3, height, model_width] float32 in [-1, 1], zero padded on the right. ShapeError for an empty image or bad options. */
NDArray preprocess(const Image &img, const PreprocessOptions &opt = PreprocessOptions());

}  // namespace ocr
}  // namespace tetune
