#include "codegen/loop_nest_reader.h"

#include <fstream>
#include <sstream>

#include "base/errors.h"

namespace tetune {
namespace codegen {

namespace {
using namespace Halide::Internal;

const char *kind_name(ForType t) {
  switch (t) {
    case ForType::Parallel: return "parallel";
    case ForType::Vectorized: return "vectorized";
    case ForType::Unrolled: return "unrolled";
    case ForType::GPUBlock: return "gpu_block";
    case ForType::GPUThread: return "gpu_thread";
    case ForType::GPULane: return "gpu_lane";
    default: return "serial";
  }
}

int64_t const_value(const Halide::Expr &e) {
  if (const auto *i = e.as<IntImm>()) return i->value;
  if (const auto *u = e.as<UIntImm>()) return static_cast<int64_t>(u->value);
  return -1;
}

bool dense_index(const Halide::Expr &index) {
  const auto *r = index.as<Ramp>();
  return r && is_const_one(r->stride);
}

class Reader : public IRVisitor {
 public:
  LoopNest nest;

 private:
  using IRVisitor::visit;
  int current = -1;

  void visit(const For *op) override {
    Loop l;
    l.name = op->name;
    l.kind = kind_name(op->for_type);
    l.extent = const_value(op->extent);
    l.parent = current;
    nest.loops.push_back(l);
    int saved = current;
    current = static_cast<int>(nest.loops.size()) - 1;
    op->body.accept(this);
    current = saved;
  }
  void visit(const Store *op) override {
    BufferAccess a;
    a.buffer = op->name;
    a.is_store = true;
    a.lanes = op->value.type().lanes();
    a.dense = dense_index(op->index);
    a.loop = current;
    a.bytes_per_lane = op->value.type().bytes();
    nest.accesses.push_back(a);
    IRVisitor::visit(op);
  }
  void visit(const Load *op) override {
    BufferAccess a;
    a.buffer = op->name;
    a.lanes = op->type.lanes();
    a.dense = dense_index(op->index);
    a.loop = current;
    a.bytes_per_lane = op->type.bytes();
    nest.accesses.push_back(a);
    IRVisitor::visit(op);
  }
  void visit(const Allocate *op) override {
    Allocation al;
    al.buffer = op->name;
    int64_t bytes = op->type.bytes();
    for (const auto &e : op->extents) {
      int64_t v = const_value(e);
      bytes = (v < 0 || bytes < 0) ? -1 : bytes * v;
    }
    al.bytes = bytes;
    al.loop = current;
    nest.allocations.push_back(al);
    IRVisitor::visit(op);
  }
  void count(const Halide::Type &t) {
    if (t.is_float()) nest.float_ops += t.lanes();
    else nest.int_ops += t.lanes();
  }
  void visit(const Add *op) override { count(op->type); IRVisitor::visit(op); }
  void visit(const Sub *op) override { count(op->type); IRVisitor::visit(op); }
  void visit(const Mul *op) override { count(op->type); IRVisitor::visit(op); }
  void visit(const Div *op) override { count(op->type); IRVisitor::visit(op); }
  void visit(const Min *op) override { count(op->type); IRVisitor::visit(op); }
  void visit(const Max *op) override { count(op->type); IRVisitor::visit(op); }
};
}  // namespace

LoopNest read_loop_nest(const Halide::Module &m) {
  Reader r;
  for (const auto &f : m.functions()) f.body.accept(&r);
  return r.nest;
}

std::string stmt_text(const Halide::Module &m) {
  std::ostringstream os;
  for (const auto &f : m.functions()) os << f.body << "\n";
  return os.str();
}

void write_gpu_source(const Halide::Module &m, const std::string &path) {
  for (const auto &b : m.buffers()) {
    if (b.name().find("gpu_source_kernels") == std::string::npos) continue;
    std::ofstream out(path, std::ios::binary);
    const char *data = reinterpret_cast<const char *>(b.data());
    size_t n = b.size_in_bytes();
    while (n > 0 && data[n - 1] == 0) n--;
    out.write(data, static_cast<std::streamsize>(n));
    if (!out) throw CodegenError("cannot write " + path);
    return;
  }
  throw CodegenError("module has no GPU device source to write to " + path);
}

}  // namespace codegen
}  // namespace tetune
