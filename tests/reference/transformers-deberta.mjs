// An independent reading of transformers' DeBERTa-v2 relative positions
// (modeling_deberta_v2.py, make_log_bucket_position and build_relative_position),
// in JavaScript: torch's float32 steps as Math.fround after each operation.
const f = Math.fround;

/** make_log_bucket_position for one relative position r (query minus key). */
export function referenceBucket(r, bucketSize, maxPosition) {
  const mid = Math.floor(bucketSize / 2);
  const sign = Math.sign(r);
  const absPos = r < mid && r > -mid ? mid - 1 : Math.abs(r);
  const logPos = Math.ceil(f(f(f(Math.log(f(absPos / mid))) / f(Math.log(f((maxPosition - 1) / mid)))) * (mid - 1))) + mid;
  return absPos <= mid ? r : logPos * sign;
}

/** build_relative_position(q, k, bucket_size, max_position), [q * k] row-major. */
export function referenceRelativePosition(q, k, bucketSize, maxPosition) {
  const out = new Int32Array(q * k);
  for (let i = 0; i < q; i++) {
    for (let j = 0; j < k; j++) {
      const r = i - j;
      out[i * k + j] = bucketSize > 0 && maxPosition > 0 ? referenceBucket(r, bucketSize, maxPosition) : r;
    }
  }
  return out;
}
