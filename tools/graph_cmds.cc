// tetune graph / tetune run-model: import an ONNX model, run the graph passes
// and fusion, print the fused groups (tasks, workload keys, memory plan),
// write Graphviz; run-model JIT-compiles and runs the model on .npy inputs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "relay_import/executor.h"
#include "runtime/io.h"
#include "relay_import/onnx_importer.h"
#include "base/errors.h"
#include "tools/cli_options.h"
#include "tools/commands.h"

namespace tetune {
namespace cli {

namespace {

std::map<std::string, Shape> shapes_from(const std::vector<std::string> &specs) {
  std::map<std::string, Shape> r;
  for (const auto &s : specs)
    for (auto &kv : relay::parse_input_shapes(s)) r[kv.first] = kv.second;
  return r;
}

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

void add_graph_command(CLI::App &app) {
  auto *cmd = app.add_subcommand("graph", "Import an ONNX model and show its fused graph (groups = tuning tasks)");
  struct Opts {
    std::string model, dot, save;
    std::vector<std::string> shapes;
    bool no_fuse = false;
    std::string layout = "blocked";
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("model", o->model, "ONNX model file")->required();
  cmd->add_option("--input-shape", o->shapes, "NAME=D1,D2,... for each dynamic input (repeatable)");
  cmd->add_option("--dot", o->dot, "write the fused graph as Graphviz to this file");
  cmd->add_option("--save", o->save, "write the optimised graph with weights (tetune graph format)");
  cmd->add_flag("--no-fuse", o->no_fuse, "one group per node");
  add_layout_option(cmd, o->layout);
  cmd->callback([o] {
    relay::ImportOptions io;
    io.input_shapes = shapes_from(o->shapes);
    double t0 = now_s();
    relay::Graph g = relay::import_onnx(o->model, io);
    double t1 = now_s();
    relay::CompileOptions co;
    co.fusion.fuse = !o->no_fuse;
    relay::set_layout(co, o->layout);
    relay::CompiledModel m = relay::compile_groups_only(std::move(g), co);
    std::printf("%s", m.summary().c_str());
    std::printf("import %.2f s, passes + fusion %.2f s\n", t1 - t0, m.stats().passes_s);
    if (!o->dot.empty()) {
      std::ofstream os(o->dot);
      if (!os) throw Error("cannot write '" + o->dot + "'");
      os << m.to_dot();
      std::printf("wrote %s\n", o->dot.c_str());
    }
    if (!o->save.empty()) {
      m.graph().save(o->save);
      std::printf("wrote %s\n", o->save.c_str());
    }
  });
}

void add_run_model_command(CLI::App &app) {
  auto *cmd = app.add_subcommand("run-model", "JIT-compile an ONNX model (default schedules, no tuning log) and run it on .npy inputs");
  struct Opts {
    std::string model;
    std::vector<std::string> shapes, inputs, outputs;
    int repeat = 1;
    bool plain = false;
    std::string cost_model;
    std::string layout = "blocked";
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--model", o->model, "ONNX model file")->required();
  cmd->add_option("--input-shape", o->shapes, "NAME=D1,D2,... (repeatable; default: the .npy shapes)");
  cmd->add_option("--input", o->inputs, "NAME=file.npy (repeatable)")->required();
  cmd->add_option("--output", o->outputs, "file.npy or NAME=file.npy (repeatable)");
  cmd->add_option("--repeat", o->repeat, "timed runs after one warm-up")->check(positive());
  cmd->add_flag("--plain-schedule", o->plain, "bare default schedules (no parallel / vectorize)");
  cmd->add_option("--cost-model", o->cost_model, kCostModelHelp);
  add_layout_option(cmd, o->layout);
  cmd->callback([o] {
    std::map<std::string, NDArray> feeds;
    relay::ImportOptions io;
    io.input_shapes = shapes_from(o->shapes);
    for (const auto &s : o->inputs) {
      size_t eq = s.find('=');
      if (eq == std::string::npos) throw ShapeError("--input '" + s + "': expected NAME=file.npy");
      NDArray a = rt::read_npy_file(s.substr(eq + 1));
      std::string name = s.substr(0, eq);
      if (!io.input_shapes.count(name)) io.input_shapes[name] = a.shape();
      feeds[name] = a;
    }
    double t0 = now_s();
    relay::CompileOptions co;
    co.plain_default_schedule = o->plain;
    relay::set_layout(co, o->layout);
    std::unique_ptr<cost_model::CostModel> model;
    co.untuned = untuned_options(o->cost_model, &model);
    relay::CompiledModel m = relay::compile_model(relay::import_onnx(o->model, io), co);
    double t1 = now_s();
    std::printf("compiled %d groups (%d kernels built; schedules: %s) in %.1f s\n", m.stats().groups, m.stats().kernels_built,
                relay::format_source_counts(m.stats().task_sources).c_str(), t1 - t0);
    auto out = m.run(feeds);
    std::vector<double> times;
    for (int i = 0; i < o->repeat; i++) {
      double a = now_s();
      out = m.run(feeds);
      times.push_back((now_s() - a) * 1e3);
    }
    std::sort(times.begin(), times.end());
    if (!times.empty()) std::printf("run: median %.2f ms, min %.2f ms over %d runs\n", times[times.size() / 2], times[0], o->repeat);
    auto names = m.output_names();
    for (size_t i = 0; i < names.size(); i++) std::printf("output %s: %s\n", names[i].c_str(), shape_str(out[names[i]].shape()).c_str());
    for (size_t i = 0; i < o->outputs.size(); i++) {
      std::string s = o->outputs[i], name, file = s;
      size_t eq = s.find('=');
      if (eq != std::string::npos) name = s.substr(0, eq), file = s.substr(eq + 1);
      else if (i < names.size()) name = names[i];
      if (!out.count(name)) throw ShapeError("--output: the model has no output '" + name + "'");
      rt::write_npy_file(file, out[name]);
      std::printf("wrote %s\n", file.c_str());
    }
  });
}

}  // namespace cli
}  // namespace tetune
