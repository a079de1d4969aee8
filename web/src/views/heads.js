// ALiBi's heads side by side: one small map per head, with its slope: the steep heads look only nearby, the flat
// ones far. By default each map shows e^b(i, j), the factor the bias multiplies a key's softmax weight by (1 on the
// diagonal, e^(-m|i - j|) off it): one scale, [0, 1], on which every head is seen; `heads_show: bias` draws b itself.
import { colourLegend, divergingScale, paintMatrix, sequentialScale } from '../lib/raster.js';
import { themeOf } from '../lib/theme.js';

export const id = 'heads';
export const title = 'Every head: ALiBi’s slopes at work';
export const caption = 'Each head over the first 64 positions at most, with its slope mₕ. Shown: e^b, what the bias keeps of ' +
  'each key’s attention weight (1 on the diagonal). The first heads keep almost only the neighbours, the last ones reach ' +
  'far back; “every head shows” switches to the bias itself.';
export const needs = ['heads'];

/**
 * @param {{heads: {slopes: Float32Array, maps: Float32Array[]}}} result  maps: [m, m] each, m = min(n, 64)
 * @param {{heads_show?: 'kept'|'bias'}} [params]
 */
export function render(element, result, params = {}) {
  const { slopes, maps: biases } = result.heads;
  const n = Math.round(Math.sqrt(biases[0]?.length ?? 0));  // the maps' own size (the family draws at most 64 positions)
  const kept = (params.heads_show ?? 'kept') === 'kept';
  const maps = kept ? biases.map((map) => map.map((b) => (b === -Infinity ? b : Math.exp(b)))) : biases;  // masked stay hatched
  let extent = 0;
  if (!kept) for (const map of maps) for (const v of map) if (v !== -Infinity) extent = Math.max(extent, Math.abs(v));
  const theme = themeOf(element);
  const colour = kept ? sequentialScale(1, 'e^b: share of a key’s weight kept', theme) : divergingScale(extent || 1, 'bias −mₕ·|i − j|', theme);
  const strip = document.createElement('div');
  strip.className = 'small-multiples';
  maps.forEach((map, h) => {
    const cell = document.createElement('figure');
    const canvas = document.createElement('canvas');
    canvas.className = 'mini masked-background';
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `Head ${h}, slope ${slopes[h]}`);
    paintMatrix(canvas, map, n, n, colour);
    const label = document.createElement('figcaption');
    label.textContent = `head ${h}: m = ${Number(slopes[h].toPrecision(4))}`;
    cell.append(canvas, label);
    strip.append(cell);
  });
  element.replaceChildren(colourLegend(colour), strip);
  if (maps.length < slopes.length) {
    const note = document.createElement('p');
    note.className = 'note';
    note.textContent = `The first ${maps.length} of ${slopes.length} heads (the page draws at most ${maps.length}); the slopes view has every head.`;
    element.append(note);
  }
}

/** The CSV table, long: head, its slope, query i, key j, bias (-Infinity where masked). */
export function table(result) {
  const { slopes, maps } = result.heads;
  const n = Math.round(Math.sqrt(maps[0]?.length ?? 0));
  return { columns: ['head', 'slope', 'query_i', 'key_j', 'bias'], rows: maps.length * n * n,
    row: (k) => { const h = Math.floor(k / (n * n)); const r = k % (n * n); return [h, slopes[h], Math.floor(r / n), r % n, maps[h][r]]; } };
}
