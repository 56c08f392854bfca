#include "te/ops/registry.h"

#include <algorithm>
#include <cstdint>
#include <sstream>

#include "base/errors.h"
#include "te/ops/registry_families.h"

namespace tetune {
namespace ops {

namespace registry_detail {

Dims take(const Dims &d, size_t from, size_t n) { return Dims(d.begin() + from, d.begin() + from + n); }

int64_t opt(const Dims &d, size_t i, int64_t fallback) { return d.size() > i ? d[i] : fallback; }

Tensor input(const Dims &shape, const std::string &name) { return placeholder(shape, float32(), name); }

}  // namespace registry_detail

namespace {

std::vector<OpEntry> make_registry() {
  using namespace registry_detail;
  std::vector<OpEntry> r;
  for (auto family : {matmul_entries, conv_entries, pool_entries, elementwise_entries, reduce_norm_entries,
                      transform_entries, signal_entries, quant_entries, rnn_entries}) {
    std::vector<OpEntry> f = family();
    r.insert(r.end(), f.begin(), f.end());
  }
  std::sort(r.begin(), r.end(), [](const OpEntry &a, const OpEntry &b) { return a.name < b.name; });
  for (size_t i = 1; i < r.size(); i++)
    if (r[i].name == r[i - 1].name) throw Error("internal error: op '" + r[i].name + "' is registered twice");
  return r;
}

// The names of a form (or its bracketed tail): items between commas and brackets.
size_t count_names(const std::string &form) {
  size_t n = 0;
  std::string item;
  for (char ch : form + ",") {
    if (ch == ',' || ch == '[' || ch == ']') {
      if (!item.empty()) n++;
      item.clear();
    } else {
      item += ch;
    }
  }
  return n;
}

std::string join(const std::vector<int64_t> &v) {
  std::string s;
  for (size_t i = 0; i < v.size(); i++) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

// "D0,...,Dn" stands for one or more extents: its three items count as one.
size_t shape_form_min(const std::string &help) {
  size_t required = count_names(help.substr(0, help.find('[')));
  return help.find("...") != std::string::npos ? required - 2 : required;
}

size_t shape_form_max(const std::string &help) {
  if (help.find("...") != std::string::npos) return SIZE_MAX;
  return count_names(help);
}

const std::vector<OpEntry> &op_registry() {
  static const std::vector<OpEntry> r = make_registry();
  return r;
}

const OpEntry &find_op(const std::string &name) {
  const auto &r = op_registry();
  auto it = std::lower_bound(r.begin(), r.end(), name, [](const OpEntry &e, const std::string &n) { return e.name < n; });
  if (it == r.end() || it->name != name) throw AttributeError("unknown op '" + name + "' (see `tetune ops`)");
  return *it;
}

OpWorkload build_op(const std::string &name, const std::vector<int64_t> &shape) {
  const OpEntry &e = find_op(name);
  if (shape.size() < shape_form_min(e.shape_help) || shape.size() > shape_form_max(e.shape_help))
    throw UsageError("--shape " + join(shape) + ": op '" + name + "' expects --shape " + e.shape_help + ", got " +
                     std::to_string(shape.size()) + " numbers (see `tetune ops`)");
  for (int64_t d : shape)
    if (d < 0)
      throw UsageError("--shape " + join(shape) + ": op '" + name + "' takes no negative number (--shape " +
                       e.shape_help + ")");
  return e.build(shape);
}

std::vector<int64_t> parse_int_list(const std::string &text) {
  std::vector<int64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      size_t used = 0;
      out.push_back(std::stoll(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception &) {
      throw ParseError("'" + item + "' in '" + text + "' is not an integer");
    }
  }
  if (out.empty()) throw ParseError("empty integer list");
  return out;
}

}  // namespace ops
}  // namespace tetune
