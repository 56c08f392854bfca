// ONNX lowerings: index and reduction variants (see lowering_internal.h).
#include "relay_import/lowering_internal.h"

namespace tetune {
namespace relay {
namespace lowering {

const OpTable &indexing_ops() {
  static const OpTable r = {};
  return r;
}

}  // namespace lowering
}  // namespace relay
}  // namespace tetune
