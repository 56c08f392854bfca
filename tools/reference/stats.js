'use strict';
// Summary of timing samples (ms): median (the mean of the two middle values
// for an even count), min, max and mean. Used by time_model.js and by
// tools/main_job.sh's latency rounds.

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const n = s.length;
  const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  const mean = s.reduce((a, b) => a + b, 0) / n;
  return { median, min: s[0], max: s[n - 1], mean };
}

module.exports = { stats };
