// An independent float64 reading of PoPE's score (Gopalakrishnan et al. 2025, arXiv 2509.10534, section 3), as
// PoPE-pytorch computes it (class PoPE: inv_freqs = theta^(-arange(dim) / dim), freqs = position x inv_freqs, the key
// bias clamped to [-2 pi, 0]; apply_pope_to_qk: softplus magnitudes, (mu cos, mu sin) interleaved, the key's phase plus
// the bias). It shares no code with posenc's core: tests/wasm/pope.test.mjs compares against it.

const softplus = (x) => Math.max(x, 0) + Math.log1p(Math.exp(-Math.abs(x)));

/**
 * The score of query q at position t and key k at position s (before the 1/sqrt(d)): the dot of the two polar vectors.
 * @param {ArrayLike<number>} q  [d]
 * @param {ArrayLike<number>} k  [d]
 * @param {{theta?: number, bias?: ArrayLike<number>}} o  the frequency base (10000) and the key bias (zeros)
 */
export function popeScore(q, t, k, s, { theta = 10000, bias = null } = {}) {
  const d = q.length;
  let sum = 0;
  for (let c = 0; c < d; c++) {
    const freq = theta ** (-c / d);
    const delta = bias ? Math.min(0, Math.max(-2 * Math.PI, bias[c])) : 0;
    const phiQ = t * freq, phiK = s * freq + delta;
    const mq = softplus(q[c]), mk = softplus(k[c]);
    sum += mq * Math.cos(phiQ) * mk * Math.cos(phiK) + mq * Math.sin(phiQ) * mk * Math.sin(phiK);
  }
  return sum;
}
