// tetune_measure_runner BATCH_DIR: measures a batch of candidate kernels
// written by the compiler machine (runtime/measure_runner.h) and writes
// BATCH_DIR/results.json; links no Halide compiler, so it runs on a machine
// that has only this binary and (for CUDA batches) the NVIDIA driver.
#include <cstdio>
#include <exception>
#include <string>

#include "runtime/measure_runner.h"
#include "base/errors.h"

int main(int argc, char **argv) {
  if (argc != 2 || std::string(argv[1]) == "-h" || std::string(argv[1]) == "--help") {
    std::fprintf(stderr, "usage: tetune_measure_runner BATCH_DIR   (writes BATCH_DIR/results.json)\n");
    return argc == 2 ? 0 : 2;
  }
  try {
    auto results = tetune::rt::run_measure_batch(argv[1]);
    for (const auto &r : results) {
      double best = 0;
      for (double c : r.costs_ms) best = best == 0 ? c : std::min(best, c);
      std::printf("%s: %s\n", r.kernel.c_str(), r.error_code == 0 ? (std::to_string(best) + " ms").c_str() : r.error_msg.c_str());
    }
  } catch (const tetune::Error &e) {
    std::fprintf(stderr, "tetune_measure_runner: error: %s\n", e.what());
    return 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tetune_measure_runner: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
