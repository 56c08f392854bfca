'use strict';
// Minimal NumPy .npy reader/writer (format version 1.0, also reads 2.0/3.0).
//
// Layout: "\x93NUMPY" + major(u8) + minor(u8) + header_len (u16 LE for v1,
// u32 LE for v2/v3) + ASCII header dict, space-padded and '\n'-terminated so
// that the data starts at a multiple of 64 bytes, then the raw C-order data.
// The writer always emits v1.0 with little-endian data ('<f4', '<i8', ...).

const fs = require('fs');

const MAGIC = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]); // \x93NUMPY

// descr -> [TypedArray, bytes per element]; little endian only.
const DTYPES = {
  '<f4': [Float32Array, 4], '<f8': [Float64Array, 8],
  '|i1': [Int8Array, 1], '|u1': [Uint8Array, 1], '|b1': [Uint8Array, 1],
  '<i2': [Int16Array, 2], '<u2': [Uint16Array, 2],
  '<i4': [Int32Array, 4], '<u4': [Uint32Array, 4],
  '<i8': [BigInt64Array, 8], '<u8': [BigUint64Array, 8],
};
// ONNX Runtime tensor type -> descr
const ORT_TO_DESCR = {
  float32: '<f4', float64: '<f8', int8: '|i1', uint8: '|u1', bool: '|b1',
  int16: '<i2', uint16: '<u2', int32: '<i4', uint32: '<u4',
  int64: '<i8', uint64: '<u8',
};
const DESCR_TO_ORT = Object.fromEntries(Object.entries(ORT_TO_DESCR).map(([k, v]) => [v, k]));
if (require('os').endianness() !== 'LE') throw new Error('npy.js assumes a little-endian host');

function descrFor(typedArray) {
  for (const [d, [T]] of Object.entries(DTYPES)) {
    if (typedArray instanceof T && d !== '|b1') return d;
  }
  throw new Error('npy: unsupported array type ' + typedArray.constructor.name);
}

// Parse the python-literal header dict, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 48, 320), }
function parseHeader(h) {
  const descr = /'descr'\s*:\s*'([^']+)'/.exec(h);
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(h);
  const shape = /'shape'\s*:\s*\(([^)]*)\)/.exec(h);
  if (!descr || !fortran || !shape) throw new Error('npy: cannot parse header: ' + h);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  return { descr: descr[1].replace(/^=/, '<'), fortranOrder: fortran[1] === 'True', shape: dims };
}

// Returns {descr, shape, data} where data is a TypedArray (copied, aligned).
function decodeNpy(buf) {
  if (buf.length < 10 || !buf.subarray(0, 6).equals(MAGIC)) throw new Error('npy: bad magic');
  const major = buf[6];
  let hlen, off;
  if (major === 1) { hlen = buf.readUInt16LE(8); off = 10; }
  else if (major === 2 || major === 3) { hlen = buf.readUInt32LE(8); off = 12; }
  else throw new Error('npy: unsupported version ' + major);
  const hdr = parseHeader(buf.toString('latin1', off, off + hlen));
  if (hdr.fortranOrder) throw new Error('npy: fortran_order arrays are not supported');
  const dt = DTYPES[hdr.descr];
  if (!dt) throw new Error('npy: unsupported dtype ' + hdr.descr);
  const [T, size] = dt;
  const count = hdr.shape.reduce((a, b) => a * b, 1);
  const start = off + hlen;
  if (buf.length - start < count * size) throw new Error('npy: truncated data');
  const ab = new ArrayBuffer(count * size); // fresh copy => correctly aligned
  buf.copy(Buffer.from(ab), 0, start, start + count * size);
  return { descr: hdr.descr, shape: hdr.shape, data: new T(ab) };
}

function encodeNpy(data, shape, descr) {
  descr = descr || descrFor(data);
  const count = shape.reduce((a, b) => a * b, 1);
  if (count !== data.length) throw new Error(`npy: shape [${shape}] does not match ${data.length} elements`);
  const shapeStr = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeStr}, }`;
  // pad with spaces so that 10 + len(header incl. '\n') is a multiple of 64
  const total = Math.ceil((10 + header.length + 1) / 64) * 64;
  header = header + ' '.repeat(total - 10 - header.length - 1) + '\n';
  if (header.length > 0xffff) throw new Error('npy: header too long for v1.0');
  const pre = Buffer.alloc(10);
  MAGIC.copy(pre, 0);
  pre[6] = 1; pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.concat([pre, Buffer.from(header, 'latin1'), body]);
}

function readNpy(path) { return decodeNpy(fs.readFileSync(path)); }
function writeNpy(path, data, shape, descr) { fs.writeFileSync(path, encodeNpy(data, shape, descr)); }

module.exports = { readNpy, writeNpy, decodeNpy, encodeNpy, ORT_TO_DESCR, DESCR_TO_ORT };
