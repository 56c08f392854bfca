// pick_by_cost_model (autotune/cost_model_pick.h) and the shipped cost model
// (autotune/cost_model/shipped_model.h): the pick of an odd-shape matmul
// builds and computes the reference's values, is the model's best-scored
// candidate, is deterministic, and needs a trained model; the shipped model
// loads and ranks the workloads held out of its training better than a random
// order.
#include <dirent.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "autotune/cost_model/dataset.h"
#include "autotune/cost_model/random_cost_model.h"
#include "autotune/cost_model/shipped_model.h"
#include "autotune/cost_model/xgb_cost_model.h"
#include "autotune/cost_model_pick.h"
#include "autotune/features/features.h"
#include "autotune/search_space/search_space.h"
#include "base/errors.h"
#include "codegen/kernel.h"
#include "te/interpreter.h"
#include "te/ops/registry.h"
#include "workload/task.h"

namespace tetune {
namespace autotune {
namespace {

constexpr const char *kDataDir = "autotune/cost_model/data";
constexpr const char *kShipped = "autotune/cost_model/shipped/xgb.json";

// C[i, j] = sum_k A[i, k] B[k, j], M x N x K = 67 x 45 x 39: no extent is a multiple of a vector or block.
Task odd_matmul() {
  const int M = 67, N = 45, K = 39;
  Tensor A = placeholder({M, K}, float32(), "A");
  Tensor B = placeholder({K, N}, float32(), "B");
  IterVar k = reduce_axis(K, "k");
  Tensor C = compute({M, N}, [&](const std::vector<Var> &i) { return sum(A(i[0], k.var) * B(k.var, i[1]), {k}); }, "C",
                     "matmul", {"i", "j"});
  return make_task("matmul_67x45x39", {C}, Target{}, 1);
}

std::unique_ptr<cost_model::CostModel> shipped() {
  std::string why;
  auto m = cost_model::load_shipped_cost_model(&why);
  EXPECT_TRUE(m) << why;
  return m;
}

TEST(CostModelPick, OddMatmulPickBuildsAndEqualsTheReference) {
  auto model = shipped();
  ASSERT_TRUE(model);
  Task task = odd_matmul();
  SearchSpace space(task);
  auto t0 = std::chrono::steady_clock::now();
  std::optional<CostModelPick> pick = pick_by_cost_model(space, task, *model, 128, 1);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(pick);
  std::cout << "matmul 67x45x39: " << pick->ranked << " candidates ranked in " << secs * 1e3 << " ms ("
            << secs * 1e3 / pick->ranked << " ms each); pick " << pick->candidate.key()
            << (pick->from_seed ? " (seed " + std::to_string(pick->seed_index) + ")" : " (sample)") << std::endl;
  EXPECT_GT(pick->ranked, static_cast<int>(space.seeds().size())) << "samples are ranked beside the seeds";
  EXPECT_LT(secs, 5.0) << "ranking 128 candidates must not dominate a model's compile";

  Schedule s = space.schedule(pick->candidate);
  std::vector<Tensor> ins = task.inputs();
  std::vector<NDArray> data;
  for (size_t i = 0; i < ins.size(); i++) data.push_back(NDArray::random(ins[i].shape(), ins[i].dtype(), 7 + i));
  std::vector<NDArray> ref = interpret(task.outputs, ins, data);
  std::vector<NDArray> out = Kernel::build(s).run(data);
  ASSERT_EQ(out.size(), ref.size());
  for (size_t i = 0; i < out.size(); i++) {
    std::string where;
    EXPECT_TRUE(all_close(out[i], ref[i], 1e-4, 1e-5, &where)) << where;
  }

  // The pick is the model's best score over the seeds and the same samples.
  std::vector<Candidate> cands = space.seeds();
  std::mt19937_64 rng(1);
  for (int i = 0; i < 128; i++) cands.push_back(space.sample(rng));
  std::vector<std::vector<float>> rows;
  for (const Candidate &c : cands) {
    try {
      rows.push_back(features::schedule_features(space.schedule(c), task));
    } catch (const Error &) {
    }
  }
  std::vector<double> scores = model->predict(rows);
  EXPECT_EQ(pick->score, *std::max_element(scores.begin(), scores.end()));
  EXPECT_EQ(model->predict({features::schedule_features(s, task)})[0], pick->score);
}

TEST(CostModelPick, Deterministic) {
  auto model = shipped();
  ASSERT_TRUE(model);
  Task task = odd_matmul();
  SearchSpace a(task), b(task);
  auto p1 = pick_by_cost_model(a, task, *model, 64, 3);
  auto p2 = pick_by_cost_model(b, task, *model, 64, 3);
  ASSERT_TRUE(p1 && p2);
  EXPECT_EQ(p1->candidate.key(), p2->candidate.key());
  EXPECT_EQ(p1->score, p2->score);
  EXPECT_EQ(p1->ranked, p2->ranked);
  EXPECT_EQ(p1->seed_index, p2->seed_index);
  // Without samples only the seeds are ranked: the pick is one of them.
  auto seeds_only = pick_by_cost_model(a, task, *model, 0, 3);
  ASSERT_TRUE(seeds_only) << "a matmul has analytical seeds";
  EXPECT_TRUE(seeds_only->from_seed);
  EXPECT_EQ(seeds_only->candidate.key(), a.seeds().at(seeds_only->seed_index).key());
  EXPECT_THROW(pick_by_cost_model(a, task, *model, -1, 3), Error);
}

TEST(CostModelPick, UntrainedModelPicksNothing) {
  Task task = odd_matmul();
  SearchSpace space(task);
  cost_model::XGBCostModel untrained;
  EXPECT_FALSE(pick_by_cost_model(space, task, untrained, 16, 1));
  cost_model::RandomCostModel random(1);  // its scores carry no information: trained() is false
  EXPECT_FALSE(pick_by_cost_model(space, task, random, 16, 1));
}

// The conv of a ResNet stage: how long ranking takes on a larger DAG (printed; bounded loosely).
TEST(CostModelPick, ConvRankingTime) {
  auto model = shipped();
  ASSERT_TRUE(model);
  ops::OpWorkload w = ops::build_op("conv2d", {1, 64, 56, 56, 64, 3, 3, 1, 1});
  Task task = make_task("conv2d", w.outputs, Target{}, 2);
  SearchSpace space(task);
  auto t0 = std::chrono::steady_clock::now();
  auto pick = pick_by_cost_model(space, task, *model, 128, 1);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(pick);
  std::cout << "conv2d 1x64x56x56 k64 3x3: " << pick->ranked << " candidates ranked in " << secs * 1e3 << " ms ("
            << secs * 1e3 / pick->ranked << " ms each)" << std::endl;
  EXPECT_LT(secs, 5.0);
  EXPECT_NO_THROW(space.schedule(pick->candidate));
}

TEST(ShippedCostModel, FoundAndReasonWhenMissing) {
  std::string path = cost_model::shipped_cost_model_path();
  ASSERT_FALSE(path.empty()) << kShipped << " is a data dependency of this test";
  EXPECT_NE(path.find(kShipped), std::string::npos) << path;

  ::setenv("TETUNE_COST_MODEL", "", 1);
  std::string why;
  EXPECT_FALSE(cost_model::load_shipped_cost_model(&why));
  EXPECT_NE(why.find("TETUNE_COST_MODEL"), std::string::npos) << why;
  ::setenv("TETUNE_COST_MODEL", "/nonexistent/xgb.json", 1);
  why.clear();
  EXPECT_FALSE(cost_model::load_shipped_cost_model(&why));
  EXPECT_NE(why.find("/nonexistent/xgb.json"), std::string::npos) << why;
  ::unsetenv("TETUNE_COST_MODEL");
  EXPECT_TRUE(cost_model::load_shipped_cost_model(&why)) << why;
}

// The workloads tools/train_cost_model.sh held out of the shipped model's
// training (--holdout-split, recorded in xgb.json.train.json): the model
// orders their records better than chance. A model with uninformative scores
// stays at 0.5 pooled pairwise accuracy and the random top-1 ratio.
TEST(ShippedCostModel, RanksHeldOutWorkloadsBetterThanRandom) {
  auto model = shipped();
  ASSERT_TRUE(model);
  std::ifstream prov_in(std::string(kShipped) + ".train.json");
  ASSERT_TRUE(prov_in) << kShipped << ".train.json is missing";
  nlohmann::json prov = nlohmann::json::parse(prov_in);
  const int split = prov.at("holdout_split").get<int>();
  ASSERT_GT(split, 0) << "the shipped model holds no workload out: nothing to rank honestly";

  std::vector<cost_model::DatasetRecord> held;
  std::set<std::string> cpus;
  DIR *d = ::opendir(kDataDir);
  ASSERT_TRUE(d) << kDataDir;
  int files = 0;
  while (dirent *e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.size() < 6 || name.substr(name.size() - 6) != ".jsonl") continue;
    files++;
    cost_model::Dataset ds = cost_model::read_dataset(std::string(kDataDir) + "/" + name);
    EXPECT_EQ(ds.feature_names, features::feature_names()) << name << " was exported by another feature set";
    for (auto &r : ds.records) {
      cpus.insert(r.cpu_model);
      if (cost_model::held_out_workload(r.workload_key, split)) held.push_back(std::move(r));
    }
  }
  ::closedir(d);
  EXPECT_GE(files, 2);
  EXPECT_GE(cpus.size(), 2u) << "the shipped model is trained on records of more than one CPU";
  std::vector<cost_model::QueryGroup> groups = cost_model::query_groups(held);
  cost_model::RankingQuality q = cost_model::ranking_quality(*model, groups);
  cost_model::RankingQuality r = cost_model::random_ranking_quality(groups);
  std::cout << "held out: " << q.groups << " groups, " << q.records << " records; pooled pairwise accuracy "
            << q.pooled_accuracy << " (random 0.5), top-1 " << q.top1_ratio << " of the best (random " << r.top1_ratio
            << ")" << std::endl;
  ASSERT_GE(q.groups, 10);
  EXPECT_GT(q.pooled_accuracy, 0.6);
  EXPECT_GT(q.top1_ratio, r.top1_ratio);
}

}  // namespace
}  // namespace autotune
}  // namespace tetune
