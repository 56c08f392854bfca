#include "runtime/cpu_features.h"

#include <algorithm>
#include <sstream>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define TETUNE_X86 1
#endif

namespace tetune::rt {
namespace {

// One CPUID bit and the LLVM name of the extension it reports.
struct Bit {
  uint32_t CpuidWords::*word;
  int bit;
  const char *name;
};

// Intel SDM vol. 2A, CPUID leaf 01H (table 3-10, 3-11), leaf 07H (table 3-8);
// AMD APM vol. 3, CPUID Fn8000_0001_ECX.
constexpr Bit kBits[] = {
    {&CpuidWords::leaf1_edx, 25, "sse"},
    {&CpuidWords::leaf1_edx, 26, "sse2"},
    {&CpuidWords::leaf1_ecx, 0, "sse3"},
    {&CpuidWords::leaf1_ecx, 9, "ssse3"},
    {&CpuidWords::leaf1_ecx, 12, "fma"},
    {&CpuidWords::leaf1_ecx, 19, "sse4.1"},
    {&CpuidWords::leaf1_ecx, 20, "sse4.2"},
    {&CpuidWords::leaf1_ecx, 22, "movbe"},
    {&CpuidWords::leaf1_ecx, 23, "popcnt"},
    {&CpuidWords::leaf1_ecx, 28, "avx"},
    {&CpuidWords::leaf1_ecx, 29, "f16c"},
    {&CpuidWords::leaf7_ebx, 3, "bmi"},
    {&CpuidWords::leaf7_ebx, 5, "avx2"},
    {&CpuidWords::leaf7_ebx, 8, "bmi2"},
    {&CpuidWords::leaf7_ebx, 16, "avx512f"},
    {&CpuidWords::leaf7_ebx, 17, "avx512dq"},
    {&CpuidWords::leaf7_ebx, 21, "avx512ifma"},
    {&CpuidWords::leaf7_ebx, 26, "avx512pf"},
    {&CpuidWords::leaf7_ebx, 27, "avx512er"},
    {&CpuidWords::leaf7_ebx, 28, "avx512cd"},
    {&CpuidWords::leaf7_ebx, 30, "avx512bw"},
    {&CpuidWords::leaf7_ebx, 31, "avx512vl"},
    {&CpuidWords::leaf7_ecx, 1, "avx512vbmi"},
    {&CpuidWords::leaf7_ecx, 6, "avx512vbmi2"},
    {&CpuidWords::leaf7_ecx, 8, "gfni"},
    {&CpuidWords::leaf7_ecx, 11, "avx512vnni"},
    {&CpuidWords::leaf7_ecx, 12, "avx512bitalg"},
    {&CpuidWords::leaf7_ecx, 14, "avx512vpopcntdq"},
    {&CpuidWords::leaf7_edx, 8, "avx512vp2intersect"},
    {&CpuidWords::leaf7_edx, 22, "amx-bf16"},
    {&CpuidWords::leaf7_edx, 23, "avx512fp16"},
    {&CpuidWords::leaf7_edx, 24, "amx-tile"},
    {&CpuidWords::leaf7_edx, 25, "amx-int8"},
    {&CpuidWords::leaf7_1_eax, 4, "avxvnni"},
    {&CpuidWords::leaf7_1_eax, 5, "avx512bf16"},
    {&CpuidWords::ext1_ecx, 5, "lzcnt"},
    {&CpuidWords::ext1_ecx, 16, "fma4"},
};

// XCR0 state components (SDM vol. 1, 13.3): what the OS saves on a context
// switch. An extension whose registers the OS does not save is unusable.
constexpr uint64_t kXmm = 1u << 1, kYmm = 1u << 2;
constexpr uint64_t kAvx512State = (1u << 5) | (1u << 6) | (1u << 7);  // opmask, ZMM_Hi256, Hi16_ZMM
constexpr uint64_t kAmxState = (1u << 17) | (1u << 18);                // XTILECFG, XTILEDATA

bool needs_ymm(const std::string &n) {
  return n == "avx" || n == "avx2" || n == "fma" || n == "f16c" || n == "fma4" || n == "avxvnni" ||
         n.rfind("avx512", 0) == 0;
}

bool has_state(const std::string &name, uint64_t xcr0) {
  if (name.rfind("avx512", 0) == 0) return (xcr0 & (kXmm | kYmm | kAvx512State)) == (kXmm | kYmm | kAvx512State);
  if (needs_ymm(name)) return (xcr0 & (kXmm | kYmm)) == (kXmm | kYmm);
  if (name.rfind("amx-", 0) == 0) return (xcr0 & kAmxState) == kAmxState;
  return true;
}

// A Halide 14 x86 target feature and the extensions it lets LLVM use: its
// own -mattr additions plus those of the -mcpu Halide picks for it
// (CodeGen_X86::mcpu and ::mattrs in Halide 14; CPU definitions in LLVM 14's
// X86.td). Extensions LLVM never emits for Halide's IR (cldemote, serialize,
// ...) are left out, so a VM that hides them still gets the feature.
struct HalideFeature {
  const char *name;
  std::vector<const char *> extensions;
};

const std::vector<HalideFeature> &halide_features() {
  static const std::vector<HalideFeature> kFeatures = {
      {"sse41", {"sse", "sse2", "sse3", "ssse3", "sse4.1"}},                          // -mcpu=penryn
      {"avx", {"sse", "sse2", "sse3", "ssse3", "sse4.1", "sse4.2", "popcnt", "avx"}},  // corei7-avx
      {"avx2",
       {"sse", "sse2", "sse3", "ssse3", "sse4.1", "sse4.2", "popcnt", "avx", "avx2", "fma", "f16c", "bmi", "bmi2",
        "lzcnt", "movbe"}},  // haswell
      {"fma", {"fma"}},
      {"fma4", {"fma4"}},
      {"f16c", {"f16c"}},
      {"avx512", {"avx512f", "avx512cd"}},
      {"avx512_knl", {"avx512f", "avx512cd", "avx512er", "avx512pf"}},  // knl
      {"avx512_skylake", {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}},  // skylake-avx512
      {"avx512_cannonlake",
       {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx512ifma", "avx512vbmi"}},  // cannonlake
      {"avx512_sapphirerapids",
       {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx512ifma", "avx512vbmi", "avx512vbmi2",
        "avx512bitalg", "avx512vpopcntdq", "avx512vnni", "avx512bf16", "avx512fp16", "avxvnni", "gfni", "amx-tile",
        "amx-int8", "amx-bf16"}},  // sapphirerapids
  };
  return kFeatures;
}

const HalideFeature *find_feature(const std::string &name) {
  for (const auto &f : halide_features())
    if (name == f.name) return &f;
  return nullptr;
}

bool allows(const HalideFeature &f, const std::set<std::string> &have) {
  return std::all_of(f.extensions.begin(), f.extensions.end(), [&](const char *e) { return have.count(e) > 0; });
}

std::vector<std::string> split_dashes(const std::string &s) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream is(s);
  while (std::getline(is, cur, '-'))
    if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string join(const std::vector<std::string> &v, const char *sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); i++) out += (i ? sep : "") + v[i];
  return out;
}

}  // namespace

CpuidWords read_cpuid() {
  CpuidWords w;
#ifdef TETUNE_X86
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(0, &a, &b, &c, &d)) return w;
  unsigned max_leaf = a;
  char vendor[13] = {};
  std::copy_n(reinterpret_cast<const char *>(&b), 4, vendor);
  std::copy_n(reinterpret_cast<const char *>(&d), 4, vendor + 4);
  std::copy_n(reinterpret_cast<const char *>(&c), 4, vendor + 8);
  w.vendor = vendor;
  __cpuid(1, a, b, c, d);
  uint32_t base_family = (a >> 8) & 0xf, base_model = (a >> 4) & 0xf;
  w.family = base_family == 0xf ? base_family + ((a >> 20) & 0xff) : base_family;
  w.model = (base_family == 0x6 || base_family == 0xf) ? base_model + (((a >> 16) & 0xf) << 4) : base_model;
  w.leaf1_ecx = c;
  w.leaf1_edx = d;
  if (max_leaf >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    uint32_t max_sub = a;
    w.leaf7_ebx = b;
    w.leaf7_ecx = c;
    w.leaf7_edx = d;
    if (max_sub >= 1) {
      __cpuid_count(7, 1, a, b, c, d);
      w.leaf7_1_eax = a;
    }
  }
  if (__get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000001u) {
    __cpuid(0x80000001u, a, b, c, d);
    w.ext1_ecx = c;
  }
  if (w.leaf1_ecx & (1u << 27)) {  // OSXSAVE: XGETBV is available
    uint32_t lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    w.xcr0 = (static_cast<uint64_t>(hi) << 32) | lo;
  }
#endif
  return w;
}

std::set<std::string> usable_extensions(const CpuidWords &w) {
  std::set<std::string> out;
  for (const Bit &b : kBits)
    if (((w.*(b.word) >> b.bit) & 1u) && has_state(b.name, w.xcr0)) out.insert(b.name);
  return out;
}

const std::set<std::string> &host_extensions() {
  static const std::set<std::string> kHost = usable_extensions(read_cpuid());
  return kHost;
}

std::vector<std::string> required_extensions(const std::string &halide_target) {
  std::set<std::string> need;
  for (const std::string &token : split_dashes(halide_target))
    if (const HalideFeature *f = find_feature(token)) need.insert(f->extensions.begin(), f->extensions.end());
  return {need.begin(), need.end()};
}

std::vector<std::string> missing_extensions(const std::string &halide_target, const std::set<std::string> &have) {
  std::vector<std::string> out;
  for (const std::string &e : required_extensions(halide_target))
    if (!have.count(e)) out.push_back(e);
  return out;
}

std::string describe(const CpuidWords &w) {
  std::ostringstream os;
  os << (w.vendor.empty() ? "unknown vendor" : w.vendor) << " family " << w.family << " model " << w.model;
  return os.str();
}

X86TargetChoice choose_x86_target(const std::set<std::string> &have, const std::string &os) {
  X86TargetChoice c;
  std::vector<std::string> features;
  for (const auto &f : halide_features())
    if (allows(f, have)) features.push_back(f.name);
  // Halide reads avx512_knl and the Skylake-and-later levels as two lines of
  // CPUs (-mcpu=knl or skylake-avx512...); keep the later line when both fit.
  bool skylake = std::find(features.begin(), features.end(), "avx512_skylake") != features.end();
  if (skylake) features.erase(std::remove(features.begin(), features.end(), "avx512_knl"), features.end());
  std::sort(features.begin(), features.end());  // Halide's own to_string() order
  c.halide_target = "x86-64-" + os + (features.empty() ? "" : "-" + join(features, "-"));

  // Usable extensions that some Halide feature knows of but the target does not use.
  std::set<std::string> known, used;
  for (const auto &f : halide_features()) known.insert(f.extensions.begin(), f.extensions.end());
  for (const std::string &e : required_extensions(c.halide_target)) used.insert(e);
  for (const std::string &e : known)
    if (have.count(e) && !used.count(e)) c.unused_extensions.push_back(e);  // sorted: known is a set
  bool avx512 = std::find(features.begin(), features.end(), "avx512") != features.end();
  for (const auto &f : halide_features()) {
    // Only the AVX-512 levels above the one taken are worth a word.
    std::string name = f.name;
    if (!avx512 || allows(f, have) || name.rfind("avx512_", 0) != 0 || name == "avx512_knl") continue;
    std::vector<std::string> lacks = missing_extensions(std::string("x86-64-") + f.name, have);
    c.note += (c.note.empty() ? "" : "; ") + std::string("Halide 14's ") + f.name + " would also use " +
              join(lacks, ", ") + ", which this CPU lacks";
  }
  if (!c.unused_extensions.empty())
    c.note += (c.note.empty() ? "" : "; ") + std::string("no Halide 14 feature enables ") +
              join(c.unused_extensions, ", ") + " alone, so they stay unused";
  return c;
}

}  // namespace tetune::rt
