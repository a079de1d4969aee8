// The plain-JS baseline: what a page computes without any library. Written
// the way a careful JS author would: flat Float32Arrays, row-major, loops
// ordered so the innermost one walks memory contiguously (i-k-j matmul, dot
// products of rows for Q K^T, axpy of V rows for P V), doubles for sums.
// (Four partial sums in the dot product gained nothing: V8's scalar code is
// bound by loads and bounds checks, ~1 GFLOP/s here, not by add latency.)

/** C [m, n] = A [m, k] B [k, n], i-k-j order, a float64 row accumulator. */
function matmulInto(a, b, m, k, n, c) {
  const row = new Float64Array(n);
  for (let i = 0; i < m; i++) {
    row.fill(0);
    const ai = i * k;
    for (let p = 0; p < k; p++) {
      const aip = a[ai + p];
      const bp = p * n;
      for (let j = 0; j < n; j++) row[j] += aip * b[bp + j];
    }
    c.set(row, i * n);
  }
  return c;
}

export async function create() {
  return {
    name: 'plain JS',
    version: `V8 ${process.versions.v8}`,
    notes: 'RoPE is handed the cos/sin tables [n, d/2]; Float32Array storage, double arithmetic',

    matmul({ a, b, m, k, n }) {
      return matmulInto(a, b, m, k, n, new Float32Array(m * n));
    },

    attentionForward({ x, wq, wk, wv, n, dModel, dHead, causal }) {
      const q = matmulInto(x, wq, n, dModel, dHead, new Float32Array(n * dHead));
      const k = matmulInto(x, wk, n, dModel, dHead, new Float32Array(n * dHead));
      const v = matmulInto(x, wv, n, dModel, dHead, new Float32Array(n * dHead));
      const scale = 1 / Math.sqrt(dHead);
      const out = new Float32Array(n * dHead);
      const s = new Float64Array(n);
      const acc = new Float64Array(dHead);
      for (let i = 0; i < n; i++) {
        const last = causal ? i : n - 1;
        const qi = i * dHead;
        let max = -Infinity;
        for (let j = 0; j <= last; j++) {
          const kj = j * dHead;
          let dot = 0;
          for (let c = 0; c < dHead; c++) dot += q[qi + c] * k[kj + c];
          dot *= scale;
          s[j] = dot;
          if (dot > max) max = dot;
        }
        let sum = 0;
        for (let j = 0; j <= last; j++) { const e = Math.exp(s[j] - max); s[j] = e; sum += e; }
        acc.fill(0);
        for (let j = 0; j <= last; j++) {
          const p = s[j];
          const vj = j * dHead;
          for (let c = 0; c < dHead; c++) acc[c] += p * v[vj + c];
        }
        const inv = 1 / sum;
        for (let c = 0; c < dHead; c++) out[qi + c] = acc[c] * inv;
      }
      return out;
    },

    rope({ x, n, d, cos, sin, layout }) {
      const out = new Float32Array(n * d);
      const half = d / 2;
      if (layout === 'half') {
        for (let p = 0; p < n; p++) {
          const r = p * d, t = p * half;
          for (let i = 0; i < half; i++) {
            const c = cos[t + i], s = sin[t + i];
            const a = x[r + i], b = x[r + i + half];
            out[r + i] = a * c - b * s;
            out[r + i + half] = a * s + b * c;
          }
        }
      } else {
        for (let p = 0; p < n; p++) {
          const r = p * d, t = p * half;
          for (let i = 0; i < half; i++) {
            const c = cos[t + i], s = sin[t + i];
            const a = x[r + 2 * i], b = x[r + 2 * i + 1];
            out[r + 2 * i] = a * c - b * s;
            out[r + 2 * i + 1] = a * s + b * c;
          }
        }
      }
      return out;
    },

    sinusoid({ n, d }) {
      const half = d / 2;
      const w = Float64Array.from({ length: half }, (_, i) => Math.pow(10000, -2 * i / d));
      const out = new Float32Array(n * d);
      for (let p = 0; p < n; p++) {
        const r = p * d;
        for (let i = 0; i < half; i++) {
          const angle = p * w[i];
          out[r + 2 * i] = Math.sin(angle);
          out[r + 2 * i + 1] = Math.cos(angle);
        }
      }
      return out;
    },

    dispose() {},
  };
}
