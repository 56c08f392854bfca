// render_text: draws one line of text (black on white, anti-aliased) into a
// grayscale PNG with stb_truetype. Used to make the OCR example's test images.
//
//   render_text --text "Hello World" --out hello.png
//               [--font /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf]
//               [--size 40] [--margin 8] [--vpad 8]
//
// --size is the font's pixel height (ascent - descent), --margin the white
// space left and right of the text, --vpad the space above and below; the
// image height is size + 2*vpad (at least 48). Text is UTF-8; a codepoint the
// font has no glyph for is an error (DejaVuSans has no CJK).
#include <stb/stb_image_write.h>
#include <stb/stb_truetype.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

std::vector<int> utf8_codepoints(const std::string &s) {
  std::vector<int> out;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int cp, n;
    if (c < 0x80) { cp = c; n = 1; }
    else if ((c >> 5) == 6) { cp = c & 0x1f; n = 2; }
    else if ((c >> 4) == 14) { cp = c & 0x0f; n = 3; }
    else if ((c >> 3) == 30) { cp = c & 0x07; n = 4; }
    else throw std::runtime_error("--text: invalid UTF-8 at byte " + std::to_string(i));
    if (i + n > s.size()) throw std::runtime_error("--text: truncated UTF-8 at byte " + std::to_string(i));
    for (int k = 1; k < n; k++) {
      unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d >> 6) != 2) throw std::runtime_error("--text: invalid UTF-8 at byte " + std::to_string(i + k));
      cp = (cp << 6) | (d & 0x3f);
    }
    out.push_back(cp);
    i += n;
  }
  return out;
}

int usage() {
  std::fprintf(stderr,
               "usage: render_text --text TEXT --out OUT.png [--font FONT.ttf] [--size PX] [--margin PX] [--vpad PX]\n");
  return 2;
}

}  // namespace

int main(int argc, char **argv) {
  std::string text, out, font_path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  float size = 40;
  int margin = 8, vpad = 8;
  try {
    for (int i = 1; i < argc; i++) {
      std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw std::runtime_error(a + ": missing value");
        return argv[++i];
      };
      if (a == "--text") text = value();
      else if (a == "--out") out = value();
      else if (a == "--font") font_path = value();
      else if (a == "--size") size = std::stof(value());
      else if (a == "--margin") margin = std::stoi(value());
      else if (a == "--vpad") vpad = std::stoi(value());
      else if (a == "-h" || a == "--help") return usage(), 0;
      else { std::fprintf(stderr, "render_text: unknown argument %s\n", a.c_str()); return usage(); }
    }
    if (text.empty() || out.empty()) return usage();
    if (size < 8 || size > 512) throw std::runtime_error("--size must be in [8, 512]");
    if (margin < 0 || vpad < 0) throw std::runtime_error("--margin / --vpad must be >= 0");

    std::ifstream f(font_path, std::ios::binary);
    if (!f) throw std::runtime_error(font_path + ": cannot open font");
    std::vector<unsigned char> ttf((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    stbtt_fontinfo font;
    if (ttf.empty() || !stbtt_InitFont(&font, ttf.data(), stbtt_GetFontOffsetForIndex(ttf.data(), 0)))
      throw std::runtime_error(font_path + ": not a TrueType font");

    std::vector<int> cps = utf8_codepoints(text);
    for (int cp : cps)
      if (cp != ' ' && stbtt_FindGlyphIndex(&font, cp) == 0)
        throw std::runtime_error(font_path + ": no glyph for U+" + [&] {
          char b[16];
          std::snprintf(b, sizeof b, "%04X", cp);
          return std::string(b);
        }());

    float scale = stbtt_ScaleForPixelHeight(&font, size);
    int ascent, descent, gap;
    stbtt_GetFontVMetrics(&font, &ascent, &descent, &gap);
    // Pen positions (float, for sub-pixel placement) with kerning.
    std::vector<float> pen(cps.size());
    float x = 0;
    for (size_t i = 0; i < cps.size(); i++) {
      pen[i] = x;
      int adv, lsb;
      stbtt_GetCodepointHMetrics(&font, cps[i], &adv, &lsb);
      x += adv * scale;
      if (i + 1 < cps.size()) x += scale * stbtt_GetCodepointKernAdvance(&font, cps[i], cps[i + 1]);
    }
    int text_w = static_cast<int>(std::ceil(x));
    int W = text_w + 2 * margin;
    int H = std::max(48, static_cast<int>(std::ceil((ascent - descent) * scale)) + 2 * vpad);
    int baseline = (H - static_cast<int>(std::lround((ascent - descent) * scale))) / 2 +
                   static_cast<int>(std::lround(ascent * scale));

    std::vector<unsigned char> ink(static_cast<size_t>(W) * H, 0);  // coverage 0..255
    for (size_t i = 0; i < cps.size(); i++) {
      float px = margin + pen[i];
      int ix = static_cast<int>(std::floor(px));
      float sx = px - ix;
      int x0, y0, x1, y1;
      stbtt_GetCodepointBitmapBoxSubpixel(&font, cps[i], scale, scale, sx, 0, &x0, &y0, &x1, &y1);
      int gw = x1 - x0, gh = y1 - y0;
      if (gw <= 0 || gh <= 0) continue;
      std::vector<unsigned char> g(static_cast<size_t>(gw) * gh);
      stbtt_MakeCodepointBitmapSubpixel(&font, g.data(), gw, gh, gw, scale, scale, sx, 0, cps[i]);
      for (int yy = 0; yy < gh; yy++)
        for (int xx = 0; xx < gw; xx++) {
          int X = ix + x0 + xx, Y = baseline + y0 + yy;
          if (X < 0 || X >= W || Y < 0 || Y >= H) continue;
          unsigned char &d = ink[static_cast<size_t>(Y) * W + X];
          d = std::max(d, g[static_cast<size_t>(yy) * gw + xx]);
        }
    }
    std::vector<unsigned char> img(ink.size());
    for (size_t i = 0; i < ink.size(); i++) img[i] = static_cast<unsigned char>(255 - ink[i]);
    if (!stbi_write_png(out.c_str(), W, H, 1, img.data(), W)) throw std::runtime_error(out + ": cannot write PNG");
    std::printf("%s: %dx%d, text \"%s\"\n", out.c_str(), W, H, text.c_str());
  } catch (const std::exception &e) {
    std::fprintf(stderr, "render_text: %s\n", e.what());
    return 1;
  }
  return 0;
}
