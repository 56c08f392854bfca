// Runs the importer fuzz target for a bounded time on mutations of real
// models (seed corpus: libonnx-testdata node models and the PaddleOCR cls
// model when present): bit flips, byte overwrites, truncation, insertion and
// splicing. A crash kills the test; a non-tetune exception fails it.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace {

std::string read_all(const std::filesystem::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> seed_corpus() {
  std::vector<std::string> seeds;
  const std::filesystem::path node_dir = "/usr/share/libonnx-testdata/data/node";
  if (std::filesystem::exists(node_dir)) {
    std::vector<std::filesystem::path> models;
    for (const auto &d : std::filesystem::directory_iterator(node_dir))
      if (std::filesystem::exists(d.path() / "model.onnx")) models.push_back(d.path() / "model.onnx");
    std::sort(models.begin(), models.end());
    for (size_t i = 0; i < models.size(); i += 7) seeds.push_back(read_all(models[i]));  // a spread of op types
  }
  const char *ws = std::getenv("TEST_SRCDIR");
  for (std::string root : {std::string("models/ppocr"), std::string(ws ? ws : "") + "/tetune/models/ppocr"}) {
    auto p = std::filesystem::path(root) / "ch_ppocr_mobile_v2.0_cls_infer.onnx";
    if (std::filesystem::exists(p)) { seeds.push_back(read_all(p)); break; }
  }
  seeds.push_back("");
  return seeds;
}

std::string mutate(const std::string &in, const std::vector<std::string> &seeds, std::mt19937_64 &rng) {
  std::string s = in;
  auto pos = [&](size_t n) { return n == 0 ? size_t(0) : std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; e++) {
    switch (rng() % 5) {
      case 0: if (!s.empty()) s[pos(s.size())] ^= static_cast<char>(1u << (rng() % 8)); break;
      case 1: if (!s.empty()) s[pos(s.size())] = static_cast<char>(rng()); break;
      case 2: s.resize(pos(s.size() + 1)); break;
      case 3: s.insert(pos(s.size() + 1), std::string(1 + rng() % 8, static_cast<char>(rng()))); break;
      default: {
        const std::string &o = seeds[pos(seeds.size())];
        if (!o.empty()) s = s.substr(0, pos(s.size() + 1)) + o.substr(pos(o.size()));
      }
    }
  }
  return s;
}

TEST(ImporterFuzz, MutatedModelsNeverCrash) {
  auto seeds = seed_corpus();
  ASSERT_GT(seeds.size(), 1u) << "no seed models found";
  double seconds = std::getenv("TETUNE_FUZZ_SECONDS") ? std::atof(std::getenv("TETUNE_FUZZ_SECONDS")) : 20.0;
  std::mt19937_64 rng(std::getenv("TETUNE_FUZZ_SEED") ? std::strtoull(std::getenv("TETUNE_FUZZ_SEED"), nullptr, 10) : 20261121ull);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int64_t runs = 0;
  for (const auto &s : seeds) LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(s.data()), s.size());
  while (std::chrono::steady_clock::now() < deadline) {
    std::string input = mutate(seeds[rng() % seeds.size()], seeds, rng);
    try {
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(input.data()), input.size());
    } catch (const std::exception &e) {
      FAIL() << "input " << runs << " (" << input.size() << " bytes) raised a non-tetune exception: " << e.what();
    }
    runs++;
  }
  std::printf("importer fuzz: %lld mutated inputs in %.0f s from %zu seeds, no crash\n", static_cast<long long>(runs), seconds,
              seeds.size());
  EXPECT_GT(runs, 100);
}

}  // namespace
