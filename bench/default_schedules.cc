// Untuned schedules side by side, per task of a model: the elementwise
// default (schedules::simple_cpu_schedule, every task) against the analytical
// default (autotune::analytical_schedule) and, with --all-seeds, every
// analytical seed of the task's search space. Outputs are checked against the
// elementwise default's; times are medians of interleaved rounds.
//
//   bazel run //bench:default_schedules -- --model models/zoo/resnet50.onnx --threads 2
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "autotune/cost_model/shipped_model.h"
#include "autotune/default_schedule.h"
#include "autotune/search_space/search_space.h"
#include "base/errors.h"
#include "codegen/kernel.h"
#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"
#include "schedules/default_schedule.h"

using namespace tetune;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"untuned schedules of a model's tasks, side by side"};
  std::string model, shapes, filter;
  int threads = 2, rounds = 5, repeat = 5;
  bool all_seeds = false;
  app.add_option("--model", model)->required();
  app.add_option("--input-shape", shapes, "NAME=D1,D2,... for dynamic inputs");
  app.add_option("--threads", threads);
  app.add_option("--filter", filter, "only tasks whose name contains this");
  app.add_option("--rounds", rounds);
  app.add_option("--repeat", repeat);
  app.add_flag("--all-seeds", all_seeds, "also time every analytical seed");
  std::vector<std::string> overrides;
  app.add_option("--set", overrides, "NAME=VALUE: with --all-seeds, also time each seed with this parameter set (repeatable)");
  bool show_params = false;
  app.add_flag("--show-params", show_params, "with --all-seeds, print each seed's parameters");
  int candidates = autotune::DefaultScheduleOptions().candidates;
  app.add_option("--candidates", candidates, "random samples the cost model ranks beside the seeds");
  CLI11_PARSE(app, argc, argv);
  try {
    set_num_threads(threads);
    relay::ImportOptions io;
    if (!shapes.empty()) io.input_shapes = relay::parse_input_shapes(shapes);
    relay::Graph g = relay::import_onnx(model, io);
    relay::CompileOptions co;
    co.threads = threads;
    relay::run_graph_passes(g, co);
    std::vector<relay::FusedGroup> groups = relay::fuse_graph(g, co.fusion);
    std::map<std::string, int> count;
    std::vector<Task> tasks;
    for (auto &grp : groups) {
      if (grp.kind != relay::FusedGroup::Kernel) continue;
      relay::build_group(g, grp, co.target, threads);
      if (count[grp.task.workload_key]++ == 0) tasks.push_back(grp.task);
    }
    std::string why;
    std::unique_ptr<cost_model::CostModel> model = cost_model::load_shipped_cost_model(&why);
    if (!model) throw Error("no shipped cost model: " + why);
    autotune::DefaultScheduleOptions dso;
    dso.cost_model = model.get();
    dso.candidates = candidates;
    double total[3] = {0, 0, 0};
    std::printf("%-44s %4s %10s %10s %10s %7s  %s\n", "task", "uses", "simple ms", "analyt ms", "costm ms", "ratio", "analytical detail | cost model detail");
    for (const Task &t : tasks) {
      if (!filter.empty() && t.name.find(filter) == std::string::npos) continue;
      std::vector<std::pair<std::string, Schedule>> sch;
      sch.emplace_back("simple", schedules::simple_cpu_schedule(t.outputs, 8, threads));
      ScheduleChoice a = autotune::analytical_schedule(t);
      sch.emplace_back("analytical", a.schedule);
      ScheduleChoice cm = autotune::default_schedule(t, dso);
      sch.emplace_back("cost model", cm.schedule);
      if (all_seeds) {
        autotune::SearchSpace space(t);
        auto seeds = space.seeds();
        for (size_t i = 0; i < seeds.size(); i++) {
          std::string name = "seed " + std::to_string(i) + " " + space.family(seeds[i]);
          if (show_params) std::printf("  %s: %s\n", name.c_str(), seeds[i].key().c_str());
          sch.emplace_back(name, space.schedule(seeds[i]));
          if (overrides.empty()) continue;
          autotune::Candidate c = seeds[i];
          for (const std::string &o : overrides) {
            size_t eq = o.find('=');
            if (eq == std::string::npos) throw Error("--set '" + o + "': expected NAME=VALUE");
            c.params[o.substr(0, eq)] = std::stoll(o.substr(eq + 1));
          }
          try {
            sch.emplace_back(name + " with --set", space.schedule(c));
          } catch (const Error &e) {
            std::printf("  %s with --set: does not build: %s\n", name.c_str(), e.what());
          }
        }
      }
      std::vector<NDArray> in;
      for (const auto &p : sch[0].second.inputs()) in.push_back(NDArray::random(p.shape(), p.dtype(), 7));
      std::vector<Kernel> ks;
      std::vector<std::vector<NDArray>> outs;
      for (auto &s : sch) {
        ks.push_back(Kernel::build(s.second));
        outs.push_back(ks.back().run(in));
      }
      if (std::getenv("DUMP_LOOPS")) std::printf("%s\n", ks[1].lowered_stmt().c_str());
      std::vector<std::vector<double>> ms(sch.size());
      for (int r = 0; r < rounds; r++)
        for (size_t i = 0; i < ks.size(); i++) ms[i].push_back(ks[i].median_ms(in, outs[i], 1, repeat));
      double m0 = median(ms[0]), m1 = median(ms[1]), m2 = median(ms[2]);
      total[0] += m0 * count[t.workload_key], total[1] += m1 * count[t.workload_key], total[2] += m2 * count[t.workload_key];
      std::printf("%-44s %4d %10.3f %10.3f %10.3f %7.2f  %s | %s\n", t.name.substr(0, 44).c_str(), count[t.workload_key], m0, m1, m2,
                  m0 / m1, a.detail.c_str(), cm.detail.c_str());
      for (size_t i = 1; i < ks.size(); i++) {
        double d = 0;
        for (size_t o = 0; o < outs[i].size(); o++) d = std::max(d, scaled_max_error(outs[i][o], outs[0][o]));
        if (i >= 3) std::printf("    %-60s %10.3f %s\n", sch[i].first.c_str(), median(ms[i]), d > 1e-3 ? "MISMATCH" : "");
        else if (d > 1e-3) std::printf("    %s MISMATCH (scaled max error %g)\n", sch[i].first.c_str(), d);
      }
      std::fflush(stdout);
    }
    std::printf("total (weighted by uses): simple %.2f ms, analytical %.2f ms (%.2fx), cost model %.2f ms (%.2fx)\n", total[0], total[1],
                total[0] / total[1], total[2], total[0] / total[2]);
  } catch (const Error &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
