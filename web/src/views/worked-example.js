// A worked example with tiny sizes, every number printed: context 4, d_model 8,
// "the sky is not": the frequencies omega_i, the sinusoidal position vectors
// S_0..S_3 (S_0 = [0, 1, 0, 1, ...]), and each word's first pair rotated by RoPE.

export const id = 'worked';
export const title = 'Worked example: “the sky is not”, d_model = 8';
export const caption = 'Four tokens, eight dimensions, every number from the engine. ωᵢ = base^(−2i/8); the sinusoidal ' +
  'vector of position p is [sin(pω₀), cos(pω₀), sin(pω₁), …]; RoPE turns pair i of the word at position p by p·ωᵢ.';
export const needs = ['worked'];

const fmt = (v) => (Math.abs(v) < 5e-7 ? '0' : v.toFixed(4));

/** A table of numbers, in a box that scrolls sideways on a narrow screen. */
function numbers(head, rows) {
  const box = document.createElement('div');
  box.className = 'table-scroll';
  const t = document.createElement('table');
  t.className = 'numbers';
  t.innerHTML = `<thead><tr>${head.map((h) => `<th scope="col">${h}</th>`).join('')}</tr></thead>` +
    `<tbody>${rows.map((r) => `<tr>${r.map((c, k) => (k === 0 ? `<th scope="row">${c}</th>` : `<td>${c}</td>`)).join('')}</tr>`).join('')}</tbody>`;
  box.append(t);
  return box;
}

/** @param {{worked: {base, omega: Float32Array, table: Float32Array, tokens: string[], words: Float32Array, rotated: Float32Array}}} result */
export function render(element, result) {
  const w = result.worked;
  const d = 8;
  const heading = (text) => { const h = document.createElement('h3'); h.textContent = text; return h; };
  const omega = numbers(['pair i', 'ωᵢ (rad/token)', 'wavelength 2π/ωᵢ (tokens)'],
    Array.from(w.omega, (o, i) => [i, o.toPrecision(6), ((2 * Math.PI) / o).toPrecision(6)]));
  const positions = numbers(['', ...Array.from({ length: d }, (_, c) => `dim ${c}`)],
    [0, 1, 2, 3].map((p) => [`S${'₀₁₂₃'[p]} (${w.tokens[p]})`, ...Array.from(w.table.subarray(p * d, p * d + d), fmt)]));
  const rotated = numbers(['position p', 'word', 'pair 0 before', 'angle p·ω₀', 'pair 0 after RoPE', 'pair 3 before', 'pair 3 after'],
    [0, 1, 2, 3].map((p) => {
      const pair = (x, i) => `(${fmt(x[p * d + 2 * i])}, ${fmt(x[p * d + 2 * i + 1])})`;
      return [p, w.tokens[p], pair(w.words, 0), `${(p * w.omega[0]).toFixed(4)} rad`, pair(w.rotated, 0), pair(w.words, 3), pair(w.rotated, 3)];
    }));
  const box = document.createElement('div');
  box.className = 'worked';
  box.append(heading(`Frequencies (base ${w.base})`), omega, heading('Sinusoidal position vectors S₀ … S₃'), positions,
    heading('Each word’s embedding, pairs rotated by RoPE (interleaved pairs)'), rotated);
  element.replaceChildren(box);
}

/** The CSV table, long: which table, its row and column, the value. */
export function table(result) {
  const w = result.worked;
  const d = 8;
  const rows = [];
  w.omega.forEach((o, i) => { rows.push(['omega', `pair ${i}`, 'rad/token', o], ['wavelength', `pair ${i}`, 'tokens', (2 * Math.PI) / o]); });
  for (let p = 0; p < 4; p++) {
    for (let c = 0; c < d; c++) {
      rows.push(['sinusoid', `position ${p}`, `dim ${c}`, w.table[p * d + c]], ['word', `${p} ${w.tokens[p]}`, `dim ${c}`, w.words[p * d + c]],
        ['rope_rotated_word', `${p} ${w.tokens[p]}`, `dim ${c}`, w.rotated[p * d + c]]);
    }
  }
  return { columns: ['quantity', 'row', 'column', 'value'], rows: rows.length, row: (k) => rows[k] };
}
