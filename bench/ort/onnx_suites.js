#!/usr/bin/env node
'use strict';
// onnxruntime's counts on libonnx-testdata's conformance suites, to print next
// to tetune's (//tests/relay_import:onnx_node_tests).
//
//   node bench/ort/onnx_suites.js [--suites node,pytorch-converted,pytorch-operator]
//                                 [--data /usr/share/libonnx-testdata/data] [--verbose]
//
// For every test_*/ of a suite: an onnxruntime-node session (tools/reference's
// settings: CPU EP, 1 thread, optimisation 'all') on model.onnx, fed
// test_data_set_0/input_N.pb, outputs compared with output_N.pb at the
// tolerance onnx_node_tests uses for float32 (|got - want| <= 1e-5 + 1e-3 |want|,
// NaN equal to NaN; integers and bools exact). A test counts as
//   passed       outputs match;
//   unsupported  the session cannot be created (onnxruntime refuses the model);
//   failed       anything else: wrong values or shapes, a run error, or test data
//                this runner cannot feed (sequence / optional protos: onnxruntime-node
//                takes tensors only).
// Prints one line per suite and, with --verbose, each failure with its reason.

const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, '../../tools/reference/node_modules/onnxruntime-node'));

// ---- a minimal onnx.TensorProto decoder (field numbers from onnx.proto) ----
// dims=1, data_type=2, float_data=4, int32_data=5, string_data=6, int64_data=7,
// name=8, raw_data=9, double_data=10, uint64_data=11, data_location=14.
const ONNX_TYPES = {
  1: ['float32', Float32Array], 2: ['uint8', Uint8Array], 3: ['int8', Int8Array], 4: ['uint16', Uint16Array],
  5: ['int16', Int16Array], 6: ['int32', Int32Array], 7: ['int64', BigInt64Array], 8: ['string', null],
  9: ['bool', Uint8Array], 10: ['float16', Uint16Array], 11: ['float64', Float64Array], 12: ['uint32', Uint32Array],
  13: ['uint64', BigUint64Array],
};

class Reader {
  constructor(buf) { this.buf = buf; this.pos = 0; }
  done() { return this.pos >= this.buf.length; }
  varint() {
    let v = 0n, shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new Error('truncated varint');
      const b = this.buf[this.pos++];
      v |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
      shift += 7n;
    }
  }
  bytes() {
    const n = Number(this.varint());
    if (this.pos + n > this.buf.length) throw new Error('truncated field');
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
  skip(wire) {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error('unsupported wire type ' + wire);
  }
}

const toSigned64 = (v) => BigInt.asIntN(64, v);

// Repeated scalar field: packed (wire 2) or one element per key (wire 0/1/5).
function readRepeated(r, wire, kind, out) {
  const one = (rr) => {
    if (kind === 'varint') out.push(rr.varint());
    else if (kind === 'f32') { out.push(rr.buf.readFloatLE(rr.pos)); rr.pos += 4; }
    else { out.push(rr.buf.readDoubleLE(rr.pos)); rr.pos += 8; }
  };
  if (wire === 2) {
    const sub = new Reader(r.bytes());
    while (!sub.done()) one(sub);
  } else one(r);
}

function decodeTensor(buf) {
  const r = new Reader(buf);
  const dims = [], f32 = [], i32 = [], i64 = [], f64 = [], u64 = [], strs = [];
  let type = 0, name = '', raw = null;
  while (!r.done()) {
    const key = Number(r.varint()), field = key >> 3, wire = key & 7;
    if (field === 1) readRepeated(r, wire, 'varint', dims);
    else if (field === 2) type = Number(r.varint());
    else if (field === 4) readRepeated(r, wire, 'f32', f32);
    else if (field === 5) readRepeated(r, wire, 'varint', i32);
    else if (field === 6) strs.push(r.bytes().toString('utf8'));
    else if (field === 7) readRepeated(r, wire, 'varint', i64);
    else if (field === 8) name = r.bytes().toString('utf8');
    else if (field === 9) raw = Buffer.from(r.bytes());
    else if (field === 10) readRepeated(r, wire, 'f64', f64);
    else if (field === 11) readRepeated(r, wire, 'varint', u64);
    else if (field === 14 && Number(r.varint()) !== 0) throw new Error('external data');
    else if (field !== 14) r.skip(wire);
  }
  if (!ONNX_TYPES[type]) throw new Error('tensor data type ' + type + ' not supported by this runner (or not a TensorProto)');
  const [ortType, T] = ONNX_TYPES[type];
  const shape = dims.map((d) => Number(toSigned64(d)));
  const count = shape.reduce((a, b) => a * b, 1);
  let data;
  if (ortType === 'string') data = strs;
  else if (raw) {
    const aligned = new Uint8Array(raw.length);
    aligned.set(raw);
    data = new T(aligned.buffer, 0, raw.length / T.BYTES_PER_ELEMENT);
  } else if (type === 1) data = Float32Array.from(f32);
  else if (type === 11) data = Float64Array.from(f64);
  else if (type === 7) data = BigInt64Array.from(i64.map(toSigned64));
  else if (type === 13) data = BigUint64Array.from(u64.map((v) => BigInt.asUintN(64, v)));
  else data = T.from(i32.map((v) => Number(toSigned64(v))));
  if (data.length !== count) throw new Error(`${count} elements expected, ${data.length} found (not a TensorProto?)`);
  return { name, tensor: new ort.Tensor(ortType, data, shape) };
}

// ---- comparison ----
function close(got, want) {
  if (got.type !== want.type) return `dtype ${got.type}, expected ${want.type}`;
  const gs = got.dims.map(Number), ws = want.dims.map(Number);
  if (gs.join(',') !== ws.join(',')) return `shape [${gs}], expected [${ws}]`;
  const fl = ['float32', 'float64', 'float16'].includes(want.type);
  for (let i = 0; i < want.data.length; i++) {
    let a = got.data[i], b = want.data[i];
    if (want.type === 'float16') { a = half(a); b = half(b); }
    if (!fl) { if (a !== b) return `element ${i}: ${a} vs ${b}`; continue; }
    if (Number.isNaN(a) && Number.isNaN(b)) continue;
    if (a === b) continue;
    if (!(Math.abs(a - b) <= 1e-5 + 1e-3 * Math.abs(b))) return `element ${i}: ${a} vs ${b}`;
  }
  return '';
}

function half(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

function readPbs(dir, prefix) {
  const r = [];
  for (let i = 0; fs.existsSync(path.join(dir, `${prefix}${i}.pb`)); i++) r.push(decodeTensor(fs.readFileSync(path.join(dir, `${prefix}${i}.pb`))));
  return r;
}

async function runOne(dir) {
  let session;
  try {
    session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'), {
      executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential',
      graphOptimizationLevel: 'all' });
  } catch (e) {
    return ['unsupported', String(e.message || e).split('\n')[0]];
  }
  try {
    const data = path.join(dir, 'test_data_set_0');
    const ins = readPbs(data, 'input_'), outs = readPbs(data, 'output_');
    const feeds = {};
    ins.forEach((t, i) => { feeds[session.inputNames.includes(t.name) ? t.name : session.inputNames[i]] = t.tensor; });
    const res = await session.run(feeds);
    if (session.outputNames.length !== outs.length) return ['failed', `${session.outputNames.length} outputs, expected ${outs.length}`];
    for (let i = 0; i < outs.length; i++) {
      const why = close(res[session.outputNames[i]], outs[i].tensor);
      if (why) return ['failed', `output ${i}: ${why}`];
    }
    return ['passed', ''];
  } catch (e) {
    return ['failed', String(e.message || e).split('\n')[0]];
  } finally {
    await session.release();
  }
}

async function main() {
  const args = process.argv.slice(2);
  const opt = (k, d) => { const i = args.indexOf(k); return i >= 0 ? args[i + 1] : d; };
  const data = opt('--data', '/usr/share/libonnx-testdata/data');
  const suites = opt('--suites', 'node,pytorch-converted,pytorch-operator').split(',');
  const verbose = args.includes('--verbose');
  ort.env.logLevel = 'fatal';
  for (const s of suites) {
    const root = path.join(data, s);
    const tests = fs.readdirSync(root).filter((t) => t.startsWith('test_')).sort();
    const count = { passed: 0, failed: 0, unsupported: 0 };
    const t0 = Date.now();
    for (const t of tests) {
      const [o, why] = await runOne(path.join(root, t));
      count[o]++;
      if (o !== 'passed' && verbose) console.log(`  ${o.toUpperCase()} ${s}/${t}: ${why}`);
    }
    console.log(`onnxruntime-node ${require(path.join(__dirname, '../../tools/reference/node_modules/onnxruntime-node/package.json')).version} ${s}: ` +
      `${tests.length} total, ${count.passed} passed, ${count.failed} failed, ${count.unsupported} unsupported ` +
      `(${((Date.now() - t0) / 1e3).toFixed(1)} s)`);
  }
}

main().catch((e) => { console.error('onnx_suites: ' + (e && e.stack ? e.stack : e)); process.exit(1); });
