#include "relay_import/export/export.h"

#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sys/wait.h>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "codegen/kernel.h"
#include "codegen/kernel_library.h"
#include "relay_import/packed_weights.h"
#include "runtime/child_jobs.h"
#include "runtime/cpu_features.h"
#include "runtime/export_check.h"
#include "runtime/plan.h"
#include "runtime/sha256.h"
#include "base/errors.h"

namespace tetune {
namespace relay {

namespace {

// The export's AOT compiles (objects[i] compiles what[i]), `jobs` at a time in
// forked children (runtime/child_jobs.h), or one after another here for jobs = 1;
// the first that fails raises CodegenError naming what it compiles (what[i],
// when its own message does not).
void compile_objects(const std::vector<std::function<void()>> &objects, const std::vector<std::string> &what, int jobs) {
  auto failed = [&](size_t i, const std::string &why) {
    return CodegenError(what[i].empty() ? why : what[i] + ": " + why);
  };
  if (jobs == 1) {
    for (size_t i = 0; i < objects.size(); i++) try {
        objects[i]();
      } catch (const Error &e) {
        throw failed(i, e.what());
      }
    return;
  }
  const std::vector<std::string> errors = rt::run_jobs_in_children(objects, jobs);
  for (size_t i = 0; i < errors.size(); i++)
    if (!errors[i].empty()) throw failed(i, errors[i]);
}

// Compiles at once: one per CPU this process may run on.
int default_jobs() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

void mkdirs(const std::string &path) {
  std::string cur;
  std::stringstream ss(path);
  std::string part;
  if (!path.empty() && path[0] == '/') cur = "/";
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    cur += part + "/";
    if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) throw Error("cannot create directory '" + cur + "': " + std::strerror(errno));
  }
}

void write_file(const std::string &path, const std::string &data) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f) throw Error("cannot write '" + path + "'");
    f.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!f) throw Error("cannot write '" + path + "' (disk full?)");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw Error("cannot rename '" + tmp + "' to '" + path + "'");
}

// The build directory: created fresh by mkdtemp under $TMPDIR (or /tmp), never
// a path of the user's. Removed on destruction (success or error) unless kept.
class BuildDir {
 public:
  BuildDir() {
    const char *t = std::getenv("TMPDIR");
    std::string tmpl = std::string(t && *t ? t : "/tmp") + "/tetune-build-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data())) throw Error("cannot create a build directory from " + tmpl + ": " + std::strerror(errno));
    path_ = buf.data();
  }
  ~BuildDir() {
    if (keep_) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);  // only what mkdtemp made for us
  }
  BuildDir(const BuildDir &) = delete;
  BuildDir &operator=(const BuildDir &) = delete;
  const std::string &path() const { return path_; }
  void keep() { keep_ = true; }

 private:
  std::string path_;
  bool keep_ = false;
};

// Moves a file tetune wrote in the build directory to dst (replacing a previous export's file of that name):
// rename, or, across file systems, a copy to dst.tmp renamed into place, so dst is never half-written.
void move_into(const std::string &src, const std::string &dst) {
  if (std::rename(src.c_str(), dst.c_str()) == 0) return;
  if (errno != EXDEV) throw Error("cannot move '" + src + "' to '" + dst + "': " + std::strerror(errno));
  const std::string tmp = dst + ".tmp";
  std::error_code ec;
  std::filesystem::copy_file(src, tmp, std::filesystem::copy_options::overwrite_existing, ec);
  if (ec) throw Error("cannot copy '" + src + "' to '" + tmp + "': " + ec.message());
  if (std::rename(tmp.c_str(), dst.c_str()) != 0) throw Error("cannot rename '" + tmp + "' to '" + dst + "': " + std::strerror(errno));
  std::remove(src.c_str());
}

std::string c_ident(const std::string &s, size_t max_len) {
  std::string r;
  for (char c : s) {
    if (r.size() >= max_len) break;
    r += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  }
  return r;
}

}  // namespace

ExportResult export_model(Graph g_in, const std::string &out_dir_in, const ExportOptions &o) {
  if (o.jobs < 0) throw UsageError("export: jobs must be >= 0 (0: one per CPU), got " + std::to_string(o.jobs));
  ExportResult res;
  std::string out_dir = out_dir_in;
  while (out_dir.size() > 1 && out_dir.back() == '/') out_dir.pop_back();
  res.dir = out_dir;
  mkdirs(out_dir);
  // Objects, headers and the kernel table go to a fresh directory of our own; only the
  // export's files are moved into out_dir, so nothing of the user's there is deleted.
  BuildDir build_dir;
  if (o.keep_build) {
    build_dir.keep();
    res.build_dir = build_dir.path();
  }
  const std::string build = build_dir.path();
  const bool gpu = o.compile.target.is_gpu();

  double t0 = now_s();
  CompiledModel m = compile_groups_only(std::move(g_in), o.compile);
  res.passes_s = now_s() - t0;
  res.conv_forms = m.stats().conv_forms;
  Graph g = m.graph();  // shares the constants' data; packed weights are added to this copy
  std::vector<FusedGroup> groups = m.groups();

  // ---- values: roots (views alias their input's memory) ----
  std::map<int, int> producer_step;
  std::map<int, int> view_src;  // view output -> view input
  for (size_t s = 0; s < groups.size(); s++) {
    const auto &grp = groups[s];
    if (grp.kind == FusedGroup::Host) {  // the runtime has no host ops (relay_import/host_ops.h)
      const Node &n = g.nodes[grp.nodes.at(0)];
      throw ImportError(n.op + " node '" + n.name + "' (opset " + std::to_string(g.opset) +
                        "): unsupported in export: its output size depends on the data (runs only in the JIT executor)");
    }
    for (int v : grp.outputs) producer_step[v] = static_cast<int>(s);
    if (grp.kind == FusedGroup::View) {
      const Node &n = g.nodes[grp.nodes.at(0)];
      view_src[n.outputs.at(0)] = n.inputs.at(0);
    }
  }
  auto root_of = [&](int v) {
    for (int guard = 0; view_src.count(v); guard++) {
      if (guard > 100000) throw Error("view cycle at value '" + g.values[v].name + "' (internal error)");
      v = view_src[v];
    }
    return v;
  };

  rt::Plan plan;
  plan.model = o.model_path.empty() ? g.source : o.model_path;
  plan.target = o.compile.target.spec;
  plan.halide_target = o.compile.target.halide_string();
  // ---- schedules: one choice per unique task; the constants its kernel
  // packs at root are packed here, once (packed_weights.h) ----
  struct Chosen {
    ScheduleChoice choice;
    std::vector<PrepackedInput> prepacked;
  };
  std::map<std::string, Chosen> chosen;  // by workload key
  WeightPacker packer(g);
  for (auto &grp : groups) {
    if (grp.kind != FusedGroup::Kernel) continue;
    auto it = chosen.find(grp.task.workload_key);
    if (it == chosen.end()) {
      try {
        ScheduleChoice c = choose_schedule(grp.task, o.compile);
        std::vector<PrepackedInput> pre = weights_to_prepack(c.schedule, grp.task, o.compile.prepack_weights);
        it = chosen.emplace(grp.task.workload_key, Chosen{std::move(c), std::move(pre)}).first;
      } catch (const Error &e) {
        throw CodegenError("group " + grp.name + " (workload " + grp.task.workload_key + "): " + e.what());
      }
    }
    packer.bind(grp, it->second.prepacked);
  }

  std::map<int, int> pid;  // graph value -> plan value
  std::string weights;
  std::function<int(int)> add = [&](int v) -> int {
    auto it = pid.find(v);
    if (it != pid.end()) return it->second;
    const Value &gv = g.values[v];
    rt::PlanValue pv;
    pv.name = gv.name;
    pv.dtype_code = static_cast<uint8_t>(gv.dtype.code);
    pv.dtype_bits = static_cast<uint8_t>(gv.dtype.bits);
    pv.shape = gv.shape;
    int r = root_of(v);
    if (r != v) {
      int rp = add(r);
      pv.storage = rt::PlanValue::Alias;
      pv.alias = rp;
    } else if (gv.is_input) {
      pv.storage = rt::PlanValue::Input;
    } else if (gv.is_const()) {
      pv.storage = rt::PlanValue::Const;
      while (weights.size() % 64) weights.push_back('\0');
      pv.const_offset = static_cast<int64_t>(weights.size());
      if (gv.data->nbytes() != pv.nbytes())
        throw Error("constant '" + gv.name + "' holds " + std::to_string(gv.data->nbytes()) + " bytes, its value type needs " +
                    std::to_string(pv.nbytes()) + " (internal error)");
      weights.append(static_cast<const char *>(gv.data->raw()), static_cast<size_t>(gv.data->nbytes()));
    } else {
      if (!producer_step.count(v)) throw Error("value '" + gv.name + "' has no producer group (internal error)");
      pv.storage = rt::PlanValue::Buffer;  // buffer assigned below
    }
    int id = static_cast<int>(plan.values.size());
    plan.values.push_back(pv);
    pid[v] = id;
    return id;
  };
  for (int v : g.inputs) plan.inputs.push_back(add(v));

  // ---- kernels: one per unique workload key ----
  std::map<std::string, int> kernel_of_key;
  std::vector<const FusedGroup *> kernel_group;  // first group of each kernel
  std::vector<int> groups_of_kernel;             // kernel groups sharing each kernel
  for (size_t s = 0; s < groups.size(); s++) {
    const auto &grp = groups[s];
    rt::PlanGroup pg;
    pg.name = grp.name;
    if (grp.kind == FusedGroup::View) {
      res.view_groups++;
      const Node &n = g.nodes[grp.nodes.at(0)];
      pg.kind = rt::PlanGroup::View;
      pg.args = {add(n.inputs.at(0)), add(n.outputs.at(0))};
    } else {
      res.kernel_groups++;
      pg.kind = rt::PlanGroup::Kernel;
      auto it = kernel_of_key.find(grp.task.workload_key);
      if (it == kernel_of_key.end()) {
        int k = static_cast<int>(plan.kernels.size());
        rt::PlanKernel pk;
        char pre[16];
        std::snprintf(pre, sizeof pre, "tt_k%03d_", k);
        pk.name = pre + c_ident(grp.name, 40);
        pk.num_args = static_cast<int>(grp.input_values.size() + grp.outputs.size());
        plan.kernels.push_back(pk);
        kernel_group.push_back(&grp);
        groups_of_kernel.push_back(0);
        it = kernel_of_key.emplace(grp.task.workload_key, k).first;
      }
      pg.kernel = it->second;
      for (int v : grp.input_values) pg.args.push_back(add(v));
      pg.num_inputs = static_cast<int>(grp.input_values.size());
      for (int v : grp.outputs) pg.args.push_back(add(v));
      groups_of_kernel[pg.kernel]++;
    }
    plan.groups.push_back(pg);
  }
  for (int v : g.outputs) plan.outputs.push_back(add(v));
  res.groups = static_cast<int>(groups.size());
  res.tasks = static_cast<int>(plan.kernels.size());

  // ---- memory plan over buffer roots ----
  {
    std::map<int, int> first, last;  // plan value (root) -> steps
    std::set<int> pinned;
    auto root_p = [&](int p) { return plan.values[p].storage == rt::PlanValue::Alias ? plan.values[p].alias : p; };
    for (size_t s = 0; s < plan.groups.size(); s++) {
      const auto &pg = plan.groups[s];
      int nin = pg.kind == rt::PlanGroup::View ? 1 : pg.num_inputs;
      for (size_t a = 0; a < pg.args.size(); a++) {
        int r = root_p(pg.args[a]);
        if (plan.values[r].storage != rt::PlanValue::Buffer) continue;
        if (static_cast<int>(a) < nin) last[r] = std::max(last[r], static_cast<int>(s));
        else if (pg.kind == rt::PlanGroup::Kernel && !first.count(r)) first[r] = static_cast<int>(s);
      }
    }
    for (int p : plan.outputs) pinned.insert(root_p(p));
    struct Slot {
      int value, first, last;
      int64_t bytes;
    };
    std::vector<Slot> slots;
    for (auto &kv : first) {
      int r = kv.first;
      int l = pinned.count(r) ? std::numeric_limits<int>::max() : (last.count(r) ? last[r] : kv.second);
      slots.push_back({r, kv.second, l, plan.values[r].nbytes()});
      res.no_reuse_bytes += plan.values[r].nbytes();
    }
    for (auto &pv : plan.values)
      if (pv.storage == rt::PlanValue::Buffer && !first.count(static_cast<int>(&pv - plan.values.data())))
        throw Error("value '" + pv.name + "' is never written by a kernel (internal error)");
    std::sort(slots.begin(), slots.end(), [](const Slot &a, const Slot &b) { return a.first < b.first || (a.first == b.first && a.value < b.value); });
    std::vector<int> busy_until;
    for (const auto &sl : slots) {
      plan.values[sl.value].buffer = assign_buffer(plan.buffer_bytes, busy_until, sl.bytes, sl.first, sl.last);
    }
    for (auto b : plan.buffer_bytes) res.buffer_bytes += b;
  }
  plan.weights_bytes = static_cast<int64_t>(weights.size());
  plan.weights_checksum = rt::fnv1a(weights.data(), weights.size());
  res.weights_bytes = plan.weights_bytes;
  plan.validate(out_dir + "/graph.bin");

  // ---- AOT compile the kernels + runtime ----
  double t1 = now_s();
  // One compile each, the Halide runtime first: it is the longest (about 1 s), so it overlaps the kernels.
  std::vector<std::function<void()>> objects = {[&] { compile_runtime(build + "/halide_runtime.o", o.compile.target); }};
  std::vector<std::string> what = {""};  // what each one compiles, for errors; compile_runtime's say it
  for (size_t k = 0; k < plan.kernels.size(); k++) {
    const FusedGroup &grp = *kernel_group[k];
    const std::string &name = plan.kernels[k].name;
    const std::string label = "group " + grp.name + " (workload " + grp.task.workload_key + ")";
    const Chosen &ch = chosen.at(grp.task.workload_key);
    const ScheduleChoice &c = ch.choice;
    res.task_sources[c.source]++;
    res.group_sources[c.source] += groups_of_kernel[k];
    res.task_schedules.push_back({grp.name, grp.task.workload_key, groups_of_kernel[k], c.source, c.detail});
    if (c.schedule.inputs().size() != grp.input_values.size())
      throw CodegenError(label + ": schedule has " + std::to_string(c.schedule.inputs().size()) +
                         " inputs, the group binds " + std::to_string(grp.input_values.size()));
    const std::string prefix = build + "/" + name, progress = name + " (" + source_name(c.source) + ")";
    const size_t n = plan.kernels.size();
    objects.push_back([&ch, &o, prefix, name, progress, k, n] {
      if (o.verbose) std::fprintf(stderr, "[%zu/%zu] %s\n", k + 1, n, progress.c_str());
      compile_object(ch.choice.schedule, prefix, name, o.compile.target, /*no_runtime=*/true, ch.prepacked,
                     o.compile.prefetch_packed);
    });
    what.push_back(label);
  }
  compile_objects(objects, what, o.jobs > 0 ? o.jobs : default_jobs());
  if (gpu)
    for (const auto &kernel : plan.kernels) {
      // copied, not moved: a kept build directory stays complete
      std::error_code ec;
      std::filesystem::copy_file(build + "/" + kernel.name + ".ptx", out_dir + "/" + kernel.name + ".ptx",
                                 std::filesystem::copy_options::overwrite_existing, ec);
      if (ec) throw Error("cannot copy the PTX of " + kernel.name + " to " + out_dir + ": " + ec.message());
    }
  res.codegen_s = now_s() - t1;

  // ---- kernel table + link ----
  double t2 = now_s();
  {
    std::vector<LibraryKernel> lk;
    for (const auto &k : plan.kernels) lk.push_back({k.name, k.num_args, build + "/" + k.name + ".o"});
    link_kernel_library(lk, build + "/halide_runtime.o", build, build + "/libmodel.so", o.cxx);
    move_into(build + "/libmodel.so", out_dir + "/libmodel.so");
  }
  res.library = out_dir + "/libmodel.so";
  res.link_s = now_s() - t2;

  // ---- weights, plan, manifest ----
  // Size and SHA-256 of every file of the export: those written here from
  // memory, the rest (libmodel.so, *.ptx) read back from disk.
  nlohmann::ordered_json file_digests = nlohmann::ordered_json::object();
  auto write_and_digest = [&](const std::string &name, const std::string &data) {
    write_file(out_dir + "/" + name, data);
    file_digests[name] = {{"bytes", data.size()}, {"sha256", rt::sha256_hex(data.data(), data.size())}};
  };
  {
    std::string w(rt::kWeightsMagic, sizeof(rt::kWeightsMagic));
    uint64_t n = weights.size();
    w.append(reinterpret_cast<const char *>(&n), 8);
    w += weights;
    write_and_digest("weights.bin", w);
  }
  write_and_digest("graph.bin", plan.encode());
  {
    // nlohmann's ordered_json keeps the fields in this order; check_export() (runtime/export_check.h) reads
    // format, halide_target, required_extensions and files.
    using ojson = nlohmann::ordered_json;
    auto io_list = [&](const std::vector<int32_t> &ids) {
      ojson r = ojson::array();
      for (int32_t id : ids) {
        const auto &v = plan.values[id];
        r.push_back({{"name", v.name}, {"shape", v.shape}, {"dtype", rt::dtype_name(v.dtype_code, v.dtype_bits)}});
      }
      return r;
    };
    ojson js;
    js["format"] = rt::kManifestFormat;
    js["tetune_version"] = kTetuneVersion;
    js["model"] = plan.model;
    js["inputs"] = io_list(plan.inputs);
    js["outputs"] = io_list(plan.outputs);
    js["target"] = plan.target;
    js["halide_target"] = plan.halide_target;
    // The CPU extensions (LLVM names) the host code of libmodel.so may use: tetune run refuses it on a CPU without them.
    js["required_extensions"] = rt::required_extensions(plan.halide_target);
    js["groups"] = res.groups, js["kernel_groups"] = res.kernel_groups, js["view_groups"] = res.view_groups;
    js["tasks"] = res.tasks;
    auto by_source = [](const SourceCounts &c) {
      ojson r = ojson::object();
      for (ScheduleSource s : {ScheduleSource::Record, ScheduleSource::CostModel, ScheduleSource::Analytical}) r[source_name(s)] = c[s];
      return r;
    };
    js["tasks_by_source"] = by_source(res.task_sources);
    js["groups_by_source"] = by_source(res.group_sources);
    js["schedules"] = o.tuned_note.empty() ? (o.compile.schedule_for ? "schedule_for hook" : "default schedules") : o.tuned_note;
    js["tuning_db"] = o.tuning_db.empty() ? ojson(nullptr) : ojson(o.tuning_db);
    js["weights_bytes"] = res.weights_bytes, js["buffer_bytes"] = res.buffer_bytes, js["no_reuse_bytes"] = res.no_reuse_bytes;
    ojson ts = ojson::array();
    for (size_t k = 0; k < res.task_schedules.size(); k++) {
      const TaskSchedule &t = res.task_schedules[k];
      ts.push_back({{"kernel", plan.kernels[k].name},
                    {"group", t.group},
                    {"workload_key", t.workload_key},
                    {"groups", t.groups},
                    {"schedule_source", source_name(t.source)},
                    {"schedule_detail", t.detail}});
    }
    js["task_schedules"] = ts;
    ojson forms = ojson::array();
    auto ms = [](double t) { return std::isnan(t) ? ojson(nullptr) : ojson(t); };
    for (const ConvForms &f : res.conv_forms)
      forms.push_back({{"conv", f.conv}, {"direct_ms", ms(f.direct_ms)}, {"winograd_ms", ms(f.winograd_ms)},
                       {"form", f.direct_faster() ? "direct" : "winograd"}});
    js["conv_forms"] = forms;
    // A truncated or altered file is refused before loading (check_export).
    std::vector<std::string> on_disk = {"libmodel.so"};
    if (gpu)
      for (const auto &k : plan.kernels) on_disk.push_back(k.name + ".ptx");
    ojson fj = ojson::object();
    for (const auto &f : on_disk) {
      long long bytes = 0;
      std::string digest = rt::sha256_file_hex(out_dir + "/" + f, &bytes);
      fj[f] = {{"bytes", bytes}, {"sha256", digest}};
    }
    fj.update(file_digests);
    js["files"] = fj;
    write_file(out_dir + "/" + rt::kManifestFile, js.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n");
  }
  return res;  // build_dir removes the build directory unless kept
}

}  // namespace relay
}  // namespace tetune
