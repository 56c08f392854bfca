// Transfer (autotune/transfer.h): donor records of other targets and other
// shapes are replayed (adapted to the shape), measured in the first batch and
// train the cost model; donors that do not replay are skipped with a note.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <set>
#include <string>

#include "autotune/cost_model/xgb_cost_model.h"
#include "autotune/measure/record_store.h"
#include "autotune/transfer.h"
#include "autotune/tuner.h"
#include "base/errors.h"
#include "schedule/trace.h"
#include "tests/autotune/gemm_task.h"
#include "tuning_logs/target_info.h"

namespace tetune {
namespace autotune {
namespace {

std::string tmp(const std::string &name) { return std::string(std::getenv("TEST_TMPDIR")) + "/" + name; }

// The GEMM of gemm_task(n) as tune-op names it, so that its description carries the shape.
Task matmul(int n) {
  std::string d = std::to_string(n);
  return make_task("matmul_" + d + "x" + d + "x" + d, testing::gemm_task(n).outputs, Target{}, 1);
}

// Another CPU than this one: records stored under it are donors of another target.
tuning_log::TargetInfo other_cpu() {
  tuning_log::TargetInfo t = tuning_log::host_target_info(1);
  t.cpu_model = "Fake CPU 9000";
  t.threads = 2;
  return t;
}

// A schedule no search of a few trials picks by chance: rows in 8, columns in 16-lane vectors.
std::string donor_schedule(const Task &t, int64_t row_tile) {
  Schedule s(t.outputs);
  s.split("C", "i", row_tile);
  s.split("C", "j", 16);
  s.reorder("C", {"i_o", "j_o", "i_i", "k", "j_i"});
  s.vectorize("C", "j_i");
  s.parallel("C", "i_o");
  return trace_to_json(s);
}

// Stores a successful record of `schedule_json` for task t under target `target` in `db`; returns its id.
int64_t add_donor(const std::string &db, const Task &t, const tuning_log::TargetInfo &target,
                  const std::string &schedule_json, double gflops) {
  RecordStore st(db, t.workload_key, "matmul", workload_description(t), target);
  tuning_log::MeasureRecord r;
  r.schedule_json = schedule_json;
  r.costs_ms = {1.0};
  r.median_ms = 1.0;
  r.gflops = gflops;
  r.tuner_version = "test-donor";
  return st.add(r);
}

TuneOptions fast(const std::string &db) {
  TuneOptions o;
  o.trials = 4;
  o.batch_size = 4;
  o.db_path = db;
  o.op_name = "matmul";
  o.population = 16;
  o.generations = 1;
  o.measure.min_repeat_ms = 2;
  o.measure.repeat = 2;
  o.measure.timeout_s = 10;
  o.confirm_top = 0;
  return o;
}

// The host's records of task t in db, in trial order.
std::vector<tuning_log::MeasureRecord> host_records(const std::string &db, const Task &t) {
  return RecordStore(db, t.workload_key, "matmul", workload_description(t), 1).records();
}

bool has_schedule(const std::vector<tuning_log::MeasureRecord> &recs, const std::string &json, int before_trial) {
  for (const auto &r : recs)
    if (r.schedule_json == json && r.trial_index < before_trial && r.ok()) return true;
  return false;
}

TEST(Transfer, OperatorAndShapeDistance) {
  EXPECT_EQ(operator_of("g15_Conv_Relu"), "Conv_Relu");
  EXPECT_EQ(operator_of("matmul"), "matmul");
  EXPECT_EQ(operator_of("gemm64"), "gemm64");
  EXPECT_EQ(operator_of("g_x"), "g_x");
  EXPECT_NEAR(shape_distance("{\"name\": \"matmul_64x64x64\", \"flops\": 1}", "{\"name\": \"matmul_128x64x32\"}"),
              (1.0 + 0.0 + 1.0) / 3, 1e-9);
  // No dims in the names: the flops decide.
  EXPECT_NEAR(shape_distance("{\"name\": \"g1_Conv\", \"flops\": 100}", "{\"name\": \"g7_Conv\", \"flops\": 400}"), 2.0,
              1e-9);
  EXPECT_TRUE(std::isinf(shape_distance("{}", "not json")));
}

TEST(Transfer, AdaptsFactorsToTheNewShape) {
  Task t96 = matmul(96);
  // The donor's row tile 64 does not divide 96: 48 is the nearest divisor; 16 divides and stays.
  std::vector<Step> donor = trace_from_json(donor_schedule(matmul(64), 64), t96.outputs);
  int adapted = -1;
  Schedule s = replay_adapted(t96.outputs, donor, true, &adapted);
  EXPECT_EQ(adapted, 1);
  EXPECT_EQ(trace_to_json(s), donor_schedule(t96, 48));
  // Unadapted, the trace replays as written (a split by 64 of 96 is legal, with a tail).
  Schedule plain = replay_adapted(t96.outputs, donor, false, &adapted);
  EXPECT_EQ(adapted, 0);
  EXPECT_EQ(trace_to_json(plain), donor_schedule(t96, 64));
  // A step on an axis the compute lacks names the step.
  std::vector<Step> bad = donor;
  std::get<SplitStep>(bad[0]).axis = "zz";
  try {
    replay_adapted(t96.outputs, bad, true);
    FAIL() << "replayed a split of a missing axis";
  } catch (const ScheduleError &e) {
    EXPECT_NE(std::string(e.what()).find("step 0"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("zz"), std::string::npos) << e.what();
  }
}

// Records of this workload on another CPU are measured in the first batch.
TEST(Transfer, OtherTargetRecordsAreMeasuredInTheFirstBatch) {
  Task t = matmul(64);
  std::string db = tmp("other_target.db");
  const std::string json = donor_schedule(t, 8);
  add_donor(db, t, other_cpu(), json, 50);
  TuneOptions o = fast(db);
  TuneResult r = tune(t, o);
  EXPECT_EQ(r.transferred, 1);
  EXPECT_EQ(r.transferred_measured, 1);
  EXPECT_NE(r.transfer_summary.find("Fake CPU 9000"), std::string::npos) << r.transfer_summary;
  EXPECT_TRUE(r.transfer_skipped.empty());
  EXPECT_TRUE(has_schedule(host_records(db, t), json, o.batch_size)) << "the donor's schedule is not in the first batch";
}

// --no-transfer (TuneOptions::transfer = false): the donor is not measured.
TEST(Transfer, OffMeasuresNone) {
  Task t = matmul(64);
  std::string db = tmp("off.db");
  const std::string json = donor_schedule(t, 8);
  add_donor(db, t, other_cpu(), json, 50);
  TuneOptions o = fast(db);
  o.transfer = false;
  TuneResult r = tune(t, o);
  EXPECT_EQ(r.measured, 4);
  EXPECT_EQ(r.transferred, 0);
  EXPECT_TRUE(r.transfer_summary.empty());
  EXPECT_FALSE(has_schedule(host_records(db, t), json, 1 << 30));
}

// A record of the 64^3 GEMM (in a read-only log, as the shipped one) warm-starts the 96^3 one, adapted.
TEST(Transfer, OtherShapeIsAdaptedAndMeasured) {
  Task t64 = matmul(64), t96 = matmul(96);
  std::string donors = tmp("shapes_donor.db"), db = tmp("shapes.db");
  add_donor(donors, t64, tuning_log::host_target_info(1), donor_schedule(t64, 64), 40);
  TuneOptions o = fast(db);
  o.read_dbs = {donors};
  TuneResult r = tune(t96, o);
  EXPECT_EQ(r.transferred, 1);
  EXPECT_EQ(r.transferred_measured, 1);
  EXPECT_NE(r.transfer_summary.find("matmul_64x64x64"), std::string::npos) << r.transfer_summary;
  EXPECT_NE(r.transfer_summary.find("1 adapted"), std::string::npos) << r.transfer_summary;
  EXPECT_TRUE(has_schedule(host_records(db, t96), donor_schedule(t96, 48), o.batch_size))
      << "the adapted donor schedule is not in the first batch";
}

// Donors whose traces do not parse or replay are skipped with a note naming them; tuning completes.
TEST(Transfer, BrokenDonorsAreSkippedWithANote) {
  Task t = matmul(64);
  std::string db = tmp("broken.db");
  const std::string good = donor_schedule(t, 8);
  std::string missing_axis = good;
  missing_axis.replace(missing_axis.find("\"j\""), 3, "\"zz\"");
  const int64_t corrupt_id = add_donor(db, t, other_cpu(), "{\"version\": 2, \"steps\": [", 90);
  auto missing_stage = [](int factor) {
    return "{\"version\": 2, \"steps\": [{\"kind\": \"split\", \"stage\": \"t9\", \"axes\": [\"i\"], \"ints\": [" +
           std::to_string(factor) + ", 0], \"target\": \"\"}]}";
  };
  const int64_t stage_id = add_donor(db, t, other_cpu(), missing_stage(8), 80);
  const int64_t stage_id2 = add_donor(db, t, other_cpu(), missing_stage(4), 75);  // fails alike: one line for both
  const int64_t axis_id = add_donor(db, t, other_cpu(), missing_axis, 70);
  add_donor(db, t, other_cpu(), good, 50);
  TuneOptions o = fast(db);
  ::testing::internal::CaptureStderr();
  TuneResult r = tune(t, o);
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(r.measured, 4);
  EXPECT_EQ(r.transferred, 1);
  ASSERT_EQ(r.transfer_skipped.size(), 3u);
  EXPECT_NE(r.transfer_summary.find("4 donor records skipped"), std::string::npos) << r.transfer_summary;
  for (const std::string &ids : {std::to_string(corrupt_id), std::to_string(axis_id)}) {
    const std::string note = "transfer: skipped record " + ids + " of ";
    EXPECT_NE(err.find(note), std::string::npos) << "no note for record " << ids << " in:\n" << err;
  }
  const std::string both = "transfer: skipped records " + std::to_string(stage_id) + ", " + std::to_string(stage_id2) + " of ";
  EXPECT_NE(err.find(both), std::string::npos) << "no note for records " << stage_id << ", " << stage_id2 << " in:\n" << err;
  EXPECT_NE(err.find("t9"), std::string::npos) << err;
  EXPECT_NE(err.find("zz"), std::string::npos) << err;
  EXPECT_TRUE(has_schedule(host_records(db, t), good, o.batch_size));
}

// Donor groups: this workload on other compatible targets first, nearest first; a GPU's records never serve a CPU
// task; other shapes of the operator after them.
TEST(Transfer, DonorGroupsNearestFirst) {
  Task t = matmul(64), t32 = matmul(32), t128 = matmul(128);
  std::string db = tmp("groups.db");
  tuning_log::TargetInfo far = other_cpu(), near = tuning_log::host_target_info(4), gpu = tuning_log::host_target_info(1);
  gpu.kind = "cuda";
  gpu.device = "Fake GPU";
  add_donor(db, t, far, donor_schedule(t, 8), 10);
  add_donor(db, t, near, donor_schedule(t, 8), 10);
  add_donor(db, t, gpu, donor_schedule(t, 8), 10);
  add_donor(db, t128, tuning_log::host_target_info(1), donor_schedule(t128, 8), 10);
  add_donor(db, t32, tuning_log::host_target_info(1), donor_schedule(t32, 8), 10);
  RecordStore own(db, t.workload_key, "matmul", workload_description(t), 1);
  std::vector<DonorGroup> g = find_donor_groups(own, TransferOptions{});
  ASSERT_EQ(g.size(), 4u);
  EXPECT_TRUE(g[0].same_workload);
  EXPECT_EQ(g[0].target.threads, 4);  // the same CPU with other threads is nearer than another CPU
  EXPECT_EQ(g[1].target.cpu_model, "Fake CPU 9000");
  EXPECT_FALSE(g[2].same_workload);
  EXPECT_EQ(g[2].shape_distance, 1.0);
  EXPECT_EQ(g[3].shape_distance, 1.0);
  std::set<std::string> names = {g[2].workload_name, g[3].workload_name};
  EXPECT_EQ(names, (std::set<std::string>{"matmul_32x32x32", "matmul_128x128x128"}));
}

// The cost model trains on one group per donor, then the task's own records.
TEST(Transfer, CostModelTrainsOnDonorGroups) {
  Task t = matmul(64);
  std::string db = tmp("train.db");
  add_donor(db, t, other_cpu(), donor_schedule(t, 8), 50);
  add_donor(db, t, other_cpu(), donor_schedule(t, 4), 30);
  add_donor(db, t, tuning_log::host_target_info(2), donor_schedule(t, 2), 20);
  RecordStore own(db, t.workload_key, "matmul", workload_description(t), 1);
  Transfer tr = collect_transfer(t, own, TransferOptions{});
  ASSERT_EQ(tr.groups.size(), 2u);
  EXPECT_EQ(tr.seeds.size(), 3u);
  cost_model::XGBCostModel model;
  train_with_donors(model, tr, {}, {});
  EXPECT_TRUE(model.trained());
  EXPECT_EQ(model.num_groups(), 2u);
  EXPECT_EQ(model.num_records(), 3u);
}

}  // namespace
}  // namespace autotune
}  // namespace tetune
