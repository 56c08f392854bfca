#!/usr/bin/env node
'use strict';
// Deterministic pseudo-random float32 input tensor in [0, 1), written as .npy.
//
//   node make_input.js --shape 1,3,48,320 --seed 7 --out in.npy
//
// Generator: mulberry32 (32-bit state), one draw per element in C order:
//   state = (state + 0x6D2B79F5) mod 2^32
//   t = state
//   t = (t ^ (t >>> 15)) * (t | 1)            (32-bit wrap-around multiply)
//   t ^= t + ((t ^ (t >>> 7)) * (t | 61))     (32-bit wrap-around arithmetic)
//   u = (t ^ (t >>> 14))                      (uint32)
//   value = (float)(u >>> 8) / 16777216.0     (24 random bits -> exact float32 in [0,1))
// with the initial state = seed (uint32). Using the top 24 bits keeps every
// value exactly representable in float32, so a C++ port gives bit-identical
// data. C++ reference:
//   uint32_t s = seed;
//   float next() { s += 0x6D2B79F5u; uint32_t t = s;
//     t = (t ^ (t >> 15)) * (t | 1u);
//     t ^= t + (t ^ (t >> 7)) * (t | 61u);
//     t ^= t >> 14; return (float)(t >> 8) / 16777216.0f; }
// First values for seed 7: printed by `node make_input.js --selftest`.

const { writeNpy } = require('./npy');

function mulberry32(seed) {
  let s = seed >>> 0;
  return function next() {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    t = (t ^ (t >>> 14)) >>> 0;
    return (t >>> 8) / 16777216;
  };
}

function makeInput(shape, seed) {
  const n = shape.reduce((a, b) => a * b, 1);
  const out = new Float32Array(n);
  const next = mulberry32(seed);
  for (let i = 0; i < n; i++) out[i] = next();
  return out;
}

function parseArgs(argv) {
  const a = { seed: 0 };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '--shape') a.shape = argv[++i].split(',').map((s) => parseInt(s, 10));
    else if (k === '--seed') a.seed = Number(argv[++i]);
    else if (k === '--out') a.out = argv[++i];
    else if (k === '--selftest') a.selftest = true;
    else throw new Error('unknown argument ' + k);
  }
  return a;
}

if (require.main === module) {
  try {
    const a = parseArgs(process.argv.slice(2));
    if (a.selftest) {
      const next = mulberry32(7);
      console.log(JSON.stringify({ seed: 7, first: Array.from({ length: 4 }, next) }));
      process.exit(0);
    }
    if (!a.shape || !a.out || a.shape.some((d) => !(d > 0))) {
      throw new Error('usage: make_input.js --shape 1,3,48,320 [--seed 7] --out in.npy');
    }
    if (!Number.isInteger(a.seed) || a.seed < 0 || a.seed > 0xffffffff) throw new Error('--seed must be an integer in [0, 2^32)');
    writeNpy(a.out, makeInput(a.shape, a.seed), a.shape, '<f4');
    console.log(JSON.stringify({ out: a.out, shape: a.shape, seed: a.seed, dtype: 'float32' }));
  } catch (e) {
    console.error('make_input: ' + e.message);
    process.exit(2);
  }
}

module.exports = { mulberry32, makeInput };
