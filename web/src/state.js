// The playground's state: a plain params object, read from and written to the
// URL query, so a link reproduces a view. Controls hand in raw strings; parse()
// turns them into typed params or per-parameter error messages in the core's
// format ("<name> = <value> is invalid: expected <range>"). Semantic rules of
// an encoding (d_model even, base > 1) are the core's and come back from the
// engine; here live only the types and the page's own slider limits.

/** Every URL parameter, in the order the controls show them. */
export const PARAMETERS = [
  { name: 'n', kind: 'int', default: 128, min: 1, max: 4096, label: 'positions n', unit: 'tokens' },
  { name: 'd_model', kind: 'int', default: 128, min: 2, max: 1024, step: 2, label: 'd_model' },
  { name: 'base', kind: 'number', default: 10000, min: 10, max: 1e6, log: true, label: 'base' },
  { name: 'layout', kind: 'choice', default: 'interleaved', choices: ['interleaved', 'concat'], label: 'layout' },
  { name: 'timescales', kind: 'choice', default: 'vaswani', choices: ['vaswani', 'tensor2tensor'], label: 'timescales' },
  { name: 'dims', kind: 'dims', default: 'auto', label: 'wave dimensions' },
];

const byName = new Map(PARAMETERS.map((p) => [p.name, p]));

function invalid(name, value, expected) {
  return `${name} = ${value} is invalid: expected ${expected}`;
}

function parseOne(p, raw) {
  const text = String(raw ?? '').trim();
  switch (p.kind) {
    case 'int':
    case 'number': {
      const x = text === '' ? NaN : Number(text);
      if (p.kind === 'int') {
        if (!Number.isInteger(x) || x < p.min || x > p.max) throw invalid(p.name, text || '(empty)', `an integer in [${p.min}, ${p.max}]`);
      } else if (!Number.isFinite(x)) {
        throw invalid(p.name, text || '(empty)', 'a finite number');
      }
      return x;
    }
    case 'choice':
      if (!p.choices.includes(text)) throw invalid(p.name, JSON.stringify(text), `one of ${p.choices.join(', ')}`);
      return text;
    case 'dims': {
      if (text === '' || text === 'auto') return 'auto';
      const dims = text.split(/[\s,]+/).filter(Boolean).map(Number);
      if (dims.length > 12 || !dims.every((d) => Number.isInteger(d) && d >= 0)) {
        throw invalid(p.name, JSON.stringify(text), '"auto" or up to 12 dimension indices such as 0, 10, 40');
      }
      return dims;
    }
    default:
      throw new Error(`state: unknown parameter kind ${p.kind}`);
  }
}

/**
 * Parses raw strings (from controls or the URL) into params.
 * @param {Record<string, string>} raw  values by parameter name; missing ones take defaults
 * @returns {{params: object, errors: Record<string, string>}} errors by parameter name
 */
export function parse(raw) {
  const params = {};
  const errors = {};
  for (const p of PARAMETERS) {
    try {
      params[p.name] = p.name in raw ? parseOne(p, raw[p.name]) : p.default;
    } catch (message) {
      errors[p.name] = String(message);
    }
  }
  return { params, errors };
}

/** Raw strings of the URL query (`?n=64&d_model=32`); unknown keys are ignored. */
export function fromQuery(search) {
  const query = new URLSearchParams(search);
  const raw = {};
  for (const [key, value] of query) if (byName.has(key)) raw[key] = value;
  return raw;
}

/** The query string of params, leaving out defaults so links stay short. */
export function toQuery(params) {
  const query = new URLSearchParams();
  for (const p of PARAMETERS) {
    const value = Array.isArray(params[p.name]) ? params[p.name].join(',') : String(params[p.name]);
    if (value !== String(p.default)) query.set(p.name, value);
  }
  const text = query.toString().replaceAll('%2C', ',');
  return text ? `?${text}` : '';
}

/** Raw strings of params, as the controls show them. */
export function toRaw(params) {
  return Object.fromEntries(PARAMETERS.map((p) => [p.name, Array.isArray(params[p.name]) ? params[p.name].join(', ') : String(params[p.name])]));
}

/** The spec object the engine sends to the core (DESIGN.md spec format). */
export function encodingSpec(params) {
  return { type: 'sinusoidal', d_model: params.d_model, base: params.base, layout: params.layout, timescales: params.timescales };
}

/** The parameter a core error message is about ("d_model = 7 is invalid..." -> "d_model"), if it is one of ours. */
export function parameterOf(message) {
  const match = /^(\w+) = /.exec(message);
  return match && byName.has(match[1]) ? match[1] : null;
}
