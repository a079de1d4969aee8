// An independent reading of x-transformers' CoPE (x_transformers.py, class CoPE,
// and its call in attend.py), step by step as the tensors go, in float64:
//   sim = q k^T * scale, masked with -max above the diagonal; gates = sigmoid(sim)
//   pos = gates.flip(-1).cumsum(-1).flip(-1), clamp(max = max_pos - 1)
//   logits_int = q . pos_emb^T; gather at ceil and floor; ceil * w + floor * (1 - w), w = pos - floor
/** @returns {{gates: number[][], positions: number[][], bias: number[][]}} each [n][n] (bias -Infinity where masked) */
export function referenceCope(q, k, n, d, posEmb, nposMax) {
  const scale = 1 / Math.sqrt(d);
  const row = (a, i) => a.slice(i * d, (i + 1) * d);
  const dot = (a, b) => a.reduce((s, x, c) => s + x * b[c], 0);
  const sim = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (j > i ? -Number.MAX_VALUE : dot(row(q, i), row(k, j)) * scale)));
  const gates = sim.map((r) => r.map((s) => 1 / (1 + Math.exp(-s))));
  const positions = gates.map((r) => {
    const flipped = [...r].reverse();
    let sum = 0;
    const cumsum = flipped.map((g) => (sum += g));
    return cumsum.reverse().map((p) => Math.min(p, nposMax - 1));
  });
  const logitsInt = Array.from({ length: n }, (_, i) => Array.from({ length: nposMax }, (_, m) => dot(row(q, i), posEmb.slice(m * d, (m + 1) * d))));
  const bias = positions.map((r, i) => r.map((p, j) => {
    if (j > i) return -Infinity;
    const floor = Math.floor(p);
    const w = p - floor;
    return logitsInt[i][Math.ceil(p)] * w + logitsInt[i][floor] * (1 - w);
  }));
  return { gates, positions, bias };
}
