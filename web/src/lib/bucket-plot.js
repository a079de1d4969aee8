// The plot of a relative-position bucket map, shared by T5's and DeBERTa's
// views: one dot per relative position, coloured by its region (one bucket per
// distance, logarithmic, saturated), a step line through them, a shaded band
// where every distance has its own bucket, and dashed rules at the limits.
import * as Plot from '@observablehq/plot';
import { plot } from './plot.js';
import { figureWidth } from './size.js';
import { themeOf } from './theme.js';

export const REGIONS = ['exact', 'logarithmic', 'saturated'];

/**
 * @param {Element} element
 * @param {object} o
 * @param {{relative: number, bucket: number, region: string}[]} o.rows  one per relative position
 * @param {string} o.xLabel  the relative position's axis, with its sign convention
 * @param {[number, number]} o.yDomain
 * @param {{x1: number, x2: number}} o.exact  the band of one bucket per distance
 * @param {{x: number, label: string}[]} o.rules  dashed limits, each labelled
 * @param {string} [o.relativeName]  the tooltip's name of the relative position ("j − i")
 */
export function bucketPlot(element, { rows, xLabel, yDomain, exact, rules, relativeName = 'j − i' }) {
  const theme = themeOf(element);
  element.replaceChildren(plot({
    width: figureWidth(element), height: 320, marginLeft: 56, marginBottom: 40,
    x: { label: xLabel, labelAnchor: 'center', labelOffset: 34 },
    y: { label: '↑ bucket', grid: true, domain: yDomain },
    color: { legend: true, domain: REGIONS, range: [theme.accent, theme.warm, theme.redText] },
    marks: [
      Plot.rectX([exact], { x1: 'x1', x2: 'x2', fill: theme.accent, fillOpacity: 0.12 }),
      Plot.ruleX(rules, { x: 'x', stroke: theme.redText, strokeDasharray: '4,3' }),
      Plot.text(rules.slice(0, 1), { x: 'x', text: 'label', frameAnchor: 'top', dx: 4, dy: 4, textAnchor: 'start', fill: theme.redText, fontSize: 11 }),
      Plot.lineY(rows, { x: 'relative', y: 'bucket', curve: 'step', stroke: theme.rule, strokeWidth: 1 }),
      Plot.dot(rows, { x: 'relative', y: 'bucket', fill: 'region', r: rows.length > 300 ? 1.2 : 2,
        channels: { [relativeName]: 'relative', bucket: 'bucket', region: 'region' },
        tip: { format: { x: false, y: false, fill: false } } }),
    ],
  }));
}
