#include "autotune/cost_model/ranking_metrics.h"

#include <gtest/gtest.h>

#include <cmath>

#include "base/errors.h"

namespace tetune {
namespace cost_model {
namespace {

TEST(KendallTau, IdentityIsOne) {
  EXPECT_DOUBLE_EQ(kendall_tau({1, 2, 3, 4, 5}, {1, 2, 3, 4, 5}), 1.0);
  // Any strictly increasing transform keeps the order.
  EXPECT_DOUBLE_EQ(kendall_tau({1, 2, 3, 4, 5}, {0.1, 10, 11, 500, 1e6}), 1.0);
}

TEST(KendallTau, ReversedIsMinusOne) {
  EXPECT_DOUBLE_EQ(kendall_tau({1, 2, 3, 4, 5}, {5, 4, 3, 2, 1}), -1.0);
}

TEST(KendallTau, HandComputedNoTies) {
  // 6 pairs, only (1,2) is discordant: (5 - 1) / 6.
  EXPECT_NEAR(kendall_tau({1, 2, 3, 4}, {1, 3, 2, 4}), 2.0 / 3.0, 1e-12);
}

TEST(KendallTau, HandComputedWithTies) {
  // a = [1,2,2,3], b = [1,3,2,2]. Pairs: (0,1) C, (0,2) C, (0,3) C,
  // (1,2) tied in a, (1,3) D, (2,3) tied in b. n_c=3, n_d=1, n_0=6, n_1=1,
  // n_2=1: tau_b = 2 / sqrt(5 * 5) = 0.4 (scipy.stats.kendalltau agrees).
  EXPECT_NEAR(kendall_tau({1, 2, 2, 3}, {1, 3, 2, 2}), 0.4, 1e-12);
  EXPECT_NEAR(kendall_tau({1, 3, 2, 2}, {1, 2, 2, 3}), 0.4, 1e-12);  // symmetric
}

TEST(KendallTau, SameTiesGiveOne) {
  // tau-b (unlike tau-a) corrects for ties: a=[1,1,2], b=[3,3,4] has n_c=2,
  // n_d=0, n_0=3, n_1=n_2=1 -> 2 / sqrt(2 * 2) = 1.
  EXPECT_NEAR(kendall_tau({1, 1, 2}, {3, 3, 4}), 1.0, 1e-12);
}

TEST(KendallTau, UndefinedIsNaN) {
  EXPECT_TRUE(std::isnan(kendall_tau({}, {})));
  EXPECT_TRUE(std::isnan(kendall_tau({1}, {2})));
  EXPECT_TRUE(std::isnan(kendall_tau({0, 0, 0}, {1, 2, 3})));  // untrained model
}

TEST(KendallTau, BadInputsThrow) {
  EXPECT_THROW(kendall_tau({1, 2}, {1, 2, 3}), ShapeError);
  EXPECT_THROW(kendall_tau({1, NAN}, {1, 2}), Error);
}

TEST(PairwiseAccuracy, IdentityAndReversed) {
  EXPECT_DOUBLE_EQ(pairwise_accuracy({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(pairwise_accuracy({4, 3, 2, 1}, {10, 20, 30, 40}), 0.0);
}

TEST(PairwiseAccuracy, HandComputed) {
  // Pairs (0,1): predicted tie -> 0.5; (0,2), (1,2): right -> 2.5 / 3.
  EXPECT_NEAR(pairwise_accuracy({1, 1, 2}, {1, 2, 3}), 2.5 / 3.0, 1e-12);
  // Pairs tied in `actual` are skipped: (0,2), (1,2) right -> 1.
  EXPECT_DOUBLE_EQ(pairwise_accuracy({2, 1, 3}, {1, 1, 2}), 1.0);
  // One of three pairs wrong.
  EXPECT_NEAR(pairwise_accuracy({1, 3, 2}, {1, 2, 3}), 2.0 / 3.0, 1e-12);
}

TEST(PairwiseAccuracy, UndefinedAndBadInputs) {
  EXPECT_TRUE(std::isnan(pairwise_accuracy({1, 2}, {5, 5})));
  EXPECT_THROW(pairwise_accuracy({1}, {1, 2}), ShapeError);
  EXPECT_THROW(pairwise_accuracy({1, 2}, {NAN, 2}), Error);
}

}  // namespace
}  // namespace cost_model
}  // namespace tetune
