#!/usr/bin/env node
'use strict';
// Run an ONNX model on CPU with onnxruntime-node and dump every output as .npy.
//
//   node run_reference.js --model M.onnx --input x=in.npy [--input y=other.npy]
//                         --output-dir DIR [--threads N]
//
// Session: CPU EP, intraOpNumThreads=N (default 1), interOpNumThreads=1,
// sequential execution, graphOptimizationLevel 'all'.
// Writes DIR/<output_name>.npy (C order, little endian, NumPy format v1.0;
// float32 outputs as '<f4'; characters outside [A-Za-z0-9._-] in the output
// name become '_') and prints JSON to stdout:
//   {"model":..., "threads":N, "run_ms":..., "outputs":[{"name","shape","dtype","file"}]}

const fs = require('fs');
const path = require('path');
const { parseArgs, createSession, loadInputs, safeFileName } = require('./ort_util');
const { writeNpy, ORT_TO_DESCR } = require('./npy');

const USAGE = 'usage: run_reference.js --model M.onnx --input name=path.npy [...] --output-dir DIR [--threads N]';

async function main() {
  const a = parseArgs(process.argv.slice(2), { model: 'str', input: 'list', 'output-dir': 'str', threads: 'int', help: 'flag' });
  if (a.help) { console.log(USAGE); return; }
  if (!a.model || !a['output-dir']) throw new Error(USAGE);
  const threads = a.threads === undefined ? 1 : a.threads;
  const session = await createSession(a.model, threads);
  const feeds = loadInputs(a.input, session);
  const t0 = process.hrtime.bigint();
  const results = await session.run(feeds);
  const runMs = Number(process.hrtime.bigint() - t0) / 1e6;
  fs.mkdirSync(a['output-dir'], { recursive: true });
  const outputs = [];
  for (const name of session.outputNames) {
    const t = results[name];
    const descr = ORT_TO_DESCR[t.type];
    if (!descr) throw new Error(`output ${name}: tensor type ${t.type} not supported`);
    const file = path.join(a['output-dir'], safeFileName(name) + '.npy');
    writeNpy(file, t.data, t.dims.map(Number), descr);
    outputs.push({ name, shape: t.dims.map(Number), dtype: t.type, file });
  }
  await session.release();
  console.log(JSON.stringify({ model: a.model, threads, run_ms: +runMs.toFixed(3), outputs }));
}

main().catch((e) => { console.error('run_reference: ' + (e && e.message ? e.message : e)); process.exit(1); });
