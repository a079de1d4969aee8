// An independent float64 reading of FoPE (Hua et al. 2025, arXiv 2412.17739, section 4) as vLLM's
// FourierRotaryEmbedding computes it: inv_freq = base^(-arange(0, rotary_dim, 2) / rotary_dim), the ones above
// 2 pi / max_position_embeddings kept (or the first num_inv_freq); per position, sin = sin(t inv_freq) . sin_coef
// and cos = cos(t inv_freq) . cos_coef ([K] x [K, K]), each padded with 1 to head_dim / 2 and repeated twice; then
// x cos + rotate_neox(x) sin, rotate_neox(x) = (-x2, x1) of the halves. It shares no code with posenc's core:
// tests/wasm/fope.test.mjs compares against it.

/** The kept frequencies of head_dim, base and the training length (or num_inv_freq). */
export function keptFrequencies(headDim, base, maxPositions, numInvFreq = null) {
  const all = Array.from({ length: headDim / 2 }, (_, i) => 1 / base ** ((2 * i) / headDim));
  return numInvFreq ? all.slice(0, numInvFreq) : all.filter((w) => w > (2 * Math.PI) / maxPositions);
}

/**
 * x [headDim] at position t, transformed (float64).
 * @param {ArrayLike<number>} x
 * @param {{headDim: number, base: number, maxPositions: number, cosCoef: ArrayLike<number>, sinCoef: ArrayLike<number>}} o
 *   the coefficients [K, K] row-major (input frequency, output pair)
 */
export function fopeApply(x, t, { headDim, base, maxPositions, cosCoef, sinCoef }) {
  const w = keptFrequencies(headDim, base, maxPositions);
  const K = w.length, half = headDim / 2;
  const cos = new Array(half).fill(1), sin = new Array(half).fill(1);
  for (let d = 0; d < K; d++) {
    cos[d] = 0;
    sin[d] = 0;
    for (let D = 0; D < K; D++) {
      cos[d] += Math.cos(t * w[D]) * cosCoef[D * K + d];
      sin[d] += Math.sin(t * w[D]) * sinCoef[D * K + d];
    }
  }
  const cosFull = [...cos, ...cos], sinFull = [...sin, ...sin];
  const rotated = [...Array.from({ length: half }, (_, i) => -x[i + half]), ...Array.from({ length: half }, (_, i) => x[i])];
  return Array.from({ length: headDim }, (_, c) => x[c] * cosFull[c] + rotated[c] * sinFull[c]);
}
