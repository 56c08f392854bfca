#include "autotune/cost_model/dataset.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "autotune/cost_model/ranking_metrics.h"
#include "base/errors.h"

namespace tetune {
namespace cost_model {
namespace {

using json = nlohmann::json;

// 4 significant digits: the features are log2-scaled counts, the times medians of noisy runs.
double round4(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return std::strtod(b, nullptr);
}

}  // namespace

std::string dataset_header_line(const std::vector<std::string> &feature_names,
                                const std::map<std::string, std::string> &source) {
  json h;
  h["format"] = kDatasetFormat;
  h["version"] = kDatasetVersion;
  h["feature_names"] = feature_names;
  h["source"] = source;
  return h.dump();
}

std::string dataset_record_line(const DatasetRecord &r) {
  json j;
  j["workload_key"] = r.workload_key;
  j["task"] = r.task;
  j["target_key"] = r.target_key;
  j["cpu_model"] = r.cpu_model;
  j["threads"] = r.threads;
  j["median_ms"] = round4(r.median_ms);
  j["gflops"] = round4(r.gflops);
  json f = json::array();
  for (float v : r.features) {
    const double x = round4(v);
    // Whole numbers (most features: counts, flags, zeros) written without ".0".
    if (x == std::floor(x) && std::abs(x) < 1e15) f.push_back(static_cast<int64_t>(x));
    else f.push_back(x);
  }
  j["features"] = std::move(f);
  return j.dump();
}

Dataset read_dataset(const std::string &path) {
  std::ifstream in(path);
  if (!in) throw Error("cost-model dataset '" + path + "': cannot be read");
  Dataset d;
  std::string line;
  int n = 0;
  auto fail = [&](const std::string &why) {
    throw ParseError("cost-model dataset " + path + ":" + std::to_string(n) + ": " + why);
  };
  while (std::getline(in, line)) {
    n++;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j;
    try {
      j = json::parse(line);
      if (d.feature_names.empty()) {  // the first non-blank line
        if (!j.is_object() || j.value("format", "") != kDatasetFormat)
          fail(std::string("the first line is not a header of format \"") + kDatasetFormat + "\"");
        if (j.value("version", 0) != kDatasetVersion)
          fail("version " + j.value("version", json(nullptr)).dump() + ", this build reads version " +
               std::to_string(kDatasetVersion));
        d.feature_names = j.at("feature_names").get<std::vector<std::string>>();
        if (d.feature_names.empty()) fail("the header names no features");
        if (j.contains("source"))
          for (auto &[k, v] : j.at("source").items()) d.source[k] = v.is_string() ? v.get<std::string>() : v.dump();
        continue;
      }
      DatasetRecord r;
      r.workload_key = j.at("workload_key").get<std::string>();
      r.task = j.at("task").get<std::string>();
      r.target_key = j.at("target_key").get<std::string>();
      r.cpu_model = j.at("cpu_model").get<std::string>();
      r.threads = j.at("threads").get<int>();
      r.median_ms = j.at("median_ms").get<double>();
      r.gflops = j.at("gflops").get<double>();
      r.features = j.at("features").get<std::vector<float>>();
      if (!(r.median_ms > 0) || !std::isfinite(r.median_ms)) fail("median_ms must be > 0 and finite");
      if (r.features.size() != d.feature_names.size())
        fail(std::to_string(r.features.size()) + " features, the header names " +
             std::to_string(d.feature_names.size()));
      d.records.push_back(std::move(r));
    } catch (const json::exception &e) {
      fail(e.what());
    }
  }
  if (d.feature_names.empty()) fail("empty file: no header line");
  return d;
}

std::vector<QueryGroup> query_groups(const std::vector<DatasetRecord> &records) {
  std::map<std::pair<std::string, std::string>, QueryGroup> by;
  for (const auto &r : records) {
    QueryGroup &g = by[{r.workload_key, r.target_key}];
    g.workload_key = r.workload_key;
    g.target_key = r.target_key;
    g.cpu_model = r.cpu_model;
    g.features.push_back(r.features);
    g.throughputs.push_back(1.0 / r.median_ms);
  }
  std::vector<QueryGroup> out;
  out.reserve(by.size());
  for (auto &kv : by) out.push_back(std::move(kv.second));
  return out;
}

bool held_out_workload(const std::string &workload_key, int n) {
  if (n <= 0) return false;
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a 64
  for (unsigned char c : workload_key) h = (h ^ c) * 1099511628211ull;
  return h % static_cast<std::uint64_t>(n) == 0;
}

RankingQuality ranking_quality(const CostModel &model, const std::vector<QueryGroup> &groups) {
  RankingQuality q;
  double acc = 0, tau = 0, top = 0, pooled = 0, all_pairs = 0;
  int taus = 0;
  for (const auto &g : groups) {
    double lo = g.throughputs.front(), hi = lo;
    for (double t : g.throughputs) lo = std::min(lo, t), hi = std::max(hi, t);
    if (!(hi > lo)) continue;
    std::vector<double> s = model.predict(g.features);
    double a = pairwise_accuracy(s, g.throughputs), pairs = 0;
    for (size_t i = 0; i < g.throughputs.size(); i++)
      for (size_t j = i + 1; j < g.throughputs.size(); j++) pairs += g.throughputs[i] != g.throughputs[j];
    acc += a;
    pooled += a * pairs;
    all_pairs += pairs;
    double t = kendall_tau(s, g.throughputs);
    if (std::isfinite(t)) tau += t, taus++;
    size_t best = 0;
    for (size_t i = 1; i < s.size(); i++)
      if (s[i] > s[best]) best = i;
    top += g.throughputs[best] / hi;
    q.groups++;
    q.records += static_cast<std::int64_t>(g.throughputs.size());
  }
  if (q.groups) {
    q.pairwise_accuracy = acc / q.groups;
    q.pooled_accuracy = pooled / all_pairs;
    q.top1_ratio = top / q.groups;
  }
  if (taus) q.kendall_tau = tau / taus;
  return q;
}

RankingQuality random_ranking_quality(const std::vector<QueryGroup> &groups) {
  RankingQuality q;
  double top = 0;
  for (const auto &g : groups) {
    double lo = g.throughputs.front(), hi = lo, sum = 0;
    for (double t : g.throughputs) lo = std::min(lo, t), hi = std::max(hi, t), sum += t;
    if (!(hi > lo)) continue;
    top += sum / g.throughputs.size() / hi;
    q.groups++;
    q.records += static_cast<std::int64_t>(g.throughputs.size());
  }
  if (q.groups) {
    q.pairwise_accuracy = 0.5;
    q.pooled_accuracy = 0.5;
    q.top1_ratio = top / q.groups;
  }
  return q;
}

}  // namespace cost_model
}  // namespace tetune
