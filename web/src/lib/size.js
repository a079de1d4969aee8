// The width a figure takes in its box.

/**
 * The width a figure in `element` should take: its box, within [min, max]
 * (below min the figure scrolls inside its own box rather than squeeze its labels).
 */
export function figureWidth(element, max = 960, min = 300) {
  return Math.max(min, Math.min(element.clientWidth || 720, max));
}
