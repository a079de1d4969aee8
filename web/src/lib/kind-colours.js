// The colours of a model's layer kinds (labs/model-profile-fields.js), the same in every view of the model lab: the kinds
// that rotate take the theme's colours in order, those without position encoding (NoPE, linear attention) its grey.

/**
 * @param {{dark: boolean, accent: string, red: string, warm: string, violet: string, grey: string}} theme  lib/theme.js
 * @param {{name: string, rope: ?object}[]} kinds  every kind of the model, in its order
 * @returns {{domain: string[], range: string[], of: (name: string) => string}}  Plot's colour scale by kind name, and a lookup
 */
export function kindColours(theme, kinds) {
  const turning = [theme.accent, theme.red, theme.warm, theme.violet, '#3a9d5d', '#b5651d', '#5b8e7d', '#a05195'];
  let next = 0;
  const range = kinds.map((k) => (k.rope ? turning[next++ % turning.length] : theme.grey));
  const domain = kinds.map((k) => k.name);
  return { domain, range, of: (name) => range[domain.indexOf(name)] };
}
