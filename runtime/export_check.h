// The check an exported model passes before its library is loaded: manifest.json
// (written by relay_import/export) names the Halide target libmodel.so was
// compiled for, the CPU extensions that target lets LLVM use, and the size and
// SHA-256 of every file of the export (libmodel.so, graph.bin, weights.bin,
// NAME.ptx). Model::load calls check_export() first, so that
//   - a library compiled for instructions this CPU lacks is refused by name
//     instead of dying with SIGILL in the middle of a run, and
//   - a truncated or altered file is refused instead of giving SIGBUS, SIGSEGV,
//     SIGILL or a hang once dlopen()ed.
// Compiler-free: nlohmann-json, libcrypto (sha256.h) and cpu_features.h only.
// A CUDA export's host code is checked the same way (its GPU features name no
// CPU extension); its PTX files are checksummed like the others.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/cpu_features.h"

namespace tetune::rt {

/** The manifest's file name inside an export directory, and the format this runtime reads. */
constexpr const char *kManifestFile = "manifest.json";
constexpr const char *kManifestFormat = "tetune-export-2";

/** What manifest.json says the export needs and holds (the fields check_export() uses). */
struct ExportManifest {
  std::string format;                            ///< kManifestFormat
  std::string halide_target;                     ///< e.g. "x86-64-linux-avx2-fma-f16c-sse41"
  std::vector<std::string> required_extensions;  ///< LLVM names recorded at export (required_extensions(halide_target) then)
  struct File {
    std::string name;    ///< a plain file name inside the export directory
    long long bytes = 0;
    std::string sha256;  ///< 64 lower-case hex digits
  };
  std::vector<File> files;  ///< in manifest order; libmodel.so, graph.bin and weights.bin among them
};

/**
 * The whole of one file of an export, as bytes. ParseError naming the path
 * when it is missing ("re-run `tetune compile`") or cannot be opened.
 */
std::string read_export_file(const std::string &path);

/**
 * Reads DIR/manifest.json. Raises ParseError naming that path when it is
 * missing, not JSON, or lacks a field; ExportCheckError when its format is
 * not kManifestFormat (an export from an older tetune records no checksums:
 * re-run `tetune compile`). File names with '/' or ".." are a ParseError.
 */
ExportManifest read_manifest(const std::string &dir);

/**
 * The CPU extensions the library needs that `have` lacks: those of
 * missing_extensions(m.halide_target, have) and the recorded
 * m.required_extensions absent from `have`. Sorted, unique.
 */
std::vector<std::string> missing_cpu_extensions(const ExportManifest &m, const std::set<std::string> &have);

/**
 * Checks the export in dir before anything of it is loaded, and returns its
 * manifest. In order:
 *   1. read_manifest(dir) (errors as documented there);
 *   2. CPU: ExportCheckError "DIR/libmodel.so: compiled for TARGET; this CPU
 *      lacks avx512fp16, amx-tile (CPU in words)" when missing_cpu_extensions()
 *      is not empty;
 *   3. every listed file: ParseError "DIR/F: file is missing" when absent;
 *      ExportCheckError "DIR/F: SHA-256 differs from manifest.json (file
 *      truncated or altered)" when its size or digest differs.
 * `have` defaults to this CPU's usable extensions (host_extensions()).
 * Files named as keys of `*keep` are read once into its values and digested
 * from there, for a caller that needs their bytes (no second read).
 */
ExportManifest check_export(const std::string &dir, const std::set<std::string> &have = host_extensions(),
                            std::map<std::string, std::string> *keep = nullptr);

}  // namespace tetune::rt
