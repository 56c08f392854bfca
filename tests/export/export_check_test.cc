// Exports say what they need, and the runtime checks it (issue 21):
//   - manifest.json records the CPU extensions libmodel.so needs and the size
//     and SHA-256 of every file;
//   - `tetune_run OUT/` refuses, before dlopen, a library whose extensions this
//     CPU lacks, or a truncated / altered file, with a message naming the file
//     and exit code 2 (not a signal);
//   - `compile -o DIR` builds in a fresh temporary directory and leaves a
//     user's DIR/build/ alone, with or without --keep-build;
//   - a tuning record whose trace does not replay counts as untuned in the
//     lookup summary, ExportResult and manifest.json alike.
// The model is the ONNX Relu node test (libonnx-testdata): one kernel, exported
// in a few seconds.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "relay_import/executor.h"
#include "relay_import/export/export.h"
#include "relay_import/onnx_importer.h"
#include "relay_import/tuned_schedules.h"
#include "runtime/cpu_features.h"
#include "runtime/export_check.h"
#include "runtime/model.h"
#include "runtime/sha256.h"
#include "base/errors.h"
#include "tests/export/file_util.h"
#include "tuning_logs/database.h"
#include "tuning_logs/target_info.h"

namespace tetune {
namespace {

namespace fs = std::filesystem;

const char *kReluModel = "/usr/share/libonnx-testdata/data/node/test_relu/model.onnx";
const char *kTetuneRun = "runtime/tetune_run";  // runfiles path (data dependency)

using test::slurp;
using test::spit;

/** A fresh directory under $TEST_TMPDIR (or /tmp). */
std::string fresh_dir(const std::string &tag) {
  const char *t = std::getenv("TEST_TMPDIR");
  std::string tmpl = std::string(t && *t ? t : "/tmp") + "/" + tag + "_XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed for " + tmpl);
  return buf.data();
}

relay::Graph relu_graph() { return relay::import_onnx(kReluModel, relay::ImportOptions()); }

/** One export of the Relu model per process; tests mutate copies of it. */
std::string base_export() {
  static std::string dir;
  if (dir.empty()) {
    std::string d = fresh_dir("relu_export");
    relay::export_model(relu_graph(), d, relay::ExportOptions());
    dir = d;
  }
  return dir;
}

std::string copy_of_export(const std::string &tag) {
  std::string d = fresh_dir(tag);
  fs::copy(base_export(), d, fs::copy_options::overwrite_existing | fs::copy_options::recursive);
  return d;
}

nlohmann::json read_json(const std::string &path) { return nlohmann::json::parse(slurp(path)); }
void write_json(const std::string &path, const nlohmann::json &j) { spit(path, j.dump(2)); }

struct RunResult {
  int code = -1;      // exit status, or 128 + signal
  std::string output; // stdout + stderr
};

/** Runs the standalone tetune_run on dir (one timed run). */
RunResult tetune_run(const std::string &dir) {
  std::string log = dir + ".log";
  std::string cmd = std::string(kTetuneRun) + " '" + dir + "' --repeat 1 >'" + log + "' 2>&1";
  int st = std::system(cmd.c_str());
  RunResult r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.output = slurp(log);
  return r;
}

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

class ExportCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    struct stat st;
    if (::stat(kReluModel, &st) != 0) GTEST_SKIP() << kReluModel << " missing (Debian package libonnx-testdata)";
    if (::stat(kTetuneRun, &st) != 0) GTEST_SKIP() << kTetuneRun << " missing from the runfiles";
  }
};

TEST(Sha256, KnownVectors) {
  // FIPS 180-2 appendix B.1 ("abc") and the empty message.
  EXPECT_EQ(rt::sha256_hex("abc", 3), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(rt::sha256_hex("", 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  std::string d = fresh_dir("sha");
  std::string big(3 << 20, 'x');  // spans several 1 MiB reads
  big[123456] = 'y';
  spit(d + "/f", big);
  long long bytes = 0;
  EXPECT_EQ(rt::sha256_file_hex(d + "/f", &bytes), rt::sha256_hex(big.data(), big.size()));
  EXPECT_EQ(bytes, static_cast<long long>(big.size()));
  EXPECT_THROW(rt::sha256_file_hex(d + "/absent"), ParseError);
}

TEST_F(ExportCheck, ManifestRecordsExtensionsAndChecksumsAndTheExportRuns) {
  std::string d = copy_of_export("intact");
  nlohmann::json m = read_json(d + "/manifest.json");
  EXPECT_EQ(m.at("format"), rt::kManifestFormat);
  std::string target = m.at("halide_target");
  EXPECT_EQ(m.at("required_extensions").get<std::vector<std::string>>(), rt::required_extensions(target));
  for (const char *f : {"libmodel.so", "graph.bin", "weights.bin"}) {
    ASSERT_TRUE(m.at("files").contains(f)) << f;
    long long bytes = 0;
    EXPECT_EQ(m["files"][f].at("sha256").get<std::string>(), rt::sha256_file_hex(d + "/" + f, &bytes)) << f;
    EXPECT_EQ(m["files"][f].at("bytes").get<long long>(), bytes) << f;
  }
  RunResult r = tetune_run(d);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "latency:")) << r.output;
}

TEST_F(ExportCheck, MadeUpRequiredExtensionIsRefusedByName) {
  // Meaningful on any CPU: no CPU has this extension.
  std::string d = copy_of_export("made_up_ext");
  nlohmann::json m = read_json(d + "/manifest.json");
  m["required_extensions"].push_back("tetune-test-absent-extension");
  write_json(d + "/manifest.json", m);
  RunResult r = tetune_run(d);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, d + "/libmodel.so: compiled for " + m["halide_target"].get<std::string>())) << r.output;
  EXPECT_TRUE(contains(r.output, "this CPU lacks tetune-test-absent-extension")) << r.output;
  EXPECT_THROW(rt::Model::load(d), ExportCheckError);
}

TEST_F(ExportCheck, TargetWithExtensionsThisCpuLacksIsRefused) {
  // The first of these Halide targets whose extensions this CPU lacks (on AMD Zen 4:
  // sapphirerapids, for avx512fp16 and amx-*; on a Sapphire Rapids: none).
  const std::set<std::string> &have = rt::host_extensions();
  std::string target;
  std::vector<std::string> missing;
  for (const char *t : {"x86-64-linux-avx512_sapphirerapids", "x86-64-linux-avx512_cannonlake", "x86-64-linux-avx512_skylake",
                        "x86-64-linux-avx512_knl", "x86-64-linux-avx2-fma-f16c-sse41", "x86-64-linux-avx-sse41"}) {
    missing = rt::missing_extensions(t, have);
    if (!missing.empty()) {
      target = t;
      break;
    }
  }
  if (target.empty()) GTEST_SKIP() << "this CPU has every extension of the Halide x86 targets tried";
  std::string d = copy_of_export("real_target");
  nlohmann::json m = read_json(d + "/manifest.json");
  m["halide_target"] = target;
  write_json(d + "/manifest.json", m);
  RunResult r = tetune_run(d);
  std::printf("%s", r.output.c_str());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, d + "/libmodel.so: compiled for " + target + "; this CPU lacks ")) << r.output;
  for (const auto &e : missing) EXPECT_TRUE(contains(r.output, e)) << e << " not named: " << r.output;
}

TEST_F(ExportCheck, ManifestTargetDifferentFromGraphIsRefused) {
  // A manifest edited to claim less than the library needs does not get past the check.
  std::string d = copy_of_export("edited_target");
  nlohmann::json m = read_json(d + "/manifest.json");
  m["halide_target"] = "x86-64-linux";
  m["required_extensions"] = nlohmann::json::array();
  write_json(d + "/manifest.json", m);
  RunResult r = tetune_run(d);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, d + "/manifest.json: target x86-64-linux differs from " + d + "/graph.bin")) << r.output;
}

TEST_F(ExportCheck, TruncatedLibraryIsRefusedBeforeLoading) {
  std::string d = copy_of_export("trunc_lib");
  std::string s = slurp(d + "/libmodel.so");
  spit(d + "/libmodel.so", s.substr(0, s.size() / 2));
  RunResult r = tetune_run(d);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, d + "/libmodel.so: SHA-256 differs from manifest.json (file truncated or altered")) << r.output;
}

TEST_F(ExportCheck, FlippedBytesAreRefusedBeforeLoading) {
  for (const char *f : {"libmodel.so", "graph.bin"}) {
    std::string d = copy_of_export(std::string("flip_") + f);
    std::string s = slurp(d + "/" + f);
    ASSERT_GT(s.size(), 16u);
    s[s.size() / 2] ^= 0x5a;  // same size, different bytes
    s[s.size() - 3] ^= 0x01;
    spit(d + "/" + f, s);
    RunResult r = tetune_run(d);
    EXPECT_EQ(r.code, 2) << f << ": " << r.output;
    EXPECT_TRUE(contains(r.output, d + "/" + f + ": SHA-256 differs from manifest.json (file truncated or altered")) << r.output;
  }
}

TEST_F(ExportCheck, MissingOrOldManifestIsRefused) {
  {
    std::string d = copy_of_export("no_manifest");
    std::remove((d + "/manifest.json").c_str());
    RunResult r = tetune_run(d);
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, d + "/manifest.json: file is missing")) << r.output;
  }
  {
    std::string d = copy_of_export("old_manifest");
    nlohmann::json m = read_json(d + "/manifest.json");
    m["format"] = "tetune-export-1";
    write_json(d + "/manifest.json", m);
    RunResult r = tetune_run(d);
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "re-run `tetune compile`")) << r.output;
  }
}

// ---- compile -o DIR: nothing of the user's in DIR is deleted ----

class ScopedTmpdir {
 public:
  explicit ScopedTmpdir(const std::string &dir) {
    const char *t = std::getenv("TMPDIR");
    had_ = t != nullptr;
    if (had_) old_ = t;
    ::setenv("TMPDIR", dir.c_str(), 1);
  }
  ~ScopedTmpdir() { had_ ? ::setenv("TMPDIR", old_.c_str(), 1) : ::unsetenv("TMPDIR"); }

 private:
  bool had_ = false;
  std::string old_;
};

size_t entries(const std::string &dir) {
  size_t n = 0;
  for (auto it = fs::directory_iterator(dir); it != fs::directory_iterator(); ++it) n++;
  return n;
}

TEST_F(ExportCheck, UserBuildDirectoryInOutputIsLeftAlone) {
  for (bool keep : {false, true}) {
    std::string out = fresh_dir(keep ? "user_dir_keep" : "user_dir");
    fs::create_directories(out + "/build");
    spit(out + "/build/notes.txt", "the user's own file\n");
    spit(out + "/README", "also the user's\n");
    std::string tmp = fresh_dir("build_tmp");
    relay::ExportResult r;
    {
      ScopedTmpdir scoped(tmp);
      relay::ExportOptions eo;
      eo.keep_build = keep;
      r = relay::export_model(relu_graph(), out, eo);
    }
    EXPECT_EQ(slurp(out + "/build/notes.txt"), "the user's own file\n");
    EXPECT_EQ(entries(out + "/build"), 1u) << "tetune wrote into the user's build/";
    EXPECT_EQ(slurp(out + "/README"), "also the user's\n");
    EXPECT_TRUE(fs::exists(out + "/libmodel.so"));
    if (keep) {
      ASSERT_FALSE(r.build_dir.empty());
      EXPECT_EQ(r.build_dir.rfind(tmp + "/tetune-build-", 0), 0u) << r.build_dir;
      EXPECT_TRUE(fs::exists(r.build_dir + "/kernel_table.cc")) << r.build_dir;
      EXPECT_EQ(entries(tmp), 1u);
    } else {
      EXPECT_TRUE(r.build_dir.empty());
      EXPECT_EQ(entries(tmp), 0u) << "the temporary build directory was not removed";
    }
    std::error_code ec;
    fs::remove_all(tmp, ec);
  }
}

// ---- a record whose trace does not replay is not the source anywhere ----

struct TunedCounts {
  relay::TunedLookupStats stats;
  relay::ExportResult result;
  nlohmann::json manifest;
};

/** Exports the Relu model with a fresh log holding one record of its task with this trace. */
TunedCounts export_with_record(const std::string &schedule_json) {
  const int threads = 1;
  relay::CompileOptions co;
  co.threads = threads;
  relay::CompiledModel groups = relay::compile_groups_only(relu_graph(), co);
  std::string key;
  for (const auto &g : groups.groups())
    if (g.kind != relay::FusedGroup::View) key = g.task.workload_key;
  EXPECT_FALSE(key.empty());
  std::string db = fresh_dir("replay_log") + "/log.db";
  {
    tuning_log::TuningLog log = tuning_log::TuningLog::open(db);
    tuning_log::TargetInfo target = tuning_log::host_target_info(threads);
    log.upsert_target(target);
    log.upsert_workload({key, "relu", "{}"});
    tuning_log::MeasureRecord rec;
    rec.workload_key = key;
    rec.target_key = target.key();
    rec.schedule_json = schedule_json;
    rec.costs_ms = {0.01};
    rec.median_ms = 0.01;
    rec.timestamp_unix_ms = tuning_log::now_unix_ms();
    rec.tuner_version = "export_check_test";
    log.add_record(rec);
  }
  TunedCounts c;
  relay::ExportOptions eo;
  eo.compile.threads = threads;
  eo.tuning_db = db;
  relay::TunedLookupOptions lo;
  lo.print_notes = false;
  relay::use_tuned_schedules(eo.compile, db, &c.stats, lo);
  std::string out = fresh_dir("replay_export");
  c.result = relay::export_model(relu_graph(), out, eo);
  c.manifest = read_json(out + "/manifest.json");
  return c;
}

TEST_F(ExportCheck, ReplayFailureIsUntunedInSummaryResultAndManifest) {
  // Control: a trace that replays (no steps) is tuned in all three.
  TunedCounts ok = export_with_record(R"({"version": 2, "steps": []})");
  EXPECT_EQ(ok.stats.tuned, 1);
  EXPECT_EQ(ok.result.task_sources.record, 1);
  EXPECT_EQ(ok.manifest.at("tasks_by_source").at("record"), 1);
  EXPECT_EQ(ok.manifest.at("tasks_by_source").at("analytical"), 0);
  EXPECT_EQ(ok.manifest.at("task_schedules").at(0).at("schedule_source"), "record");

  // A trace naming a stage (tensor t99) this compute does not have.
  TunedCounts bad = export_with_record(
      R"({"version": 2, "steps": [{"kind": "split", "stage": "t99", "axes": ["i"], "ints": [32, 0], "target": ""}]})");
  std::string summary = relay::format_lookup_stats(bad.stats);
  std::printf("%s", summary.c_str());
  EXPECT_EQ(bad.stats.tuned, 0);
  EXPECT_EQ(bad.stats.untuned, 1);
  EXPECT_EQ(bad.stats.replay_failed, 1);
  ASSERT_EQ(bad.stats.untuned_tasks.size(), 1u);
  EXPECT_TRUE(contains(bad.stats.untuned_tasks[0], "no stored trace replays")) << bad.stats.untuned_tasks[0];
  EXPECT_TRUE(contains(bad.stats.untuned_tasks[0], "t99")) << bad.stats.untuned_tasks[0];
  EXPECT_EQ(bad.result.task_sources.record, 0);
  EXPECT_EQ(bad.result.task_sources.analytical, 1);
  EXPECT_EQ(bad.result.group_sources.record, 0);
  EXPECT_EQ(bad.manifest.at("tasks_by_source").at("record"), 0);
  EXPECT_EQ(bad.manifest.at("tasks_by_source").at("analytical"), 1);
  EXPECT_EQ(bad.manifest.at("groups_by_source").at("record"), 0);
  // the task's detail says why its record was not used
  const std::string detail = bad.manifest.at("task_schedules").at(0).at("schedule_detail");
  EXPECT_TRUE(contains(detail, "no stored trace replays")) << detail;
}

}  // namespace
}  // namespace tetune
