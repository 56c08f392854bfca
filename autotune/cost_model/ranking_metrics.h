// Rank-correlation metrics for evaluating cost models: how well predicted
// scores order candidates compared with measured throughputs.
#pragma once

#include <vector>

namespace tetune {
namespace cost_model {

/** Kendall's tau-b rank correlation between `a` and `b` (symmetric).
 *
 *    tau_b = (n_c - n_d) / sqrt((n_0 - n_1) * (n_0 - n_2))
 *
 *  over all pairs i < j, where n_c / n_d count concordant / discordant pairs
 *  (sign(a_i - a_j) * sign(b_i - b_j) = +1 / -1), n_0 = n(n-1)/2,
 *  n_1 = sum over tie groups of `a` of t(t-1)/2, and n_2 likewise for `b`;
 *  pairs tied in either vector are neither concordant nor discordant.
 *  Source: M. G. Kendall, "The treatment of ties in ranking problems",
 *  Biometrika 33(3):239-251, 1945; this is the variant computed by
 *  scipy.stats.kendalltau (variant='b').
 *
 *  Range [-1, 1]: 1 for the same order, -1 for the reversed order. Returns NaN
 *  when it is undefined (fewer than 2 elements, or all values of `a` or of `b`
 *  tied, e.g. the all-zero predictions of an untrained model), as scipy does.
 *  O(n^2) time. Raises tetune::ShapeError if the sizes differ and
 *  tetune::Error on a NaN element. */
double kendall_tau(const std::vector<double>& a, const std::vector<double>& b);

/** Pairwise ranking accuracy of `predicted` scores against `actual`
 *  throughputs (higher = better in both):
 *
 *    acc = (C + T / 2) / P
 *
 *  over the P pairs i < j with actual_i != actual_j, where C counts pairs that
 *  `predicted` orders the same way as `actual` and T counts pairs tied in
 *  `predicted` (a tie is half right). This is Harrell's concordance index
 *  (F. E. Harrell et al., "Evaluating the yield of medical tests", JAMA
 *  247(18):2543-2546, 1982) and the "pairwise comparison accuracy" used to
 *  evaluate learned cost models (e.g. TVM/Ansor). 0.5 = random, 1 = perfect.
 *  Returns NaN if P = 0. O(n^2) time. Raises tetune::ShapeError if the sizes
 *  differ and tetune::Error on a NaN element. */
double pairwise_accuracy(const std::vector<double>& predicted,
                         const std::vector<double>& actual);

}  // namespace cost_model
}  // namespace tetune
