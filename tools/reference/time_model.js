#!/usr/bin/env node
'use strict';
// Time an ONNX model on CPU with onnxruntime-node.
//
//   node time_model.js --model M.onnx --input x=in.npy [--input ...]
//                      [--threads N] [--repeat 50] [--warmup 5]
//
// Same session options as run_reference.js (CPU EP, intraOpNumThreads=N,
// interOpNumThreads=1, sequential, graph optimisation 'all').
// Each timed sample is the wall time (process.hrtime) of one
// `await session.run(feeds)` with pre-built input tensors, after --warmup
// untimed runs. Prints one JSON line:
//   median_ms, min_ms, mean_ms, max_ms  over --repeat samples
//   overhead_ms     median time of the same measurement loop on a tiny
//                   in-memory model Y = Identity(X) with a 1-element float
//                   input (tiny_onnx.js), same session options and thread
//                   count: the fixed per-call cost of the JS->N-API binding,
//                   ORT Run() dispatch, output tensor allocation and promise
//                   resolution. Measured with max(repeat, 200) samples after
//                   max(warmup, 20) warm-up runs.
//   io_overhead_ms  same, but Identity over a tensor of the model's
//                   first input shape (adds per-byte input/output copying);
//                   informative only.
//   median_minus_overhead_ms = median_ms - overhead_ms (≈ the model's
//                   compute time as ORT would see it in C++).

const { ort, parseArgs, createSession, loadInputs } = require('./ort_util');
const { identityModel } = require('./tiny_onnx');
const { stats } = require('./stats');

const USAGE = 'usage: time_model.js --model M.onnx --input name=path.npy [...] [--threads N] [--repeat 50] [--warmup 5]';

async function timeRuns(session, feeds, warmup, repeat) {
  for (let i = 0; i < warmup; i++) await session.run(feeds);
  const samples = new Array(repeat);
  for (let i = 0; i < repeat; i++) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    samples[i] = Number(process.hrtime.bigint() - t0) / 1e6;
  }
  return stats(samples);
}

async function identityMedian(shape, threads, warmup, repeat) {
  const session = await createSession(identityModel(shape), threads);
  const n = shape.reduce((a, b) => a * b, 1);
  const x = new Float32Array(n).fill(0.5);
  const st = await timeRuns(session, { X: new ort.Tensor('float32', x, shape) }, warmup, repeat);
  await session.release();
  return st.median;
}

const r3 = (x) => +x.toFixed(3);

async function main() {
  const a = parseArgs(process.argv.slice(2), { model: 'str', input: 'list', threads: 'int', repeat: 'int', warmup: 'int', help: 'flag' });
  if (a.help) { console.log(USAGE); return; }
  if (!a.model) throw new Error(USAGE);
  const threads = a.threads === undefined ? 1 : a.threads;
  const repeat = a.repeat === undefined ? 50 : a.repeat;
  const warmup = a.warmup === undefined ? 5 : a.warmup;
  if (repeat < 1) throw new Error('--repeat must be >= 1');

  const session = await createSession(a.model, threads);
  const feeds = loadInputs(a.input, session);
  const st = await timeRuns(session, feeds, warmup, repeat);
  const firstShape = feeds[session.inputNames[0]].dims.map(Number);
  await session.release();

  const ovWarm = Math.max(warmup, 20);
  const ovRep = Math.max(repeat, 200);
  const overhead = await identityMedian([1], threads, ovWarm, ovRep);
  const ioOverhead = await identityMedian(firstShape, threads, ovWarm, ovRep);

  console.log(JSON.stringify({
    model: a.model,
    threads, repeat, warmup,
    median_ms: r3(st.median),
    min_ms: r3(st.min),
    mean_ms: r3(st.mean),
    max_ms: r3(st.max),
    overhead_ms: r3(overhead),
    io_overhead_ms: r3(ioOverhead),
    median_minus_overhead_ms: r3(st.median - overhead),
    ort_version: ort.env.versions.common,
  }));
}

main().catch((e) => { console.error('time_model: ' + (e && e.message ? e.message : e)); process.exit(1); });
