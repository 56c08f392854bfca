// cuDNN vs tetune on the convolutions of ResNet-50 (batch 1, fp32, NCHW / OIHW).
//
//   bazel run //bench/gpu:conv [-- LAYER=trace.json ...]
//
// Per layer: cuDNN's fastest forward algorithm (cudnnFindConvolutionForwardAlgorithm)
// in plain fp32 FMA math (CUDNN_FMA_MATH: no TF32 tensor cores, the arithmetic
// tetune's kernels do) and with cuDNN's default math (TF32 allowed), timed
// with CUDA events; tetune's untuned CUDA schedule (gpu_simple_schedule, what
// `tetune compile --target cuda` uses for an untuned task) and, for LAYER=FILE
// arguments, a schedule trace (e.g. the best record of `tetune tune-op --op
// conv2d --shape SHAPE --target cuda`), each checked against cuDNN's output
// before its time is shown. Prints the ratios and their geometric mean.
// Without an NVIDIA driver/GPU it says so and exits 0.
#include <cudnn.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench/gpu/gpu_bench_util.h"
#include "codegen/kernel.h"
#include "schedule/trace.h"
#include "schedules/gpu_schedules.h"
#include "te/ops/registry.h"


namespace {
constexpr cudaMemcpyKind kHostToDevice = cudaMemcpyHostToDevice;
constexpr cudaMemcpyKind kDeviceToHost = cudaMemcpyDeviceToHost;


// A ResNet-50 convolution in tune-op's conv2d --shape form: N,C,H,W,K,R,S,stride,pad.
struct Layer {
  std::string name;
  std::vector<int64_t> shape;
};

const std::vector<Layer> kLayers = {
    {"conv1_7x7s2", {1, 3, 224, 224, 64, 7, 7, 2, 3}},     {"res2_1x1_256to64", {1, 256, 56, 56, 64, 1, 1, 1, 0}},
    {"res2_3x3_64", {1, 64, 56, 56, 64, 3, 3, 1, 1}},      {"res2_1x1_64to256", {1, 64, 56, 56, 256, 1, 1, 1, 0}},
    {"res3_3x3_128", {1, 128, 28, 28, 128, 3, 3, 1, 1}},   {"res4_3x3_256", {1, 256, 14, 14, 256, 3, 3, 1, 1}},
    {"res4_1x1_1024to256", {1, 1024, 14, 14, 256, 1, 1, 1, 0}}, {"res5_3x3_512", {1, 512, 7, 7, 512, 3, 3, 1, 1}},
};

// cuDNN's fastest algorithm for the layer in `math`; its time (ms, CUDA events) and output (NCHW) into y.
double cudnn_ms(const Layer &l, const tetune::NDArray &x, const tetune::NDArray &w, cudnnMathType_t math, std::vector<float> &y) {
  const int n = l.shape[0], c = l.shape[1], h = l.shape[2], wd = l.shape[3], k = l.shape[4], r = l.shape[5], s = l.shape[6];
  const int stride = l.shape[7], pad = l.shape[8];
  cudnnHandle_t hd;
  GPU_BENCH_CHECK(cudnnCreate(&hd));
  cudnnTensorDescriptor_t xd, yd;
  cudnnFilterDescriptor_t fd;
  cudnnConvolutionDescriptor_t cd;
  GPU_BENCH_CHECK(cudnnCreateTensorDescriptor(&xd));
  GPU_BENCH_CHECK(cudnnCreateTensorDescriptor(&yd));
  GPU_BENCH_CHECK(cudnnCreateFilterDescriptor(&fd));
  GPU_BENCH_CHECK(cudnnCreateConvolutionDescriptor(&cd));
  GPU_BENCH_CHECK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, wd));
  GPU_BENCH_CHECK(cudnnSetFilter4dDescriptor(fd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, r, s));
  GPU_BENCH_CHECK(cudnnSetConvolution2dDescriptor(cd, pad, pad, stride, stride, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  GPU_BENCH_CHECK(cudnnSetConvolutionMathType(cd, math));
  int on, oc, oh, ow;
  GPU_BENCH_CHECK(cudnnGetConvolution2dForwardOutputDim(cd, xd, fd, &on, &oc, &oh, &ow));
  GPU_BENCH_CHECK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, on, oc, oh, ow));
  void *dx, *dw, *dy;
  GPU_BENCH_CHECK(cudaMalloc(&dx, x.nbytes()));
  GPU_BENCH_CHECK(cudaMalloc(&dw, w.nbytes()));
  size_t ybytes = size_t(on) * oc * oh * ow * sizeof(float);
  GPU_BENCH_CHECK(cudaMalloc(&dy, ybytes));
  GPU_BENCH_CHECK(cudaMemcpy(dx, x.raw(), x.nbytes(), kHostToDevice));
  GPU_BENCH_CHECK(cudaMemcpy(dw, w.raw(), w.nbytes(), kHostToDevice));
  cudnnConvolutionFwdAlgoPerf_t perf[16];
  int found = 0;
  GPU_BENCH_CHECK(cudnnFindConvolutionForwardAlgorithm(hd, xd, fd, cd, yd, 16, &found, perf));
  int best = -1;
  for (int i = 0; i < found && best < 0; i++)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].mathType == math) best = i;
  if (best < 0) best = 0;
  void *ws = nullptr;
  if (perf[best].memory) GPU_BENCH_CHECK(cudaMalloc(&ws, perf[best].memory));
  const float one = 1.f, zero = 0.f;
  auto run = [&] {
    GPU_BENCH_CHECK(cudnnConvolutionForward(hd, &one, xd, dx, fd, dw, cd, perf[best].algo, ws, perf[best].memory, &zero, yd, dy));
  };
  run();
  GPU_BENCH_CHECK(cudaDeviceSynchronize());
  cudaEvent_t t0, t1;
  GPU_BENCH_CHECK(cudaEventCreate(&t0));
  GPU_BENCH_CHECK(cudaEventCreate(&t1));
  const int repeat = 50;
  GPU_BENCH_CHECK(cudaEventRecord(t0, nullptr));
  for (int i = 0; i < repeat; i++) run();
  GPU_BENCH_CHECK(cudaEventRecord(t1, nullptr));
  GPU_BENCH_CHECK(cudaEventSynchronize(t1));
  float ms = 0;
  GPU_BENCH_CHECK(cudaEventElapsedTime(&ms, t0, t1));
  y.resize(ybytes / sizeof(float));
  GPU_BENCH_CHECK(cudaMemcpy(y.data(), dy, ybytes, kDeviceToHost));
  if (ws) cudaFree(ws);
  cudaFree(dx);
  cudaFree(dw);
  cudaFree(dy);
  cudnnDestroyTensorDescriptor(xd);
  cudnnDestroyTensorDescriptor(yd);
  cudnnDestroyFilterDescriptor(fd);
  cudnnDestroyConvolutionDescriptor(cd);
  cudnnDestroy(hd);
  return ms / repeat;
}

std::string read_file(const std::string &path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  if (!f) {
    std::fprintf(stderr, "bench/gpu/conv: cannot read schedule file '%s'\n", path.c_str());
    std::exit(1);
  }
  return ss.str();
}
}  // namespace

int main(int argc, char **argv) {
  if (tetune::gpu_bench::no_gpu("bench/gpu/conv", cudaGetDeviceCount)) return 0;
  std::map<std::string, std::string> traces;  // layer -> schedule trace file
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    size_t eq = a.find('=');
    if (eq == std::string::npos) {
      std::fprintf(stderr, "bench/gpu/conv: expected LAYER=trace.json, got '%s'\n", a.c_str());
      return 1;
    }
    traces[a.substr(0, eq)] = a.substr(eq + 1);
  }
  std::printf("ResNet-50 convolutions, batch 1, fp32 NCHW; cuDNN: fastest algorithm (FMA math / default math)\n");
  std::printf("%-20s %10s %10s %10s %8s %10s %8s\n", "layer", "cuDNN fma", "cuDNN dflt", "untuned", "ratio", "trace", "ratio");
  double log_untuned = 0, log_trace = 0;
  int n_trace = 0, bad = 0;
  for (const Layer &l : kLayers) {
    tetune::ops::OpWorkload op = tetune::ops::build_op("conv2d", l.shape);
    tetune::NDArray x = tetune::NDArray::random(op.inputs[0].shape(), tetune::float32(), 1);
    tetune::NDArray w = tetune::NDArray::random(op.inputs[1].shape(), tetune::float32(), 2);
    std::vector<float> y;
    double fma = cudnn_ms(l, x, w, CUDNN_FMA_MATH, y);
    std::vector<float> y_default;
    double dflt = cudnn_ms(l, x, w, CUDNN_DEFAULT_MATH, y_default);
    tetune::NDArray ref(op.outputs[0].shape(), tetune::float32());
    std::copy(y.begin(), y.end(), ref.data<float>());
    // device-resident synced runs (Kernel::median_ms on a GPU target), checked against cuDNN's FMA output
    auto time = [&](const tetune::Schedule &s, const char *what) -> double {
      tetune::Kernel k = tetune::Kernel::build(s, tetune::Target{"cuda"});
      std::vector<tetune::NDArray> out = {tetune::NDArray(op.outputs[0].shape(), tetune::float32())};
      double ms = k.median_ms({x, w}, out, 2, 20);
      double err = tetune::scaled_max_error(out[0], ref);
      if (!(err <= 1e-4)) {
        std::printf("%-20s %s schedule differs from cuDNN (max |diff| / max |y| = %.2e)\n", l.name.c_str(), what, err);
        bad++;
        return NAN;
      }
      return ms;
    };
    double untuned = time(tetune::gpu_simple_schedule(op.outputs), "untuned");
    log_untuned += std::log(fma / untuned);
    std::printf("%-20s %10.4f %10.4f %10.4f %7.3fx", l.name.c_str(), fma, dflt, untuned, fma / untuned);
    auto it = traces.find(l.name);
    if (it != traces.end()) {
      std::string json = read_file(it->second);
      double t = time(tetune::replay(op.outputs, tetune::trace_from_json(json, op.outputs)), "trace");
      log_trace += std::log(fma / t);
      n_trace++;
      std::printf(" %10.4f %7.3fx", t, fma / t);
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  std::printf("geometric mean vs cuDNN FMA: untuned %.3fx", std::exp(log_untuned / kLayers.size()));
  if (n_trace) std::printf(", traces %.3fx over %d layers", std::exp(log_trace / n_trace), n_trace);
  std::printf(" (ms columns: medians)\n");
  return bad ? 1 : 0;
}
