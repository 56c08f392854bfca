#include "tuning_logs/target_info.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

namespace tetune::tuning_log {
namespace {

std::string escape(const std::string &s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '|' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::set<std::string> split_features(const std::string &s) {
  std::set<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',' || c == ' ') {
      if (!cur.empty()) out.insert(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.insert(cur);
  return out;
}

// ISA features that change what code Halide/LLVM may generate.
bool is_relevant_feature(const std::string &f) {
  static const std::set<std::string> kExact = {
      "sse",  "sse2",   "ssse3", "sse4_1", "sse4_2", "avx",  "avx2",
      "fma",  "f16c",   "bmi1",  "bmi2",   "popcnt", "movbe", "avx_vnni",
      "asimd", "neon",  "sve",   "sve2",   "fphp",   "asimdhp", "asimddp",
      "i8mm", "bf16",   "vsx",   "altivec"};
  if (kExact.count(f)) return true;
  return f.rfind("avx512", 0) == 0 || f.rfind("amx", 0) == 0;
}

}  // namespace

std::string TargetInfo::key() const {
  std::ostringstream os;
  os << "kind=" << escape(kind) << "|cpu=" << escape(cpu_model)
     << "|features=" << escape(features) << "|threads=" << threads
     << "|libs=" << escape(library_versions) << "|device=" << escape(device);
  return os.str();
}

TargetInfo target_info_from_cpuinfo(const std::string &text, int threads,
                                    const std::string &library_versions) {
  TargetInfo t;
  t.kind = "llvm";
  t.threads = threads > 0 ? threads
                          : std::max(1u, std::thread::hardware_concurrency());
  t.library_versions = library_versions;
  std::string model, hardware, part, flags;
  std::istringstream is(text);
  std::string line;
  while (std::getline(is, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = trim(line.substr(0, colon));
    std::string value = trim(line.substr(colon + 1));
    if (name == "model name" && model.empty()) model = value;
    else if (name == "Hardware" && hardware.empty()) hardware = value;
    else if (name == "CPU part" && part.empty()) part = value;
    else if ((name == "flags" || name == "Features") && flags.empty())
      flags = value;
  }
  if (!model.empty()) t.cpu_model = model;
  else if (!hardware.empty()) t.cpu_model = hardware;
  else if (!part.empty()) t.cpu_model = "CPU part " + part;
  else t.cpu_model = "unknown";
  std::vector<std::string> feats;
  for (const auto &f : split_features(flags)) {
    if (is_relevant_feature(f)) feats.push_back(f);
  }
  std::string joined;
  for (size_t i = 0; i < feats.size(); ++i) {
    if (i) joined += ",";
    joined += feats[i];
  }
  t.features = joined;
  return t;
}

TargetInfo host_target_info(int threads, const std::string &library_versions) {
  std::ifstream in("/proc/cpuinfo");
  std::stringstream ss;
  if (in) ss << in.rdbuf();
  return target_info_from_cpuinfo(ss.str(), threads, library_versions);
}

double compatibility_distance(const TargetInfo &a, const TargetInfo &b) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (a.kind != b.kind) return kInf;
  if (a.kind == "cuda" && a.device != b.device) return kInf;
  if (a.key() == b.key()) return 0.0;
  double d = 0.0;
  if (a.device != b.device) d += 50.0;  // non-cuda kinds with a device field
  if (a.cpu_model != b.cpu_model) d += 50.0;
  if (a.features != b.features) {
    std::set<std::string> fa = split_features(a.features);
    std::set<std::string> fb = split_features(b.features);
    std::vector<std::string> diff;
    std::set_symmetric_difference(fa.begin(), fa.end(), fb.begin(), fb.end(),
                                  std::back_inserter(diff));
    d += 10.0 + static_cast<double>(diff.size());
  }
  if (a.library_versions != b.library_versions) d += 2.0;
  if (a.threads != b.threads) {
    double ta = std::max(1, a.threads), tb = std::max(1, b.threads);
    d += 1.0 + std::min(3.0, 0.5 * std::fabs(std::log2(ta / tb)));
  }
  return d;
}

bool is_compatible(const TargetInfo &a, const TargetInfo &b) {
  return std::isfinite(compatibility_distance(a, b));
}

std::string describe_difference(const TargetInfo &a, const TargetInfo &b) {
  std::vector<std::string> parts;
  auto field = [&](const char *name, const std::string &x,
                   const std::string &y) {
    if (x != y) parts.push_back(std::string(name) + " '" + x + "' vs '" + y + "'");
  };
  field("kind", a.kind, b.kind);
  field("device", a.device, b.device);
  field("cpu_model", a.cpu_model, b.cpu_model);
  field("features", a.features, b.features);
  if (a.threads != b.threads) {
    parts.push_back("threads " + std::to_string(a.threads) + " vs " +
                    std::to_string(b.threads));
  }
  field("library_versions", a.library_versions, b.library_versions);
  if (parts.empty()) return "identical";
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += "; ";
    out += parts[i];
  }
  return out;
}

std::string brief_difference(const TargetInfo &want, const TargetInfo &used) {
  std::vector<std::string> parts;
  if (want.cpu_model != used.cpu_model) parts.push_back("cpu '" + used.cpu_model + "'");
  if (want.features != used.features) {
    std::set<std::string> a = split_features(want.features), b = split_features(used.features);
    int missing = 0, extra = 0;
    for (const auto &f : a) missing += !b.count(f);
    for (const auto &f : b) extra += !a.count(f);
    if (extra) parts.push_back(std::to_string(extra) + " features this CPU lacks");
    if (missing) parts.push_back(std::to_string(missing) + " features of this CPU it lacks");
  }
  if (want.threads != used.threads) parts.push_back("threads " + std::to_string(used.threads));
  if (want.library_versions != used.library_versions) parts.push_back("libraries " + used.library_versions);
  std::string out;
  for (const auto &p : parts) out += (out.empty() ? "" : ", ") + p;
  return out.empty() ? "same fields, other key" : out;
}

}  // namespace tetune::tuning_log
