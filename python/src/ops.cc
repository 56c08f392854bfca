// Bindings of the operator library (te/ops/) as the submodule _core.ops, with
// the C++ signatures and defaults (an optional Tensor argument takes None),
// and the named workloads of `tetune ops` (te/ops/registry.h).
#include <pybind11/stl.h>

#include "python/src/bindings.h"
#include "python/src/convert.h"
#include "te/ops/conv.h"
#include "te/ops/conv_nd.h"
#include "te/ops/conv_transpose_nd.h"
#include "te/ops/cumsum.h"
#include "te/ops/det.h"
#include "te/ops/dft.h"
#include "te/ops/einsum.h"
#include "te/ops/elementwise.h"
#include "te/ops/grid_sample.h"
#include "te/ops/lrn.h"
#include "te/ops/matmul.h"
#include "te/ops/max_unpool.h"
#include "te/ops/norm.h"
#include "te/ops/pool.h"
#include "te/ops/pool_indices.h"
#include "te/ops/quant.h"
#include "te/ops/reduce.h"
#include "te/ops/registry.h"
#include "te/ops/resize.h"
#include "te/ops/reverse_sequence.h"
#include "te/ops/rnn.h"
#include "te/ops/roi_align.h"
#include "te/ops/softmax.h"
#include "te/ops/topk.h"
#include "te/ops/transform.h"
#include "te/ops/window.h"

namespace py = pybind11;
using namespace pybind11::literals;

namespace tetune::python {

namespace {

using OptTensor = std::optional<Tensor>;
using Ints = std::vector<int64_t>;

void bind_matmul_conv(py::module_ &m) {
  m.def("matmul", &ops::matmul, "A"_a, "B"_a, "trans_a"_a = false, "trans_b"_a = false, "name"_a = "matmul",
        "A [M, K] x B [K, N] -> [M, N] (axes i, j; reduce axis k).");
  m.def("batch_matmul", &ops::batch_matmul, "A"_a, "B"_a, "trans_a"_a = false, "trans_b"_a = false,
        "name"_a = "batch_matmul", "NumPy matmul for any ranks >= 1 (ONNX MatMul).");
  m.def("dense", [](const Tensor &X, const Tensor &W, const OptTensor &bias, const std::string &name) {
          return ops::dense(X, W, or_undefined(bias), name);
        }, "X"_a, "W"_a, "bias"_a = py::none(), "name"_a = "dense", "X [M, K], W [N, K] (+ bias [N]) -> [M, N].");
  m.def("gemm",
        [](const Tensor &A, const Tensor &B, const OptTensor &C, double alpha, double beta, bool trans_a, bool trans_b,
           const std::string &name) { return ops::gemm(A, B, or_undefined(C), alpha, beta, trans_a, trans_b, name); },
        "A"_a, "B"_a, "C"_a = py::none(), "alpha"_a = 1.0, "beta"_a = 1.0, "trans_a"_a = false, "trans_b"_a = false,
        "name"_a = "gemm", "ONNX Gemm: alpha * A' B' + beta * C.");
  m.def("conv2d",
        [](const Tensor &x, const Tensor &w, const OptTensor &bias, const Ints &strides, const Ints &pads,
           const Ints &dilations, int64_t groups, const std::string &name) {
          return ops::conv2d(x, w, or_undefined(bias), strides, pads, dilations, groups, name);
        },
        "x"_a, "w"_a, "bias"_a = py::none(), "strides"_a = Ints{1, 1}, "pads"_a = Ints{0, 0, 0, 0},
        "dilations"_a = Ints{1, 1}, "groups"_a = 1, "name"_a = "conv2d",
        "x [N, C, H, W], w [O, C/groups, KH, KW] -> [N, O, OH, OW]; pads {top, left, bottom, right}.");
  m.def("conv2d_nchwc", &ops::conv2d_nchwc, "x"_a, "w"_a, "strides"_a = Ints{1, 1}, "pads"_a = Ints{0, 0, 0, 0},
        "name"_a = "conv2d_nchwc", "groups"_a = 1,
        "x [N, C/cb, H, W, cb], w [O/ob, C/cb/groups, KH, KW, cb, ob] -> [N, O/ob, OH, OW, ob]; groups of whole blocks.");
  m.def("conv2d_transpose",
        [](const Tensor &x, const Tensor &w, const OptTensor &bias, const Ints &strides, const Ints &pads,
           const Ints &dilations, const Ints &output_padding, int64_t groups, const std::string &name) {
          return ops::conv2d_transpose(x, w, or_undefined(bias), strides, pads, dilations, output_padding, groups, name);
        },
        "x"_a, "w"_a, "bias"_a = py::none(), "strides"_a = Ints{1, 1}, "pads"_a = Ints{0, 0, 0, 0},
        "dilations"_a = Ints{1, 1}, "output_padding"_a = Ints{0, 0}, "groups"_a = 1, "name"_a = "conv2d_transpose",
        "ONNX ConvTranspose (2-D): x [N, C, H, W], w [C, O/groups, KH, KW].");
  m.def("conv_nd",
        [](const Tensor &x, const Tensor &w, const OptTensor &bias, const Ints &strides, const Ints &pads,
           const Ints &dilations, int64_t groups, const std::string &name) {
          return ops::conv_nd(x, w, or_undefined(bias), strides, pads, dilations, groups, name);
        },
        "x"_a, "w"_a, "bias"_a, "strides"_a, "pads"_a, "dilations"_a, "groups"_a = 1, "name"_a = "conv_nd",
        "ONNX Conv over any number of spatial axes; pads {begin..., end...}.");
  m.def("conv_transpose_nd",
        [](const Tensor &x, const Tensor &w, const OptTensor &bias, const Ints &strides, const Ints &pads,
           const Ints &dilations, const Ints &output_padding, int64_t groups, const std::string &name) {
          return ops::conv_transpose_nd(x, w, or_undefined(bias), strides, pads, dilations, output_padding, groups, name);
        },
        "x"_a, "w"_a, "bias"_a, "strides"_a, "pads"_a, "dilations"_a, "output_padding"_a, "groups"_a = 1,
        "name"_a = "conv_transpose_nd", "ONNX ConvTranspose over any number of spatial axes.");
}

void bind_elementwise(py::module_ &m) {
  m.def("broadcast_shapes", &ops::broadcast_shapes, "a"_a, "b"_a, "NumPy broadcast of two shapes.");
  using Binary = Tensor (*)(const Tensor &, const Tensor &, const std::string &);
  const std::pair<const char *, Binary> binary[] = {
      {"add", &ops::add}, {"sub", &ops::sub}, {"mul", &ops::mul}, {"div", &ops::div}, {"pow", &ops::pow},
      {"maximum", &ops::maximum}, {"minimum", &ops::minimum}, {"equal", &ops::equal}, {"less", &ops::less},
      {"greater", &ops::greater},
  };
  for (const auto &[name, fn] : binary) m.def(name, fn, "a"_a, "b"_a, "name"_a = name);
  using Unary = Tensor (*)(const Tensor &, const std::string &);
  const std::pair<const char *, Unary> unary[] = {
      {"neg", &ops::neg}, {"abs", &ops::abs}, {"exp", &ops::exp}, {"log", &ops::log}, {"sqrt", &ops::sqrt},
      {"tanh", &ops::tanh}, {"erf", &ops::erf}, {"sigmoid", &ops::sigmoid}, {"floor", &ops::floor},
      {"ceil", &ops::ceil}, {"round", &ops::round}, {"reciprocal", &ops::reciprocal}, {"relu", &ops::relu},
      {"hard_swish", &ops::hard_swish}, {"gelu", &ops::gelu},
  };
  for (const auto &[name, fn] : unary) m.def(name, fn, "x"_a, "name"_a = name);
  m.def("leaky_relu", &ops::leaky_relu, "x"_a, "alpha"_a = 0.01, "name"_a = "leaky_relu");
  m.def("clip", &ops::clip, "x"_a, "lo"_a, "hi"_a, "name"_a = "clip");
  m.def("hard_sigmoid", &ops::hard_sigmoid, "x"_a, "alpha"_a = 0.2, "beta"_a = 0.5, "name"_a = "hard_sigmoid");
  m.def("cast", &ops::cast, "x"_a, "dtype"_a, "name"_a = "cast");
  m.def("where", &ops::where, "cond"_a, "a"_a, "b"_a, "name"_a = "where");
}

void bind_pool_norm_reduce(py::module_ &m) {
  m.def("max_pool2d", &ops::max_pool2d, "x"_a, "kernel"_a, "strides"_a = Ints{1, 1}, "pads"_a = Ints{0, 0, 0, 0},
        "dilations"_a = Ints{1, 1}, "ceil_mode"_a = false, "name"_a = "max_pool2d");
  m.def("avg_pool2d", &ops::avg_pool2d, "x"_a, "kernel"_a, "strides"_a = Ints{1, 1}, "pads"_a = Ints{0, 0, 0, 0},
        "ceil_mode"_a = false, "count_include_pad"_a = false, "name"_a = "avg_pool2d");
  m.def("global_avg_pool2d", &ops::global_avg_pool2d, "x"_a, "name"_a = "global_avg_pool2d");
  m.def("max_pool2d_indices", &ops::max_pool2d_indices, "x"_a, "y"_a, "kernel"_a, "strides"_a, "pads_begin"_a,
        "dilations"_a, "storage_order"_a = 0, "name"_a = "max_pool2d_indices");
  m.def("max_unpool", &ops::max_unpool, "x"_a, "indices"_a, "kernel"_a, "strides"_a, "pads"_a, "out"_a = Ints{},
        "name"_a = "max_unpool");
  m.def("softmax", &ops::softmax, "x"_a, "axis"_a = -1, "name"_a = "softmax");
  m.def("log_softmax", &ops::log_softmax, "x"_a, "axis"_a = -1, "name"_a = "log_softmax");
  m.def("batch_norm_inference",
        &ops::batch_norm_inference, "x"_a, "scale"_a, "bias"_a, "mean"_a, "var"_a, "epsilon"_a = 1e-5,
        "name"_a = "batch_norm");
  m.def("layer_norm",
        [](const Tensor &x, const Tensor &scale, const OptTensor &bias, int64_t axis, double epsilon,
           const std::string &name) { return ops::layer_norm(x, scale, or_undefined(bias), axis, epsilon, name); },
        "x"_a, "scale"_a, "bias"_a = py::none(), "axis"_a = -1, "epsilon"_a = 1e-5, "name"_a = "layer_norm");
  m.def("layer_norm_with_stats",
        [](const Tensor &x, const Tensor &scale, const OptTensor &bias, int64_t axis, double epsilon,
           const std::string &name) {
          ops::LayerNormOutputs o = ops::layer_norm_with_stats(x, scale, or_undefined(bias), axis, epsilon, name);
          return py::make_tuple(o.y, o.mean, o.inv_std_dev);
        },
        "x"_a, "scale"_a, "bias"_a = py::none(), "axis"_a = -1, "epsilon"_a = 1e-5, "name"_a = "layer_norm",
        "(y, mean, inv_std_dev).");
  m.def("lrn", &ops::lrn, "x"_a, "size"_a, "alpha"_a, "beta"_a, "bias"_a, "name"_a = "lrn");
  using Reduce = Tensor (*)(const Tensor &, const Ints &, bool, const std::string &);
  const std::pair<const char *, Reduce> reduces[] = {
      {"reduce_sum", &ops::reduce_sum}, {"reduce_mean", &ops::reduce_mean}, {"reduce_max", &ops::reduce_max},
      {"reduce_min", &ops::reduce_min}, {"reduce_prod", &ops::reduce_prod},
  };
  for (const auto &[name, fn] : reduces) m.def(name, fn, "x"_a, "axes"_a = Ints{}, "keepdims"_a = true, "name"_a = name);
  m.def("arg_reduce", &ops::arg_reduce, "x"_a, "axis"_a, "is_max"_a, "select_last_index"_a = false,
        "keepdims"_a = true, "name"_a = "arg_reduce", "ONNX ArgMax (is_max) / ArgMin: int64 positions along axis.");
  m.def("cumsum", &ops::cumsum, "x"_a, "axis"_a, "exclusive"_a = false, "reverse"_a = false, "name"_a = "cumsum");
  m.def("topk", &ops::topk, "x"_a, "k"_a, "axis"_a, "largest"_a, "name"_a = "topk", "(values, indices).");
}

void bind_transform(py::module_ &m) {
  m.def("concat", &ops::concat, "tensors"_a, "axis"_a, "name"_a = "concat");
  m.def("split", &ops::split, "x"_a, "axis"_a, "sizes"_a, "num_outputs"_a = 2, "name"_a = "split");
  m.def("slice", &ops::slice, "x"_a, "starts"_a, "ends"_a, "axes"_a = Ints{}, "steps"_a = Ints{}, "name"_a = "slice");
  m.def("transpose", &ops::transpose, "x"_a, "perm"_a = Ints{}, "name"_a = "transpose");
  m.def("reshape", &ops::reshape, "x"_a, "new_shape"_a, "name"_a = "reshape");
  m.def("flatten", &ops::flatten, "x"_a, "axis"_a = 1, "name"_a = "flatten");
  m.def("squeeze", &ops::squeeze, "x"_a, "axes"_a = Ints{}, "name"_a = "squeeze");
  m.def("unsqueeze", &ops::unsqueeze, "x"_a, "axes"_a, "name"_a = "unsqueeze");
  m.def("pad", &ops::pad, "x"_a, "pads"_a, "mode"_a = "constant", "value"_a = 0.0, "name"_a = "pad");
  m.def("gather", &ops::gather, "data"_a, "indices"_a, "axis"_a = 0, "name"_a = "gather");
  m.def("expand", &ops::expand, "x"_a, "shape"_a, "name"_a = "expand");
  m.def("einsum", &ops::einsum, "equation"_a, "inputs"_a, "name"_a = "einsum");
  m.def("reverse_sequence", &ops::reverse_sequence, "x"_a, "lens"_a, "batch_axis"_a = 1, "time_axis"_a = 0,
        "name"_a = "reverse_sequence");
  m.def("resize", &ops::resize, "x"_a, "sizes"_a, "mode"_a = "nearest",
        "coordinate_transformation_mode"_a = "half_pixel", "nearest_mode"_a = "round_prefer_floor", "name"_a = "resize");
  m.def("resize_scales", &ops::resize_scales, "x"_a, "scales"_a, "mode"_a = "nearest",
        "coordinate_transformation_mode"_a = "half_pixel", "nearest_mode"_a = "round_prefer_floor", "name"_a = "resize");
  m.def("resize_nd",
        [](const Tensor &x, const Shape &out_shape, const std::vector<double> &scales, const std::string &mode,
           const std::string &coordinate_transformation_mode, const std::string &nearest_mode, double cubic_coeff_a,
           bool exclude_outside, double extrapolation_value, const std::vector<double> &roi, const std::string &name) {
          ops::ResizeOptions o;
          o.mode = mode;
          o.coordinate_transformation_mode = coordinate_transformation_mode;
          o.nearest_mode = nearest_mode;
          o.cubic_coeff_a = cubic_coeff_a;
          o.exclude_outside = exclude_outside;
          o.extrapolation_value = extrapolation_value;
          o.roi = roi;
          return ops::resize_nd(x, out_shape, scales, o, name);
        },
        "x"_a, "out_shape"_a, "scales"_a = std::vector<double>{}, "mode"_a = "nearest",
        "coordinate_transformation_mode"_a = "half_pixel", "nearest_mode"_a = "round_prefer_floor",
        "cubic_coeff_a"_a = -0.75, "exclude_outside"_a = false, "extrapolation_value"_a = 0.0,
        "roi"_a = std::vector<double>{}, "name"_a = "resize", "ONNX Resize over any axes (ResizeOptions as keywords).");
  m.def("grid_sample", &ops::grid_sample, "x"_a, "grid"_a, "mode"_a = "linear", "padding_mode"_a = "zeros",
        "align_corners"_a = false, "name"_a = "grid_sample");
  m.def("roi_align", &ops::roi_align, "x"_a, "rois"_a, "batch_indices"_a, "mode"_a = "avg", "output_height"_a = 1,
        "output_width"_a = 1, "sampling_ratio"_a = 0, "spatial_scale"_a = 1.0,
        "coordinate_transformation_mode"_a = "half_pixel", "name"_a = "roi_align");
}

void bind_signal_quant_rnn(py::module_ &m) {
  m.def("dft", &ops::dft, "x"_a, "axis"_a, "length"_a, "inverse"_a, "onesided"_a, "name"_a = "dft");
  m.def("stft",
        [](const Tensor &signal, int64_t frame_step, const OptTensor &window, int64_t frame_length, bool onesided,
           const std::string &name) {
          return ops::stft(signal, frame_step, or_undefined(window), frame_length, onesided, name);
        },
        "signal"_a, "frame_step"_a, "window"_a, "frame_length"_a, "onesided"_a, "name"_a = "stft");
  m.def("window", &ops::window, "kind"_a, "size"_a, "periodic"_a, "dtype"_a, "name"_a = "window");
  m.def("det_small", &ops::det_small, "x"_a, "name"_a = "det");
  m.def("quantize_linear",
        [](const Tensor &x, const Tensor &scale, const OptTensor &zero_point, DType out, int64_t axis,
           int64_t block_size, const std::string &name) {
          return ops::quantize_linear(x, scale, or_undefined(zero_point), out, axis, block_size, name);
        },
        "x"_a, "scale"_a, "zero_point"_a = py::none(), "out"_a = "uint8", "axis"_a = 1, "block_size"_a = 0,
        "name"_a = "quantize_linear");
  m.def("dequantize_linear",
        [](const Tensor &x, const Tensor &scale, const OptTensor &zero_point, int64_t axis, int64_t block_size,
           const std::string &name) {
          return ops::dequantize_linear(x, scale, or_undefined(zero_point), axis, block_size, name);
        },
        "x"_a, "scale"_a, "zero_point"_a = py::none(), "axis"_a = 1, "block_size"_a = 0, "name"_a = "dequantize_linear");
  m.def("dynamic_quantize_linear", &ops::dynamic_quantize_linear, "x"_a, "name"_a = "dynamic_quantize_linear",
        "[y, scale, zero_point].");
  m.def("matmul_integer",
        [](const Tensor &A, const Tensor &B, const OptTensor &azp, const OptTensor &bzp, const std::string &name) {
          return ops::matmul_integer(A, B, or_undefined(azp), or_undefined(bzp), name);
        },
        "A"_a, "B"_a, "a_zero_point"_a = py::none(), "b_zero_point"_a = py::none(), "name"_a = "matmul_integer");
  m.def("conv2d_integer",
        [](const Tensor &x, const Tensor &w, const OptTensor &xzp, const OptTensor &wzp, const Ints &strides,
           const Ints &pads, const Ints &dilations, int64_t groups, const std::string &name) {
          return ops::conv2d_integer(x, w, or_undefined(xzp), or_undefined(wzp), strides, pads, dilations, groups, name);
        },
        "x"_a, "w"_a, "x_zero_point"_a, "w_zero_point"_a, "strides"_a, "pads"_a, "dilations"_a, "groups"_a,
        "name"_a = "conv2d_integer");

  py::class_<ops::RnnActivation>(m, "RnnActivation", "An activation of the ONNX recurrent ops with its alpha / beta.")
      .def_readonly("name", &ops::RnnActivation::name)
      .def_readonly("alpha", &ops::RnnActivation::alpha)
      .def_readonly("beta", &ops::RnnActivation::beta);
  m.def("rnn_activation",
        [](const std::string &name, std::optional<double> alpha, std::optional<double> beta) {
          return ops::rnn_activation(name, alpha.has_value(), alpha.value_or(0), beta.has_value(), beta.value_or(0));
        },
        "name"_a, "alpha"_a = py::none(), "beta"_a = py::none(), "ONNX defaults where alpha / beta are None.");
  m.def("rnn_cell", &ops::rnn_cell, "xw"_a, "h"_a, "rt"_a, "f"_a, "clip"_a, "name"_a = "rnn_cell");
  m.def("lstm_cell",
        [](const Tensor &xw, const Tensor &h, const Tensor &c, const Tensor &r, const OptTensor &p,
           const std::vector<ops::RnnActivation> &acts, double clip, const std::string &name) {
          return ops::lstm_cell(xw, h, c, r, or_undefined(p), acts, clip, name);
        },
        "xw"_a, "h"_a, "c"_a, "rt"_a, "p"_a, "acts"_a, "clip"_a, "name"_a = "lstm_cell", "[H_t, C_t].");
  m.def("gru_cell",
        [](const Tensor &xw, const Tensor &h, const Tensor &r, const OptTensor &rb_h,
           const std::vector<ops::RnnActivation> &acts, double clip, bool linear_before_reset, const std::string &name) {
          return ops::gru_cell(xw, h, r, or_undefined(rb_h), acts, clip, linear_before_reset, name);
        },
        "xw"_a, "h"_a, "rt"_a, "rb_h"_a, "acts"_a, "clip"_a, "linear_before_reset"_a, "name"_a = "gru_cell");
}

void bind_registry(py::module_ &m) {
  m.def("registry", [] {
          py::list out;
          for (const auto &e : ops::op_registry())
            out.append(py::dict("name"_a = e.name, "shape_help"_a = e.shape_help, "description"_a = e.description,
                                "example"_a = e.example));
          return out;
        },
        "The named workloads of `tetune ops`: dicts {name, shape_help, description, example (a --shape that "
        "builds)}, sorted by name.");
  m.def("build_op", [](const std::string &name, const Ints &shape) {
          ops::OpWorkload w = ops::build_op(name, shape);
          return py::make_tuple(w.inputs, w.outputs);
        },
        "name"_a, "shape"_a,
        "(inputs, outputs) of the named workload for these numbers, as `tetune run-op --op NAME --shape ...`.");
}

}  // namespace

void bind_ops(py::module_ &parent) {
  py::module_ m = parent.def_submodule("ops", "The operator library (te/ops/)");
  bind_matmul_conv(m);
  bind_elementwise(m);
  bind_pool_norm_reduce(m);
  bind_transform(m);
  bind_signal_quant_rnn(m);
  bind_registry(m);
}

}  // namespace tetune::python
