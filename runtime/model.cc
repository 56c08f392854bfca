#include "runtime/model.h"

#include <chrono>

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

#include <halide14/HalideRuntime.h>

#include "runtime/device_memory.h"
#include "runtime/export_check.h"
#include "runtime/kernel_library.h"
#include "runtime/spin_pool.h"
#include "base/errors.h"
#include "base/host_memory.h"

namespace tetune {
namespace rt {

namespace {

struct HostFree {
  void operator()(void *p) const { free_host_memory(p); }
};
using AlignedPtr = std::unique_ptr<void, HostFree>;

// Zeroed host memory, on huge pages from 2 MiB on (base/host_memory.h).
AlignedPtr aligned(int64_t bytes) {
  const size_t n = static_cast<size_t>(std::max<int64_t>(bytes, 1));
  void *p = nullptr;
  try {
    p = allocate_host_memory(n);
  } catch (const std::bad_alloc &) {
    throw RuntimeError("out of memory allocating " + std::to_string(bytes) + " bytes");
  }
  std::memset(p, 0, n);
  return AlignedPtr(p);
}

DType te_dtype(const PlanValue &v) {
  DType t;
  t.code = static_cast<DType::Code>(v.dtype_code);
  t.bits = v.dtype_bits;
  return t;
}

}  // namespace

struct Model::Impl {
  std::unique_ptr<KernelLibrary> lib;
  bool gpu = false;
  // CUDA exports: every value lives on the device between kernels; only the
  // graph inputs (uploads) and outputs (downloads) cross the bus. Declared
  // after lib, so it is freed before the library unloads.
  std::unique_ptr<DeviceMemory> device;
  std::vector<halide_dimension_t> io_dims;      // one per upload / download descriptor
  std::vector<halide_buffer_t> uploads;         // per graph input: its bytes (host patched per run)
  std::vector<std::pair<int, halide_buffer_t>> downloads;  // (output index, its bytes) for outputs with device memory
  // The device memory detaches the descriptors of calls, uploads and downloads: it goes first.
  ~Impl() { device.reset(); }
  AlignedPtr weights;
  std::vector<AlignedPtr> buffers;
  struct Call {
    int (*fn)(void **) = nullptr;
    std::vector<halide_buffer_t> bufs;
    std::vector<std::vector<halide_dimension_t>> dims;
    std::vector<void *> argv;
    std::vector<int> values;  // value id per arg
    int num_inputs = 0;
    std::string name, kernel;
    bool rerun_safe = true;  // it reads no buffer it writes, so a second call writes the same values
  };
  std::vector<Call> calls;  // kernel groups only, in order
  std::vector<uint8_t *> host;  // per value (null for inputs until bound)
  // (call, arg) slots that read graph inputs (directly or through a view) -> input index
  struct Patch {
    int call, arg, input;
  };
  std::vector<Patch> patches;
  bool profiling = false;
  std::vector<double> call_ms;  // per call, last run (profiling only)
  bool warm_rerun = false;
  std::vector<double> warm_call_ms;  // per call, its second call in the last run (warm_rerun only; NaN: not rerun)
  int (*set_threads)(int) = nullptr;
  bool spin_pool = false;  // parallel loops run on SpinPool (halide_set_custom_do_par_for)
};

Model::~Model() = default;

namespace {
// Device memory of a CUDA export: the weights and every planned buffer are
// allocated once (weights copied), each graph input gets its own allocation,
// and every kernel argument wraps the memory of its value's root.
void place_on_device(Model::Impl &im, const Plan &p, const std::string &lpath, const std::map<int, int> &input_index) {
  im.device = std::make_unique<DeviceMemory>(*im.lib, lpath);
  DeviceMemory &dm = *im.device;
  uint64_t weights = dm.allocate(p.weights_bytes, im.weights.get(), lpath + ": weights");
  std::vector<uint64_t> buffers, inputs;
  for (size_t b = 0; b < p.buffer_bytes.size(); b++)
    buffers.push_back(dm.allocate(p.buffer_bytes[b], nullptr, lpath + ": buffer " + std::to_string(b)));
  for (int v : p.inputs) inputs.push_back(dm.allocate(p.values[v].nbytes(), nullptr, "input '" + p.values[v].name + "'"));
  auto root = [&](int v) { return p.values[v].storage == PlanValue::Alias ? p.values[v].alias : v; };
  auto address = [&](int v) -> uint64_t {
    const PlanValue &r = p.values[root(v)];
    if (r.storage == PlanValue::Const) return weights + static_cast<uint64_t>(r.const_offset);
    if (r.storage == PlanValue::Buffer) return buffers.at(r.buffer);
    return inputs.at(input_index.at(root(v)));
  };
  for (auto &c : im.calls)
    for (size_t a = 0; a < c.bufs.size(); a++) dm.wrap(&c.bufs[a], address(c.values[a]), "kernel " + c.kernel);
  // 1-d byte descriptors of the inputs and outputs (addresses stable: reserved up front)
  auto bytes_desc = [&](int v, uint8_t *host) {
    im.io_dims.push_back(halide_dimension_t(0, static_cast<int32_t>(std::max<int64_t>(p.values[v].nbytes(), 1)), 1));
    halide_buffer_t b = halide_buffer_t();
    b.type = halide_type_t(halide_type_uint, 8);
    b.dimensions = 1;
    b.dim = &im.io_dims.back();
    b.host = host;
    return b;
  };
  im.io_dims.reserve(p.inputs.size() + p.outputs.size());
  im.uploads.reserve(p.inputs.size());
  im.downloads.reserve(p.outputs.size());
  for (int v : p.inputs) im.uploads.push_back(bytes_desc(v, nullptr));
  for (size_t k = 0; k < p.outputs.size(); k++) {
    int v = p.outputs[k];
    if (p.values[root(v)].storage == PlanValue::Input) continue;  // copied from the caller's input
    im.downloads.emplace_back(static_cast<int>(k), bytes_desc(v, im.host[v]));
  }
  for (size_t i = 0; i < im.uploads.size(); i++) dm.wrap(&im.uploads[i], inputs[i], "input '" + p.values[p.inputs[i]].name + "'");
  for (auto &[k, buf] : im.downloads) dm.wrap(&buf, address(p.outputs[k]), "output '" + p.values[p.outputs[k]].name + "'");
}
}  // namespace

std::unique_ptr<Model> Model::load(const std::string &dir_in) {
  std::string dir = dir_in;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  std::unique_ptr<Model> m(new Model());
  m->dir_ = dir;
  m->impl_.reset(new Impl());
  Impl &im = *m->impl_;
  const std::string gpath = dir + "/graph.bin", wpath = dir + "/weights.bin", lpath = dir + "/libmodel.so";
  // Before anything is decoded or dlopen()ed: this CPU runs the library, and every file is the one
  // exported. graph.bin and weights.bin are read once, by the check, which digests these bytes.
  std::map<std::string, std::string> files = {{"graph.bin", ""}, {"weights.bin", ""}};
  const ExportManifest manifest = check_export(dir, host_extensions(), &files);
  const std::string &w = files["weights.bin"];
  m->plan_ = Plan::decode(files["graph.bin"], gpath);
  Plan &p = m->plan_;
  if (p.halide_target != manifest.halide_target)
    throw ExportCheckError(dir + "/" + kManifestFile + ": target " + manifest.halide_target + " differs from " + gpath + "'s " +
                           p.halide_target + " (files from different exports, or an edited manifest)");

  // weights
  {
    const size_t hdr = sizeof(kWeightsMagic) + 8;
    if (w.size() < hdr || std::memcmp(w.data(), kWeightsMagic, sizeof(kWeightsMagic)) != 0)
      throw ParseError(wpath + ": not a tetune weights file (bad magic)");
    uint64_t n;
    std::memcpy(&n, w.data() + sizeof(kWeightsMagic), 8);
    if (n != w.size() - hdr || static_cast<int64_t>(n) != p.weights_bytes)
      throw ParseError(wpath + ": corrupted weights (" + std::to_string(w.size() - hdr) + " data bytes, expected " +
                       std::to_string(p.weights_bytes) + "; truncated or from another export?)");
    if (fnv1a(w.data() + hdr, n) != p.weights_checksum)
      throw ParseError(wpath + ": corrupted weights (checksum differs from graph.bin's)");
    im.weights = aligned(p.weights_bytes);
    std::memcpy(im.weights.get(), w.data() + hdr, n);
  }

  // kernels
  {
    im.lib = KernelLibrary::open(lpath);
    const KernelLibrary &lib = *im.lib;
    im.set_threads = lib.symbol<int (*)(int)>("halide_set_num_threads");
    if (auto set_par_for = lib.symbol<halide_do_par_for_t (*)(halide_do_par_for_t)>("halide_set_custom_do_par_for")) {
      set_par_for(&SpinPool::do_par_for);
      im.spin_pool = true;  // sized like Halide's own pool (SpinPool::default_threads)
    }
    im.gpu = p.target == "cuda" || p.halide_target.find("cuda") != std::string::npos;
    if (im.gpu) {
      void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
      if (!cuda) throw RuntimeError(lpath + ": exported for CUDA (" + p.halide_target + ") but the CUDA driver libcuda.so.1 cannot be loaded");
      dlclose(cuda);
    }
    std::vector<int (*)(void **)> fns(p.kernels.size());
    for (size_t k = 0; k < p.kernels.size(); k++) {
      const KernelEntry *entry = im.lib->find(p.kernels[k].name);
      if (!entry)
        throw RuntimeError(lpath + ": kernel '" + p.kernels[k].name + "' named in " + gpath + " is missing (files from different exports?)");
      if (entry->num_args != p.kernels[k].num_args)
        throw RuntimeError(lpath + ": kernel '" + p.kernels[k].name + "' takes " + std::to_string(entry->num_args) +
                           " buffers, " + gpath + " says " + std::to_string(p.kernels[k].num_args));
      fns[k] = entry->fn_argv;
    }

    // buffers and host pointers
    for (auto b : p.buffer_bytes) im.buffers.push_back(aligned(b));
    im.host.assign(p.values.size(), nullptr);
    std::map<int, int> input_index;
    for (size_t i = 0; i < p.inputs.size(); i++) input_index[p.inputs[i]] = static_cast<int>(i);
    auto root = [&](int v) { return p.values[v].storage == PlanValue::Alias ? p.values[v].alias : v; };
    for (size_t v = 0; v < p.values.size(); v++) {
      const auto &pv = p.values[root(static_cast<int>(v))];
      if (pv.storage == PlanValue::Const) im.host[v] = static_cast<uint8_t *>(im.weights.get()) + pv.const_offset;
      else if (pv.storage == PlanValue::Buffer) im.host[v] = static_cast<uint8_t *>(im.buffers[pv.buffer].get());
    }
    for (const auto &g : p.groups) {
      if (g.kind != PlanGroup::Kernel) continue;
      Impl::Call c;
      c.fn = fns[g.kernel];
      c.name = g.name;
      c.kernel = p.kernels[g.kernel].name;
      c.num_inputs = g.num_inputs;
      c.values = g.args;
      size_t n = g.args.size();
      c.bufs.resize(n);
      c.dims.resize(n);
      c.argv.resize(n);
      std::set<int> read, written;  // planned buffers, for rerun_safe
      for (size_t a = 0; a < n; a++) {
        int v = g.args[a];
        const PlanValue &pv = p.values[v];
        if (p.values[root(v)].storage == PlanValue::Buffer)
          (static_cast<int>(a) < g.num_inputs ? read : written).insert(p.values[root(v)].buffer);
        if (static_cast<int>(a) >= g.num_inputs && p.values[root(v)].storage != PlanValue::Buffer)
          throw ParseError(gpath + ": group " + g.name + " writes value '" + pv.name + "' that has no buffer");
        auto &d = c.dims[a];
        d = dense_dims(pv.shape);
        int nd = static_cast<int>(pv.shape.size());
        halide_buffer_t &b = c.bufs[a];
        b = halide_buffer_t();
        b.type = halide_type_of(te_dtype(pv));
        b.dimensions = nd;
        b.dim = d.data();
        b.host = im.host[v];
        if (p.values[root(v)].storage == PlanValue::Input) {
          auto it2 = input_index.find(root(v));
          if (it2 == input_index.end()) throw ParseError(gpath + ": value '" + pv.name + "' reads an unknown input");
          im.patches.push_back({static_cast<int>(im.calls.size()), static_cast<int>(a), it2->second});
        }
      }
      c.rerun_safe = std::none_of(written.begin(), written.end(), [&](int b) { return read.count(b) > 0; });
      im.calls.push_back(std::move(c));
    }
    for (auto &c : im.calls)
      for (size_t a = 0; a < c.bufs.size(); a++) c.argv[a] = &c.bufs[a];
    if (im.gpu) place_on_device(im, p, lpath, input_index);
  }
  return m;
}

std::vector<std::string> Model::input_names() const {
  std::vector<std::string> r;
  for (int v : plan_.inputs) r.push_back(plan_.values[v].name);
  return r;
}

std::vector<std::string> Model::output_names() const {
  std::vector<std::string> r;
  for (int v : plan_.outputs) r.push_back(plan_.values[v].name);
  return r;
}

Shape Model::input_shape(size_t i) const { return plan_.values.at(plan_.inputs.at(i)).shape; }

int64_t Model::buffer_bytes() const {
  int64_t n = 0;
  for (auto b : plan_.buffer_bytes) n += b;
  return n;
}

void Model::set_num_threads(int n) {
  if (n <= 0) throw RuntimeError("thread count must be positive, got " + std::to_string(n));
  if (impl_->spin_pool) {
    SpinPool::get().set_threads(n);
    return;
  }
  if (!impl_->set_threads) throw RuntimeError(dir_ + "/libmodel.so: does not export halide_set_num_threads");
  impl_->set_threads(n);
}

void Model::set_profiling(bool on) {
  impl_->profiling = on;
  impl_->call_ms.assign(on ? impl_->calls.size() : 0, 0.0);
}

const std::vector<double> &Model::last_call_ms() const { return impl_->call_ms; }

void Model::set_warm_rerun(bool on) {
  impl_->warm_rerun = on;
  impl_->warm_call_ms.assign(on ? impl_->calls.size() : 0, std::numeric_limits<double>::quiet_NaN());
}

const std::vector<double> &Model::last_warm_call_ms() const { return impl_->warm_call_ms; }

std::vector<std::string> Model::call_names() const {
  std::vector<std::string> r;
  for (const auto &c : impl_->calls) r.push_back(c.name + ":" + c.kernel);
  return r;
}

std::vector<NDArray> Model::run(const std::vector<NDArray> &inputs) {
  const Plan &p = plan_;
  Impl &im = *impl_;
  if (inputs.size() != p.inputs.size())
    throw ShapeError("model expects " + std::to_string(p.inputs.size()) + " inputs, got " + std::to_string(inputs.size()));
  std::vector<uint8_t *> in_host(inputs.size());
  for (size_t i = 0; i < inputs.size(); i++) {
    const PlanValue &v = p.values[p.inputs[i]];
    if (inputs[i].shape() != v.shape)
      throw ShapeError("input '" + v.name + "': expected shape " + shape_string(v.shape) + ", got " + shape_str(inputs[i].shape()));
    if (inputs[i].dtype() != te_dtype(v))
      throw ShapeError("input '" + v.name + "': expected dtype " + dtype_name(v.dtype_code, v.dtype_bits) + ", got " +
                       inputs[i].dtype().str());
    in_host[i] = static_cast<uint8_t *>(const_cast<void *>(inputs[i].raw()));
  }
  for (const auto &pt : im.patches) im.calls[pt.call].bufs[pt.arg].host = in_host[pt.input];
  std::optional<SpinPool::Active> spinning;  // the workers wait for the next kernel's loop spinning, not asleep
  if (im.spin_pool) spinning.emplace();
  for (size_t i = 0; i < im.uploads.size(); i++) {
    im.uploads[i].host = in_host[i];
    im.device->upload(&im.uploads[i], "input '" + p.values[p.inputs[i]].name + "'");
  }
  // One timed call: its wall time in ms (with a device sync on a GPU export when profiling).
  auto call = [&](Impl::Call &c) {
    for (size_t a = 0; a < c.bufs.size(); a++) {
      if (im.gpu) {  // the device holds every value; a host-side stage would copy it back first
        c.bufs[a].flags = static_cast<int>(a) < c.num_inputs ? halide_buffer_flag_device_dirty : 0;
        continue;
      }
      c.bufs[a].flags = 0;
      c.bufs[a].device = 0;
      c.bufs[a].device_interface = nullptr;
    }
    KernelLibrary::clear_error();
    std::chrono::steady_clock::time_point t0;
    if (im.profiling) t0 = std::chrono::steady_clock::now();
    int rc = c.fn(c.argv.data());
    if (rc == 0 && im.profiling && im.gpu) im.device->sync(&c.bufs.back(), "kernel " + c.kernel);
    if (rc != 0)
      throw RuntimeError("kernel " + c.kernel + " (group " + c.name + ") in " + dir_ + "/libmodel.so failed with Halide error " +
                         std::to_string(rc) + (KernelLibrary::last_error().empty() ? std::string() : ": " + KernelLibrary::last_error()));
    return im.profiling ? std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() : 0.0;
  };
  for (auto &c : im.calls) {
    const size_t i = &c - im.calls.data();
    double ms = call(c);
    if (im.profiling) im.call_ms[i] = ms;
    if (im.profiling && im.warm_rerun && c.rerun_safe) im.warm_call_ms[i] = call(c);
  }
  for (auto &[k, buf] : im.downloads) im.device->download(&buf, "output '" + p.values[p.outputs[k]].name + "'");
  std::vector<NDArray> out;
  for (int v : p.outputs) {
    const PlanValue &pv = p.values[v];
    NDArray a(pv.shape, te_dtype(pv));
    const uint8_t *src = im.host[v];
    if (!src) {  // an output that is (a view of) a graph input
      int r = pv.storage == PlanValue::Alias ? pv.alias : v;
      for (size_t i = 0; i < p.inputs.size(); i++)
        if (p.inputs[i] == r) src = in_host[i];
    }
    if (!src) throw RuntimeError("output '" + pv.name + "' has no storage (internal error)");
    std::memcpy(a.raw(), src, a.nbytes());
    out.push_back(std::move(a));
  }
  return out;
}

std::map<std::string, NDArray> Model::run(const std::map<std::string, NDArray> &inputs) {
  std::vector<NDArray> in;
  for (int v : plan_.inputs) {
    auto it = inputs.find(plan_.values[v].name);
    if (it == inputs.end()) throw ShapeError("input '" + plan_.values[v].name + "' is missing");
    in.push_back(it->second);
  }
  for (auto &kv : inputs) {
    bool known = false;
    for (int v : plan_.inputs) known |= plan_.values[v].name == kv.first;
    if (!known) throw ShapeError("unknown input '" + kv.first + "'");
  }
  auto out = run(in);
  std::map<std::string, NDArray> r;
  for (size_t i = 0; i < out.size(); i++) r[plan_.values[plan_.outputs[i]].name] = out[i];
  return r;
}

}  // namespace rt
}  // namespace tetune
