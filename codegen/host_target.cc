#include "codegen/host_target.h"

#include <Halide.h>

#include "runtime/cpu_features.h"
#include "base/errors.h"

namespace tetune::codegen {

const std::string &host_halide_target() {
  static const std::string kTarget = [] {
    try {
      Halide::Target guess = Halide::get_host_target();
      if (guess.arch != Halide::Target::X86 || guess.bits != 64) return guess.to_string();
      // "x86-64-<os>" with no features gives Halide's own name of the OS.
      std::string base = Halide::Target(guess.os, guess.arch, guess.bits).to_string();
      std::string os = base.substr(base.rfind('-') + 1);
      return rt::choose_x86_target(rt::host_extensions(), os).halide_target;
    } catch (const Halide::Error &e) {
      throw CodegenError(std::string("cannot determine the host target: ") + e.what());
    }
  }();
  return kTarget;
}

std::string halide_builtin_host_target() { return Halide::get_host_target().to_string(); }

std::vector<std::string> host_lacks(const std::string &halide_target) {
  if (halide_target.rfind("x86-64", 0) != 0) return {};
  return rt::missing_extensions(halide_target, rt::host_extensions());
}

}  // namespace tetune::codegen
