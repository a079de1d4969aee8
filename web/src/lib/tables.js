// The tables behind the CSV export: each view's table(result, params) returns
// {columns, rows, row(k)}, a header and rows made on demand (a 4096 x 1024
// table is never held twice), and toCsv writes it in slices so the page stays
// responsive. Numbers are written as the shortest decimal that reads back to
// the same float32 (or float64, for values computed on the page).

/** A [rows, cols] row-major matrix, one CSV row per matrix row, the row index first. */
export function matrixTable(indexName, columnNames, data, rows, cols) {
  return { columns: [indexName, ...columnNames], rows, row: (r) => [r, ...data.subarray(r * cols, (r + 1) * cols)] };
}

/**
 * Every (query, key) pair of a sentence, with the values of named [n, n] matrices.
 * @param {string[]} tokens
 * @param {Record<string, Float32Array>} matrices
 */
export function pairTable(tokens, matrices) {
  const n = tokens.length;
  const names = Object.keys(matrices);
  return {
    columns: ['query_index', 'query_token', 'key_index', 'key_token', ...names],
    rows: n * n,
    row: (k) => {
      const i = Math.floor(k / n);
      const j = k % n;
      return [i, tokens[i], j, tokens[j], ...names.map((name) => matrices[name][k])];
    },
  };
}

/**
 * The shortest text of a number that reads back to it: for a float32 value,
 * the fewest significant digits whose float32 rounding is the value
 * (0.1f -> "0.1", not "0.10000000149011612"); ±Infinity and NaN spelled as JS does.
 */
export function formatNumber(v) {
  if (Number.isInteger(v) || !Number.isFinite(v)) return String(v);
  const plain = String(v);
  if (Math.fround(v) !== v || plain.length <= 9) return plain;
  for (let digits = 6; digits < 9; digits++) {
    const text = v.toPrecision(digits);
    if (Math.fround(Number(text)) === v) return String(Number(text));
  }
  return String(Number(v.toPrecision(9)));
}

function csvField(value) {
  if (typeof value === 'number') return formatNumber(value);
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The CSV text of a table (header row first, RFC 4180 quoting), built in slices
 * of about 20 ms with a yield between them.
 * @param {{columns: string[], rows: number, row: (k: number) => Array<number|string>}} table
 * @returns {Promise<string>}
 */
export async function toCsv(table) {
  const lines = [table.columns.map(csvField).join(',')];
  let k = 0;
  while (k < table.rows) {
    const stop = performance.now() + 20;
    while (k < table.rows && performance.now() < stop) {
      for (let end = Math.min(table.rows, k + 64); k < end; k++) lines.push(Array.from(table.row(k), csvField).join(','));
    }
    if (k < table.rows) await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return `${lines.join('\n')}\n`;
}

/** A JSON-ready copy of a value: typed arrays as plain arrays, non-finite numbers as strings ("-Infinity"). */
export function plain(value) {
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (ArrayBuffer.isView(value) || Array.isArray(value)) return Array.from(value, plain);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}
