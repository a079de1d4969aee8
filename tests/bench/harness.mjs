// The timing harness: check every engine against the float64 reference, warm
// each one up, then time interleaved rounds and report medians and same-run
// ratios.
//
// - Check: one untimed call per engine (it also builds an engine's graphs or
//   caches); an engine whose max |error| exceeds the workload's tolerance is
//   reported as wrong and not timed; one that throws, as failed.
// - Warm-up: V8 runs the first calls of a wasm (and JS) function in its baseline
//   tier and tiers up later, so each engine is called until it has run for at
//   least `warmupMs` (0.3 s) and `warmupCalls` (30) times, whichever is longer;
//   a call so slow that 30 of them exceed `warmupCapMs` stops at that cap (it
//   has then run long enough for the optimising tier to take over).
// - Rounds: round r calls every engine once, in an order rotated by r, so no
//   engine always runs first or after the same neighbour (caches, GC, turbo).
//   A round repeats a call `batch` times when one call is shorter than ~1 ms
//   (timer resolution and per-call noise), and records the mean of the batch.
//   Rounds go on until `minRounds` are done and the workload's time budget is
//   spent, or `maxRounds`. After `minRounds`, an engine more than 8x slower
//   than posenc (than the fastest when posenc is not timed) whose calls take
//   over 10 ms, in its median and in its fastest round alike, stops (its
//   median stands; its cell says after how many rounds),
//   and the close contenders get at least half the budget more.
// - Medians: per engine, over the rounds; ratios are an engine's median over
//   posenc's median from the same run (> 1: posenc is faster).
import { maxAbsError } from './reference.mjs';

const now = () => performance.now();

/** Calls an engine method, awaiting it only when it returns a promise (ORT's run is async). */
async function call(fn, input) {
  const r = fn(input);
  return r && typeof r.then === 'function' ? await r : r;
}

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos), hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/**
 * Times one workload on every engine that has its method.
 * @param {object} workload  {id, method, input, reference (Float64Array | null), tolerance, flops?}
 * @param {object[]} engines  created peers ({name, [method]})
 * @param {object} options  {budgetMs, minRounds, maxRounds, warmupMs, warmupCalls, warmupCapMs, log}
 * @returns {Promise<object>} {id, engines: {name: {status, error, maxError, medianMs, ...}}}
 */
export async function runWorkload(workload, engines, options = {}) {
  const {
    budgetMs = 6000, minRounds = 7, maxRounds = 400,
    warmupMs = 300, warmupCalls = 30, warmupCapMs = 2000, batchTargetMs = 1, retireFactor = 8, retireMinMs = 10, baseline = 'posenc', log = () => {},
  } = options;
  const result = { id: workload.id, title: workload.title, group: workload.group, flops: workload.flops ?? null, engines: {} };
  const timed = [];

  for (const engine of engines) {
    const fn = engine[workload.method];
    if (typeof fn !== 'function') { result.engines[engine.name] = { status: 'absent' }; continue; }
    const entry = { status: 'ok' };
    result.engines[engine.name] = entry;
    try {
      const t0 = now();
      const out = await call(fn, workload.input);
      entry.firstCallMs = now() - t0;
      if (workload.reference) {
        entry.maxError = maxAbsError(out, workload.reference);
        if (!(entry.maxError <= workload.tolerance)) {
          entry.status = 'wrong';
          log(`  ${engine.name}: WRONG, max |error| ${entry.maxError.toExponential(2)} > ${workload.tolerance}`);
          continue;
        }
      } else if (!(out && out.length > 0)) {
        entry.status = 'wrong';
        continue;
      }
    } catch (e) {
      entry.status = 'failed';
      entry.error = String(e?.message ?? e).split('\n')[0];
      log(`  ${engine.name}: FAILED: ${entry.error}`);
      continue;
    }
    timed.push({ engine, fn, entry, times: [] });
  }

  /** An engine that throws after its check is reported as failed and leaves the timing. */
  const fail = (t, e) => {
    t.entry.status = 'failed';
    t.entry.error = String(e?.message ?? e).split('\n')[0];
    t.failed = true;
    log(`  ${t.engine.name}: FAILED while timing: ${t.entry.error}`);
  };

  // Warm-up, and the batch size that makes a timed sample ~batchTargetMs long.
  for (const t of timed) {
    let calls = 0;
    const t0 = now();
    try {
      for (;;) {
        await call(t.fn, workload.input);
        calls++;
        const elapsed = now() - t0;
        if ((elapsed >= warmupMs && calls >= warmupCalls) || (elapsed >= warmupCapMs && calls >= 2)) break;
      }
    } catch (e) {
      fail(t, e);
      continue;
    }
    const perCall = (now() - t0) / calls;
    t.batch = Math.max(1, Math.min(10000, Math.ceil(batchTargetMs / Math.max(perCall, 1e-4))));
    t.entry.warmupCalls = calls;
    t.entry.batch = t.batch;
  }

  // Interleaved rounds. After minRounds, an engine slower than `retireFactor`
  // times the fastest one has its median (it would not change the picture) and
  // stops being called, so the budget buys the close contenders more rounds.
  const start = now();
  let deadline = start + budgetMs;
  let rounds = 0;
  let active = timed.filter((t) => !t.failed);
  const currentMedian = (t) => quantile([...t.times].sort((a, b) => a - b), 0.5);
  while (active.length > 0 && rounds < maxRounds && (rounds < minRounds || now() < deadline)) {
    for (let i = 0; i < active.length; i++) {
      const t = active[(rounds + i) % active.length];
      const t0 = now();
      try {
        for (let b = 0; b < t.batch; b++) await call(t.fn, workload.input);
      } catch (e) {
        fail(t, e);
        continue;
      }
      t.times.push((now() - t0) / t.batch);
    }
    active = active.filter((t) => !t.failed);
    rounds++;
    if (rounds >= minRounds && active.length > 1) {
      // Against posenc when it is timed (the ratios are to posenc), else the fastest; only
      // engines whose calls cost real time (> retireMinMs) stop; posenc never does.
      const base = active.find((t) => t.engine.name === baseline);
      const reference = base ? currentMedian(base) : Math.min(...active.map(currentMedian));
      // An engine whose fastest round is within the factor stays: its median was raised by a burst of
      // other work on the machine (a few rounds descheduled), not by its own speed.
      const keep = active.filter((t) => t === base || currentMedian(t) <= retireFactor * reference || currentMedian(t) < retireMinMs
        || Math.min(...t.times) <= retireFactor * reference);
      if (keep.length < active.length) {
        for (const t of active) if (!keep.includes(t)) t.entry.retiredAfter = rounds;
        deadline = Math.max(deadline, now() + budgetMs / 2);   // the slow engine may have spent the budget
        active = keep;
      }
    }
  }
  result.rounds = rounds;

  for (const t of timed.filter((x) => !x.failed)) {
    const sorted = [...t.times].sort((a, b) => a - b);
    Object.assign(t.entry, {
      medianMs: quantile(sorted, 0.5), q1Ms: quantile(sorted, 0.25), q3Ms: quantile(sorted, 0.75),
      minMs: sorted[0], rounds: sorted.length,
    });
    if (workload.flops) t.entry.gflops = workload.flops / (t.entry.medianMs * 1e6);
  }
  addRatios(result, baseline);
  return result;
}

/** ratio = engine median / baseline median, for every timed engine of a result. */
export function addRatios(result, baseline = 'posenc') {
  const base = result.engines[baseline]?.medianMs;
  for (const entry of Object.values(result.engines)) {
    if (entry.medianMs !== undefined && base) entry.ratio = entry.medianMs / base;
  }
  return result;
}
