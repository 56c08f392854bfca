// examples/ocr preprocessing: shapes, normalisation, BGR order, padding,
// width cap / growth, resize values, PNG loading (gray, alpha over white).
#include <gtest/gtest.h>
#include <stb/stb_image_write.h>

#include <cmath>
#include <string>

#include "examples/ocr/preprocess.h"
#include "base/errors.h"
#include "tests/examples/test_util.h"

namespace tetune {
namespace ocr {
namespace {

Image solid(int w, int h, uint8_t r, uint8_t g, uint8_t b) {
  Image img;
  img.width = w;
  img.height = h;
  img.rgb.resize(static_cast<size_t>(w) * h * 3);
  for (size_t i = 0; i < static_cast<size_t>(w) * h; i++) {
    img.rgb[i * 3] = r;
    img.rgb[i * 3 + 1] = g;
    img.rgb[i * 3 + 2] = b;
  }
  return img;
}

float at(const NDArray &x, int c, int y, int xx) {
  const Shape &s = x.shape();
  return x.data<float>()[(static_cast<int64_t>(c) * s[2] + y) * s[3] + xx];
}

TEST(OcrPreprocess, ShapeWidthAndPadding) {
  Image img = solid(100, 50, 255, 255, 255);  // ratio 2 -> 96 px wide at height 48
  EXPECT_EQ(resized_width(img), 96);
  EXPECT_EQ(model_width(img), 320);
  NDArray x = preprocess(img);
  ASSERT_EQ(x.shape(), (Shape{1, 3, 48, 320}));
  EXPECT_EQ(x.dtype(), float32());
  for (int c = 0; c < 3; c++)
    for (int y = 0; y < 48; y++)
      for (int xx = 0; xx < 320; xx++) ASSERT_EQ(at(x, c, y, xx), xx < 96 ? 1.0f : 0.0f) << c << "," << y << "," << xx;
}

TEST(OcrPreprocess, CeilOfAspectWidth) {
  EXPECT_EQ(resized_width(solid(101, 50, 0, 0, 0)), 97);  // ceil(96.96)
  EXPECT_EQ(resized_width(solid(7, 48, 0, 0, 0)), 7);
  EXPECT_EQ(resized_width(solid(1, 1000, 0, 0, 0)), 1);   // at least one column
}

TEST(OcrPreprocess, NormalisationAndBgr) {
  NDArray x = preprocess(solid(48, 48, 255, 0, 51));  // R=255 G=0 B=51
  // channel 0 = B, 1 = G, 2 = R; (v/255 - 0.5)/0.5
  EXPECT_FLOAT_EQ(at(x, 0, 10, 10), static_cast<float>((51 / 255.0 - 0.5) / 0.5));
  EXPECT_FLOAT_EQ(at(x, 1, 10, 10), -1.0f);
  EXPECT_FLOAT_EQ(at(x, 2, 10, 10), 1.0f);
  PreprocessOptions rgb;
  rgb.bgr = false;
  NDArray y = preprocess(solid(48, 48, 255, 0, 51), rgb);
  EXPECT_FLOAT_EQ(at(y, 0, 10, 10), 1.0f);
  EXPECT_FLOAT_EQ(at(y, 2, 10, 10), static_cast<float>((51 / 255.0 - 0.5) / 0.5));
}

TEST(OcrPreprocess, IdentityResizeKeepsPixels) {
  // Height 48 and width < 320: scale 1, every pixel maps to itself.
  Image img = solid(60, 48, 0, 0, 0);
  for (int y = 0; y < 48; y++)
    for (int x = 0; x < 60; x++)
      for (int c = 0; c < 3; c++) img.rgb[(y * 60 + x) * 3 + c] = static_cast<uint8_t>((x * 4 + y + c * 7) % 256);
  NDArray t = preprocess(img);
  for (int y = 0; y < 48; y++)
    for (int x = 0; x < 60; x++)
      for (int c = 0; c < 3; c++)
        ASSERT_FLOAT_EQ(at(t, 2 - c, y, x), static_cast<float>((img.at(y, x, c) / 255.0 - 0.5) / 0.5));
}

TEST(OcrPreprocess, DownscaleByTwoAveragesPairs) {
  // 96x96 -> 48x48: half-pixel centres fall between source pixels 2i and 2i+1.
  Image img = solid(96, 96, 0, 0, 0);
  for (int y = 0; y < 96; y++)
    for (int x = 0; x < 96; x++)
      for (int c = 0; c < 3; c++) img.rgb[(y * 96 + x) * 3 + c] = static_cast<uint8_t>(x % 2 ? 200 : 100);
  NDArray t = preprocess(img);
  EXPECT_EQ(resized_width(img), 48);
  EXPECT_FLOAT_EQ(at(t, 1, 5, 7), static_cast<float>((150 / 255.0 - 0.5) / 0.5));
  EXPECT_EQ(at(t, 1, 5, 48), 0.0f);
}

TEST(OcrPreprocess, WideLineCappedOrGrown) {
  Image wide = solid(1000, 10, 0, 0, 0);  // ratio 100 -> 4800 px
  EXPECT_EQ(resized_width(wide), 320);
  NDArray x = preprocess(wide);
  EXPECT_EQ(x.shape(), (Shape{1, 3, 48, 320}));
  EXPECT_FLOAT_EQ(at(x, 0, 47, 319), -1.0f);  // no padding: squeezed to the full width
  PreprocessOptions grow;
  grow.grow_width = true;
  EXPECT_EQ(model_width(wide, grow), 4800);
  EXPECT_EQ(model_width(solid(301, 30, 0, 0, 0), grow), 488);  // ceil(481.6)=482 -> 488
  EXPECT_EQ(model_width(solid(10, 48, 0, 0, 0), grow), 320);
  PreprocessOptions w;
  w.width = 160;
  EXPECT_EQ(preprocess(solid(100, 50, 0, 0, 0), w).shape(), (Shape{1, 3, 48, 160}));
}

TEST(OcrPreprocess, Errors) {
  EXPECT_THROW(preprocess(Image()), ShapeError);
  Image bad = solid(4, 4, 0, 0, 0);
  bad.rgb.pop_back();
  EXPECT_THROW(preprocess(bad), ShapeError);
  PreprocessOptions zero;
  zero.width = 0;
  EXPECT_THROW(preprocess(solid(4, 4, 0, 0, 0), zero), ShapeError);
  std::string missing = examples_test::tmp_dir() + "/no_such_image.png";
  try {
    load_image(missing);
    FAIL() << "expected tetune::Error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  std::string junk = examples_test::tmp_dir() + "/junk.png";
  FILE *f = std::fopen(junk.c_str(), "wb");
  std::fputs("not a png", f);
  std::fclose(f);
  EXPECT_THROW(load_image(junk), Error);
}

TEST(OcrPreprocess, LoadsGrayAndAlphaPng) {
  std::string gray = examples_test::tmp_dir() + "/gray.png";
  unsigned char g[6] = {0, 50, 100, 150, 200, 255};
  ASSERT_TRUE(stbi_write_png(gray.c_str(), 3, 2, 1, g, 3));
  Image a = load_image(gray);
  ASSERT_EQ(a.width, 3);
  ASSERT_EQ(a.height, 2);
  for (int i = 0; i < 6; i++)
    for (int c = 0; c < 3; c++) EXPECT_EQ(a.at(i / 3, i % 3, c), g[i]);
  // RGBA: transparent -> white, opaque kept, half alpha blended with white.
  std::string rgba = examples_test::tmp_dir() + "/rgba.png";
  unsigned char p[12] = {0, 0, 0, 0, 10, 20, 30, 255, 0, 0, 0, 128};
  ASSERT_TRUE(stbi_write_png(rgba.c_str(), 3, 1, 4, p, 12));
  Image b = load_image(rgba);
  EXPECT_EQ(b.at(0, 0, 0), 255);
  EXPECT_EQ(b.at(0, 1, 0), 10);
  EXPECT_EQ(b.at(0, 1, 2), 30);
  EXPECT_EQ(b.at(0, 2, 1), 127);  // (0*128 + 255*127 + 127) / 255
}

TEST(OcrPreprocess, CommittedImagesLoad) {
  for (const char *name : {"tetune_2026", "hello_world", "bazel_build"}) {
    Image img = load_image(std::string("examples/ocr/images/") + name + ".png");
    EXPECT_GE(img.height, 48) << name;
    NDArray x = preprocess(img);
    EXPECT_EQ(x.shape(), (Shape{1, 3, 48, 320})) << name;
    // mostly white background, some dark ink
    int dark = 0;
    for (int i = 0; i < 48 * 320; i++) dark += x.data<float>()[i] < -0.5f;
    EXPECT_GT(dark, 100) << name;
  }
}

}  // namespace
}  // namespace ocr
}  // namespace tetune
