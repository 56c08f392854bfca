'use strict';
// node --test tools/reference/test   (or `npm test` in tools/reference)
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { encodeNpy, decodeNpy } = require('../npy');
const { mulberry32, makeInput } = require('../make_input');
const { identityModel } = require('../tiny_onnx');

test('npy round trip, 64-byte aligned v1.0 header', () => {
  const data = new Float32Array([0, 1.5, -2, 3.25, 1e-8, 7]);
  const buf = encodeNpy(data, [2, 3], '<f4');
  assert.strictEqual(buf.subarray(0, 8).toString('latin1'), '\x93NUMPY\x01\x00');
  assert.strictEqual((10 + buf.readUInt16LE(8)) % 64, 0);
  const back = decodeNpy(buf);
  assert.deepStrictEqual(back.shape, [2, 3]);
  assert.strictEqual(back.descr, '<f4');
  assert.deepStrictEqual(Array.from(back.data), Array.from(data));
  const one = decodeNpy(encodeNpy(new BigInt64Array([5n]), [1]));
  assert.deepStrictEqual(one.shape, [1]);
  assert.strictEqual(one.data[0], 5n);
});

test('mulberry32 seed 7 golden values (must match the C++ port)', () => {
  const next = mulberry32(7);
  assert.deepStrictEqual([next(), next(), next(), next()],
    [0.011704742908477783, 0.061958253383636475, 0.9769076108932495, 0.6990286707878113]);
  const x = makeInput([1, 3, 4, 5], 123);
  assert.strictEqual(x.length, 60);
  for (const v of x) assert.ok(v >= 0 && v < 1);
  assert.deepStrictEqual(Array.from(makeInput([1, 3, 4, 5], 123)), Array.from(x));
});

test('onnxruntime-node CPU binding runs the hand-encoded Identity model', async () => {
  const { createSession, ort } = require('../ort_util');
  const s = await createSession(identityModel([2, 2]), 1);
  const x = new Float32Array([1, 2, 3, 4]);
  const out = await s.run({ X: new ort.Tensor('float32', x, [2, 2]) });
  assert.deepStrictEqual(Array.from(out.Y.data), [1, 2, 3, 4]);
  await s.release();
});

const REC = path.join(__dirname, '../../../models/ppocr/ch_PP-OCRv4_rec_infer.onnx');
test('run_reference.js on the rec model (skipped without models/)', { skip: !fs.existsSync(REC) }, () => {
  const { execFileSync } = require('child_process');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ref-'));
  const inp = path.join(dir, 'in.npy');
  execFileSync(process.execPath, [path.join(__dirname, '../make_input.js'), '--shape', '1,3,48,320', '--seed', '7', '--out', inp]);
  const res = JSON.parse(execFileSync(process.execPath, [path.join(__dirname, '../run_reference.js'),
    '--model', REC, '--input', 'x=' + inp, '--output-dir', dir, '--threads', '1']).toString());
  assert.deepStrictEqual(res.outputs[0].shape, [1, 40, 6625]);
  const y = decodeNpy(fs.readFileSync(res.outputs[0].file));
  let s = 0;
  for (let c = 0; c < 6625; c++) s += y.data[c];
  assert.ok(Math.abs(s - 1) < 1e-4);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('profile_model summarize: warm-up runs left out, nodes and op types largest first', () => {
  const { summarize } = require('../profile_model');
  const node = (name, op, us) => ({ cat: 'Node', name: name + '_kernel_time', dur: us,
    args: { op_name: op, output_type_shape: [{ float: [1, 8] }] } });
  const events = [];
  for (const [run, a, b, c] of [[9000, 900, 50, 70], [1000, 100, 20, 30], [1200, 300, 40, 10], [1100, 200, 30, 20]]) {
    events.push({ cat: 'Session', name: 'model_run', dur: run }, node('conv_a', 'Conv', a), node('relu', 'Relu', b),
                node('conv_b', 'Conv', c), { cat: 'Node', name: 'conv_b_fence_before', dur: 7 });  // not a kernel time
  }
  const s = summarize(events, 1);
  assert.strictEqual(s.runs, 3);
  assert.strictEqual(s.run_median_ms, 1.1);
  assert.deepStrictEqual(s.nodes.map((n) => [n.name, n.median_ms, n.calls]), [['conv_a', 0.2, 3], ['relu', 0.03, 3], ['conv_b', 0.02, 3]]);
  assert.strictEqual(s.nodes[0].shape, '1x8');
  assert.deepStrictEqual(s.ops.map((o) => [o.op, +o.ms.toFixed(6), o.nodes]), [['Conv', 0.22, 2], ['Relu', 0.03, 1]]);
  assert.ok(Math.abs(s.sum_ms - 0.25) < 1e-12);
});

test('profile_model.js profiles the hand-encoded Identity model', () => {
  const { execFileSync } = require('child_process');
  const { identityModel } = require('../tiny_onnx');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ref-prof-'));
  const model = path.join(dir, 'identity.onnx');
  fs.writeFileSync(model, identityModel([2, 3]));
  const inp = path.join(dir, 'x.npy');
  fs.writeFileSync(inp, encodeNpy(new Float32Array(6).fill(1), [2, 3], '<f4'));
  const out = execFileSync(process.execPath, [path.join(__dirname, '../profile_model.js'), '--model', model,
    '--input', 'X=' + inp, '--repeat', '4', '--warmup', '1']).toString();
  assert.match(out, /^model run: median [\d.]+ ms over 4 runs; 1 nodes/);
  assert.match(out, /Identity/);
  fs.rmSync(dir, { recursive: true, force: true });
});
