// oneDNN convolution_forward (forward_inference, convolution_direct) with
// format_tag::any for src/weights/dst, so oneDNN picks its preferred blocked
// layouts. The NCHW->blocked reorders of src and weights happen once before
// timing and the dst->NCHW reorder only for the check: only the convolution
// primitive itself is timed.
#include <omp.h>

#include <cstring>
#include <limits>
#include <vector>

#include "bench/baselines/baselines.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace tetune {
namespace bench {

BenchResult onednn_conv(const BenchSpec &s, int threads) {
  using namespace dnnl;
  using tag = memory::format_tag;
  using dt = memory::data_type;
  omp_set_num_threads(threads);
  const BenchData &d = bench_data(s);

  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  const memory::dims src_dims = {s.batch, s.in_c, s.in_h, s.in_w};
  const memory::dims w_dims = {s.out_c, s.in_c, s.kh, s.kw};
  const memory::dims dst_dims = {s.batch, s.out_c, s.out_h(), s.out_w()};
  const memory::dims strides = {s.stride, s.stride};
  const memory::dims pads = {s.pad, s.pad};

  auto desc = convolution_forward::desc(
      prop_kind::forward_inference, algorithm::convolution_direct,
      memory::desc(src_dims, dt::f32, tag::any), memory::desc(w_dims, dt::f32, tag::any),
      memory::desc(dst_dims, dt::f32, tag::any), strides, pads, pads);
  auto pd = convolution_forward::primitive_desc(desc, eng);

  memory user_src({src_dims, dt::f32, tag::nchw}, eng, const_cast<float *>(d.input0.data()));
  memory user_w({w_dims, dt::f32, tag::oihw}, eng, const_cast<float *>(d.input1.data()));
  std::vector<float> user_dst_buf(s.output_elems());
  memory user_dst({dst_dims, dt::f32, tag::nchw}, eng, user_dst_buf.data());

  memory src = user_src, w = user_w;
  if (pd.src_desc() != user_src.get_desc()) {
    src = memory(pd.src_desc(), eng);
    reorder(user_src, src).execute(strm, user_src, src);
  }
  if (pd.weights_desc() != user_w.get_desc()) {
    w = memory(pd.weights_desc(), eng);
    reorder(user_w, w).execute(strm, user_w, w);
  }
  memory dst(pd.dst_desc(), eng);
  strm.wait();

  convolution_forward conv(pd);
  auto run = [&] {
    conv.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, dst}});
    strm.wait();
  };
  auto poison = [&] {
    float *p = static_cast<float *>(dst.get_data_handle());
    const size_t n = pd.dst_desc().get_size() / sizeof(float);
    std::fill(p, p + n, std::numeric_limits<float>::quiet_NaN());
  };
  auto read_output = [&](float *out) {
    if (pd.dst_desc() != user_dst.get_desc()) {
      reorder(dst, user_dst).execute(strm, dst, user_dst);
      strm.wait();
      std::memcpy(out, user_dst_buf.data(), sizeof(float) * user_dst_buf.size());
    } else {
      std::memcpy(out, dst.get_data_handle(), sizeof(float) * user_dst_buf.size());
    }
  };
  std::string note = "conv direct, impl " + std::string(pd.impl_info_str()) +
                     ", layouts chosen by oneDNN (reorders untimed)";
  return check_and_time(s, "onednn", threads, run, read_output, poison, note);
}

}  // namespace bench
}  // namespace tetune
