'use strict';
// Hand-encoded protobuf for a minimal ONNX model: Y = Identity(X), X and Y
// float32 of a fixed shape. Used by time_model.js to measure the fixed per-call
// overhead of node + onnxruntime-node + ORT's Run() dispatch.
//
// Only the fields needed are emitted (field numbers from onnx.proto):
//   ModelProto   { ir_version=1 (varint), producer_name=2, graph=7, opset_import=8 }
//   OperatorSetIdProto { domain=1, version=2 }
//   GraphProto   { node=1, name=2, input=11, output=12 }
//   NodeProto    { input=1, output=2, name=3, op_type=4 }
//   ValueInfoProto { name=1, type=2 }
//   TypeProto    { tensor_type=1 } ; TypeProto.Tensor { elem_type=1, shape=2 }
//   TensorShapeProto { dim=1 } ; Dimension { dim_value=1 }
// Check with: node tiny_onnx.js /tmp/id.onnx &&
//   protoc --decode=onnx.ModelProto -I/usr/include/onnx onnx.proto < /tmp/id.onnx

function varint(n) {
  const bytes = [];
  let v = BigInt(n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    bytes.push(b);
  } while (v > 0n);
  return Buffer.from(bytes);
}
const key = (field, wire) => varint((field << 3) | wire);
const fInt = (field, n) => Buffer.concat([key(field, 0), varint(n)]);
const fBytes = (field, buf) => Buffer.concat([key(field, 2), varint(buf.length), buf]);
const fStr = (field, s) => fBytes(field, Buffer.from(s, 'utf8'));
const msg = (...parts) => Buffer.concat(parts);

const FLOAT = 1; // TensorProto.DataType.FLOAT

function valueInfo(name, shape) {
  const dims = shape.map((d) => fBytes(1, fInt(1, d)));
  const tensorType = msg(fInt(1, FLOAT), fBytes(2, msg(...dims)));
  return msg(fStr(1, name), fBytes(2, fBytes(1, tensorType)));
}

function identityModel(shape = [1], opset = 13) {
  const node = msg(fStr(1, 'X'), fStr(2, 'Y'), fStr(3, 'id'), fStr(4, 'Identity'));
  const graph = msg(fBytes(1, node), fStr(2, 'tiny_identity'),
    fBytes(11, valueInfo('X', shape)), fBytes(12, valueInfo('Y', shape)));
  return new Uint8Array(msg(
    fInt(1, 8), // ir_version 8 (ONNX 1.10+)
    fStr(2, 'tetune-tools-reference'),
    fBytes(7, graph),
    fBytes(8, msg(fStr(1, ''), fInt(2, opset))),
  ));
}

if (require.main === module) {
  const out = process.argv[2];
  if (!out) { console.error('usage: tiny_onnx.js out.onnx [dims,comma,separated]'); process.exit(2); }
  const shape = process.argv[3] ? process.argv[3].split(',').map(Number) : [1];
  require('fs').writeFileSync(out, identityModel(shape));
}

module.exports = { identityModel };
