'use strict';
// Shared helpers for run_reference.js / time_model.js.

const path = require('path');
const ort = require('onnxruntime-node');
const { readNpy, DESCR_TO_ORT } = require('./npy');

// Tiny argv parser: --key value, repeated --input collected into an array.
function parseArgs(argv, spec) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new Error('unexpected argument ' + arg);
    const key = arg.slice(2);
    if (!(key in spec)) throw new Error('unknown option ' + arg);
    if (spec[key] === 'flag') { out[key] = true; continue; }
    if (i + 1 >= argv.length) throw new Error('missing value for ' + arg);
    const val = argv[++i];
    if (spec[key] === 'list') (out[key] = out[key] || []).push(val);
    else if (spec[key] === 'int') {
      const n = Number(val);
      if (!Number.isInteger(n) || n < 0) throw new Error(`${arg} expects a non-negative integer`);
      out[key] = n;
    } else out[key] = val;
  }
  return out;
}

// CPU-only session: intra-op threads = N, inter-op 1, all graph optimisations.
function sessionOptions(threads) {
  return {
    executionProviders: ['cpu'],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  };
}

async function createSession(model, threads) {
  return ort.InferenceSession.create(model, sessionOptions(threads));
}

// ["x=in.npy", ...] -> {x: ort.Tensor}
function loadInputs(specs, session) {
  const feeds = {};
  for (const spec of specs || []) {
    const eq = spec.indexOf('=');
    if (eq <= 0) throw new Error(`--input expects name=path.npy, got "${spec}"`);
    const name = spec.slice(0, eq);
    const file = spec.slice(eq + 1);
    if (session && !session.inputNames.includes(name)) {
      throw new Error(`model has no input "${name}" (inputs: ${session.inputNames.join(', ')})`);
    }
    const arr = readNpy(file);
    const type = DESCR_TO_ORT[arr.descr];
    if (!type) throw new Error(`${file}: dtype ${arr.descr} not supported`);
    feeds[name] = new ort.Tensor(type, arr.data, arr.shape);
  }
  if (session) {
    const missing = session.inputNames.filter((n) => !(n in feeds));
    if (missing.length) throw new Error('missing --input for: ' + missing.join(', '));
  }
  return feeds;
}

// Output names may contain characters that are awkward in file names.
function safeFileName(name) {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

module.exports = { ort, parseArgs, sessionOptions, createSession, loadInputs, safeFileName, path };
