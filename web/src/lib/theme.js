// The page's two themes, as the figures need them: the colours the plotting
// library is handed (it cannot read CSS variables) and the colour maps of the
// heatmaps (d3 interpolators over t in [0, 1]). A figure asks for the theme of
// the element it draws into, so the same view is light in a light page and
// dark in a dark one (the stylesheet sets --posenc-dark from
// prefers-color-scheme, or from theme=light|dark).
import { interpolateLab, interpolatePlasma, interpolatePurples, interpolateRdBu, interpolateViridis, piecewise } from 'd3';

const LIGHT = {
  dark: false,
  accent: '#2f6690', warm: '#e08e0b', violet: '#6a4c93', red: '#d1495b', redText: '#a12c3c', grey: '#8a8f98',
  rule: '#999', faint: '#cccccc', fainter: '#dddddd', categorical: 'tableau10',
  // Heatmaps: diverging red-blue with white at 0 (negative blue); weights from white to purple.
  diverging: (t) => interpolateRdBu(1 - t),
  sequential: interpolatePurples,
  // Positions along a sequence (the rotation's arrows).
  ordered: interpolateViridis,
};

const DARK = {
  dark: true,
  accent: '#7cb7e8', warm: '#f2a93b', violet: '#b59ae0', red: '#ef6f7f', redText: '#f29aa6', grey: '#9aa3b2',
  rule: '#8a8f98', faint: '#555b66', fainter: '#40454f', categorical: 'observable10',
  // Heatmaps: 0 is the page's own dark and large values are bright, so the
  // structure stands out of the background instead of sitting in a white square.
  diverging: piecewise(interpolateLab, ['#4ea3f2', '#1c1f26', '#f2674f']),
  sequential: piecewise(interpolateLab, ['#1c1f26', '#6244c0', '#c7b3ff']),
  // Positions along a sequence: plasma from its violet on, so the first one is not lost in the background.
  ordered: (t) => interpolatePlasma(0.3 + 0.7 * t),
};

/** The theme of the page or shadow root `element` is drawn in. */
export function themeOf(element) {
  const flag = element && element.isConnected ? getComputedStyle(element).getPropertyValue('--posenc-dark').trim() : '';
  return flag === '1' ? DARK : LIGHT;
}
