// Fuzz target of the ONNX importer: any byte string must either import or
// raise a tetune::Error; never crash, hang or abort. The entry point has the
// libFuzzer signature, so the same file links with -fsanitize=fuzzer; CI runs
// it through importer_fuzz_test's mutation driver for a short time.
#include <cstddef>
#include <cstdint>
#include <string>

#include "relay_import/onnx_importer.h"
#include "base/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string bytes(reinterpret_cast<const char *>(data), size);
  try {
    tetune::relay::import_onnx_bytes(bytes, "fuzz input");
  } catch (const tetune::Error &) {
    // A clear, typed rejection is the expected outcome for most inputs.
  }
  return 0;
}
