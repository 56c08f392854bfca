#include "autotune/cost_model/xgb_cost_model.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <string>

#include "autotune/cost_model/random_cost_model.h"
#include "autotune/cost_model/ranking_metrics.h"
#include "base/errors.h"

namespace tetune {
namespace cost_model {
namespace {

using Rows = std::vector<std::vector<float>>;

std::string tmp_path(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : testing::TempDir().c_str()) + "/" + name;
}

/** A synthetic tiled-loop task. Features: log2 of three tile sizes (0..6),
 *  unroll flag, log2 vector width (0..3), parallel flag, and two irrelevant
 *  features. Throughput (GFLOP/s-like) is a known non-linear function of the
 *  relevant features with ~5% multiplicative log-normal noise. */
struct Synthetic {
  Rows features;
  std::vector<double> throughputs;  // noisy "measurement"
  std::vector<double> truth;        // noise-free
};

Synthetic make_task(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> tile(0, 6), vec(0, 3), flag(0, 1);
  std::uniform_real_distribution<float> junk(0.0f, 1.0f);
  std::normal_distribution<double> noise(0.0, 0.05);
  Synthetic s;
  for (int i = 0; i < n; ++i) {
    const int tx = tile(rng), ty = tile(rng), tk = tile(rng);
    const int unroll = flag(rng), vw = vec(rng), par = flag(rng);
    const double f = 100.0 * std::exp(-(tx - 4.0) * (tx - 4.0) / 6.0) *
                     std::exp(-(ty - 3.0) * (ty - 3.0) / 4.0) *
                     (0.6 + 0.4 * std::exp(-(tk - 2.0) * (tk - 2.0) / 3.0)) *
                     (1.0 + 0.3 * vw) * (par ? 4.0 : 1.0) *
                     ((unroll && tx >= 3) ? 1.2 : (unroll ? 0.8 : 1.0));
    s.features.push_back({float(tx), float(ty), float(tk), float(unroll), float(vw),
                          float(par), junk(rng), junk(rng)});
    s.truth.push_back(f);
    s.throughputs.push_back(f * std::exp(noise(rng)));
  }
  return s;
}

TEST(XGBCostModel, UntrainedPredictsZeros) {
  XGBCostModel m;
  EXPECT_FALSE(m.trained());
  EXPECT_EQ(m.name(), "xgb");
  const auto p = m.predict({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(p, std::vector<double>({0.0, 0.0}));
  EXPECT_TRUE(m.predict({}).empty());
  m.update({}, {});  // empty batch: no-op
  EXPECT_FALSE(m.trained());
  EXPECT_EQ(m.num_records(), 0u);
}

TEST(XGBCostModel, MismatchedRowLengthsRaise) {
  XGBCostModel m;
  try {
    m.predict({{1, 2, 3}, {4, 5, 6}, {7, 8}});
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("row 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(m.update({{1, 2}, {3}}, {1.0, 2.0}), ShapeError);
  EXPECT_THROW(m.update({{1, 2}, {3, 4}}, {1.0}), ShapeError);
  EXPECT_THROW(m.update({{1, 2}, {3, 4}}, {1.0, -2.0}), Error);
  EXPECT_THROW(m.update({{}, {}}, {1.0, 2.0}), ShapeError);
  EXPECT_FALSE(m.trained());

  m.update({{1, 2}, {3, 4}, {5, 6}}, {1.0, 2.0, 3.0});
  EXPECT_TRUE(m.trained());
  // After training the length is fixed.
  EXPECT_THROW(m.predict({{1, 2, 3}}), ShapeError);
  EXPECT_THROW(m.update({{1, 2, 3}}, {1.0}), ShapeError);
  EXPECT_EQ(m.num_records(), 3u);  // the rejected batch was not stored
  EXPECT_EQ(m.num_groups(), 1u);
}

TEST(XGBCostModel, BadOptionsRaise) {
  XGBCostModelOptions o;
  o.num_rounds = 0;
  EXPECT_THROW(XGBCostModel{o}, Error);
  XGBCostModelOptions bad_method;
  bad_method.tree_method = "no_such_method";
  XGBCostModel m(bad_method);
  // XGBoost rejects the parameter; its message becomes a tetune::Error and the
  // batch is rolled back.
  EXPECT_THROW(m.update({{1}, {2}}, {1.0, 2.0}), Error);
  EXPECT_FALSE(m.trained());
  EXPECT_EQ(m.num_records(), 0u);
}

TEST(XGBCostModel, RanksHeldOutCandidatesOfSyntheticTask) {
  const Synthetic train = make_task(1000, 1);
  const Synthetic test = make_task(300, 2);

  XGBCostModel xgb;
  const auto t0 = std::chrono::steady_clock::now();
  // Four measurement rounds of 250 candidates each, as a tuner would send.
  for (int b = 0; b < 4; ++b) {
    Rows f(train.features.begin() + 250 * b, train.features.begin() + 250 * (b + 1));
    std::vector<double> t(train.throughputs.begin() + 250 * b,
                          train.throughputs.begin() + 250 * (b + 1));
    xgb.update(f, t);
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(xgb.trained());
  EXPECT_EQ(xgb.num_records(), 1000u);
  EXPECT_EQ(xgb.num_groups(), 4u);

  const auto pred = xgb.predict(test.features);
  ASSERT_EQ(pred.size(), 300u);
  const double tau_meas = kendall_tau(pred, test.throughputs);
  const double tau_truth = kendall_tau(pred, test.truth);
  const double acc = pairwise_accuracy(pred, test.throughputs);

  RandomCostModel random(5);
  const double tau_random = kendall_tau(random.predict(test.features), test.throughputs);
  const Synthetic big = make_task(2000, 3);
  const double tau_random_big = kendall_tau(random.predict(big.features), big.throughputs);

  std::cout << "[synthetic] 4 updates (1000 rows) took " << secs << " s\n"
            << "[synthetic] XGB    kendall_tau vs measured = " << tau_meas
            << ", vs noise-free = " << tau_truth << ", pairwise_accuracy = " << acc << "\n"
            << "[synthetic] random kendall_tau (300 rows) = " << tau_random
            << ", (2000 rows) = " << tau_random_big << std::endl;
  EXPECT_GT(tau_meas, 0.5);
  EXPECT_GT(tau_truth, 0.5);
  EXPECT_GT(acc, 0.75);
  EXPECT_LT(std::fabs(tau_random), 0.2);
  EXPECT_LT(std::fabs(tau_random_big), 0.2);
}

TEST(XGBCostModel, SaveLoadRoundTripAndKeepsUpdating) {
  const Synthetic train = make_task(400, 11);
  const Synthetic more = make_task(200, 12);
  const Synthetic test = make_task(100, 13);
  const std::string path = tmp_path("xgb_model.json");

  XGBCostModel a;
  a.update(train.features, train.throughputs);
  a.save(path);

  XGBCostModel b;
  b.load(path);
  EXPECT_TRUE(b.trained());
  EXPECT_EQ(b.num_records(), a.num_records());
  EXPECT_EQ(b.num_groups(), a.num_groups());
  EXPECT_EQ(b.num_features(), 8u);
  EXPECT_EQ(a.predict(test.features), b.predict(test.features));  // bit-identical

  // The reloaded model keeps its training rows: one more update on both gives
  // the same model again.
  a.update(more.features, more.throughputs);
  b.update(more.features, more.throughputs);
  EXPECT_EQ(b.num_records(), 600u);
  EXPECT_EQ(a.predict(test.features), b.predict(test.features));

  // The model file is XGBoost JSON.
  std::ifstream f(path);
  char c = 0;
  f >> c;
  EXPECT_EQ(c, '{');
}

// update_groups() appends every group and trains once: the same model as one
// update() per group; a bad group appends nothing.
TEST(XGBCostModel, UpdateGroupsEqualsOneUpdatePerGroup) {
  const Synthetic g1 = make_task(150, 21), g2 = make_task(120, 22), test = make_task(100, 23);
  XGBCostModel a, b;
  a.update(g1.features, g1.throughputs);
  a.update(g2.features, g2.throughputs);
  b.update_groups({{g1.features, g1.throughputs}, {g2.features, g2.throughputs}});
  EXPECT_EQ(b.num_groups(), 2u);
  EXPECT_EQ(b.num_records(), 270u);
  EXPECT_EQ(a.predict(test.features), b.predict(test.features));

  XGBCostModel::Group bad{{{1.0f, 2.0f}}, {1.0}};  // rows of length 2, not 8
  EXPECT_THROW(b.update_groups({{g1.features, g1.throughputs}, bad}), ShapeError);
  EXPECT_EQ(b.num_records(), 270u);
  EXPECT_EQ(a.predict(test.features), b.predict(test.features));
}

// A model file without its training-rows sidecar (the shipped model) loads as
// the booster alone: the same predictions, no stored records.
TEST(XGBCostModel, LoadWithoutSidecarPredicts) {
  const Synthetic train = make_task(300, 31), test = make_task(100, 32);
  const std::string path = tmp_path("xgb_booster_only.json");
  XGBCostModel a;
  a.update(train.features, train.throughputs);
  a.save(path);
  std::remove(XGBCostModel::rows_path(path).c_str());
  XGBCostModel b;
  b.load(path);
  EXPECT_TRUE(b.trained());
  EXPECT_EQ(b.num_records(), 0u);
  EXPECT_EQ(b.num_features(), 8u);
  EXPECT_EQ(a.predict(test.features), b.predict(test.features));
}

TEST(XGBCostModel, SaveLoadUntrained) {
  const std::string path = tmp_path("xgb_untrained.json");
  XGBCostModel a;
  a.save(path);
  XGBCostModel b;
  b.update({{1}, {2}}, {1.0, 2.0});
  b.load(path);  // replaces the trained state
  EXPECT_FALSE(b.trained());
  EXPECT_EQ(b.num_records(), 0u);
  EXPECT_EQ(b.predict({{1}}), std::vector<double>({0.0}));
}

TEST(XGBCostModel, LoadErrors) {
  XGBCostModel m;
  EXPECT_THROW(m.load(tmp_path("missing.json")), Error);

  const std::string path = tmp_path("xgb_corrupt.json");
  {
    XGBCostModel a;
    a.update({{1, 2}, {2, 1}, {3, 3}}, {1.0, 2.0, 3.0});
    a.save(path);
  }
  // Corrupt the model file: XGBoost's error surfaces as tetune::Error.
  { std::ofstream(path, std::ios::trunc) << "{ not json"; }
  EXPECT_THROW(m.load(path), Error);
  EXPECT_FALSE(m.trained());
  // Corrupt the sidecar: ParseError naming the file.
  { std::ofstream(XGBCostModel::rows_path(path), std::ios::trunc) << "tetune-xgb-cost-model-rows v1\ntrained 1\nnum_features x\n"; }
  try {
    m.load(path);
    FAIL() << "expected ParseError";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find(".rows"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cost_model
}  // namespace tetune
