// The faster form of each Winograd-eligible conv, by the records of both forms.
//
// A 3x3 stride-1 blocked conv (passes/winograd.h) runs either direct, as one
// kernel (the conv and its fused epilogue), or by Winograd F(2x2, 3x3), as
// three (input transform, GEMM, output transform with the epilogue). Winograd
// does fewer multiplies, but its transformed tensors go through memory, so
// which form is faster depends on the shape, the machine and the schedules
// found: untuned, Inception-v3's 147x147 stems run 1.3x slower by Winograd,
// and its 35x35 convs 0.7x (bench/RESULTS.md, 2026-11-29 thirteenth session).
// `tetune tune` therefore tunes the kernels of both forms
// (autotune::extract_model_tasks), and a compile with records
// (CompileOptions::record_ms) keeps a conv direct where its direct kernel's
// record is faster than the sum of its three Winograd kernels' records (after
// `tune`'s in-model step, their times inside the model: model_tuning/in_model_pick.h). A conv
// lacking a record of this machine for any kernel of either form keeps the
// default form, Winograd; so does one whose transformed input is shared with
// another conv's (CSE merged the two transforms: its cost is not the conv's alone).
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "relay_import/graph.h"
#include "workload/task.h"

namespace tetune {
namespace relay {

struct CompileOptions;  // executor.h, which includes this header

/** Both forms of one conv: their kernels' tasks and record times (ms per run). */
struct ConvForms {
  std::string conv;            // the name of the conv's output value
  tetune::Task direct;         // its direct kernel (the conv and its fused epilogue)
  /**
   * Its Winograd kernels: input transform, GEMM, output transform (with the
   * epilogue). Fewer when CSE merged its input transform into another conv's.
   */
  std::vector<tetune::Task> winograd;
  double direct_ms = std::numeric_limits<double>::quiet_NaN();    // NaN without a record
  double winograd_ms = std::numeric_limits<double>::quiet_NaN();  // the sum; NaN when a kernel lacks a record or is shared
  /** True when both are known and the direct form is faster. */
  bool direct_faster() const { return direct_ms < winograd_ms; }
};

/**
 * Both forms of every conv that convert_convs_to_winograd would rewrite in g
 * (a graph after the blocked-layout pass, not modified). Builds the kernel
 * groups and tasks of both forms as compile_model would (the passes after the
 * Winograd one, then fusion, on two copies of g); the times come from
 * options.record_ms, NaN when it is unset.
 */
std::vector<ConvForms> conv_forms(const Graph &g, const CompileOptions &options);

/** A heading, then one line per conv: "  NAME  direct X ms, Winograd Y ms: FORM" ("-" for an unknown time); "" for none. */
std::string format_conv_forms(const std::vector<ConvForms> &forms);

}  // namespace relay
}  // namespace tetune
