// The size of an array's numbers (largest), and the mean and spread of a few numbers: the language-model lab's seeds (one model
// per seed and encoding), as its perplexity plot and table draw them.

/**
 * The mean, the sample standard deviation (divided by n - 1), the least and the greatest of `values`.
 * @param {number[]} values  one or more finite numbers
 * @returns {{n: number, mean: number, sd: number, min: number, max: number}}  sd NaN for one value (no spread to say)
 * @throws {RangeError}  .param 'values' when there are none
 */
export function meanSpread(values) {
  const n = values.length;
  if (n === 0) throw Object.assign(new RangeError('values = [] is invalid: expected one number or more'), { param: 'values' });
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const sd = n > 1 ? Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1)) : NaN;
  return { n, mean, sd, min: Math.min(...values), max: Math.max(...values) };
}

/**
 * A perplexity's band from its own test: exp(loss ± loss_se), loss the mean cross-entropy (nats) and loss_se its
 * standard error; null where the result has no loss_se.
 * @param {{loss: number, loss_se?: number}} point
 * @returns {{lo: number, hi: number} | null}
 */
export function standardErrorBand(point) {
  if (!Number.isFinite(point.loss_se)) return null;
  return { lo: Math.exp(point.loss - point.loss_se), hi: Math.exp(point.loss + point.loss_se) };
}

/** The largest |value| of an array, ignoring NaN and infinities; 0 for none. */
export function largest(values) {
  let max = 0;
  for (const v of values) if (Number.isFinite(v)) max = Math.max(max, Math.abs(v));
  return max;
}
