// Whole-model benchmark: tetune (AOT export + compiler-free runtime) against
// onnxruntime-node on the PaddleOCR det / rec / cls models and the PyTorch zoo
// (bench/zoo/zoo_models.h, models/zoo/ from tools/setup.sh --zoo), side by side.
//
//   bazel run //bench:models                                  # det, rec, cls + the zoo at 1 and 2 threads
//   bazel run //bench:models -- --models cls,rec --threads 1 --db tune.db
//
// Each model is exported once (`tetune compile` in process, relay::export_model)
// into a cache dir (--cache, default /tmp/tetune_bench_models; reused while the
// .onnx, the shape and the db are unchanged), once per thread count, compiled
// for it as `tetune compile --threads N` does. "tetune-untuned" uses the
// default schedules; "tetune-tuned" (only with --db / $TETUNE_DB) the best
// records of the tuning log (relay::use_tuned_schedules). Every
// measurement runs in its own child process with HL_NUM_THREADS / OMP_NUM_THREADS
// set: tetune rows re-exec this binary (--child: rt::Model, set_num_threads,
// warm-up, median of --repeat runs), onnxruntime rows run
// `node tools/reference/time_model.js` (median_ms, overhead_ms = cost of an
// Identity model run, reported). Inputs: PP-OCR make_input.js seed-7 data
// (bit-identical .npy written once); zoo models the seeded .npy the export wrote
// (BERT's int64 token ids). Every row is timed --rounds times (default 3),
// the rows interleaved round by round, in reverse order every other round; a
// row reports the median of its round medians and the min of its runs, and
// its ratio is the median over rounds of its median over onnxruntime's in the
// same round. Prints a table, appends JSON lines to
// bench/results/models.jsonl (--out PATH, --no-jsonl).
#include <sys/stat.h>
#include <unistd.h>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/json_line.h"
#include "relay_import/export/export.h"
#include "relay_import/onnx_importer.h"
#include "relay_import/tuned_schedules.h"
#include "runtime/io.h"
#include "runtime/model.h"
#include "tuning_logs/records.h"
#include "base/errors.h"
#include "bench/zoo/zoo_models.h"

namespace tetune {
namespace {

double now_ms() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

bool exists(const std::string &p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}
long long mtime(const std::string &p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 ? static_cast<long long>(st.st_mtime) : 0;
}

std::vector<std::string> split(const std::string &s, char c) {
  std::vector<std::string> r;
  std::stringstream ss(s);
  std::string t;
  while (std::getline(ss, t, c))
    if (!t.empty()) r.push_back(t);
  return r;
}

std::string run_capture(const std::string &cmd, int *status) {
  FILE *p = ::popen(cmd.c_str(), "r");
  if (!p) throw Error("cannot run: " + cmd);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = ::pclose(p);
  *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  return out;
}

/** The number `key` of the JSON object js (NaN when js is no object, or the key is absent or no number). */
double json_num(const std::string &js, const std::string &key) {
  const nlohmann::json j = nlohmann::json::parse(js, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nan("");
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : std::nan("");
}

std::string last_json_line(const std::string &out) {
  std::string best;
  for (const auto &l : split(out, '\n'))
    if (!l.empty() && l[0] == '{') best = l;
  return best;
}

// ---- child: one tetune measurement ----
/** Untimed runs before timing, as time_model.js's --warmup for onnxruntime's rows. */
constexpr int kWarmupRuns = 5;

/** Times the export in dir on input_npy ("": make_input.js seed-7 data of the model's input shape). */
int child_main(const std::string &dir, int threads, int repeat, const std::string &input_npy) {
  auto m = rt::Model::load(dir);
  m->set_num_threads(threads);
  NDArray x = input_npy.empty() ? rt::make_input(m->input_shape(0), 7) : rt::read_npy_file(input_npy);
  std::vector<NDArray> y;
  for (int i = 0; i < kWarmupRuns; i++) y = m->run({x});
  std::vector<double> ms;
  for (int i = 0; i < repeat; i++) {
    double a = now_ms();
    y = m->run({x});
    ms.push_back(now_ms() - a);
  }
  std::sort(ms.begin(), ms.end());
  const double med = tuning_log::median_of(ms);
  const double mx = max_abs(y[0]);
  nlohmann::ordered_json j;
  j["median_ms"] = bench::json_number(med, "%.4f");
  j["min_ms"] = bench::json_number(ms.front(), "%.4f");
  j["max_ms"] = bench::json_number(ms.back(), "%.4f");
  j["repeats"] = repeat;
  j["out_absmax"] = bench::json_number(mx);
  std::printf("%s\n", bench::json_line(j).c_str());
  return 0;
}

struct ModelSpec {
  std::string key, file, shape;
  int repeat;
  /** The graph input's name, and its .npy ("": make_input seed-7 data of `shape`, written to the cache). */
  std::string input = "x", input_npy;
};

/** PP-OCR's three models, then the zoo (shape from the input .npy when present). */
std::vector<ModelSpec> all_models(const std::string &root) {
  std::vector<ModelSpec> all = {{"det", "ppocr/ch_PP-OCRv4_det_infer.onnx", "1,3,640,640", 20},
                                {"rec", "ppocr/ch_PP-OCRv4_rec_infer.onnx", "1,3,48,320", 50},
                                {"cls", "ppocr/ch_ppocr_mobile_v2.0_cls_infer.onnx", "1,3,48,192", 100}};
  for (const auto &z : zoo::zoo_models()) {
    ModelSpec s{z.name, "zoo/" + z.name + ".onnx", "", z.bench_repeat, z.input};
    s.input_npy = root + "/models/zoo/" + z.name + "." + z.input + ".npy";
    if (exists(s.input_npy)) {
      const NDArray x = rt::read_npy_file(s.input_npy);
      for (int64_t d : x.shape()) s.shape += (s.shape.empty() ? "" : ",") + std::to_string(d);
    }
    all.push_back(s);
  }
  return all;
}

struct Row {
  std::string model, shape, impl;
  int threads = 1;
  double median_ms = std::nan(""), min_ms = std::nan(""), overhead_ms = std::nan("");
  int repeats = 0;  // timed runs over all rounds
  std::vector<double> round_medians, round_mins;  // one per round
  int tuned = -1, untuned = -1;
  std::string note, error;
  double ratio = std::nan("");  // median over rounds of median_ms / onnxruntime's median_ms of the same round
};

std::string fmt(double v, const char *f = "%.3f") {
  if (std::isnan(v)) return "null";
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

int parent_main(int argc, char **argv) {
  std::string models_arg = "det,rec,cls,zoo", threads_arg = "1,2", db, cache = "/tmp/tetune_bench_models", out, repeat_arg;
  int rounds = 3;
  bool no_jsonl = false, no_ort = false;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) throw Error("missing value for " + a);
      return argv[++i];
    };
    if (a == "--models") models_arg = val();
    else if (a == "--threads") threads_arg = val();
    else if (a == "--db") db = val();
    else if (a == "--cache") cache = val();
    else if (a == "--out") out = val();
    else if (a == "--repeat") repeat_arg = val();
    else if (a == "--rounds") {
      rounds = std::atoi(val().c_str());
      if (rounds < 1) throw Error("--rounds must be at least 1");
    }
    else if (a == "--no-jsonl") no_jsonl = true;
    else if (a == "--no-ort") no_ort = true;
    else if (a == "--help" || a == "-h") {
      std::printf(
          "bench/models: tetune vs onnxruntime on the PaddleOCR models and the PyTorch zoo\n"
          "  --models det,rec,cls,zoo (zoo = every zoo model present; or zoo names: resnet50,bert_base,...)\n"
          "  --threads 1,2   --db PATH (or $TETUNE_DB: adds tetune-tuned rows)\n"
          "  --repeat N (default det 20, rec 50, cls 100, zoo per model)   --rounds R (default 3: every row timed R times, interleaved)\n"
          "  --cache DIR (exports, default /tmp/tetune_bench_models)\n"
          "  --out PATH (default bench/results/models.jsonl)   --no-jsonl   --no-ort\n");
      return 0;
    } else throw Error("unknown option " + a + " (--help)");
  }
  if (db.empty() && std::getenv("TETUNE_DB")) db = std::getenv("TETUNE_DB");
  std::string root = std::getenv("BUILD_WORKSPACE_DIRECTORY") ? std::getenv("BUILD_WORKSPACE_DIRECTORY") : ".";
  if (out.empty()) out = root + "/bench/results/models.jsonl";
  std::vector<ModelSpec> all = all_models(root);
  std::vector<int> threads;
  for (auto &t : split(threads_arg, ',')) threads.push_back(std::atoi(t.c_str()));
  std::string self = "/proc/self/exe";
  {
    char buf[4096];
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) self = std::string(buf, n);
  }
  std::string ref = root + "/tools/reference";
  bool have_ort = !no_ort && exists(ref + "/node_modules/onnxruntime-node");
  if (!have_ort && !no_ort) std::printf("note: %s/node_modules missing (tools/setup.sh): no onnxruntime rows\n", ref.c_str());
  if (db.empty()) std::printf("note: no --db / TETUNE_DB: only tetune-untuned (default schedules) rows\n");
  else if (!exists(db)) throw Error("--db " + db + ": no such file");
  ::mkdir(cache.c_str(), 0755);
  char stamp[32];
  std::time_t tt = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", std::localtime(&tt));
  double t_start = now_ms();

  std::vector<std::string> names;
  for (const auto &name : split(models_arg, ',')) {
    if (name != "zoo") {
      names.push_back(name);
      continue;
    }
    for (const auto &z : zoo::zoo_models()) {
      if (exists(root + "/models/zoo/" + z.name + ".onnx")) names.push_back(z.name);
      else std::printf("note: models/zoo/%s.onnx missing (tools/setup.sh --zoo): no %s rows\n", z.name.c_str(), z.name.c_str());
    }
  }
  std::vector<Row> rows;
  for (const auto &name : names) {
    auto it = std::find_if(all.begin(), all.end(), [&](const ModelSpec &s) { return s.key == name; });
    if (it == all.end()) {
      std::string known;
      for (const auto &s : all) known += (known.empty() ? "" : ", ") + s.key;
      throw Error("unknown model '" + name + "' (zoo, " + known + ")");
    }
    ModelSpec ms = *it;
    if (!repeat_arg.empty()) ms.repeat = std::atoi(repeat_arg.c_str());
    std::string onnx = root + "/models/" + ms.file;
    if (!exists(onnx))
      throw Error(onnx + " missing (" + (ms.input_npy.empty() ? "tools/fetch_models.sh" : "tools/setup.sh --zoo") + ")");
    if (!ms.input_npy.empty() && !exists(ms.input_npy)) throw Error(ms.input_npy + " missing (tools/setup.sh --zoo)");
    std::string shape_x = ms.shape;
    std::replace(shape_x.begin(), shape_x.end(), ',', 'x');
    // input file: the zoo's own, else make_input.js seed 7 (bit-identical)
    std::string in_npy = ms.input_npy.empty() ? cache + "/" + ms.key + "_" + shape_x + "_in.npy" : ms.input_npy;
    Shape shp;
    for (auto &d : split(ms.shape, ',')) shp.push_back(std::atoll(d.c_str()));
    if (!exists(in_npy)) rt::write_npy_file(in_npy, rt::make_input(shp, 7));

    // exports (cached)
    struct Variant {
      std::string impl, dir;
      int threads;  // 0 = any
      int tuned = -1, untuned = -1;
    };
    std::vector<Variant> variants;
    auto export_dir = [&](const std::string &tag, int thr) {
      std::string d = cache + "/" + ms.key + "_" + shape_x + "_" + tag;
      std::string stampf = d + "/bench_stamp.txt";
      // The binary's own mtime: a rebuilt compiler (new default schedules) re-exports.
      const bool untuned = tag.rfind("untuned", 0) == 0;
      std::string want = onnx + " " + std::to_string(mtime(onnx)) + " " + ms.shape + " " + (untuned ? "" : db + " " + std::to_string(mtime(db))) +
                         " " + relay::kTetuneVersion + " plan v" + std::to_string(rt::kPlanVersion) + " bench " + std::to_string(mtime(self));
      std::string have;
      {
        std::ifstream f(stampf);
        std::getline(f, have);
      }
      Variant v{"tetune-" + std::string(untuned ? "untuned" : "tuned"), d, thr};
      if (have == want && exists(d + "/libmodel.so") && exists(d + "/graph.bin")) {
        std::ifstream mf(d + "/manifest.json");
        std::stringstream ss;
        ss << mf.rdbuf();
        // tuned = tasks whose schedule is a record; untuned = the rest (cost model or analytical)
        const nlohmann::json m = nlohmann::json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
        if (m.is_object() && m.contains("tasks_by_source") && m.contains("tasks")) {
          v.tuned = m["tasks_by_source"].value("record", 0);
          v.untuned = m["tasks"].get<int>() - v.tuned;
        }
        std::printf("[%s] reusing export %s\n", ms.key.c_str(), d.c_str());
        return v;
      }
      double a = now_ms();
      relay::ImportOptions io;
      io.input_shapes = relay::parse_input_shapes(ms.input + "=" + ms.shape);
      relay::ExportOptions eo;
      eo.model_path = onnx;
      relay::TunedLookupStats st;
      // Compiled for the threads it runs on, as `tetune compile --threads N` does.
      eo.compile.threads = thr;
      if (!untuned) {
        relay::TunedLookupOptions lo;
        lo.print_notes = false;
        relay::use_tuned_schedules(eo.compile, db, &st, lo);
        eo.tuning_db = db;
      }
      relay::ExportResult r = relay::export_model(relay::import_onnx(onnx, io), d, eo);
      v.tuned = r.task_sources.record;
      v.untuned = r.tasks - r.task_sources.record;
      std::ofstream(stampf) << want << "\n";
      std::printf("[%s] exported %s: %d kernels (%s) in %.1f s\n", ms.key.c_str(), d.c_str(), r.tasks,
                  relay::format_source_counts(r.task_sources).c_str(), (now_ms() - a) / 1e3);
      return v;
    };
    try {
      for (int t : threads) variants.push_back(export_dir("untuned_t" + std::to_string(t), t));
      if (!db.empty())
        for (int t : threads) variants.push_back(export_dir("tuned_t" + std::to_string(t), t));
    } catch (const Error &e) {
      Row r;
      r.model = ms.key, r.shape = shape_x, r.impl = "tetune", r.error = std::string("export failed: ") + e.what();
      rows.push_back(r);
      std::printf("[%s] export failed: %s\n", ms.key.c_str(), e.what());
      continue;
    }

    for (int t : threads) {
      std::string env = "HL_NUM_THREADS=" + std::to_string(t) + " OMP_NUM_THREADS=" + std::to_string(t) + " ";
      // The rows of this thread count: onnxruntime (when present) first, then each export built for t.
      std::vector<Row> trow;
      std::vector<const Variant *> tvar;  // trow[i]'s export; null for onnxruntime
      if (have_ort) {
        Row ort;
        ort.model = ms.key, ort.shape = shape_x, ort.impl = "onnxruntime", ort.threads = t;
        trow.push_back(ort);
        tvar.push_back(nullptr);
      }
      for (const auto &v : variants) {
        if (v.threads != 0 && v.threads != t) continue;
        Row r;
        r.model = ms.key, r.shape = shape_x, r.impl = v.impl, r.threads = t, r.tuned = v.tuned, r.untuned = v.untuned;
        trow.push_back(r);
        tvar.push_back(&v);
      }
      // One timing of row i into its per-round lists (an error ends that row's rounds).
      auto time_row = [&](size_t i, int round) {
        Row &r = trow[i];
        if (!r.error.empty()) return;
        std::string cmd = tvar[i] ? env + "'" + self + "' --child '" + tvar[i]->dir + "' " + std::to_string(t) + " " +
                                        std::to_string(ms.repeat) + " '" + ms.input_npy + "' 2>&1"
                                  : env + "node '" + ref + "/time_model.js' --model '" + onnx + "' --input " + ms.input + "='" +
                                        in_npy + "' --threads " + std::to_string(t) + " --repeat " + std::to_string(ms.repeat) +
                                        " --warmup " + std::to_string(kWarmupRuns) + " 2>&1";
        int st = 0;
        std::string o = run_capture(cmd, &st);
        std::string js = last_json_line(o);
        if (st != 0 || js.empty()) {
          r.error = (tvar[i] ? "child failed: " : "time_model.js failed: ") + o.substr(0, 300);
        } else {
          r.round_medians.push_back(json_num(js, "median_ms"));
          r.round_mins.push_back(json_num(js, "min_ms"));
          r.repeats += ms.repeat;
          if (tvar[i])
            r.note = "AOT libmodel.so via runtime/ (" + std::to_string(tvar[i]->tuned) + " tuned / " +
                     std::to_string(tvar[i]->untuned) + " untuned tasks); out absmax " + fmt(json_num(js, "out_absmax"), "%.4g");
          else {
            r.overhead_ms = json_num(js, "overhead_ms");
            r.note = "onnxruntime-node 1.30.0 CPU EP, time_model.js; io_overhead_ms " + fmt(json_num(js, "io_overhead_ms"));
          }
        }
        std::printf("[%s] %dT %-15s round %d/%d: %s ms\n", ms.key.c_str(), t, r.impl.c_str(), round + 1, rounds,
                    r.error.empty() ? fmt(r.round_medians.back()).c_str() : r.error.c_str());
      };
      // Rounds interleave the rows, in reverse order every other round, so that a machine that slows down or
      // speeds up over the run weighs on every row alike (2 shared cores drift by 20-30% within a minute).
      for (int round = 0; round < rounds; round++) {
        for (size_t k = 0; k < trow.size(); k++) time_row(round % 2 ? trow.size() - 1 - k : k, round);
      }
      const Row *ort = have_ort ? &trow[0] : nullptr;
      for (auto &r : trow) {
        if (!r.error.empty()) continue;
        r.median_ms = tuning_log::median_of(r.round_medians);
        r.min_ms = *std::min_element(r.round_mins.begin(), r.round_mins.end());
        if (&r == ort || !ort || !ort->error.empty()) continue;
        std::vector<double> ratios;  // per round: this row's median over onnxruntime's median of the same round
        for (size_t k = 0; k < r.round_medians.size(); k++) ratios.push_back(r.round_medians[k] / ort->round_medians[k]);
        r.ratio = tuning_log::median_of(ratios);
      }
      // Printed and written as before: the tetune rows, then onnxruntime's.
      for (size_t i = have_ort ? 1 : 0; i < trow.size(); i++) rows.push_back(trow[i]);
      if (have_ort) rows.push_back(trow[0]);
    }
  }

  std::printf("\n%-18s %-12s %-16s %3s %11s %9s %12s %12s %s\n", "model", "shape", "impl", "thr", "median_ms", "min_ms",
              "tetune/ort", "ort_ovh_ms", "tasks tuned/untuned");
  for (const auto &r : rows) {
    std::string tasks = r.tuned >= 0 ? std::to_string(r.tuned) + "/" + std::to_string(r.untuned) : "";
    if (!r.error.empty()) {
      std::printf("%-18s %-12s %-16s %3d ERROR %s\n", r.model.c_str(), r.shape.c_str(), r.impl.c_str(), r.threads, r.error.c_str());
      continue;
    }
    std::printf("%-18s %-12s %-16s %3d %11s %9s %12s %12s %s\n", r.model.c_str(), r.shape.c_str(), r.impl.c_str(), r.threads,
                fmt(r.median_ms).c_str(), fmt(r.min_ms).c_str(), std::isnan(r.ratio) ? "" : fmt(r.ratio, "%.2fx").c_str(),
                std::isnan(r.overhead_ms) ? "" : fmt(r.overhead_ms).c_str(), tasks.c_str());
  }
  double la[3] = {0, 0, 0};
  {
    std::ifstream f("/proc/loadavg");
    f >> la[0] >> la[1] >> la[2];
  }
  std::printf("total %.0f s; load average at end %.2f %.2f %.2f (2 shared cores: 2-thread rows are noisy under load)\n",
              (now_ms() - t_start) / 1e3, la[0], la[1], la[2]);
  if (!no_jsonl) {
    std::ofstream f(out, std::ios::app);
    if (!f) throw Error("cannot append to " + out);
    for (const auto &r : rows) {
      nlohmann::ordered_json j;
      j["bench"] = "model_" + r.model;
      j["model"] = r.model;
      j["shape"] = r.shape;
      j["impl"] = r.impl;
      j["threads"] = r.threads;
      j["median_ms"] = bench::json_number(r.median_ms, "%.4f");
      j["min_ms"] = bench::json_number(r.min_ms, "%.4f");
      j["repeats"] = r.repeats;
      j["rounds"] = static_cast<int>(r.round_medians.size());
      j["ratio_vs_onnxruntime"] = bench::json_number(r.ratio, "%.4f");
      if (r.impl == "onnxruntime") j["overhead_ms"] = bench::json_number(r.overhead_ms, "%.4f");
      if (r.tuned >= 0) j["tuned_tasks"] = r.tuned, j["untuned_tasks"] = r.untuned;
      if (!r.error.empty()) j["error"] = r.error;
      j["note"] = r.note;
      j["run"] = stamp;
      f << bench::json_line(j) << "\n";
    }
    std::printf("appended %zu rows to %s\n", rows.size(), out.c_str());
  }
  return 0;
}

}  // namespace
}  // namespace tetune

int main(int argc, char **argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  try {
    if (argc >= 2 && std::string(argv[1]) == "--child") {
      if (argc < 5) return 2;
      return tetune::child_main(argv[2], std::atoi(argv[3]), std::atoi(argv[4]), argc >= 6 ? argv[5] : "");
    }
    return tetune::parent_main(argc, argv);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bench/models: error: %s\n", e.what());
    return 1;
  }
}
