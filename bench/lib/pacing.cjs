'use strict';
// What the paced benchmark parts share: writes at a fixed rate, and percentiles of a sorted list.

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The `p`th percentile of an ascending list (NaN when it is empty). */
function percentile(sorted, p) {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Sends `rate` writes per second for `seconds` with `send(sentAt)`, each at its due time whether
 * the ones before it have finished or not; resolves with how many were sent once all have settled
 * (a failed write is not retried: the caller counts what arrives).
 */
async function paced(rate, seconds, send) {
  const total = Math.round(rate * seconds);
  const start = Date.now();
  const pending = [];
  for (let i = 0; i < total; i += 1) {
    const due = start + (i * 1000) / rate;
    if (due > Date.now()) await sleep(due - Date.now());
    pending.push(send(Date.now()).catch(() => undefined));
  }
  await Promise.all(pending);
  return total;
}

module.exports = { paced, percentile, sleep };
