// RandomSearch: uniform samples of the space, fresh and distinct.
#include "autotune/policy/policy.h"

namespace tetune {
namespace autotune {
namespace policy {
namespace {

class RandomSearch : public SearchPolicy {
 public:
  explicit RandomSearch(const PolicyContext &ctx) : ctx_(ctx), rng_(ctx.seed) {}
  std::string name() const override { return "random"; }
  std::vector<Candidate> next_batch(int n) override {
    std::set<std::string> taken;
    return sample_fresh(ctx_, rng_, n, &taken);
  }
  void notify(const std::vector<Outcome> &) override {}

 private:
  PolicyContext ctx_;
  std::mt19937_64 rng_;
};

bool registered = register_policy("random", [](const PolicyContext &c) { return std::make_unique<RandomSearch>(c); });

}  // namespace
}  // namespace policy
}  // namespace autotune
}  // namespace tetune
