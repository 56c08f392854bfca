// A simple CPU schedule for a fused group, used until a tuned schedule exists:
// elementwise / injective intermediate stages are inlined, every remaining
// stage is computed at root with its outer spatial axes fused and run in
// parallel and its innermost spatial axis split by `vector_width` and
// vectorized (reduce axes moved outside the vector lanes).
#pragma once

#include <vector>

#include "schedule/schedule.h"
#include "te/tensor.h"

namespace tetune {
namespace relay {

Schedule simple_cpu_schedule(const std::vector<Tensor> &outputs, int vector_width = 8);

}  // namespace relay
}  // namespace tetune
