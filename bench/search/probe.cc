// bazel run //bench/search:probe -- matmul 1024,1024,1024 THREADS SKETCH [param=value ...]
// Builds one candidate of the ansor search space (sampled with seed 1, then
// the given parameters overridden), checks nothing, prints its steps and
// times it in process (median of 10). A development aid for the space rules.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "autotune/search_space/search_space.h"
#include "codegen/kernel.h"
#include "schedule/trace.h"
#include "te/ops/registry.h"

using namespace tetune;
using namespace tetune::autotune;

int main(int argc, char **argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: probe OP SHAPE THREADS SKETCH [k=v ...]\n");
    return 2;
  }
  auto w = ops::build_op(argv[1], ops::parse_int_list(argv[2]));
  int threads = std::atoi(argv[3]);
  Task task = make_task("probe", w.outputs, Target{}, threads);
  SearchSpace sp(task);
  for (int i = 0; i < sp.num_sketches(); i++) std::fprintf(stderr, "sketch %d: %s\n", i, sp.sketch_description(i).c_str());
  std::mt19937_64 rng(1);
  Candidate c;
  int want = std::atoi(argv[4]);
  do c = sp.sample(rng);
  while (c.sketch != want);
  for (int i = 5; i < argc; i++) {
    std::string kv = argv[i];
    auto eq = kv.find('=');
    c.params[kv.substr(0, eq)] = std::stoll(kv.substr(eq + 1));
  }
  std::fprintf(stderr, "%s\n", c.key().c_str());
  Schedule s = sp.schedule(c);
  if (std::getenv("PROBE_STEPS")) std::fprintf(stderr, "%s\n", trace_to_json(s).c_str());
  set_num_threads(threads);
  Kernel k = Kernel::build(s);
  if (std::getenv("PROBE_STMT")) std::fprintf(stderr, "%s\n", k.lowered_stmt().c_str());
  std::vector<NDArray> in;
  for (const auto &t : s.inputs()) in.push_back(NDArray::random(t.shape(), t.dtype(), 1));
  auto out = k.run(in);
  double ms = k.median_ms(in, out, 2, 10);
  std::printf("%.3f ms  %.1f GFLOP/s\n", ms, task.flops / ms / 1e6);
  return 0;
}
