// An independent float64 reading of FIRE's bias (Li et al. 2023, arXiv 2310.04418),
// as the paper's appendix code (class FIRE) computes it: positions 0, 1, ... as
// floats, distance query minus key, psi(x) = log(|c x| + 1), the threshold
// L = |L_multiplier * init_L|, eps added to the normaliser's log. It shares no code
// with posenc's core: tests/wasm/fire.test.mjs and forward.test.mjs compare against it.

/**
 * b(i, j) of the spec's head, unmasked, for a spec with explicit weights.
 * @param {{mlp_width: number, linear1_weight: number[], linear1_bias: number[], linear2_weight: number[],
 *   linear2_bias: number[], head?: number, init_c?: number, init_L?: number, L_multiplier?: number, eps?: number}} spec
 * @param {number} i  the query's position
 * @param {number} j  the key's position
 */
export function fireBias(spec, i, j) {
  const { init_c: c = 0.1, init_L: initL = 512, L_multiplier: multiplier = 1, eps = 1e-6, head = 0, mlp_width: W } = spec;
  const psi = (x) => Math.log(Math.abs(c * x) + 1);
  const x = psi(i - j) / (psi(Math.max(i, Math.abs(multiplier * initL))) + eps);
  let sum = spec.linear2_bias[head];
  for (let k = 0; k < W; k++) sum += spec.linear2_weight[head * W + k] * Math.max(0, spec.linear1_weight[k] * x + spec.linear1_bias[k]);
  return sum;
}
