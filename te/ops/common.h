// Helpers shared by the operator library (not an operator family).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/errors.h"
#include "te/tensor.h"

namespace tetune {
namespace ops {

/** Maps a possibly negative axis into [0, rank); AttributeError naming op and attr otherwise. */
int normalize_axis(int64_t axis, int rank, const std::string &op, const std::string &attr = "axis");

/** "[1,2,3]" */
std::string list_str(const std::vector<int64_t> &v);
std::string float_list_str(const std::vector<double> &v);
std::string num_str(double v);

/** Sets tag and attrs on t's node (merging attrs) and returns t. */
Tensor annotate(const Tensor &t, const std::string &tag, const std::map<std::string, std::string> &attrs = {});

/** Raises DTypeError naming op unless a and b have the same dtype. */
void check_same_dtype(const Tensor &a, const Tensor &b, const std::string &op);

/** Raises DTypeError naming op unless t is a float tensor. */
void check_float(const Tensor &t, const std::string &op);

/** Raises ShapeError naming op and tensor unless t has the given rank. */
void check_rank(const Tensor &t, int rank, const std::string &op, const std::string &what);

/** Default axis names for a rank: ("i","j") for 2, ("n","c","h","w") for 4, else i0, i1, ... */
std::vector<std::string> default_axis_names(int rank);

/**
 * An attribute list of an N-d op (strides, dilations, pads, ...) must hold n
 * values, each >= lo: AttributeError "OP: attribute 'ATTR' [..] must ..." otherwise.
 */
void check_attr_list(const std::vector<int64_t> &v, size_t n, int64_t lo, const std::string &op, const std::string &attr);

/**
 * y[n, c, ...] = t[n, c, ...] + bias[c]: the bias stage of a convolution
 * (t [N, C, ...], bias [C]), named `name`, annotated with `tag` and attrs.
 */
Tensor add_channel_bias(const Tensor &t, const Tensor &bias, const std::string &name, const std::string &tag,
                        const std::map<std::string, std::string> &attrs);

}  // namespace ops
}  // namespace tetune
