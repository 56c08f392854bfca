// Search policies and cost models written in Python, called back from the
// C++ tuning loop: trampolines over policy::SearchPolicy and
// cost_model::CostModel, the candidates and outcomes they exchange, the
// search context a policy is given, and the registries.
#pragma once

#include <pybind11/pybind11.h>

namespace tetune::python {

/**
 * Adds to the `autotune` submodule: Candidate, Outcome, SearchContext,
 * SearchPolicy and CostModel (subclassable in Python), register_policy /
 * register_cost_model, make_cost_model and the name lists.
 */
void bind_search_plugins(pybind11::module_ &autotune);

}  // namespace tetune::python
