#include "autotune/cost_model/xgb_cost_model.h"

#include <algorithm>

#include <xgboost/c_api.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <utility>

#include "base/errors.h"

namespace tetune {
namespace cost_model {

namespace {

const char kRowsMagic[] = "tetune-xgb-cost-model-rows";

/** Turns a non-zero XGBoost C API return code into tetune::Error. */
void check_xgb(int rc, const char* call, const std::string& context) {
  if (rc != 0) {
    const char* msg = XGBGetLastError();
    throw Error("XGBCostModel::" + context + ": " + call + " failed: " +
                (msg ? msg : "(no message)"));
  }
}

struct DMatrixDeleter {
  void operator()(void* h) const { if (h) XGDMatrixFree(h); }
};
using DMatrixPtr = std::unique_ptr<void, DMatrixDeleter>;

DMatrixPtr make_dmatrix(const std::vector<float>& flat, std::size_t nrow,
                        std::size_t ncol, int nthread, const std::string& ctx) {
  DMatrixHandle h = nullptr;
  check_xgb(XGDMatrixCreateFromMat_omp(flat.data(), static_cast<bst_ulong>(nrow),
                                       static_cast<bst_ulong>(ncol),
                                       std::numeric_limits<float>::quiet_NaN(), &h,
                                       nthread),
            "XGDMatrixCreateFromMat", ctx);
  return DMatrixPtr(h);
}

std::string hex(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

/** Writes `data` to `path` via a temporary file and rename. */
void write_file_atomically(const std::string& path, const std::string& data,
                           const std::string& ctx) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw Error("XGBCostModel::" + ctx + ": cannot open '" + tmp + "' for writing");
    f.write(data.data(), static_cast<std::streamsize>(data.size()));
    f.flush();
    if (!f) throw Error("XGBCostModel::" + ctx + ": write to '" + tmp + "' failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error("XGBCostModel::" + ctx + ": cannot rename '" + tmp + "' to '" + path + "'");
  }
}

std::string read_file(const std::string& path, const std::string& ctx) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error("XGBCostModel::" + ctx + ": cannot open '" + path + "'");
  std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) throw Error("XGBCostModel::" + ctx + ": read of '" + path + "' failed");
  return data;
}

/** Token reader over the sidecar with error messages naming file and token. */
class Tokens {
 public:
  Tokens(const std::string& text, std::string path) : in_(text), path_(std::move(path)) {}
  std::string word(const char* what) {
    std::string s;
    if (!(in_ >> s)) fail(std::string("unexpected end of file reading ") + what);
    return s;
  }
  void expect(const char* w) {
    const std::string s = word(w);
    if (s != w) fail("expected '" + std::string(w) + "', found '" + s + "'");
  }
  unsigned long long count(const char* what) {
    const std::string s = word(what);
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (s.empty() || s[0] == '-' || *end != '\0' || errno != 0)
      fail(std::string("bad ") + what + " '" + s + "'");
    return v;
  }
  double real(const char* what) {
    const std::string s = word(what);
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0') fail(std::string("bad ") + what + " '" + s + "'");
    return v;
  }
  bool at_end() {
    std::string s;
    return !(in_ >> s);
  }
  [[noreturn]] void fail(const std::string& msg) {
    throw ParseError("XGBCostModel::load: malformed training-rows file '" + path_ + "': " + msg);
  }

 private:
  std::istringstream in_;
  std::string path_;
};

}  // namespace

void XGBCostModel::BoosterDeleter::operator()(void* h) const {
  if (h) XGBoosterFree(h);
}

XGBCostModel::XGBCostModel(XGBCostModelOptions options) : options_(std::move(options)) {
  if (options_.num_rounds < 1)
    throw Error("XGBCostModel: options.num_rounds must be >= 1, got " +
                std::to_string(options_.num_rounds));
  if (options_.nthread < 1)
    throw Error("XGBCostModel: options.nthread must be >= 1, got " +
                std::to_string(options_.nthread));
}

XGBCostModel::~XGBCostModel() = default;
XGBCostModel::XGBCostModel(XGBCostModel&&) noexcept = default;
XGBCostModel& XGBCostModel::operator=(XGBCostModel&&) noexcept = default;

bool XGBCostModel::trained() const { return booster_ != nullptr; }

void XGBCostModel::update(const std::vector<std::vector<float>>& features,
                          const std::vector<double>& throughputs) {
  update_groups({Group{features, throughputs}});
}

void XGBCostModel::update_groups(const std::vector<Group>& groups) {
  const std::string who = "XGBCostModel::update";
  std::size_t len = num_features_;
  for (std::size_t g = 0; g < groups.size(); g++) {
    const std::size_t n = check_update_batch(groups[g].features, groups[g].throughputs, who);
    if (groups[g].features.empty()) continue;
    if (n == 0) throw ShapeError(who + ": feature rows are empty (length 0)");
    if (len != 0 && n != len) {
      throw ShapeError(who + ": group " + std::to_string(g) + "'s feature rows have length " + std::to_string(n) +
                       ", expected " + std::to_string(len) + " (the length of the stored training records)");
    }
    if (groups[g].features.size() > std::numeric_limits<unsigned>::max())
      throw Error(who + ": batch of " + std::to_string(groups[g].features.size()) + " records is too large");
    len = n;
  }
  if (len == num_features_ && std::all_of(groups.begin(), groups.end(), [](const Group& g) { return g.features.empty(); }))
    return;

  // Append, retrain once, and roll back the appends if training fails.
  const std::size_t old_features = num_features_;
  const std::size_t old_rows = rows_.size();
  const std::size_t old_records = throughputs_.size();
  const std::size_t old_groups = group_sizes_.size();
  num_features_ = len;
  for (const Group& g : groups) {
    if (g.features.empty()) continue;
    for (const auto& r : g.features) rows_.insert(rows_.end(), r.begin(), r.end());
    throughputs_.insert(throughputs_.end(), g.throughputs.begin(), g.throughputs.end());
    group_sizes_.push_back(static_cast<unsigned>(g.features.size()));
  }
  try {
    retrain();
  } catch (...) {
    num_features_ = old_features;
    rows_.resize(old_rows);
    throughputs_.resize(old_records);
    group_sizes_.resize(old_groups);
    throw;
  }
}

void XGBCostModel::retrain() {
  const std::string ctx = "update";
  const std::size_t n = throughputs_.size();
  DMatrixPtr dtrain = make_dmatrix(rows_, n, num_features_, options_.nthread, ctx);

  // Labels: throughput normalised by the maximum of its group.
  std::vector<float> labels;
  labels.reserve(n);
  std::size_t start = 0;
  for (unsigned g : group_sizes_) {
    const std::vector<double> group(throughputs_.begin() + start,
                                    throughputs_.begin() + start + g);
    const std::vector<float> norm = normalise_throughputs(group);
    labels.insert(labels.end(), norm.begin(), norm.end());
    start += g;
  }
  check_xgb(XGDMatrixSetFloatInfo(dtrain.get(), "label", labels.data(),
                                  static_cast<bst_ulong>(labels.size())),
            "XGDMatrixSetFloatInfo(label)", ctx);
  check_xgb(XGDMatrixSetUIntInfo(dtrain.get(), "group", group_sizes_.data(),
                                 static_cast<bst_ulong>(group_sizes_.size())),
            "XGDMatrixSetUIntInfo(group)", ctx);

  DMatrixHandle dmats[1] = {dtrain.get()};
  BoosterHandle raw = nullptr;
  check_xgb(XGBoosterCreate(dmats, 1, &raw), "XGBoosterCreate", ctx);
  BoosterPtr booster(raw);

  auto num = [](double v) {
    std::ostringstream s;
    s.precision(17);
    s << v;
    return s.str();
  };
  const std::pair<std::string, std::string> params[] = {
      {"booster", "gbtree"},
      {"objective", "rank:pairwise"},
      {"tree_method", options_.tree_method},
      {"max_depth", std::to_string(options_.max_depth)},
      {"eta", num(options_.eta)},
      {"min_child_weight", num(options_.min_child_weight)},
      {"nthread", std::to_string(options_.nthread)},
      {"seed", std::to_string(options_.seed)},
      {"verbosity", "0"},
  };
  for (const auto& p : params) {
    check_xgb(XGBoosterSetParam(booster.get(), p.first.c_str(), p.second.c_str()),
              ("XGBoosterSetParam(" + p.first + "=" + p.second + ")").c_str(), ctx);
  }
  for (int it = 0; it < options_.num_rounds; ++it) {
    check_xgb(XGBoosterUpdateOneIter(booster.get(), it, dtrain.get()),
              "XGBoosterUpdateOneIter", ctx);
  }
  booster_ = std::move(booster);
}

std::vector<double> XGBCostModel::predict(
    const std::vector<std::vector<float>>& features) const {
  const std::string ctx = "predict";
  const std::size_t len = check_feature_rows(features, "XGBCostModel::predict");
  if (!trained() || features.empty()) return std::vector<double>(features.size(), 0.0);
  if (len != num_features_) {
    throw ShapeError("XGBCostModel::predict: feature row 0 has length " + std::to_string(len) +
                     ", expected " + std::to_string(num_features_) +
                     " (the length the model was trained with)");
  }
  std::vector<float> flat;
  flat.reserve(features.size() * len);
  for (const auto& r : features) flat.insert(flat.end(), r.begin(), r.end());
  DMatrixPtr d = make_dmatrix(flat, features.size(), len, options_.nthread, ctx);

  const char* config =
      "{\"type\": 0, \"training\": false, \"iteration_begin\": 0, "
      "\"iteration_end\": 0, \"strict_shape\": false}";
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* result = nullptr;
  check_xgb(XGBoosterPredictFromDMatrix(booster_.get(), d.get(), config, &shape, &dim, &result),
            "XGBoosterPredictFromDMatrix", ctx);
  bst_ulong total = 1;
  for (bst_ulong i = 0; i < dim; ++i) total *= shape[i];
  if (dim == 0 || total != features.size()) {
    throw Error("XGBCostModel::predict: XGBoost returned " + std::to_string(total) +
                " predictions for " + std::to_string(features.size()) + " rows");
  }
  return std::vector<double>(result, result + features.size());
}

void XGBCostModel::save(const std::string& path) const {
  const std::string ctx = "save";
  // Sidecar: raw throughputs, group sizes and features, bit-exact (%a).
  std::string out;
  out += std::string(kRowsMagic) + " v1\n";
  out += "trained " + std::string(trained() ? "1" : "0") + "\n";
  out += "num_features " + std::to_string(num_features_) + "\n";
  out += "num_groups " + std::to_string(group_sizes_.size()) + "\n";
  std::size_t rec = 0;
  for (unsigned g : group_sizes_) {
    out += "group " + std::to_string(g) + "\n";
    for (unsigned i = 0; i < g; ++i, ++rec) {
      out += hex(throughputs_[rec]);
      for (std::size_t j = 0; j < num_features_; ++j) {
        out += ' ';
        out += hex(rows_[rec * num_features_ + j]);
      }
      out += '\n';
    }
  }
  out += "end\n";

  if (trained()) {
    // JSON regardless of the file name's extension.
    bst_ulong n = 0;
    const char* buf = nullptr;
    check_xgb(XGBoosterSaveModelToBuffer(booster_.get(), "{\"format\": \"json\"}", &n, &buf),
              "XGBoosterSaveModelToBuffer", ctx);
    write_file_atomically(path, std::string(buf, n), ctx);
  }
  write_file_atomically(rows_path(path), out, ctx);
}

// The booster saved at `path`, with its feature count.
static XGBCostModel::BoosterPtr load_booster(const std::string& path, int nthread, bst_ulong* num_features) {
  const std::string ctx = "load";
  const std::string model = read_file(path, ctx);
  BoosterHandle raw = nullptr;
  check_xgb(XGBoosterCreate(nullptr, 0, &raw), "XGBoosterCreate", ctx);
  XGBCostModel::BoosterPtr booster(raw);
  check_xgb(XGBoosterLoadModelFromBuffer(booster.get(), model.data(), static_cast<bst_ulong>(model.size())),
            ("XGBoosterLoadModelFromBuffer('" + path + "')").c_str(), ctx);
  check_xgb(XGBoosterSetParam(booster.get(), "nthread", std::to_string(nthread).c_str()), "XGBoosterSetParam(nthread)",
            ctx);
  check_xgb(XGBoosterGetNumFeature(booster.get(), num_features), "XGBoosterGetNumFeature", ctx);
  return booster;
}

void XGBCostModel::load(const std::string& path) {
  const std::string ctx = "load";
  const std::string sidecar = rows_path(path);
  if (!std::ifstream(sidecar)) {
    // No training records (a model shipped without them): the booster alone.
    bst_ulong nf = 0;
    BoosterPtr booster = load_booster(path, options_.nthread, &nf);
    num_features_ = nf;
    rows_.clear();
    throughputs_.clear();
    group_sizes_.clear();
    booster_ = std::move(booster);
    return;
  }
  Tokens t(read_file(sidecar, ctx), sidecar);
  t.expect(kRowsMagic);
  t.expect("v1");
  t.expect("trained");
  const unsigned long long was_trained = t.count("trained flag");
  if (was_trained > 1) t.fail("trained flag must be 0 or 1");
  t.expect("num_features");
  const std::size_t nf = t.count("num_features");
  t.expect("num_groups");
  const std::size_t ng = t.count("num_groups");

  std::vector<float> rows;
  std::vector<double> thr;
  std::vector<unsigned> groups;
  for (std::size_t g = 0; g < ng; ++g) {
    t.expect("group");
    const unsigned long long size = t.count("group size");
    if (size == 0 || size > std::numeric_limits<unsigned>::max())
      t.fail("group " + std::to_string(g) + " has invalid size " + std::to_string(size));
    groups.push_back(static_cast<unsigned>(size));
    for (unsigned long long i = 0; i < size; ++i) {
      const double tp = t.real("throughput");
      if (!std::isfinite(tp) || tp < 0)
        t.fail("record " + std::to_string(thr.size()) + " has invalid throughput");
      thr.push_back(tp);
      for (std::size_t j = 0; j < nf; ++j) rows.push_back(static_cast<float>(t.real("feature")));
    }
  }
  t.expect("end");
  if (!t.at_end()) t.fail("trailing content after 'end'");
  if (!thr.empty() && nf == 0) t.fail("records with num_features 0");
  if ((was_trained == 1) != !thr.empty())
    t.fail("trained flag " + std::to_string(was_trained) + " disagrees with " +
           std::to_string(thr.size()) + " stored records");

  BoosterPtr booster;
  if (was_trained) {
    bst_ulong model_nf = 0;
    booster = load_booster(path, options_.nthread, &model_nf);
    if (model_nf != nf) {
      throw ParseError("XGBCostModel::load: model '" + path + "' has " + std::to_string(model_nf) +
                       " features but its training-rows file '" + sidecar + "' has " +
                       std::to_string(nf));
    }
  }
  num_features_ = nf;
  rows_ = std::move(rows);
  throughputs_ = std::move(thr);
  group_sizes_ = std::move(groups);
  booster_ = std::move(booster);
}

}  // namespace cost_model
}  // namespace tetune
