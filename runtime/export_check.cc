#include "runtime/export_check.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "runtime/sha256.h"
#include "base/errors.h"

namespace tetune::rt {

namespace {

std::string join(const std::vector<std::string> &v) {
  std::string r;
  for (const auto &s : v) r += (r.empty() ? "" : ", ") + s;
  return r;
}

}  // namespace

std::string read_export_file(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw ParseError(path + ": file is missing (re-run `tetune compile`)");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw ParseError(path + ": cannot open file");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

ExportManifest read_manifest(const std::string &dir) {
  const std::string path = dir + "/" + kManifestFile;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_export_file(path));
  } catch (const nlohmann::json::exception &e) {
    throw ParseError(path + ": not JSON (" + e.what() + ")");
  }
  if (!j.is_object()) throw ParseError(path + ": not a JSON object");
  ExportManifest m;
  try {
    m.format = j.value("format", std::string());
    if (m.format != kManifestFormat)
      throw ExportCheckError(path + ": format '" + m.format + "' records no file checksums or CPU extensions (this tetune reads '" +
                             kManifestFormat + "'); re-run `tetune compile`");
    m.halide_target = j.at("halide_target").get<std::string>();
    m.required_extensions = j.at("required_extensions").get<std::vector<std::string>>();
    const nlohmann::json &files = j.at("files");
    if (!files.is_object()) throw ParseError(path + ": 'files' is not an object {name: {bytes, sha256}}");
    for (auto it = files.begin(); it != files.end(); ++it) {
      ExportManifest::File file;
      file.name = it.key();
      if (file.name.empty() || file.name.find('/') != std::string::npos || file.name == "." || file.name == "..")
        throw ParseError(path + ": file name '" + file.name + "' is not a plain name inside the export directory");
      file.bytes = it.value().at("bytes").get<long long>();
      file.sha256 = it.value().at("sha256").get<std::string>();
      m.files.push_back(file);
    }
  } catch (const nlohmann::json::exception &e) {
    throw ParseError(path + ": missing or mistyped field (" + e.what() + ")");
  }
  for (const char *name : {"libmodel.so", "graph.bin", "weights.bin"}) {
    bool listed = std::any_of(m.files.begin(), m.files.end(), [&](const ExportManifest::File &x) { return x.name == name; });
    if (!listed) throw ParseError(path + ": 'files' has no checksum of " + name);
  }
  return m;
}

std::vector<std::string> missing_cpu_extensions(const ExportManifest &m, const std::set<std::string> &have) {
  std::vector<std::string> r = missing_extensions(m.halide_target, have);
  for (const auto &e : m.required_extensions)
    if (!have.count(e)) r.push_back(e);
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

ExportManifest check_export(const std::string &dir, const std::set<std::string> &have,
                            std::map<std::string, std::string> *keep) {
  ExportManifest m = read_manifest(dir);
  std::vector<std::string> missing = missing_cpu_extensions(m, have);
  if (!missing.empty())
    throw ExportCheckError(dir + "/libmodel.so: compiled for " + m.halide_target + "; this CPU lacks " + join(missing) + " (" +
                           describe(read_cpuid()) + "); re-run `tetune compile` for this CPU");
  // libmodel.so first: it is the file whose damage crashes the process.
  std::vector<ExportManifest::File> order = m.files;
  std::stable_partition(order.begin(), order.end(), [](const ExportManifest::File &x) { return x.name == "libmodel.so"; });
  for (const auto &file : order) {
    const std::string path = dir + "/" + file.name;
    long long bytes = 0;
    std::string digest;
    auto held = keep ? keep->find(file.name) : std::map<std::string, std::string>::iterator{};
    if (keep && held != keep->end()) {
      held->second = read_export_file(path);
      bytes = static_cast<long long>(held->second.size());
      digest = sha256_hex(held->second.data(), held->second.size());
    } else {
      digest = sha256_file_hex(path, &bytes);
    }
    if (bytes != file.bytes || digest != file.sha256)
      throw ExportCheckError(path + ": SHA-256 differs from " + kManifestFile + " (file truncated or altered" +
                             (bytes != file.bytes ? ": " + std::to_string(bytes) + " bytes, " + kManifestFile + " says " +
                                                        std::to_string(file.bytes) + ")"
                                                  : ")"));
  }
  return m;
}

}  // namespace tetune::rt
