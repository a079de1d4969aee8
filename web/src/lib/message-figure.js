// A figure that holds only a sentence: what a view draws when its model has nothing of
// the kind to show (so the reader sees why, and which models have it, instead of a blank).
import * as Plot from '@observablehq/plot';
import { plot } from './plot.js';
import { figureWidth } from './size.js';
import { themeOf } from './theme.js';

/** A framed figure the width of `element` with `text` in its middle, wrapped to the figure (a phone's too). */
export function messageFigure(element, text) {
  const theme = themeOf(element);
  const width = figureWidth(element);
  // Plot wraps at lineWidth ems; a 13 px sans-serif line holds about two characters per em.
  const ems = Math.max(10, Math.min(60, (width - 40) / 13));
  const lines = Math.ceil(text.length / (2 * ems));
  return plot({
    width, height: Math.max(120, 18 * lines + 48), x: { axis: null, domain: [0, 1] }, y: { axis: null, domain: [0, 1] },
    marks: [
      Plot.frame({ stroke: theme.faint }),
      Plot.text([text], { x: 0.5, y: 0.5, text: (d) => d, lineWidth: ems, fontSize: 13, fill: theme.grey }),
    ],
  });
}
