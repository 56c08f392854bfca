// Remote measurement through tetune_measure_runner, with the "remote" machine
// being this one (the default command) or a shell command that tampers with
// the batch: real timings, the error codes of wrong answers, crashes and bad
// schedules, the probed target, and a tune() whose records land in the log.
#include <gtest/gtest.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "autotune/remote/remote_measure.h"
#include "autotune/tuner.h"
#include "runtime/io.h"
#include "base/errors.h"
#include "tests/autotune/gemm_task.h"
#include "tuning_logs/database.h"
#include "tuning_logs/target_info.h"

namespace tetune {
namespace autotune {
namespace {

using testing::gemm_task;
using tuning_log::ErrorCode;

RemoteOptions local_runner(const std::string &command = "{runner} {dir}") {
  RemoteOptions r;
  r.runner = "runtime/tetune_measure_runner";  // runfiles of the test
  r.command = command;
  return r;
}

MeasureOptions quick() {
  MeasureOptions o;
  o.repeat = 2;
  o.min_repeat_ms = 2;
  return o;
}

std::vector<MeasureInput> three_candidates(const Task &t) {
  Schedule tiled(t.outputs);
  auto tiles = tiled.tile("C", "i", "j", 8, 16);
  tiled.parallel("C", tiles[0]);
  tiled.vectorize("C", tiles[3]);
  MeasureInput plain{Schedule(t.outputs).trace(), ""}, fast{tiled.trace(), ""};
  MeasureInput bad{{SplitStep{"C", "no_such_axis", 4}}, ""};
  return {plain, fast, bad};
}

TEST(RemoteMeasure, MeasuresABatchOnTheRunnerAndReportsItsMachine) {
  Task t = gemm_task(64);
  RemoteMeasurer m(t, quick(), local_runner());
  EXPECT_EQ(m.target_info().cpu_model, tuning_log::host_target_info(1).cpu_model);
  EXPECT_EQ(m.target_info().key(), tuning_log::host_target_info(1).key());  // this machine, 1 thread
  auto r = m.measure_batch(three_candidates(t));
  ASSERT_EQ(r.size(), 3u);
  for (int i : {0, 1}) {
    EXPECT_TRUE(r[i].ok()) << r[i].error_msg;
    EXPECT_EQ(r[i].costs_ms.size(), 2u);
    EXPECT_GT(r[i].median_ms, 0);
    EXPECT_GT(r[i].gflops, 0);
  }
  EXPECT_EQ(r[2].error, ErrorCode::kInvalidSchedule);
  EXPECT_NE(r[2].error_msg.find("no_such_axis"), std::string::npos);
}

TEST(RemoteMeasure, ResultsNameTheSteadyClockForCpuBatches) {
  Task t = gemm_task(32);
  RemoteOptions ro = local_runner();
  ro.work_dir = std::string(std::getenv("TEST_TMPDIR")) + "/clock";
  ro.keep = true;
  RemoteMeasurer m(t, quick(), ro);
  auto r = m.measure_batch(three_candidates(t));
  ASSERT_TRUE(r[0].ok()) << r[0].error_msg;
  // batch_0 is the probe; the candidates are batch_1 (the invalid third one is not in it).
  auto j = nlohmann::json::parse(rt::read_file_bytes(ro.work_dir + "/batch_1/results.json"));
  ASSERT_EQ(j.at("results").size(), 2u);
  for (const auto &x : j.at("results")) {
    EXPECT_EQ(x.at("clock"), "steady_clock") << x.dump();
    EXPECT_EQ(x.at("costs_ms").size(), 2u) << x.dump();
  }
}

// A candidate whose schedule copies a constant B into panels at root is
// compiled for B packed, and the batch carries B packed for that kernel
// alone: the runner checks it against the reference and times it.
TEST(RemoteMeasure, ConstantWeightsArePackedForTheKernelsThatReadThemPacked) {
  Task t = gemm_task(32);
  int b = -1;
  for (size_t i = 0; i < t.inputs().size(); i++)
    if (t.inputs()[i].name() == "B") b = static_cast<int>(i);
  ASSERT_GE(b, 0);
  t.constant_inputs = {b};
  Schedule packed(t.outputs);
  const std::string cache = packed.cache_read("B", {"C"});
  auto [o, i] = packed.pack_layout(cache, "ax1", 16);
  packed.vectorize(cache, i);
  auto [jo, ji] = packed.split("C", "j", 16);
  packed.reorder("C", {jo, "i", "k", ji});
  packed.vectorize("C", ji);
  RemoteOptions ro = local_runner();
  ro.work_dir = std::string(std::getenv("TEST_TMPDIR")) + "/packed";
  ro.keep = true;
  RemoteMeasurer m(t, quick(), ro);
  auto r = m.measure_batch({MeasureInput{Schedule(t.outputs).trace(), ""}, MeasureInput{packed.trace(), ""}});
  ASSERT_EQ(r.size(), 2u);
  for (const auto &x : r) EXPECT_TRUE(x.ok()) << x.error_msg;
  auto j = nlohmann::json::parse(rt::read_file_bytes(ro.work_dir + "/batch_1/batch.json"));
  ASSERT_TRUE(j.contains("kernel_inputs")) << j.dump();
  EXPECT_FALSE(j.at("kernel_inputs").contains("c0")) << "the plain schedule reads B as given";
  ASSERT_TRUE(j.at("kernel_inputs").contains("c1")) << j.dump();
  const std::string file = j.at("kernel_inputs").at("c1").at(std::to_string(b));
  EXPECT_EQ(rt::read_npy_file(ro.work_dir + "/batch_1/" + file).shape(), (Shape{2, 32, 16}));
}

// A batch whose kernel_inputs name an input the batch does not have is
// refused by the runner, naming the field.
TEST(RemoteMeasure, KernelInputsOutOfRangeAreRefused) {
  Task t = gemm_task(16);
  try {
    RemoteMeasurer m(t, quick(),
                     local_runner("sed -i 's/\"kernels\"/\"kernel_inputs\": {\"c0\": {\"9\": \"x.npy\"}}, \"kernels\"/' "
                                  "{dir}/batch.json && {runner} {dir}"));
    FAIL() << "expected MeasureError";
  } catch (const MeasureError &e) {
    EXPECT_NE(std::string(e.what()).find("kernel_inputs of c0 names input 9"), std::string::npos) << e.what();
  }
}

TEST(RemoteMeasure, WrongAnswerAndCrashAreRecordedPerKernel) {
  Task t = gemm_task(32);
  // The reference replaced by the first input (same 32x32 shape): every kernel is wrong.
  RemoteMeasurer wrong(t, quick(), local_runner("cp {dir}/in_0.npy {dir}/ref_0.npy 2>/dev/null; {runner} {dir}"));
  auto r = wrong.measure_batch(three_candidates(t));
  EXPECT_EQ(r[0].error, ErrorCode::kWrongAnswer);
  EXPECT_NE(r[0].error_msg.find("wrong answer"), std::string::npos);
  EXPECT_EQ(r[1].error, ErrorCode::kWrongAnswer);
  // Kernel c1 segfaults on the runner: only it is lost.
  RemoteMeasurer crash(t, quick(), local_runner("TETUNE_RUNNER_FAULT=segfault:c1 {runner} {dir}"));
  auto c = crash.measure_batch(three_candidates(t));
  EXPECT_TRUE(c[0].ok()) << c[0].error_msg;
  EXPECT_EQ(c[1].error, ErrorCode::kCrash);
  EXPECT_NE(c[1].error_msg.find("signal"), std::string::npos);
}

TEST(RemoteMeasure, AFailingCommandIsAnErrorNamingIt) {
  Task t = gemm_task(16);
  try {
    RemoteMeasurer m(t, quick(), local_runner("echo no route to host; exit 7"));
    FAIL() << "expected MeasureError";
  } catch (const MeasureError &e) {
    EXPECT_NE(std::string(e.what()).find("status 7"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no route to host"), std::string::npos) << e.what();
  }
}

TEST(RemoteMeasure, TuneStoresRemoteRecordsUnderTheRunnersTarget) {
  std::string db_path = std::string(std::getenv("TEST_TMPDIR")) + "/remote.db";
  Task t = gemm_task(48);
  TuneOptions o;
  o.trials = 6;
  o.batch_size = 3;
  o.db_path = db_path;
  o.measure = quick();
  o.remote = local_runner();
  o.seed = 3;
  TuneResult r = tune(t, o);
  EXPECT_EQ(r.measured, 6);
  ASSERT_TRUE(r.best.has_value());
  EXPECT_GT(r.best_gflops, 0);
  auto db = tuning_log::TuningLog::open(db_path);
  EXPECT_EQ(db.count_records(t.workload_key, r.target_key), 6);
}

}  // namespace
}  // namespace autotune
}  // namespace tetune
