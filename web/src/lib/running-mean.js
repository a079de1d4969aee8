// A loss curve's running mean, as the training-loss views draw it.

/**
 * The running mean of values over the last `window` entries, one point per entry: {x: step (from 1), y: the mean,
 * raw: the entry itself}.
 * @param {ArrayLike<number>} values
 * @param {number} window
 */
export function runningMean(values, window) {
  const points = [];
  let sum = 0;
  for (let s = 0; s < values.length; s++) {
    sum += values[s];
    if (s >= window) sum -= values[s - window];
    points.push({ x: s + 1, y: sum / Math.min(s + 1, window), raw: values[s] });
  }
  return points;
}
