// A model's layers as a strip: for each layer, what acts on positions there (the rotary spec, or none) and how far its
// attention reaches (global, a sliding window, a chunk), from the config reader's per-layer profile (config/profile.js).
import * as Plot from '@observablehq/plot';
import { plot } from '../lib/plot.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';
import { kindColours } from '../lib/kind-colours.js';
import { element as el } from '../lib/html.js';

export const id = 'profile-layers';
export const title = 'Every layer: what acts on positions, and how far it attends';
export const caption = 'One column per layer, from the first (left) to the last. Top row: the layer kind, by colour (its RoPE base, ' +
  'scaling and how many of its pairs turn, or no position at all: NoPE, linear attention). Bottom row: its attention window, darker ' +
  'for a shorter reach (global, a sliding window, a chunk). As transformers reads the config: layer_types, no_rope_layers, ' +
  'sliding_window and its pattern, attention_chunk_size, the rope parameters of each layer type.';
export const needs = ['layers'];

/** The window as a short text: "global", "sliding 512", "chunked 8,192". */
function windowText(w) {
  return w.kind === 'global' ? 'global' : `${w.kind} ${w.size.toLocaleString('en')}`;
}

/** The layers' rows: one per layer and row. */
function cells(l) {
  return l.layers.flatMap((k, i) => {
    const kind = l.kinds[k];
    const common = { layer: i, kind: kind.name, index: k, what: kind.label, window: windowText(kind.window) };
    return [{ ...common, row: 'position encoding' }, { ...common, row: 'attention window', reach: kind.window.kind }];
  });
}

/** @param {{layers: {model: string, n: ?number, kinds: object[], layers: number[], notes: string[]}}} result */
export function render(element, result) {
  const l = result.layers;
  const theme = themeOf(element);
  const colours = kindColours(theme, l.kinds);
  const width = figureWidth(element);
  const rows = cells(l);
  const n = l.layers.length;
  const cellWidth = n ? (width - 150) / n : 0;
  const shade = { global: 0.12, chunked: 0.45, sliding: 0.75 };
  const figure = n === 0 ? document.createElement('p') : plot({
    width, height: 150, marginLeft: 130, marginBottom: 36, marginRight: 20,
    x: { type: 'band', label: 'layer →', labelAnchor: 'center', labelOffset: 30, padding: 0.08,
      // Every layer's number when they fit, else every 4th (8th), and the last when it stands clear of those.
      tickFormat: (i) => { const step = n <= 24 ? 1 : n <= 64 ? 4 : 8; return i % step === 0 || (i === n - 1 && i % step >= step / 2) ? String(i) : ''; } },
    y: { domain: ['position encoding', 'attention window'], label: null, padding: 0.08 },
    color: { domain: colours.domain, range: colours.range, legend: true, tickFormat: (name) => `${l.kinds.find((k) => k.name === name).index}: ${name}` },
    marks: [
      Plot.cell(rows.filter((r) => r.row === 'position encoding'), { x: 'layer', y: 'row', fill: 'kind' }),
      Plot.cell(rows.filter((r) => r.row === 'attention window'), { x: 'layer', y: 'row', fill: theme.grey, fillOpacity: (d) => shade[d.reach] }),
      ...(cellWidth >= 14 ? [Plot.text(rows.filter((r) => r.row === 'position encoding'), { x: 'layer', y: 'row', text: 'index', fill: 'white', fontSize: 10 })] : []),
      Plot.tip(rows, Plot.pointer({ x: 'layer', y: 'row', channels: { layer: 'layer', kind: 'kind', 'positions': 'what', 'attention': 'window' },
        format: { x: false, y: false, layer: true, kind: true, positions: true, attention: true } })),
    ],
  });
  if (n === 0) figure.textContent = `${l.model}: the config gives no num_hidden_layers, so every layer is read as one kind: ${l.kinds[0].label}.`;
  // Every name and number here comes from the config (a link's config_json, a paste, a .gguf file): text nodes only.
  const summary = el('ul', { class: 'profile-kinds' }, l.kinds.map((k) => el('li', {}, [
    el('b', {}, [`${k.index}: ${k.name}`]),
    ` (${k.layers.length || 'all'} layer${k.layers.length === 1 ? '' : 's'}): ${k.label}; attention ${windowText(k.window)}` +
      (k.temperature ? `; queries scaled by position (floor_scale ${k.temperature.floor_scale}, attn_scale ${k.temperature.attn_scale})` : ''),
  ])));
  const notes = el('details', { class: 'profile-notes' }, [
    el('summary', {}, [`How the config was read (${l.notes.length + l.read.notes.length} notes, ${l.read.used.length} keys read)`]),
    el('ul', {}, [...l.read.notes, ...l.notes].map((t) => el('li', {}, [t]))),
    el('p', {}, [`read: ${l.read.used.join(', ')}`]),
    ...(l.read.unmodelled.length ? [el('p', {}, [`positional, not modelled: ${l.read.unmodelled.map((u) => `${u.key} (${u.why})`).join('; ')}`])] : []),
  ]);
  element.replaceChildren(figure, summary, notes);
}

/** The CSV table: one row per layer. */
export function table(result) {
  const l = result.layers;
  return { columns: ['layer', 'kind_index', 'kind', 'positions', 'window', 'window_tokens'], rows: l.layers.length,
    row: (i) => { const k = l.kinds[l.layers[i]]; return [i, k.index, k.name, k.label, k.window.kind, k.window.size ?? '']; } };
}
