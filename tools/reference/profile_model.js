#!/usr/bin/env node
'use strict';
// Where onnxruntime spends a model's time, node by node (the counterpart of
// `tetune run DIR --profile N`).
//
//   node profile_model.js --model M.onnx --input x=in.npy [--input ...]
//                         [--threads N] [--repeat 30] [--warmup 5] [--top 30]
//
// Same session options as time_model.js, plus ORT's own profiler
// (enableProfiling; it adds a little time to each node). Prints the median
// model run, then the --top nodes with the largest median kernel time over
// the --repeat timed runs (ms, share of the sum of medians, op type, output
// shape), then the total per op type. Times are ORT's `<node>_kernel_time`
// events (microseconds in the file, ms here), the --warmup runs left out.
// The profile file goes into a fresh directory under $TMPDIR, removed after.

const fs = require('fs');
const os = require('os');
const path = require('path');
const { ort, parseArgs, sessionOptions, loadInputs } = require('./ort_util');
const { stats } = require('./stats');

const USAGE = 'usage: profile_model.js --model M.onnx --input name=path.npy [...] [--threads N] [--repeat 30] [--warmup 5] [--top 30]';

// ORT profile events -> { runs, run_median_ms, nodes (largest first), ops (largest first), sum_ms }.
// `skip`: runs at the start left out (warm-up), per node and for model_run.
function summarize(events, skip) {
  const byNode = new Map();
  const runs = [];
  for (const e of events) {
    if (e.cat === 'Session' && e.name === 'model_run') runs.push(e.dur / 1000);
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
    const name = e.name.slice(0, -'_kernel_time'.length);
    if (!byNode.has(name)) {
      const shape = ((e.args && e.args.output_type_shape) || []).map((o) => Object.values(o)[0].join('x')).join(',');
      byNode.set(name, { name, op: (e.args && e.args.op_name) || '?', shape, ms: [] });
    }
    byNode.get(name).ms.push(e.dur / 1000);
  }
  const nodes = [];
  for (const n of byNode.values()) {
    const timed = n.ms.slice(skip);
    if (timed.length) nodes.push({ name: n.name, op: n.op, shape: n.shape, median_ms: stats(timed).median, calls: timed.length });
  }
  nodes.sort((a, b) => b.median_ms - a.median_ms);
  const perOp = new Map();
  for (const n of nodes) {
    const o = perOp.get(n.op) || { op: n.op, ms: 0, nodes: 0 };
    o.ms += n.median_ms;
    o.nodes++;
    perOp.set(n.op, o);
  }
  const ops = [...perOp.values()].sort((a, b) => b.ms - a.ms);
  const timedRuns = runs.slice(skip);
  return {
    runs: timedRuns.length,
    run_median_ms: timedRuns.length ? stats(timedRuns).median : NaN,
    nodes,
    ops,
    sum_ms: nodes.reduce((s, n) => s + n.median_ms, 0),
  };
}

function format(summary, top) {
  const pct = (ms) => (summary.sum_ms > 0 ? (100 * ms / summary.sum_ms).toFixed(1) : '-').padStart(5) + '%';
  const lines = [`model run: median ${summary.run_median_ms.toFixed(3)} ms over ${summary.runs} runs; ` +
                 `${summary.nodes.length} nodes, sum of medians ${summary.sum_ms.toFixed(3)} ms`];
  for (const n of summary.nodes.slice(0, top))
    lines.push(`  ${n.median_ms.toFixed(3).padStart(8)} ms ${pct(n.median_ms)}  ${n.op.padEnd(20)} ${n.shape.padEnd(16)} ${n.name}`);
  lines.push('by op type (total of node medians, nodes):');
  for (const o of summary.ops) lines.push(`  ${o.ms.toFixed(3).padStart(8)} ms ${pct(o.ms)}  ${o.op.padEnd(20)} ${o.nodes}`);
  return lines.join('\n');
}

async function main() {
  const a = parseArgs(process.argv.slice(2), { model: 'str', input: 'list', threads: 'int', repeat: 'int', warmup: 'int', top: 'int', help: 'flag' });
  if (a.help) { console.log(USAGE); return; }
  if (!a.model) throw new Error(USAGE);
  const repeat = a.repeat === undefined ? 30 : a.repeat;
  const warmup = a.warmup === undefined ? 5 : a.warmup;
  if (repeat < 1) throw new Error('--repeat must be >= 1');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tetune-ort-profile-'));
  try {
    const opts = { ...sessionOptions(a.threads === undefined ? 1 : a.threads), enableProfiling: true, profileFilePrefix: path.join(dir, 'ort') };
    const session = await ort.InferenceSession.create(a.model, opts);
    const feeds = loadInputs(a.input, session);
    for (let i = 0; i < warmup + repeat; i++) await session.run(feeds);
    session.endProfiling();
    await session.release();
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
    if (files.length !== 1) throw new Error(`expected one profile file in ${dir}, found ${files.length}`);
    const events = JSON.parse(fs.readFileSync(path.join(dir, files[0]), 'utf8'));
    console.log(format(summarize(events, warmup), a.top === undefined ? 30 : a.top));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((e) => { console.error('profile_model: ' + (e && e.message ? e.message : e)); process.exit(1); });
}

module.exports = { summarize, format };
