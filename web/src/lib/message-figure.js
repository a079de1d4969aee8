// A figure that holds only a sentence: what a view draws when its model has nothing of
// the kind to show (so the reader sees why, and which models have it, instead of a blank).
import * as Plot from '@observablehq/plot';
import { plot } from './plot.js';
import { figureWidth } from './size.js';
import { themeOf } from './theme.js';

/** A framed figure the width of `element` with `text` in its middle, wrapped at about 60 characters. */
export function messageFigure(element, text) {
  const theme = themeOf(element);
  return plot({
    width: figureWidth(element), height: 120, x: { axis: null, domain: [0, 1] }, y: { axis: null, domain: [0, 1] },
    marks: [
      Plot.frame({ stroke: theme.faint }),
      Plot.text([text], { x: 0.5, y: 0.5, text: (d) => d, lineWidth: 60, fontSize: 13, fill: theme.grey }),
    ],
  });
}
