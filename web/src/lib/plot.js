// Observable Plot's charts, fit for a page under a strict Content-Security-Policy
// (style-src 'self', no 'unsafe-inline'). Plot.plot puts a <style> element in
// every chart, swatch legend and ramp legend, which such a policy blocks (one
// violation each, and the chart loses those rules). plot() names its charts
// with the class `posenc-plot` and removes those elements before the chart is
// placed in a document; views.css carries the same rules for that class.

import * as Plot from '@observablehq/plot';

/** Plot.plot(options) without its <style> elements; the class `posenc-plot` (views.css styles it). */
export function plot(options) {
  const chart = Plot.plot({ className: 'posenc-plot', ...options });
  for (const style of chart.querySelectorAll('style')) style.remove();
  // Plot names each mark's <g> with aria-label ("line", "x-axis tick"); ARIA allows a name on a <g> only with a
  // role (axe-core: aria-prohibited-attr), so each named mark is a group, read as "line, group".
  for (const g of chart.querySelectorAll('g[aria-label]:not([role])')) g.setAttribute('role', 'group');
  // A mark drawn as one element (Plot.frame's rect) is named on that element: an image, for the same reason.
  for (const shape of chart.querySelectorAll('rect[aria-label]:not([role]), path[aria-label]:not([role])')) shape.setAttribute('role', 'img');
  return chart;
}
