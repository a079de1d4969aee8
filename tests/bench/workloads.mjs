// The benchmark's workloads: their inputs (seeded, the same for every engine),
// float64 references, tolerances and flop counts. Ids are stable: the native
// bench binary (build/native/posenc_bench --json) reports under the same ids.
import * as ref from './reference.mjs';
import { seededRandom as rng } from '../../web/src/lib/random.js';

function normalArray(length, std, seed) {
  const r = rng(seed);
  return Float32Array.from({ length }, () => r.normal() * std);
}

/** Flops of one attention head: projections 2 n d_model d_head x 3, then Q K^T and P V 2 n^2 d_head each (half of it causal). */
export function attentionFlops(n, dModel, dHead, causal) {
  return 2 * n * dModel * dHead * 3 + (causal ? 0.5 : 1) * 2 * n * n * dHead * 2;
}

// Tolerances (max |error| against float64). float32 engines accumulate rounding
// in long dot products (attention, matmul) and in p * w_i at large positions
// (a float32 angle near 4096 is off by up to 2.4e-4 rad: the sinusoid table).
const TOL = { attention: 1e-4, rope: 1e-5, sinusoid: 2e-3, matmul: 1e-3, overhead: 1e-5 };

/** Every workload, lazily: `make()` builds inputs and the reference (the references take seconds). */
export function workloadList() {
  const list = [];
  const attention = (n, d, causal) => ({
    id: `attention-d${d}-n${n}${causal ? '-causal' : ''}`,
    title: `attention d${d} n${n}${causal ? ' causal' : ''}`,
    group: 'attention', method: 'attentionForward', n, dHead: d, causal,
    tolerance: TOL.attention,
    flops: attentionFlops(n, d, d, causal),
    make() {
      const input = {
        x: normalArray(n * d, 1, 1 + n), wq: normalArray(d * d, 1 / Math.sqrt(d), 2),
        wk: normalArray(d * d, 1 / Math.sqrt(d), 3), wv: normalArray(d * d, 1 / Math.sqrt(d), 4),
        n, dModel: d, dHead: d, causal,
      };
      return { input, reference: ref.attentionForward(input) };
    },
  });
  for (const n of [128, 512, 1024, 2048]) for (const causal of [false, true]) list.push(attention(n, 64, causal));
  list.push(attention(1024, 128, false), attention(1024, 128, true));

  for (const layout of ['half', 'interleaved']) {
    const n = 4096, d = 128;
    list.push({
      id: `rope-${n}x${d}-${layout}`, title: `RoPE [${n}, ${d}] ${layout}`, group: 'rope', method: 'rope',
      tolerance: TOL.rope,
      make() {
        const input = { x: normalArray(n * d, 1, 5), n, d, layout, ...ref.ropeTables(n, d) };
        return { input, reference: ref.rope(input) };
      },
    });
  }

  list.push({
    id: 'sinusoid-4096x512', title: 'sinusoid table [4096, 512]', group: 'sinusoid', method: 'sinusoid',
    tolerance: TOL.sinusoid,
    make() {
      const input = { n: 4096, d: 512 };
      return { input, reference: ref.sinusoid(input) };
    },
  });

  {
    const m = 512, k = 512, n = 512;
    list.push({
      id: `matmul-${m}x${k}x${n}`, title: `matmul ${m}x${k} by ${k}x${n}`, group: 'matmul', method: 'matmul',
      tolerance: TOL.matmul, flops: 2 * m * k * n,
      make() {
        const input = { a: normalArray(m * k, 1, 6), b: normalArray(k * n, 1 / Math.sqrt(k), 7), m, k, n };
        return { input, reference: ref.matmul(input) };
      },
    });
  }

  // Per-call overhead: each engine's cheapest call.
  list.push({
    id: 'overhead-rope-1x8', title: 'overhead: RoPE [1, 8]', group: 'overhead', method: 'rope',
    tolerance: TOL.overhead,
    make() {
      const input = { x: normalArray(8, 1, 8), n: 1, d: 8, layout: 'half', ...ref.ropeTables(1, 8) };
      return { input, reference: ref.rope(input) };
    },
  });
  list.push({
    id: 'overhead-ropeInvFreq-16', title: 'overhead: ropeInvFreq(d 16)', group: 'overhead', method: 'ropeInvFreq',
    tolerance: 1e-7,
    make() { return { input: {}, reference: ref.ropeInvFreq(16) }; },
  });
  list.push({
    id: 'overhead-alibi-8h-n4', title: 'overhead: alibi bias n 4', group: 'overhead', method: 'alibiBias',
    tolerance: 0,
    make() {
      // ALiBi head 0 of 8: slope 2^(-8/8) = 1/2, bias -slope |j - i| (Press et al. 2021).
      const reference = Float64Array.from({ length: 16 }, (_, e) => -0.5 * Math.abs((e % 4) - Math.floor(e / 4)));
      return { input: {}, reference };
    },
  });
  return list;
}
