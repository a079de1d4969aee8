// One layer kind's rotary config as three inference stacks compute it (the core's ropeStacks: transformers'
// modeling_rope_utils.py, llama.cpp's ggml rope, vLLM's rotary_embedding classes): each pair's frequency relative to
// transformers', the attention factors and layouts side by side, and a sentence saying where they agree.
import * as Plot from '@observablehq/plot';
import { plot } from '../lib/plot.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';
import { element } from '../lib/html.js';

export const id = 'profile-stacks';
export const title = 'The same config under transformers, llama.cpp and vLLM';
export const caption = 'For the chosen layer kind: each rotary pair’s frequency in llama.cpp and vLLM relative to transformers’ ' +
  '(0: the same; float32 rounding alone stays within ±2·10⁻⁵), and below, each stack’s attention factor, softmax scale and pair ' +
  'layout with what it does with this rope_type. Each stack as its published code computes it (file and function in the note).';
export const needs = ['stacks'];

/** A number of the table: 8 significant digits, or the value marked when it is NaN or infinite. */
const fmt = (x) => (Number.isFinite(x) ? Number(x.toPrecision(8)).toString() : `${x} (not finite)`);

/**
 * The sentence on the stacks (the core's ropeStacks result s): which modelled stacks agree, from the core's comparisons.
 * A stack with a NaN or an infinity (its nonfinite) is named with what it gives first, and is never said to agree.
 */
export function verdict(s) {
  const modelled = s.stacks.filter((t) => t.modelled);
  if (modelled.length < 2) return `Only ${modelled.map((t) => t.name).join('')} is modelled for this rope_type; ${s.stacks.filter((t) => !t.modelled).map((t) => `${t.name}: ${t.note}`).join('; ')}.`;
  const marked = modelled.filter((t) => t.nonfinite);
  if (!marked.length && s.comparisons.every((c) => c.agree)) return `All ${modelled.length} stacks agree (within float32 rounding, ${s.agreement} relative).`;
  const name = (k) => s.stacks[k].name;
  const finite = (k) => !s.stacks[k].nonfinite;
  const pairs = s.comparisons.map((c) => `${name(c.first)} and ${name(c.second)} ` +
    (c.agree ? 'agree' : finite(c.first) && finite(c.second) ? 'differ' : 'cannot be compared'));
  // The pair where a stack is furthest from transformers, as the plot draws it (θ / θ_transformers), over finite values.
  const hf = s.stacks[0];
  let worst = null;
  for (const t of modelled.slice(1)) {
    t.inv_freq.forEach((f, i) => {
      const ratio = hf.inv_freq[i] === 0 ? 1 : f / hf.inv_freq[i];
      if (Number.isFinite(ratio) && (!worst || Math.abs(ratio - 1) > Math.abs(worst.ratio - 1))) worst = { name: t.name, i, ratio };
    });
  }
  const where = worst && Math.abs(worst.ratio - 1) > s.agreement
    ? `. Furthest apart: pair ${worst.i}, where ${worst.name}’s θ is ${worst.ratio.toPrecision(4)} × transformers’` : '';
  const notFinite = marked.map((t) => `${t.name} gives ${t.nonfinite}. `).join('');
  return notFinite + pairs.join('; ') + where +
    (s.attention_factors_differ ? '; the attention factors differ' : '') + (s.logit_scales_differ ? '; the softmax scales differ' : '') + '.';
}

/** An element of tag with text (and attributes): lib/html.js's element, text as its one child. */
const node = (tag, text, attributes = {}) => element(tag, attributes, [String(text)]);

/** The table of what each stack computes: its attention factor, softmax scale, layout, slowest θ and note. */
function stacksTable(s) {
  const table = document.createElement('table');
  table.className = 'numbers';
  table.append(node('caption', 'What each stack computes for this layer kind'));
  const head = table.createTHead().insertRow();
  for (const label of ['stack', 'attention factor', 'softmax scale ×', 'pairs', 'θ of the slowest pair (rad/token)', 'what it does']) {
    head.append(node('th', label, { scope: 'col' }));
  }
  const body = table.createTBody();
  for (const t of s.stacks) {
    const row = body.insertRow();
    row.append(node('th', t.name, { scope: 'row' }));
    if (t.modelled) {
      for (const text of [fmt(t.attention_factor), fmt(t.logit_scale), t.layout, fmt(t.inv_freq.at(-1))]) row.append(node('td', text));
    } else {
      row.append(node('td', 'not modelled', { colspan: '4' }));
    }
    row.append(node('td', t.nonfinite ? `Not finite: ${t.nonfinite}. ${t.note}` : t.note, { class: 'note-cell' }));
  }
  return table;
}

/** @param {{stacks: object}} result */
export function render(element, result) {
  const s = result.stacks;
  const heading = document.createElement('p');
  heading.className = 'view-message';
  if (s.none) {
    heading.textContent = `${s.model}, kind ${s.kind.index} (${s.kind.name}): ${s.none}. Pick a kind that rotates (the strip numbers them).`;
    element.replaceChildren(heading);
    return;
  }
  const chosen = s.chosen ? ` (${s.chosen})` : '';
  heading.textContent = `${s.model}, kind ${s.kind.index}${chosen} (${s.kind.name}: ${s.kind.label}), context ${s.seqLen.toLocaleString('en')}: ${verdict(s)}`;
  const theme = themeOf(element);
  const hf = s.stacks[0];
  const all = s.stacks.slice(1).filter((t) => t.modelled)
    .flatMap((t) => Array.from(t.inv_freq, (f, i) => ({ pair: i, stack: t.name, ratio: hf.inv_freq[i] === 0 ? 0 : f / hf.inv_freq[i] - 1, f, hf: hf.inv_freq[i] })));
  // A NaN or an infinity has no place on the axis: left out, and said (the heading names which stack gives it).
  const rows = all.filter((r) => Number.isFinite(r.ratio));
  const left = all.length - rows.length;
  const colour = { 'llama.cpp': theme.red, vllm: theme.warm };
  const figure = rows.length === 0 ? document.createElement('div') : plot({
    width: figureWidth(element), height: 280, marginLeft: 70, marginBottom: 40, marginRight: 20,
    x: { label: 'pair index i →', labelAnchor: 'center', labelOffset: 34 },
    y: { label: '↑ θᵢ relative to transformers’ (θ / θ_transformers − 1)', grid: true, tickFormat: '.1~e' },
    color: { domain: Object.keys(colour), range: Object.values(colour), legend: true },
    marks: [
      Plot.ruleY([0], { stroke: theme.grey }),
      Plot.areaY([{ pair: 0 }, { pair: hf.inv_freq.length - 1 }], { x: 'pair', y1: -s.agreement, y2: s.agreement, fill: theme.grey, fillOpacity: 0.15 }),
      Plot.lineY(rows, { x: 'pair', y: 'ratio', z: 'stack', stroke: 'stack', strokeWidth: 1.6 }),
      Plot.dot(rows, { x: 'pair', y: 'ratio', stroke: 'stack', r: 2,
        channels: { stack: 'stack', 'pair i': 'pair', 'θᵢ here': 'f', 'θᵢ transformers': 'hf' },
        tip: { format: { x: false, y: (v) => v.toPrecision(4), stroke: false, stack: true, 'θᵢ here': (v) => v.toPrecision(8), 'θᵢ transformers': (v) => v.toPrecision(8) } } }),
    ],
  });
  const tableElement = document.createElement('div');
  tableElement.className = 'lm-table-box';
  tableElement.tabIndex = 0;
  tableElement.setAttribute('role', 'region');
  tableElement.setAttribute('aria-label', 'the three stacks');
  tableElement.append(stacksTable(s));
  const parts = [heading];
  if (left) {
    const note = document.createElement('p');
    note.className = 'view-message';
    note.textContent = `${left} pair${left === 1 ? '' : 's'} whose θ is not finite in a stack ${left === 1 ? 'is' : 'are'} left out of the plot.`;
    parts.push(note);
  }
  element.replaceChildren(...parts, figure, tableElement);
}

/** The CSV table: one row per pair, each stack's frequency and the largest relative difference. */
export function table(result) {
  const s = result.stacks;
  if (s.none) return { columns: ['kind', 'note'], rows: 1, row: () => [s.kind.name, s.none] };
  return { columns: ['pair_i', ...s.stacks.map((t) => `inv_freq_${t.name}`), 'max_relative_difference'], rows: s.max_relative.length,
    row: (i) => [i, ...s.stacks.map((t) => (t.modelled ? t.inv_freq[i] : '')), s.max_relative[i]] };
}
