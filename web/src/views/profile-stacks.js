// One layer kind's rotary config as three inference stacks compute it (the core's ropeStacks: transformers'
// modeling_rope_utils.py, llama.cpp's ggml rope, vLLM's rotary_embedding classes): each pair's frequency relative to
// transformers', the attention factors and layouts side by side, and a sentence saying where they agree.
import * as Plot from '@observablehq/plot';
import { plot } from '../lib/plot.js';
import { figureWidth } from '../lib/size.js';
import { themeOf } from '../lib/theme.js';
import { escapeHtml } from '../lib/html.js';

export const id = 'profile-stacks';
export const title = 'The same config under transformers, llama.cpp and vLLM';
export const caption = 'For the chosen layer kind: each rotary pair’s frequency in llama.cpp and vLLM relative to transformers’ ' +
  '(0: the same; float32 rounding alone stays within ±2·10⁻⁵), and below, each stack’s attention factor, softmax scale and pair ' +
  'layout with what it does with this rope_type. Each stack as its published code computes it (file and function in the note).';
export const needs = ['stacks'];

const fmt = (x) => (Number.isFinite(x) ? Number(x.toPrecision(8)).toString() : String(x));

/** Which modelled stacks agree on everything (frequencies within the tolerance, attention factors, logit scales). */
function verdict(s) {
  const modelled = s.stacks.filter((t) => t.modelled);
  if (modelled.length < 2) return `Only ${modelled.map((t) => t.name).join('')} is modelled for this rope_type; ${s.stacks.filter((t) => !t.modelled).map((t) => `${t.name}: ${t.note}`).join('; ')}.`;
  const differs = (a, b) => a.inv_freq.some((f, i) => Math.abs(f - b.inv_freq[i]) > s.agreement * Math.max(Math.abs(f), Math.abs(b.inv_freq[i])))
    || Math.abs(a.attention_factor - b.attention_factor) > s.agreement * Math.max(a.attention_factor, b.attention_factor)
    || Math.abs(a.logit_scale - b.logit_scale) > s.agreement * Math.max(a.logit_scale, b.logit_scale);
  const pairs = [];
  for (let a = 0; a < modelled.length; a++) for (let b = a + 1; b < modelled.length; b++) pairs.push([modelled[a], modelled[b], !differs(modelled[a], modelled[b])]);
  if (pairs.every(([, , same]) => same)) return `All ${modelled.length} stacks agree (within float32 rounding, ${s.agreement} relative).`;
  // The pair where a stack is furthest from transformers, as the plot draws it (θ / θ_transformers).
  const hf = s.stacks[0];
  let worst = null;
  for (const t of modelled.slice(1)) {
    t.inv_freq.forEach((f, i) => {
      const ratio = hf.inv_freq[i] === 0 ? 1 : f / hf.inv_freq[i];
      if (!worst || Math.abs(ratio - 1) > Math.abs(worst.ratio - 1)) worst = { name: t.name, i, ratio };
    });
  }
  const where = worst && Math.abs(worst.ratio - 1) > s.agreement
    ? `. Furthest apart: pair ${worst.i}, where ${worst.name}’s θ is ${worst.ratio.toPrecision(4)} × transformers’` : '';
  return pairs.map(([a, b, same]) => `${a.name} and ${b.name} ${same ? 'agree' : 'differ'}`).join('; ') + where +
    (s.attention_factors_differ ? '; the attention factors differ' : '') + (s.logit_scales_differ ? '; the softmax scales differ' : '') + '.';
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
  heading.textContent = `${s.model}, kind ${s.kind.index} (${s.kind.name}: ${s.kind.label}), context ${s.seqLen.toLocaleString('en')}: ${verdict(s)}`;
  const theme = themeOf(element);
  const hf = s.stacks[0];
  const rows = s.stacks.slice(1).filter((t) => t.modelled)
    .flatMap((t) => Array.from(t.inv_freq, (f, i) => ({ pair: i, stack: t.name, ratio: hf.inv_freq[i] === 0 ? 0 : f / hf.inv_freq[i] - 1, f, hf: hf.inv_freq[i] })));
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
  tableElement.innerHTML = '<table class="numbers"><caption>What each stack computes for this layer kind</caption><thead><tr>' +
    '<th scope="col">stack</th><th scope="col">attention factor</th><th scope="col">softmax scale ×</th><th scope="col">pairs</th>' +
    '<th scope="col">θ of the slowest pair (rad/token)</th><th scope="col">what it does</th></tr></thead><tbody>' +
    s.stacks.map((t) => `<tr><th scope="row">${escapeHtml(t.name)}</th>` + (t.modelled
      ? `<td>${fmt(t.attention_factor)}</td><td>${fmt(t.logit_scale)}</td><td>${t.layout}</td><td>${fmt(t.inv_freq.at(-1))}</td>`
      : '<td colspan="4">not modelled</td>') + `<td class="note-cell">${escapeHtml(t.note)}</td></tr>`).join('') + '</tbody></table>';
  element.replaceChildren(heading, figure, tableElement);
}

/** The CSV table: one row per pair, each stack's frequency and the largest relative difference. */
export function table(result) {
  const s = result.stacks;
  if (s.none) return { columns: ['kind', 'note'], rows: 1, row: () => [s.kind.name, s.none] };
  return { columns: ['pair_i', ...s.stacks.map((t) => `inv_freq_${t.name}`), 'max_relative_difference'], rows: s.max_relative.length,
    row: (i) => [i, ...s.stacks.map((t) => (t.modelled ? t.inv_freq[i] : '')), s.max_relative[i]] };
}
