// "tetune-tuned" rows: the auto-tuner (autotune/tuner.h, search space
// "ansor", evolutionary search guided by the XGB cost model) tunes the bench's
// workload from an EMPTY temporary database within a trial budget; the best
// record's schedule is replayed, built by tetune's codegen and timed by the
// shared harness (checked against the reference loop first).
// "tetune-tuned-nchw16c" (convolutions): the same, for the blocked compute
// conv2d_nchwc (te/ops/conv.h) in the layouts oneDNN's row runs in, with the
// reorders of inputs and output outside the timing as oneDNN's are; its
// database is <bench>_nchw16c_t<threads>_n<trials>.db.
//
// Configuration (environment, inherited by the harness's child processes):
//   TETUNE_TUNED_TRIALS=N   trial budget per (bench, threads) (default 64)
//   TETUNE_TUNED_TRIALS_2048=N  budget of gemm2048 (default TETUNE_TUNED_TRIALS, else 32)
//   TETUNE_TUNED_REUSE=1    reuse bench/results/tuned/<bench>_t<threads>.db
//                           from an earlier run (no tuning) when it exists
//   TETUNE_TUNED_SEED=S     search seed (default 1)
// Within one `kernels` run the database tuned by the first round is reused by
// the later rounds (it is kept in the run's --ref-dir), so a row is tuned
// once per run. Every tuned database is copied to bench/results/tuned/.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "autotune/measure/record_store.h"
#include "autotune/policy/space.h"
#include "workload/task.h"
#include "autotune/tuner.h"
#include "bench/harness.h"
#include "codegen/kernel.h"
#include "schedule/trace.h"
#include "te/ops/registry.h"

namespace tetune {
namespace bench {
namespace {

namespace fs = std::filesystem;
using tuning_log::MeasureRecord;

int env_int(const char *name, int dflt) {
  const char *v = std::getenv(name);
  if (!v || !*v) return dflt;
  return std::atoi(v);
}

// The harness passes the per-run temporary directory as --ref-dir to its
// children; read it from our own command line.
std::string run_dir() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  std::string cur;
  for (char c : all) {
    if (c == '\0') args.push_back(cur), cur.clear();
    else cur += c;
  }
  for (size_t i = 0; i + 1 < args.size(); i++)
    if (args[i] == "--ref-dir") return args[i + 1];
  return "";
}

std::string results_dir() {
  const char *ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  return (ws && *ws ? std::string(ws) : std::string(".")) + "/bench/results/tuned";
}

// Layout of the tuned compute. kBlocked16: conv2d_nchwc on NCHW16c input,
// OIHW16i16o weight and NCHW16c output, the layouts oneDNN's row runs in;
// as there, the reorders from and to the bench's plain data are not timed.
enum class Layout { kPlain, kBlocked16 };
constexpr int64_t kBlock = 16;

ops::OpWorkload workload(const BenchSpec &s, Layout layout) {
  if (layout == Layout::kBlocked16) {
    if (s.kind != BenchKind::kConv2d || s.in_c % kBlock || s.out_c % kBlock)
      throw Unsupported("tetune-tuned-nchw16c: convolutions with channels in blocks of 16 only");
    return ops::build_op("conv2d_nchwc",
                         {s.batch, s.in_c, s.in_h, s.in_w, s.out_c, s.kh, s.kw, kBlock, kBlock, s.stride, s.pad});
  }
  if (s.kind == BenchKind::kGemm) return ops::build_op("matmul", {s.M, s.N, s.K});
  return ops::build_op("conv2d", {s.batch, s.in_c, s.in_h, s.in_w, s.out_c, s.kh, s.kw, s.stride, s.pad});
}

// [N, C, H, W] -> [N, C/16, H, W, 16] (and back with to_plain = true).
void reorder_activation(const float *src, float *dst, int64_t N, int64_t C, int64_t HW, bool to_plain) {
  for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < C; c++)
      for (int64_t i = 0; i < HW; i++) {
        int64_t plain = (n * C + c) * HW + i, blocked = ((n * (C / kBlock) + c / kBlock) * HW + i) * kBlock + c % kBlock;
        if (to_plain) dst[plain] = src[blocked];
        else dst[blocked] = src[plain];
      }
}

// [O, C, KH, KW] -> [O/16, C/16, KH, KW, 16 (c), 16 (o)].
std::vector<float> block_weight(const std::vector<float> &w, int64_t O, int64_t C, int64_t KHW) {
  std::vector<float> out(w.size());
  for (int64_t o = 0; o < O; o++)
    for (int64_t c = 0; c < C; c++)
      for (int64_t t = 0; t < KHW; t++)
        out[(((o / kBlock * (C / kBlock) + c / kBlock) * KHW + t) * kBlock + c % kBlock) * kBlock + o % kBlock] =
            w[(o * C + c) * KHW + t];
  return out;
}

std::optional<MeasureRecord> best_of(const std::string &db, const tetune::Task &task, int *n_records) {
  autotune::RecordStore st(db, task.workload_key, task.name, "{}", task.threads);
  *n_records = static_cast<int>(st.count());
  auto best = st.best(1);  // a re-measured schedule costs its middle measurement
  if (best.empty()) return std::nullopt;
  return best[0];
}

std::string fmt(const char *f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

BenchResult tuned_row(const BenchSpec &spec, int threads, Layout layout) {
  const bool blocked = layout == Layout::kBlocked16;
  const std::string impl = blocked ? "tetune-tuned-nchw16c" : "tetune-tuned";
  const std::string name = blocked ? spec.name + "_nchw16c" : spec.name;
  ops::OpWorkload w = workload(spec, layout);
  tetune::Task task = tetune::make_task(name, w.outputs, Target{}, threads);
  // Default budgets: 64 trials (gemm2048: 32, its candidates take seconds each).
  const bool big = spec.kind == BenchKind::kGemm && spec.M >= 2048;
  const int trials = env_int(big ? "TETUNE_TUNED_TRIALS_2048" : "TETUNE_TUNED_TRIALS",
                             env_int("TETUNE_TUNED_TRIALS", big ? 32 : 64));
  const std::string key = name + "_t" + std::to_string(threads) + "_n" + std::to_string(trials);
  const std::string rdir = run_dir();
  const std::string run_db = rdir.empty() ? "" : rdir + "/tuned_" + key + ".db";
  const std::string saved_db = results_dir() + "/" + key + ".db";
  const std::string saved_meta = saved_db + ".txt";

  std::string note;
  std::string db;
  if (!run_db.empty() && fs::exists(run_db)) {
    db = run_db;  // tuned by an earlier round of this run
    std::ifstream m(run_db + ".txt");
    std::getline(m, note);
  } else if (env_int("TETUNE_TUNED_REUSE", 0) && fs::exists(saved_db)) {
    db = saved_db;
    std::ifstream m(saved_meta);
    std::getline(m, note);
    note = "reused " + fs::path(saved_db).filename().string() + " (" + note + ")";
  } else {
    // Tune from an empty temporary database.
    std::string tmpl = (rdir.empty() ? fs::temp_directory_path().string() : rdir) + "/tuneXXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) throw Error("tetune-tuned: mkdtemp failed");
    std::string tdir = buf.data();
    std::string tdb = tdir + "/tune.db";
    autotune::TuneOptions o;
    o.trials = trials;
    o.batch_size = 16;
    o.policy = "evolutionary";
    o.cost_model = "xgb";
    o.db_path = tdb;
    o.seed = static_cast<uint64_t>(env_int("TETUNE_TUNED_SEED", 1));
    o.measure.repeat = 3;
    o.measure.warmup = 0;  // the checked run warms up
    o.measure.min_repeat_ms = 10;
    const bool big = spec.kind == BenchKind::kGemm && spec.M >= 2048;
    // 2048^3: one run per repeat (no calibration run), so a slow candidate costs ~3 runs.
    if (big) o.measure.number = 1;
    o.measure.timeout_s = big ? 15 : 8;
    auto t0 = std::chrono::steady_clock::now();
    autotune::TuneResult r = autotune::tune(task, o);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::ostringstream os;
    os << "tuned " << r.measured << " trials (" << r.errors << " failed, " << r.confirmed
       << " re-measuring top schedules) in " << fmt("%.0f", secs)
       << " s (search " << fmt("%.0f", r.search_s) << " s, measure " << fmt("%.0f", r.measure_s)
       << " s), space " << autotune::policy::default_space_name() << ", evolutionary+xgb, best in tuner "
       << fmt("%.1f", r.best_gflops) << " GFLOP/s (its middle of " << r.best_measurements << " measurements)";
    note = os.str();
    std::fprintf(stderr, "%s %s: %s\n", impl.c_str(), key.c_str(), note.c_str());
    db = tdb;
    std::error_code ec;
    fs::create_directories(results_dir(), ec);
    fs::copy_file(tdb, saved_db, fs::copy_options::overwrite_existing, ec);
    if (!ec) std::ofstream(saved_meta) << note << "\n";
    if (!run_db.empty()) {
      fs::copy_file(tdb, run_db, fs::copy_options::overwrite_existing, ec);
      std::ofstream(run_db + ".txt") << note << "\n";
    }
  }

  int n_records = 0;
  auto best = best_of(db, task, &n_records);
  if (!best) throw Error(impl + ": no successful record in " + db + " (" + std::to_string(n_records) + " records)");
  Schedule s = replay(task.outputs, trace_from_json(best->schedule_json, task.outputs));

  const BenchData &d = bench_data(spec);
  std::vector<Tensor> ins = Schedule(task.outputs).inputs();
  if (ins.size() != 2) throw Error(impl + ": expected 2 inputs");
  std::vector<float> in0 = d.input0, in1 = d.input1;
  if (blocked) {
    reorder_activation(d.input0.data(), in0.data(), spec.batch, spec.in_c, spec.in_h * spec.in_w, false);
    in1 = block_weight(d.input1, spec.out_c, spec.in_c, spec.kh * spec.kw);
  }
  std::vector<NDArray> in;
  for (size_t i = 0; i < 2; i++) {
    const std::vector<float> &v = i == 0 ? in0 : in1;
    NDArray a(ins[i].shape(), float32());
    if (a.nbytes() != static_cast<int64_t>(v.size() * sizeof(float))) throw Error(impl + ": input size mismatch");
    std::memcpy(a.raw(), v.data(), v.size() * sizeof(float));
    in.push_back(std::move(a));
  }
  set_num_threads(threads);
  Kernel k = Kernel::build(s);
  auto outs = std::make_shared<std::vector<NDArray>>(k.run(in));
  note += "; best record " + fmt("%.3f", best->median_ms) + " ms in tuning";
  if (blocked) note = "layouts NCHW16c / OIHW16i16o (reorders untimed, as oneDNN's); " + note;
  const float *out0 = static_cast<const float *>((*outs)[0].raw());
  return check_and_time(
      spec, impl, threads, [&] { k.run(in, *outs); },
      [&](float *dst) {
        if (blocked) reorder_activation(out0, dst, spec.batch, spec.out_c, spec.out_h() * spec.out_w(), true);
        else std::memcpy(dst, out0, (*outs)[0].nbytes());
      },
      [&] { std::memset((*outs)[0].raw(), 0xff, (*outs)[0].nbytes()); }, note);
}

BenchResult tetune_tuned(const BenchSpec &spec, int threads) { return tuned_row(spec, threads, Layout::kPlain); }
BenchResult tetune_tuned_nchw16c(const BenchSpec &spec, int threads) {
  return tuned_row(spec, threads, Layout::kBlocked16);
}

}  // namespace

TETUNE_BENCH_REGISTER_IMPL_ORDERED("tetune-tuned", tetune_tuned, 6);
TETUNE_BENCH_REGISTER_IMPL_ORDERED("tetune-tuned-nchw16c", tetune_tuned_nchw16c, 7);

}  // namespace bench
}  // namespace tetune
