// Several curves on one axis, each told apart without colour alone: its own
// colour and dash pattern, its name written at its end, a checkbox that hides
// it, and a note naming curves that lie on top of each other.
import * as Plot from '@observablehq/plot';
import { plot } from './plot.js';
import { schemeObservable10, schemeTableau10 } from 'd3';
import { element } from './html.js';

/** The dash patterns of the curves, in order: the decay comparison draws one curve per family with a decay curve, each its own. */
export const DASHES = ['none', '7 4', '2 3', '10 3 2 3', '4 4', '1 2', '12 6', '6 2 2 2 2 2', '3 6', '8 2 1 2', '2 6', '14 3 3 3',
  '5 2 1 2 1 2', '9 3 3 3', '1 4', '16 4 4 4'];

/**
 * The largest difference between two series sampled at the same x, or Infinity when they do not share x.
 * @param {{x: number, y: number}[]} a
 */
function largestGap(a, b) {
  if (a.length !== b.length) return Infinity;
  let gap = 0;
  for (let k = 0; k < a.length; k++) {
    if (a[k].x !== b[k].x) return Infinity;
    gap = Math.max(gap, Math.abs(a[k].y - b[k].y));
  }
  return gap;
}

/**
 * Pairs of series that coincide on the plot: their largest gap is under `tolerance` of the y range.
 * @param {{name: string, points: {x, y}[]}[]} series
 * @returns {{a: string, b: string, gap: number}[]}
 */
export function coincident(series, tolerance = 0.01) {
  const ys = series.flatMap((s) => s.points.map((p) => p.y)).filter(Number.isFinite);
  const range = Math.max(...ys) - Math.min(...ys) || 1;
  const out = [];
  for (let i = 0; i < series.length; i++) {
    for (let j = i + 1; j < series.length; j++) {
      const gap = largestGap(series[i].points, series[j].points);
      if (gap <= tolerance * range) out.push({ a: series[i].name, b: series[j].name, gap });
    }
  }
  return out;
}

/**
 * The coincident pairs joined into groups (a coincides with b, b with c: one group a, b, c), each with the
 * largest gap between two of its members.
 * @returns {{names: string[], gap: number}[]}
 */
export function coincidentGroups(series, tolerance = 0.01) {
  const group = new Map();  // name -> its group (a Set shared by the members)
  for (const { a, b } of coincident(series, tolerance)) {
    const ga = group.get(a) ?? new Set([a]);
    const gb = group.get(b) ?? new Set([b]);
    for (const name of gb) ga.add(name);
    for (const name of ga) group.set(name, ga);
  }
  const points = new Map(series.map((s) => [s.name, s.points]));
  return [...new Set(group.values())].map((members) => {
    const names = series.map((s) => s.name).filter((name) => members.has(name));
    let gap = 0;
    for (const x of names) for (const y of names) if (x < y) gap = Math.max(gap, largestGap(points.get(x), points.get(y)));
    return { names, gap };
  });
}

/** The most names one end label lists; more are counted ("a, b, c +2"). */
const NAMES_PER_LABEL = 3;

/**
 * The names written at the curves' right ends; ends closer than 4% of the y range share one label (at most
 * NAMES_PER_LABEL names, then a count). A faded series has none: its toggle and the view's note name it.
 * @returns {{x, y, text, colour}[]}
 */
export function labelEnds(series, style) {
  const ends = series.filter((s) => s.points.length && !s.faded)
    .map((s) => ({ ...s.points[s.points.length - 1], name: s.short ?? s.name, key: s.name }))
    .filter((e) => Number.isFinite(e.y)).sort((a, b) => a.y - b.y);
  const ys = series.flatMap((s) => s.points.map((p) => p.y)).filter(Number.isFinite);
  const close = 0.04 * ((Math.max(...ys) - Math.min(...ys)) || 1);
  const groups = [];
  for (const e of ends) {
    const last = groups[groups.length - 1];
    if (last && e.y - last.y < close) last.names.push(e.name);
    else groups.push({ x: e.x, y: e.y, names: [e.name], colour: style.get(e.key).colour });
  }
  return groups.map(({ names, ...g }) => ({ ...g, text: names.length > NAMES_PER_LABEL
    ? `${names.slice(0, NAMES_PER_LABEL).join(', ')} +${names.length - NAMES_PER_LABEL}` : names.join(', ') }));
}

/**
 * A line chart of named series with dashes, direct labels, toggles and a coincidence note.
 * @param {object} o
 * @param {{name: string, short?: string, points: {x: number, y: number, [k: string]: any}[], bold?: boolean, hidden?: boolean,
 *   faded?: boolean, like?: string, dots?: boolean, band?: boolean}[]} o.series  short: the name written at the curve's end (the toggle
 *   gives "short: name"); hidden: unticked at first (a tick away); faded: drawn lighter (a curve of random parameters, not
 *   a property of its family); like: another series' name, whose colour this one takes, dotted (a validation curve
 *   beside its training curve); dots: dots at this series' points; band: a shaded band from each point's lo to its hi
 *   (where both are finite), under the curve, hidden with it
 * @param {number} o.width
 * @param {number} [o.height]
 * @param {object} o.x        Plot's x scale options (label, type, ...)
 * @param {object} o.y        Plot's y scale options
 * @param {object} o.theme    lib/theme.js
 * @param {object[]} [o.marks]  more Plot marks under the curves (rules, shading)
 * @param {Record<string, string>} [o.channels]  more tooltip channels: name -> point field
 * @param {(a: string, b: string, gap: number) => string} [o.explain]  why two series coincide (a sentence), or ''
 * @param {boolean} [o.dots]  dots at the points too (few points per series)
 * @returns {HTMLElement}
 */
export function curveChart(o) {
  const box = document.createElement('div');
  box.className = 'curve-chart';
  const names = o.series.map((s) => s.name);
  const colours = o.theme.dark ? schemeObservable10 : schemeTableau10;
  // Each series its own colour and dash, except a series `like` another: that one's colour, dotted.
  const own = o.series.filter((s) => !s.like);
  const style = new Map(own.map((s, k) => [s.name, { colour: colours[k % colours.length], dash: DASHES[k % DASHES.length] }]));
  for (const s of o.series) if (s.like) style.set(s.name, { colour: style.get(s.like).colour, dash: '1.5,3' });
  const shown = new Set(o.series.filter((s) => !s.hidden).map((s) => s.name));

  const toggles = document.createElement('div');
  toggles.className = 'curve-toggles';
  toggles.setAttribute('role', 'group');
  toggles.setAttribute('aria-label', 'curves shown');
  for (const name of names) {
    const label = document.createElement('label');
    const box2 = document.createElement('input');
    box2.type = 'checkbox';
    box2.checked = shown.has(name);
    box2.addEventListener('change', () => { if (box2.checked) shown.add(name); else shown.delete(name); draw(); });
    const swatch = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    swatch.setAttribute('width', '28');
    swatch.setAttribute('height', '10');
    swatch.setAttribute('aria-hidden', 'true');
    const line = document.createElementNS('http://www.w3.org/2000/svg', 'line');
    for (const [key, value] of Object.entries({ x1: 1, y1: 5, x2: 27, y2: 5, stroke: style.get(name).colour, 'stroke-width': 2.5,
      'stroke-dasharray': style.get(name).dash })) line.setAttribute(key, value);
    swatch.append(line);
    const short = o.series.find((s) => s.name === name).short;
    label.append(box2, swatch, document.createTextNode(short ? ` ${short}: ${name}` : ` ${name}`));
    toggles.append(label);
  }

  const note = document.createElement('p');
  note.className = 'note coincide-note';
  const called = (name) => { const short = o.series.find((s) => s.name === name).short; return short ? `${short} (${name})` : name; };
  /** The names in bold, as "a, b and c": nodes (a series' name may be a pasted config's). */
  const listed = (names) => names.flatMap((name, k) => [...(k === 0 ? [] : [k === names.length - 1 ? ' and ' : ', ']),
    element('b', {}, [called(name)])]);
  /** The note on the curves shown that lie on top of each other (none: no note). */
  function noteOn(visible) {
    const groups = coincidentGroups(visible);
    note.replaceChildren(...groups.flatMap(({ names, gap }, k) => [...(k === 0 ? [] : [' ']), ...listed(names), names.length === 2
      ? ` coincide here (largest gap ${gap.toPrecision(2)}): one is drawn over the other. ${o.explain?.(names[0], names[1], gap) ?? ''}`
      : ` coincide here (largest gap between two of them ${gap.toPrecision(2)}): drawn over one another.`]));
    note.hidden = groups.length === 0;
  }

  const holder = document.createElement('div');
  function draw() {
    const visible = o.series.filter((s) => shown.has(s.name));
    noteOn(visible);
    const rows = visible.flatMap((s) => s.points.map((p) => ({ ...p, series: s.name })));
    // Names at the ends, in at most a third of the width (longer ones cut; the toggles above name them whole).
    const room = Math.floor((o.width / 3 - 14) / 6.2);
    const ends = labelEnds(visible, style).map((e) => (e.text.length > room ? { ...e, text: `${e.text.slice(0, room - 1)}…` } : e));
    const marks = [...(o.marks ?? [])];
    for (const s of visible.filter((v) => v.band)) {
      const banded = s.points.filter((p) => Number.isFinite(p.lo) && Number.isFinite(p.hi));
      marks.push(Plot.areaY(banded, { x: 'x', y1: 'lo', y2: 'hi', fill: style.get(s.name).colour, fillOpacity: s.faded ? 0.08 : 0.16 }));
    }
    for (const s of visible) {
      const { colour, dash } = style.get(s.name);
      marks.push(Plot.lineY(s.points, { x: 'x', y: 'y', stroke: colour, strokeDasharray: dash, strokeWidth: s.bold ? 3 : 1.8,
        strokeOpacity: s.faded ? 0.5 : 1 }));
      if (o.dots || s.dots) marks.push(Plot.dot(s.points, { x: 'x', y: 'y', stroke: colour, r: 2, strokeOpacity: s.faded ? 0.5 : 1 }));
    }
    marks.push(
      Plot.text(ends, { x: 'x', y: 'y', text: 'text', fill: 'colour', textAnchor: 'start', dx: 6, fontSize: 11 }),
      Plot.tip(rows, Plot.pointer({ x: 'x', y: 'y', stroke: (d) => style.get(d.series).colour,
        channels: { series: 'series', ...(o.channels ?? {}) },
        format: { stroke: false, series: true, x: true, y: (v) => v.toPrecision(6) } })),
    );
    holder.replaceChildren(plot({
      width: o.width, height: o.height ?? 340, marginLeft: 64, marginBottom: 40,
      marginRight: 14 + 6.2 * Math.max(0, ...ends.map((e) => e.text.length)),
      x: { labelAnchor: 'center', labelOffset: 34, ...o.x }, y: { grid: true, ...o.y }, marks,
    }));
  }
  draw();
  box.append(toggles, holder, note);
  return box;
}
