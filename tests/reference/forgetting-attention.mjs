// An independent float64 reading of Forgetting Attention's bias (Lin et al. 2025, arXiv 2503.02130),
// as the official code computes it (zhixuan-lin/forgetting-transformer, ForgettingAttentionLayer with
// fgate_type "full"): fgate_logit = x . w + b (fgate_proj), log_fgate = logsigmoid(fgate_logit),
// log_lambda = cumsum(log_fgate), decay_bias[i][j] = log_lambda[i] - log_lambda[j]. It shares no code
// with posenc's core: tests/wasm/fox.test.mjs compares against it.

/** log σ(z) as torch's logsigmoid defines it: min(z, 0) − log(1 + e^−|z|). */
export function logSigmoid(z) {
  return Math.min(z, 0) - Math.log1p(Math.exp(-Math.abs(z)));
}

/**
 * The decay bias [n, n] (row-major, unmasked) of inputs x [n, hiddenSize] (row-major) through one head's gate.
 * @param {ArrayLike<number>} x
 * @param {number} n
 * @param {ArrayLike<number>} weight  the head's row of fgate_proj.weight [hiddenSize]
 * @param {number} bias  the head's fgate_proj.bias
 * @returns {Float64Array}
 */
export function decayBias(x, n, weight, bias) {
  const d = weight.length;
  const logLambda = new Float64Array(n);
  let sum = 0;
  for (let t = 0; t < n; t++) {
    let z = bias;
    for (let c = 0; c < d; c++) z += weight[c] * x[t * d + c];
    sum += logSigmoid(z);
    logLambda[t] = sum;
  }
  const out = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) out[i * n + j] = logLambda[i] - logLambda[j];
  return out;
}

/**
 * E[log σ(z)] for z ~ N(mean, sd²), by the trapezoid rule on 40001 points over mean ± 12 sd (posenc's core uses
 * Simpson's rule on another grid: the two agree to the rules' error).
 */
export function meanLogSigmoid(mean, sd) {
  if (sd === 0) return logSigmoid(mean);
  const points = 40001, half = 12, h = (2 * half) / (points - 1);
  let sum = 0;
  for (let k = 0; k < points; k++) {
    const u = -half + k * h;
    const w = k === 0 || k === points - 1 ? 0.5 : 1;
    sum += w * logSigmoid(mean + sd * u) * Math.exp(-0.5 * u * u);
  }
  return (sum * h) / Math.sqrt(2 * Math.PI);
}
