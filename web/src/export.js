// The four exports of a view: CSV (the numbers it plots, a header row first),
// JSON (those numbers with every parameter, the spec and the engine's
// version), SVG and PNG (the figure itself). The SVG is a snapshot of the
// figure's DOM as laid out: Plot's SVGs as they are, each canvas as an image,
// and text and table cells where they stand, in the colours of the current theme.
import { plain, toCsv } from './lib/tables.js';
import { escapeHtml as escape } from './lib/html.js';
import { pythonFloat, pythonInt, pythonString } from './lib/python.js';

/** Saves text or a Blob as a file. */
function download(name, content, type) {
  const blob = content instanceof Blob ? content : new Blob([content], { type });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/**
 * Exports what a view drew.
 * @param {'csv'|'json'|'svg'|'png'} kind
 * @param {object} o
 * @param {object} o.view        the view module
 * @param {object} o.data        the fields it drew
 * @param {object} o.params      the parameters it drew them for (every one)
 * @param {string} o.encoding    the family's spec type
 * @param {object|null} o.spec   the spec sent to the core
 * @param {object} [o.extra]     more JSON fields (for RoPE: rope = {inv_freq, attention_factor, logit_scale, ...})
 * @param {string} o.version     the engine's version()
 * @param {HTMLElement} o.figure the figure element
 * @returns {Promise<string>} the file name
 */
export async function exportView(kind, { view, data, params, encoding, spec, extra = {}, version, figure }) {
  const base = `posenc-${encoding}-${view.id}`;
  if (kind === 'csv') {
    download(`${base}.csv`, await toCsv(view.table(data, params)), 'text/csv');
    return `${base}.csv`;
  }
  if (kind === 'json') {
    const json = { posenc: version, view: view.id, title: view.title, encoding, spec, ...plain(extra), params: plain(params), data: plain(data) };
    download(`${base}.json`, `${JSON.stringify(json, null, 1)}\n`, 'application/json');
    return `${base}.json`;
  }
  const svg = snapshotSvg(figure, view.title);
  if (kind === 'svg') {
    download(`${base}.svg`, svg.text, 'image/svg+xml');
    return `${base}.svg`;
  }
  download(`${base}.png`, await rasterize(svg, 2), 'image/png');
  return `${base}.png`;
}


function visible(node) {
  if (node.hidden || node.classList.contains('tooltip') || node.classList.contains('busy')) return false;
  const style = getComputedStyle(node);
  return style.display !== 'none' && style.visibility !== 'hidden';
}

function transparent(colour) {
  return !colour || colour === 'transparent' || /rgba\(.*,\s*0\)$/.test(colour);
}

/** The lines of a text node as laid out: [{text, left, top, height}] in page coordinates. */
function textLines(node) {
  const lines = [];
  const range = document.createRange();
  const words = node.textContent.split(/(\s+)/);
  let offset = 0;
  for (const word of words) {
    if (word.trim()) {
      range.setStart(node, offset);
      range.setEnd(node, offset + word.length);
      const r = range.getBoundingClientRect();
      const line = lines.at(-1);
      if (line && Math.abs(line.top - r.top) < r.height / 2) {
        line.text += `${line.gap}${word}`;
        line.gap = '';
      } else {
        lines.push({ text: word, left: r.left, top: r.top, height: r.height, gap: '' });
      }
    } else if (lines.length) {
      lines.at(-1).gap = ' ';
    }
    offset += word.length;
  }
  return lines;
}

/** The paint an SVG element may take from a style sheet rather than its own attributes. */
const PAINT = ['fill', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-opacity', 'fill-opacity', 'opacity'];

/**
 * Writes into `copy` (a clone of the SVG `original`) the paint each element has from a style sheet (the ablation's
 * outlines: `.outlines rect { stroke: var(--ink) }`), as attributes: the snapshot has no style sheet, and without
 * them such marks vanish. An element's own attributes stay as they are.
 */
function inlineStyles(original, copy) {
  const from = [original, ...original.querySelectorAll('*')];
  const to = [copy, ...copy.querySelectorAll('*')];
  for (let k = 0; k < from.length; k++) {
    if (!(from[k] instanceof SVGElement)) continue;
    const computed = getComputedStyle(from[k]);
    const parent = from[k].parentElement && getComputedStyle(from[k].parentElement);
    for (const property of PAINT) {
      if (from[k].hasAttribute(property)) continue;
      const value = computed.getPropertyValue(property);
      if (value && value !== parent?.getPropertyValue(property)) to[k].setAttribute(property, value);
    }
  }
}

/**
 * A standalone SVG of a figure element as it is laid out now.
 * @returns {{text: string, width: number, height: number}}
 */
export function snapshotSvg(root, title) {
  const box = root.getBoundingClientRect();
  const style = getComputedStyle(root);
  const colour = style.color;
  const background = getComputedStyle(root.closest('.view') ?? root).getPropertyValue('--bg').trim() || '#ffffff';
  const titleHeight = title ? 26 : 0;
  const width = Math.ceil(Math.max(box.width, root.scrollWidth));
  const height = Math.ceil(box.height) + titleHeight;
  const parts = [];
  const at = (r) => ({ x: r.left - box.left, y: r.top - box.top + titleHeight });

  function emitText(node, parentStyle) {
    for (const line of textLines(node)) {
      const { x, y } = at({ left: line.left, top: line.top });
      parts.push(`<text x="${x.toFixed(1)}" y="${(y + line.height * 0.78).toFixed(1)}" fill="${parentStyle.color}" ` +
        `font-family="${escape(parentStyle.fontFamily)}" font-size="${parentStyle.fontSize}" font-weight="${parentStyle.fontWeight}">${escape(line.text)}</text>`);
    }
  }

  function walk(node) {
    for (const child of node.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) {
        if (child.textContent.trim()) emitText(child, getComputedStyle(node));
        continue;
      }
      if (child.nodeType !== Node.ELEMENT_NODE || !visible(child)) continue;
      const r = child.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const { x, y } = at(r);
      if (child instanceof SVGSVGElement) {
        const copy = child.cloneNode(true);
        inlineStyles(child, copy);
        copy.setAttribute('x', x.toFixed(1));
        copy.setAttribute('y', y.toFixed(1));
        copy.setAttribute('width', r.width);
        copy.setAttribute('height', r.height);
        copy.setAttribute('color', getComputedStyle(child).color);
        parts.push(new XMLSerializer().serializeToString(copy));
        continue;
      }
      if (child instanceof HTMLCanvasElement) {
        const pixelated = getComputedStyle(child).imageRendering === 'pixelated';
        parts.push(`<image x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${r.width}" height="${r.height}" preserveAspectRatio="none"` +
          `${pixelated ? ' style="image-rendering:pixelated"' : ''} href="${child.toDataURL('image/png')}"/>`);
        continue;
      }
      const s = getComputedStyle(child);
      const border = parseFloat(s.borderTopWidth) > 0 ? s.borderTopColor : null;
      if (!transparent(s.backgroundColor) || border) {
        parts.push(`<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${r.width.toFixed(1)}" height="${r.height.toFixed(1)}" ` +
          `fill="${transparent(s.backgroundColor) ? 'none' : s.backgroundColor}"${border ? ` stroke="${border}" stroke-width="${s.borderTopWidth}"` : ''}/>`);
      }
      walk(child);
    }
  }
  walk(root);
  const heading = title
    ? `<text x="0" y="18" fill="${colour}" font-family="${escape(style.fontFamily)}" font-size="15" font-weight="600">${escape(title)}</text>`
    : '';
  const text = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}" color="${colour}" font-family="${escape(style.fontFamily)}">` +
    `<rect width="100%" height="100%" fill="${background}"/>${heading}${parts.join('')}</svg>`;
  return { text, width, height };
}

/** A PNG of an SVG snapshot at `scale` times its size. */
export function rasterize(svg, scale = 2) {
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.onload = () => {
      const canvas = document.createElement('canvas');
      canvas.width = Math.round(svg.width * scale);
      canvas.height = Math.round(svg.height * scale);
      const context = canvas.getContext('2d');
      context.scale(scale, scale);
      context.drawImage(image, 0, 0, svg.width, svg.height);
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('PNG: the browser could not encode the figure'))), 'image/png');
    };
    image.onerror = () => reject(new Error('PNG: the browser could not draw the SVG snapshot'));
    image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg.text)}`;
  });
}

/**
 * A short PyTorch snippet that holds a model's rotary frequencies per layer kind (the core's numbers, float32, written
 * so each reads back as the same float32) and says how to check another stack's against them in one line. Every value
 * in it is a Python literal (lib/python.js): the model's name, from a pasted config or a GGUF file, is a string
 * literal, never text after "#", so no name can add a line of code.
 * @param {{model: string, seqLen: number, version: string, kinds: {name: string, layers: number[],
 *   rope: {inv_freq: Float32Array, attention_factor: number}}[]}} o  the kinds that rotate (radians per token)
 * @returns {string} Python source
 */
export function pytorchSnippet({ model, seqLen, version, kinds }) {
  const float32 = (x) => pythonFloat(x === 0 ? x : Number(Number(x).toPrecision(9)));  // -0 keeps its sign
  const list = (values) => {
    const items = Array.from(values, float32);
    const lines = [];
    for (let i = 0; i < items.length; i += 6) lines.push(`        ${items.slice(i, i + 6).join(', ')},`);
    return lines.join('\n');
  };
  const layers = (k) => {
    if (!k.layers.length) return 'every layer';
    const shown = k.layers.slice(0, 8).map(pythonInt).join(', ');
    return `layers ${k.layers.length > 8 ? `${shown}, …` : shown}`;
  };
  const name = (k) => pythonString(k.name);
  return [
    'import torch',
    '',
    '# The rotary inv_freq of each layer kind of `model` (radians per token) at a context of `seq_len` tokens, as',
    '# transformers computes them (posenc `posenc_version`); attention_factor multiplies cos and sin.',
    `model = ${pythonString(model)}`,
    `seq_len = ${pythonInt(seqLen)}`,
    `posenc_version = ${pythonString(version)}`,
    'inv_freq = {',
    ...kinds.map((k) => `    ${name(k)}: torch.tensor([  # ${layers(k)}\n${list(k.rope.inv_freq)}\n    ], dtype=torch.float32),`),
    '}',
    `attention_factor = {${kinds.map((k) => `${name(k)}: ${float32(k.rope.attention_factor)}`).join(', ')}}`,
    '',
    '# Check your own stack in one line (my_inv_freq: its frequencies for that layer kind):',
    `# torch.testing.assert_close(my_inv_freq.float().cpu(), inv_freq[${pythonString(kinds[0]?.name ?? 'full_attention')}], rtol=1e-6, atol=0)`,
    '',
  ].join('\n');
}
