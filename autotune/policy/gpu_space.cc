// GpuSpace ("gpu"): the search space of CUDA tasks, over the structure of the
// GPU schedule builders (codegen/gpu_schedules.h, codegen/gpu_reduction_schedule.h).
//
// Sketch 0, a 2-d matmul of two inputs (C[i,j] = sum_k A[i,k] B[k,j]): Ansor's
// GPU multi-level tiling with shared-memory staging (Zheng et al., OSDI 2020,
// section 4.1, "SSSRRSRS" for GPUs) in the form gpu_gemm_schedule takes:
//   "block"  block tile over i and j (blockIdx.y, blockIdx.x)      16..128
//   "thread" per-thread register tile (threads = (block/thread)^2)  1..8
//   "k_step" k tile staged through shared memory per step          4..32
// Sketch 3, the same matmul with the accumulator in registers and no shared
// memory, gpu_gemm_register_schedule (on an H100 at 4096^3 its default tiles
// ran 13x faster than sketch 0's, 24.2 against 1.9 TFLOP/s):
//   "tile_i" x "tile_j"   outputs per thread (rows unrolled, columns vectorized) 1..8
//   "threads_i" x "threads_j"  threads per block                                 4..32
//   "k_unroll"            k loop unroll                                          1..8
//   "stage"               A and B staged in registers per unrolled k group       0, 1
// A matmul point is drawn from sketch 0 or 3 with equal odds; mutation keeps
// the sketch, and two points of different sketches do not cross over.
// Sketch 2, any other DAG that is one reduction (conv2d, batched matmul,
// pooling, ...) after inlining its elementwise producers, with at most one
// fused elementwise consumer: Ansor's GPU multi-level tiling of it,
// gpu_reduction_schedule (codegen/gpu_reduction_schedule.h), with 4 levels
// per spatial axis and 3 per reduce axis, named after the axes
// (autotune/policy/gpu_reduction_params.h).
// Sketch 1, anything else: gpu_simple_schedule (inline elementwise stages,
// fused spatial loops over blockIdx.x x threadIdx.x) with
//   "threads" threads per block                                    64..1024
// A point whose schedule breaks the target's limits (threads per block,
// shared memory: schedule/gpu_limits.h) is invalid: steps() raises
// ScheduleError, and the policies skip it before anything is compiled.
// Registered as "gpu"; the tuner uses it by default for a GPU target.
#include <memory>
#include <optional>

#include "autotune/policy/gpu_reduction_params.h"
#include "autotune/policy/space.h"
#include "schedules/gpu_reduction_schedule.h"
#include "schedules/gpu_schedules.h"
#include "schedule/gpu_limits.h"
#include "base/errors.h"

namespace tetune {
namespace autotune {
namespace policy {

namespace {

const std::map<std::string, std::vector<int64_t>> kGemmParams = {
    {"block", {16, 32, 64, 128}}, {"thread", {1, 2, 4, 8}}, {"k_step", {4, 8, 16, 32}}};
const std::map<std::string, std::vector<int64_t>> kGemmRegisterParams = {
    {"tile_i", {1, 2, 4, 8}}, {"tile_j", {1, 2, 4, 8}}, {"threads_i", {4, 8, 16, 32}}, {"threads_j", {8, 16, 32}},
    {"k_unroll", {1, 2, 4, 8}}, {"stage", {0, 1}}};
const std::map<std::string, std::vector<int64_t>> kSimpleParams = {{"threads", {64, 128, 256, 512, 1024}}};

bool is_matmul(const Task &t) {
  if (t.outputs.size() != 1) return false;
  Schedule s(t.outputs);
  const StageInfo &st = s.stage(s.stage_of(t.outputs[0]));
  return s.stages().size() == 1 && st.spatial_axes.size() == 2 && st.reduce_axes.size() == 1 && s.inputs().size() == 2;
}

class GpuSpace : public Space {
 public:
  explicit GpuSpace(const Task &task) : task_(task), gemm_(is_matmul(task)) {
    if (!gemm_) reduction_ = find_gpu_reduction(task.outputs);
  }

  std::string name() const override { return "gpu"; }

  Candidate sample(std::mt19937_64 &rng) const override {
    if (reduction_) return sample_reduction_point(*reduction_, rng);
    Candidate p;
    p.sketch = !gemm_ ? 1 : std::uniform_int_distribution<int>(0, 1)(rng) ? 3 : 0;
    for (const auto &[name, values] : params(p.sketch)) p.params[name] = pick(values, rng);
    return p;
  }

  Candidate mutate(const Candidate &p, std::mt19937_64 &rng) const override {
    if (p.sketch == 2 && reduction_) return mutate_reduction_point(*reduction_, p, rng);
    Candidate q = p;
    const auto &ps = params(p.sketch);
    auto it = ps.begin();
    std::advance(it, std::uniform_int_distribution<size_t>(0, ps.size() - 1)(rng));
    q.params[it->first] = pick(it->second, rng);
    return q;
  }

  Candidate crossover(const Candidate &a, const Candidate &b, std::mt19937_64 &rng) const override {
    if (a.sketch == 2 && reduction_) return crossover_reduction_points(*reduction_, a, b, rng);
    Candidate c = a;
    if (a.sketch != b.sketch) return c;  // their parameters mean different things
    for (const auto &[name, v] : b.params)
      if (std::uniform_int_distribution<int>(0, 1)(rng)) c.params[name] = v;
    return c;
  }

  std::vector<Step> steps(const Candidate &p) const override {
    Schedule s = [&] {
      if (p.sketch == 2) {
        if (!reduction_) throw ScheduleError("gpu space: sketch 2 needs a single reduction, task '" + task_.name + "' has none");
        return gpu_reduction_schedule(task_.outputs, reduction_tiles(*reduction_, p));
      }
      if (p.sketch == 0 && gemm_) {
        GpuGemmTiles t;
        t.block = p.params.at("block");
        t.thread = p.params.at("thread");
        t.k_step = p.params.at("k_step");
        if (t.block % t.thread != 0)
          throw ScheduleError("gpu space: block tile " + std::to_string(t.block) + " is not a multiple of the thread tile " +
                              std::to_string(t.thread));
        return gpu_gemm_schedule(task_.outputs[0], t);
      }
      if (p.sketch == 3 && gemm_) {
        GpuGemmRegisterTiles t;
        t.tile_i = p.params.at("tile_i");
        t.tile_j = p.params.at("tile_j");
        t.threads_i = p.params.at("threads_i");
        t.threads_j = p.params.at("threads_j");
        t.k_unroll = p.params.at("k_unroll");
        auto st = p.params.find("stage");  // absent in points of logs written before it existed
        t.stage = st == p.params.end() || st->second != 0;
        return gpu_gemm_register_schedule(task_.outputs[0], t);
      }
      return gpu_simple_schedule(task_.outputs, p.params.at("threads"));
    }();
    check_gpu_schedule(s);
    return s.trace();
  }

 private:
  const std::map<std::string, std::vector<int64_t>> &params(int sketch) const {
    return !gemm_ ? kSimpleParams : sketch == 3 ? kGemmRegisterParams : kGemmParams;
  }
  static int64_t pick(const std::vector<int64_t> &v, std::mt19937_64 &rng) {
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
  }
  Task task_;
  bool gemm_;
  std::optional<GpuReductionNest> reduction_;  // set for sketch 2 tasks (not for a 2-d matmul: sketch 0)
};

bool registered = register_space("gpu", [](const Task &task) { return std::unique_ptr<Space>(new GpuSpace(task)); });

}  // namespace

}  // namespace policy
}  // namespace autotune
}  // namespace tetune
