// Float64 references that every engine's output is checked against before it
// is timed. Plain loops, written for clarity, not speed; inputs are the same
// Float32Arrays the engines get, every intermediate is a JS double.

/**
 * C = A B for row-major A [m, k] and B [k, n].
 * @returns {Float64Array} [m, n]
 */
export function matmul({ a, b, m, k, n }) {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let p = 0; p < k; p++) {
      const aip = a[i * k + p];
      for (let j = 0; j < n; j++) c[i * n + j] += aip * b[p * n + j];
    }
  }
  return c;
}

/**
 * One attention head: Q = X Wq, K = X Wk, V = X Wv (X [n, d_model], row-major
 * W [d_model, d_head]), S = Q K^T / sqrt(d_head), a causal mask hides the keys
 * after the query, P = softmax(S) by rows, O = P V (Vaswani et al. 2017, eq. 1).
 * @returns {Float64Array} O [n, d_head]
 */
export function attentionForward({ x, wq, wk, wv, n, dModel, dHead, causal }) {
  const q = matmul({ a: x, b: wq, m: n, k: dModel, n: dHead });
  const k = matmul({ a: x, b: wk, m: n, k: dModel, n: dHead });
  const v = matmul({ a: x, b: wv, m: n, k: dModel, n: dHead });
  const scale = 1 / Math.sqrt(dHead);
  const out = new Float64Array(n * dHead);
  const s = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const last = causal ? i : n - 1;          // keys 0..last are visible to query i
    let max = -Infinity;
    for (let j = 0; j <= last; j++) {
      let dot = 0;
      for (let c = 0; c < dHead; c++) dot += q[i * dHead + c] * k[j * dHead + c];
      s[j] = dot * scale;
      if (s[j] > max) max = s[j];
    }
    let sum = 0;
    for (let j = 0; j <= last; j++) { s[j] = Math.exp(s[j] - max); sum += s[j]; }
    for (let j = 0; j <= last; j++) {
      const p = s[j] / sum;
      for (let c = 0; c < dHead; c++) out[i * dHead + c] += p * v[j * dHead + c];
    }
  }
  return out;
}

/** RoPE's inverse frequencies inv_freq_i = base^(-2i/d), i < d/2 (RoFormer, Su et al. 2021, eq. 15). */
export function ropeInvFreq(d, base = 10000) {
  return Float64Array.from({ length: d / 2 }, (_, i) => Math.pow(base, -2 * i / d));
}

/**
 * The cos/sin tables [n, d/2] of RoPE at positions 0..n-1 (angle p * inv_freq_i),
 * as the peers are handed them (rounded to float32 once).
 */
export function ropeTables(n, d, base = 10000) {
  const invFreq = ropeInvFreq(d, base);
  const cos = new Float32Array(n * d / 2);
  const sin = new Float32Array(n * d / 2);
  for (let p = 0; p < n; p++) {
    for (let i = 0; i < d / 2; i++) {
      cos[p * d / 2 + i] = Math.cos(p * invFreq[i]);
      sin[p * d / 2 + i] = Math.sin(p * invFreq[i]);
    }
  }
  return { cos, sin };
}

/**
 * RoPE applied to x [n, d] at positions 0..n-1 with angles computed in double.
 * Pair i is (i, i + d/2) in the `half` layout (GPT-NeoX, LLaMA rotate_half) and
 * (2i, 2i + 1) in the `interleaved` layout (GPT-J, RoFormer); each pair (a, b)
 * becomes (a cos - b sin, a sin + b cos).
 * @returns {Float64Array} [n, d]
 */
export function rope({ x, n, d, layout, base = 10000 }) {
  const invFreq = ropeInvFreq(d, base);
  const out = new Float64Array(n * d);
  const half = d / 2;
  for (let p = 0; p < n; p++) {
    for (let i = 0; i < half; i++) {
      const angle = p * invFreq[i];
      const c = Math.cos(angle), s = Math.sin(angle);
      const [ia, ib] = layout === 'half' ? [i, i + half] : [2 * i, 2 * i + 1];
      const a = x[p * d + ia], b = x[p * d + ib];
      out[p * d + ia] = a * c - b * s;
      out[p * d + ib] = a * s + b * c;
    }
  }
  return out;
}

/**
 * The sinusoid table [n, d] of Vaswani et al. 2017 (section 3.5), interleaved
 * pairs: PE(p, 2i) = sin(p w_i), PE(p, 2i+1) = cos(p w_i), w_i = 10000^(-2i/d).
 * @returns {Float64Array} [n, d]
 */
export function sinusoid({ n, d, base = 10000 }) {
  const out = new Float64Array(n * d);
  for (let i = 0; i < d / 2; i++) {
    const w = Math.pow(base, -2 * i / d);
    for (let p = 0; p < n; p++) {
      out[p * d + 2 * i] = Math.sin(p * w);
      out[p * d + 2 * i + 1] = Math.cos(p * w);
    }
  }
  return out;
}

/** Largest |got - want| (NaN or a length mismatch counts as Infinity). */
export function maxAbsError(got, want) {
  if (!got || got.length !== want.length) return Infinity;
  let max = 0;
  for (let i = 0; i < want.length; i++) {
    const e = Math.abs(got[i] - want[i]);
    if (!(e <= max)) max = Number.isNaN(e) ? Infinity : e;
  }
  return max;
}
