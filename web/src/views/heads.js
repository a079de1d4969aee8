// ALiBi's heads side by side: one small bias map per head, on one colour
// scale, with its slope: the steep heads look only nearby, the flat ones far.
import { colourLegend, divergingScale, paintMatrix } from '../lib/raster.js';
import { themeOf } from '../lib/theme.js';

export const id = 'heads';
export const title = 'Every head: ALiBi’s slopes at work';
export const caption = 'The bias of each head on one colour scale, over the first 64 positions at most. Head h penalises distance with slope mₕ: the first ' +
  'heads attend almost only to their neighbours, the last ones far back.';
export const needs = ['heads'];

/** @param {{heads: {slopes: Float32Array, maps: Float32Array[]}}} result  maps: [m, m] each, m = min(n, 64) */
export function render(element, result) {
  const { slopes, maps } = result.heads;
  const n = Math.round(Math.sqrt(maps[0]?.length ?? 0));  // the maps' own size (the family draws at most 64 positions)
  let extent = 0;
  for (const map of maps) for (const v of map) if (v !== -Infinity) extent = Math.max(extent, Math.abs(v));
  const colour = divergingScale(extent || 1, 'bias −mₕ·|i − j|', themeOf(element));
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
