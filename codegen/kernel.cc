#include "codegen/kernel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <mutex>

#include "codegen/gpu_runtime.h"
#include "codegen/host_target.h"
#include "codegen/loop_nest_reader.h"
#include "codegen/lower.h"
#include "runtime/scratch_cache.h"
#include "runtime/spin_pool.h"
#include "schedule/gpu_limits.h"
#include "base/errors.h"
#include "te/expr_functor.h"

namespace tetune {

namespace {
std::atomic<bool> g_kernel_ran{false};
std::atomic<int> g_threads{0};
std::mutex g_run_mutex;  // ImageParam bindings are per pipeline object, runs are serialised

// The first run fixes the thread count: the one set, else the pool's default,
// so that a later set_num_threads of that same count is accepted.
void mark_kernel_ran() {
  if (g_kernel_ran.exchange(true)) return;
  int expected = 0;
  g_threads.compare_exchange_strong(expected, rt::SpinPool::get().threads());
}

Halide::Target to_halide_target(const Target &t) {
  try {
    Halide::Target host(codegen::host_halide_target());
    if (t.spec == "host" || t.spec == "llvm" || t.spec.empty()) return host;
    if (t.spec == "cuda") return host.with_feature(Halide::Target::CUDA).with_feature(Halide::Target::CUDACapability86);
    if (!Halide::Target::validate_target_string(t.spec)) throw CodegenError("unknown target '" + t.spec + "'");
    return Halide::Target(t.spec);
  } catch (const Halide::Error &e) {
    throw CodegenError("unknown target '" + t.spec + "': " + e.what());
  }
}

std::vector<int> halide_sizes(const Shape &shape) {
  std::vector<int> sizes;
  for (auto it = shape.rbegin(); it != shape.rend(); ++it) sizes.push_back(static_cast<int>(*it));
  return sizes;
}

Halide::Buffer<> wrap(const BufferView &a) {
  return Halide::Buffer<>(codegen::halide_type(a.dtype), a.data, halide_sizes(a.shape));
}

BufferView view_of(const NDArray &a) { return {const_cast<void *>(a.raw()), a.shape(), a.dtype()}; }

std::vector<BufferView> views_of(const std::vector<NDArray> &arrays) {
  std::vector<BufferView> views;
  for (const auto &a : arrays) views.push_back(view_of(a));
  return views;
}

// Points the pipeline's input parameters at the buffers. For a GPU target the
// host side is marked newer: Halide copies an input to the device only then,
// and unmarked, a GPU kernel reads uninitialised device memory.
void bind_inputs(codegen::LoweredPipeline &lp, const std::vector<BufferView> &inputs, bool gpu) {
  for (size_t i = 0; i < inputs.size(); i++) {
    Halide::Buffer<> in = wrap(inputs[i]);
    if (gpu) in.set_host_dirty();
    lp.params[i].set(in);
  }
}

// Unary and binary operations of e, each use counted; index arithmetic is not counted.
double body_ops(const Expr &e) {
  double n = 0;
  pre_order_visit(e, [&](const Expr &x) {
    if (x->kind == ExprKind::Binary || x->kind == ExprKind::Unary) n += 1;
    return x->kind != ExprKind::Access;
  });
  return n;
}
}  // namespace

bool Target::is_gpu() const { return to_halide_target(*this).has_gpu_feature(); }
std::string Target::halide_string() const { return to_halide_target(*this).to_string(); }

namespace {
bool has_avx512(const Halide::Target &t) {
  for (auto f : {Halide::Target::AVX512, Halide::Target::AVX512_Skylake, Halide::Target::AVX512_Cannonlake,
                 Halide::Target::AVX512_SapphireRapids, Halide::Target::AVX512_KNL})
    if (t.has_feature(f)) return true;
  return false;
}
}  // namespace

Target::VectorUnit Target::vector_unit() const {
  Halide::Target t = to_halide_target(*this);
  VectorUnit v;
  if (t.has_gpu_feature()) return v;
  const bool avx512 = has_avx512(t);
  v.lanes = avx512 ? 16 : t.has_feature(Halide::Target::AVX) || t.has_feature(Halide::Target::AVX2) ? 8 : 4;
  v.registers = avx512 ? 32 : 16;
  v.fma = t.has_feature(Halide::Target::FMA) || avx512;
  return v;
}

void set_num_threads(int n) {
  if (n <= 0) throw RuntimeError("thread count must be positive, got " + std::to_string(n));
  if (g_kernel_ran && g_threads != n)
    throw RuntimeError("set_num_threads(" + std::to_string(n) + ") after kernels already ran with " +
                       std::to_string(g_threads.load()) + " threads; set it before the first run");
  g_threads = n;
  setenv("HL_NUM_THREADS", std::to_string(n).c_str(), 1);
  rt::SpinPool::get().set_threads(n);  // JIT kernels' parallel loops run on it
}

int num_threads() {
  if (g_threads > 0) return g_threads;
  const char *env = std::getenv("HL_NUM_THREADS");
  return env ? std::atoi(env) : 0;
}

struct Kernel::Impl {
  codegen::LoweredPipeline lowered;
  std::vector<Tensor> inputs, outputs;
  Halide::Target target;
  LoopNest nest;
  std::string stmt;
};

Kernel::~Kernel() = default;

Kernel Kernel::build(const Schedule &s, const Target &target) { return build(s, target, BuildOptions{}); }

// The Halide target a build compiles for (see BuildOptions::runtime_checks).
// JIT code runs on this CPU, so a target using an extension it lacks is
// refused here rather than dying with SIGILL in the first run.
Halide::Target build_target(const Target &target, const BuildOptions &options) {
  Halide::Target t = to_halide_target(target);
  std::vector<std::string> lacks = codegen::host_lacks(t.to_string());
  if (!lacks.empty()) {
    std::string list;
    for (const auto &e : lacks) list += (list.empty() ? "" : ", ") + e;
    throw CodegenError("target '" + target.spec + "' (" + t.to_string() + ") uses " + list +
                       ", which this CPU lacks; JIT kernels for it cannot run here (`tetune target` shows this CPU's target)");
  }
  if (options.runtime_checks || t.has_gpu_feature()) return t;
  return t.with_feature(Halide::Target::NoAsserts).with_feature(Halide::Target::NoBoundsQuery);
}

void warm_up_jit(const Target &target, const BuildOptions &options) {
  Halide::Target t = build_target(target, options);
  if (t.has_gpu_feature()) return;
  try {
    Halide::Func f("tetune_warm_up");
    Halide::Var x("x");
    f(x) = x * 2 + 1;
    f.compile_jit(t);
  } catch (const Halide::Error &e) {
    throw CodegenError(std::string("warming up the Halide JIT failed: ") + e.what());
  }
}

Kernel Kernel::build(const Schedule &s, const Target &target, const BuildOptions &options) {
  auto impl = std::make_shared<Impl>();
  impl->target = build_target(target, options);
  if (impl->target.has_gpu_feature()) check_gpu_schedule(s);
  impl->lowered = codegen::lower(s, options.prepacked, options.prefetch_packed);
  impl->inputs = s.inputs();
  for (const auto &p : options.prepacked) {  // lower() checked p.input
    const Tensor &in = impl->inputs[p.input];
    impl->inputs[p.input] = placeholder(p.packed_shape, in.dtype(), in.name());
  }
  impl->outputs = s.outputs();
  try {
    if (options.inspect) {
      Halide::Module m = impl->lowered.pipeline.compile_to_module(impl->lowered.arguments(), "kernel", impl->target);
      impl->nest = codegen::read_loop_nest(m);
      impl->stmt = codegen::stmt_text(m);
    }
    if (!impl->target.has_gpu_feature() || impl->target.has_feature(Halide::Target::CUDA)) {
      // Parallel loops run on the pool that runs them in an exported model (runtime/spin_pool.h).
      // Scratch memory comes from the cache that serves it there (runtime/scratch_cache.h).
      impl->lowered.pipeline.jit_handlers().custom_malloc =
          reinterpret_cast<void *(*)(Halide::JITUserContext *, size_t)>(&rt::ScratchCache::allocate);
      impl->lowered.pipeline.jit_handlers().custom_free =
          reinterpret_cast<void (*)(Halide::JITUserContext *, void *)>(&rt::ScratchCache::release);
      impl->lowered.pipeline.jit_handlers().custom_do_par_for =
          reinterpret_cast<int (*)(Halide::JITUserContext *, int (*)(Halide::JITUserContext *, int, uint8_t *), int, int,
                                   uint8_t *)>(&rt::SpinPool::do_par_for);
      impl->lowered.pipeline.compile_jit(impl->target);
    }
  } catch (const Halide::Error &e) {
    throw CodegenError(std::string("Halide failed to compile the kernel: ") + e.what());
  }
  return Kernel(impl);
}

std::vector<NDArray> Kernel::run(const std::vector<NDArray> &inputs) const {
  std::vector<NDArray> outs;
  for (const auto &o : impl_->outputs) outs.emplace_back(o.shape(), o.dtype());
  run(inputs, outs);
  return outs;
}

bool Kernel::check_call(const std::vector<BufferView> &inputs, const std::vector<BufferView> &outputs) const {
  auto check = [](const char *role, const Tensor &want, const BufferView &got) {
    if (got.shape != want.shape() || got.dtype != want.dtype())
      throw RuntimeError(std::string(role) + " '" + want.name() + "' expects " + want.dtype().str() + "[" +
                         shape_str(want.shape()) + "], got " + got.dtype.str() + "[" + shape_str(got.shape) + "]");
    if (!got.data) throw RuntimeError(std::string(role) + " '" + want.name() + "' has no data (null pointer)");
  };
  const auto &ins = impl_->inputs;
  if (inputs.size() != ins.size())
    throw RuntimeError("kernel takes " + std::to_string(ins.size()) + " inputs, got " + std::to_string(inputs.size()));
  for (size_t i = 0; i < ins.size(); i++) check("input", ins[i], inputs[i]);
  const auto &outs = impl_->outputs;
  if (outputs.size() != outs.size()) throw RuntimeError("kernel has " + std::to_string(outs.size()) + " outputs");
  for (size_t i = 0; i < outs.size(); i++) check("output", outs[i], outputs[i]);
  const bool gpu = impl_->target.has_gpu_feature();
  std::string why;
  if (gpu && impl_->target.has_feature(Halide::Target::CUDA) && !cuda_device_available(&why))
    throw RuntimeError("cannot run a CUDA kernel: no CUDA driver/GPU found (" + why + ")");
  return gpu;
}

void Kernel::run(const std::vector<NDArray> &inputs, std::vector<NDArray> &outputs) const {
  run_views(views_of(inputs), views_of(outputs));
}

void Kernel::run_views(const std::vector<BufferView> &inputs, const std::vector<BufferView> &outputs) const {
  const bool gpu = check_call(inputs, outputs);
  std::lock_guard<std::mutex> lock(g_run_mutex);
  mark_kernel_ran();
  try {
    bind_inputs(impl_->lowered, inputs, gpu);
    std::vector<Halide::Buffer<>> bufs;
    for (auto &o : outputs) bufs.push_back(wrap(o));
    Halide::Realization r(bufs);
    impl_->lowered.pipeline.realize(r, impl_->target);
    // GPU outputs are left dirty on the device; bring them back into the NDArrays.
    if (gpu)
      for (auto &b : bufs) b.copy_to_host();
  } catch (const Halide::Error &e) {
    throw RuntimeError(std::string("kernel failed at run time: ") + e.what());
  }
}

double Kernel::median_ms(const std::vector<NDArray> &inputs, std::vector<NDArray> &outputs, int warmup, int repeat) const {
  return median_ms_views(views_of(inputs), views_of(outputs), warmup, repeat);
}

double Kernel::median_ms_views(const std::vector<BufferView> &inputs, const std::vector<BufferView> &outputs, int warmup,
                               int repeat) const {
  if (impl_->target.has_gpu_feature()) return gpu_median_ms(inputs, outputs, warmup, repeat);
  for (int i = 0; i < warmup; i++) run_views(inputs, outputs);
  std::vector<double> ms;
  for (int i = 0; i < std::max(1, repeat); i++) {
    auto t0 = std::chrono::steady_clock::now();
    run_views(inputs, outputs);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

double Kernel::gpu_median_ms(const std::vector<BufferView> &inputs, const std::vector<BufferView> &outputs, int warmup,
                             int repeat) const {
  check_call(inputs, outputs);
  std::lock_guard<std::mutex> lock(g_run_mutex);
  mark_kernel_ran();
  std::vector<double> ms;
  try {
    bind_inputs(impl_->lowered, inputs, true);  // copied once, by the first run below; later runs find them there
    std::vector<Halide::Buffer<>> bufs;
    for (auto &o : outputs) bufs.push_back(wrap(o));
    Halide::Realization r(bufs);
    auto once = [&] {
      impl_->lowered.pipeline.realize(r, impl_->target);
      for (auto &b : bufs) b.device_sync();
    };
    for (int i = 0; i < std::max(1, warmup); i++) once();
    for (int i = 0; i < std::max(1, repeat); i++) {
      auto t0 = std::chrono::steady_clock::now();
      once();
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    for (auto &b : bufs) b.copy_to_host();
  } catch (const Halide::Error &e) {
    throw RuntimeError(std::string("kernel failed at run time: ") + e.what());
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

const LoopNest &Kernel::loop_nest() const { return impl_->nest; }
std::string Kernel::lowered_stmt() const { return impl_->stmt; }

void compile_object(const Schedule &s, const std::string &path_prefix, const std::string &fn_name, const Target &target,
                    bool no_runtime, const std::vector<PrepackedInput> &prepacked, bool prefetch_packed) {
  Halide::Target t = to_halide_target(target);
  if (t.has_gpu_feature()) check_gpu_schedule(s);
  codegen::LoweredPipeline lp = codegen::lower(s, prepacked, prefetch_packed);
  if (no_runtime) t = t.with_feature(Halide::Target::NoRuntime);
  try {
    lp.pipeline.compile_to({{Halide::OutputFileType::object, path_prefix + ".o"},
                            {Halide::OutputFileType::c_header, path_prefix + ".h"}},
                           lp.arguments(), fn_name, t);
    if (t.has_gpu_feature()) {
      Halide::Module m = lp.pipeline.compile_to_module(lp.arguments(), fn_name, t);
      codegen::write_gpu_source(m, path_prefix + ".ptx");
    }
  } catch (const Halide::Error &e) {
    throw CodegenError("AOT compile of '" + fn_name + "' failed: " + e.what());
  }
}

void compile_assembly(const Schedule &s, const std::string &path, const std::string &fn_name, const Target &target) {
  Halide::Target t = to_halide_target(target).with_feature(Halide::Target::NoRuntime);
  codegen::LoweredPipeline lp = codegen::lower(s);
  try {
    lp.pipeline.compile_to({{Halide::OutputFileType::assembly, path}}, lp.arguments(), fn_name, t);
  } catch (const Halide::Error &e) {
    throw CodegenError("assembly of '" + fn_name + "' failed: " + e.what());
  }
}

void compile_runtime(const std::string &path, const Target &target) {
  try {
    Halide::compile_standalone_runtime(path, to_halide_target(target));
  } catch (const Halide::Error &e) {
    throw CodegenError(std::string("compiling the Halide runtime failed: ") + e.what());
  }
}

double flop_count(const std::vector<Tensor> &outputs) {
  double total = 0;
  for (const auto &t : post_order(outputs)) {
    if (t.is_placeholder()) continue;
    const Expr &b = t->body;
    double per_point = body_ops(b);
    if (b->kind == ExprKind::Reduce) {
      double iters = 1;
      for (const auto &r : b->reduce_axes) iters *= static_cast<double>(r.extent);
      per_point = (body_ops(b->args[0]) + 1) * iters;
    }
    total += per_point * static_cast<double>(t.size());
  }
  return total;
}

}  // namespace tetune
