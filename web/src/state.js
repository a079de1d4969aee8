// The playground's state: a plain params object, read from and written to the
// URL query, so a link reproduces a view. Controls hand in raw strings; parse()
// turns them into typed params, or per-parameter messages in the core's format
// ("<name> = <value> is invalid: expected <range>"). The range of an encoding's
// key (d_model, base, factor, ...) is the core's alone: here such a value is
// only read as a number, and the core's message for it comes back from the
// engine. A view setting (positions drawn, a decay's distance) has the page's
// own limits, min and max, and its message says they are the page's.
//
// A parameter: {name, kind, default, label, help?, min?, max? (view settings
//   only), sliderMin?, sliderMax?, log?, step?, choices?, choiceLabels?,
//   when?(params), view? (a setting of the views, not of the encoding),
//   coreDefault?, why? (a control of a core key, describe.js coreParameter: the
//   core's default, and why the page's differs)}; kinds:
//   int, number, optional-int, optional-number (blank = absent), choice, bool,
//   list (of numbers), dims, text.

import { invalid } from './errors.js';
import { format } from './lib/format.js';

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

function parseOne(p, raw) {
  const text = String(raw ?? '').trim();
  switch (p.kind) {
    case 'optional-int':
    case 'optional-number':
      if (text === '') return null;
    // falls through
    case 'int':
    case 'number': {
      // Decimal notation only: Number() would also read "0x10" as 16 and "" as 0.
      const x = DECIMAL.test(text) ? Number(text) : NaN;
      const integer = p.kind.endsWith('int');
      if (!p.view) {  // an encoding's key: the core checks its range
        if (!Number.isFinite(x)) throw invalid(p.name, text || '(empty)', integer ? 'an integer' : 'a finite number');
        return x;
      }
      const range = `[${p.min}, ${p.max}] (the page's limit)`;
      if (integer && (!Number.isInteger(x) || x < p.min || x > p.max)) throw invalid(p.name, text || '(empty)', `an integer in ${range}`);
      if (!integer && (!Number.isFinite(x) || x < p.min || x > p.max)) throw invalid(p.name, text || '(empty)', `a number in ${range}`);
      return x;
    }
    case 'text':
      return String(raw ?? '');
    case 'choice':
      if (!p.choices.includes(text)) throw invalid(p.name, JSON.stringify(text), `one of ${p.choices.join(', ')}`);
      return text;
    case 'bool':
      if (text !== 'true' && text !== 'false') throw invalid(p.name, JSON.stringify(text), 'true or false');
      return text === 'true';
    case 'list': {
      if (text === '') return null;
      const values = text.replace(/^\[|\]$/g, '').split(/[\s,]+/).filter(Boolean).map(Number);
      if (!values.every(Number.isFinite)) throw invalid(p.name, JSON.stringify(text.slice(0, 40)), 'a list of numbers such as 1, 1.5, 2');
      return values;
    }
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

export { format };

/** The defaults of a parameter list, as raw strings. */
export function defaultsOf(parameters) {
  return Object.fromEntries(parameters.map((p) => [p.name, format(p.default)]));
}

/** The parameters of the list that apply to params (their `when` holds). */
export function visibleNames(parameters, params) {
  return new Set(parameters.filter((p) => !p.when || p.when(params)).map((p) => p.name));
}

/**
 * Parses raw strings into params. Errors of parameters that do not apply
 * (their `when` is false) are dropped.
 * @param {object[]} parameters
 * @param {Record<string, string>} raw  missing names take their defaults
 * @returns {{params: object, errors: Record<string, string>}}
 */
export function parse(parameters, raw) {
  const params = {};
  const errors = {};
  for (const p of parameters) {
    try {
      params[p.name] = Object.hasOwn(raw, p.name) ? parseOne(p, raw[p.name]) : p.default;
    } catch (message) {
      errors[p.name] = String(message);
      params[p.name] = p.default;
    }
  }
  const visible = visibleNames(parameters, params);
  for (const name of Object.keys(errors)) if (!visible.has(name)) delete errors[name];
  return { params, errors };
}

/**
 * Reads state from a URL query (or a component's attributes): the raw string of
 * each parameter of the list, and a warning for every key the list does not
 * have and every value that does not parse; such a value is left out, so its
 * parameter keeps its default, and the page always draws.
 * @param {object[]} parameters  the family's list (parametersOf)
 * @param {Iterable<[string, string]>} entries  e.g. new URLSearchParams(location.search)
 * @param {object} [o]
 * @param {string[]} [o.shellKeys]  keys the shell reads itself (view, controls, theme): no warning
 * @param {string} [o.familyLabel]  for the message about a key of another family
 * @param {Set<string>} [o.otherKeys]  the keys of every family
 * @returns {{raw: Record<string, string>, warnings: {param: string, message: string}[]}}
 */
export function readQuery(parameters, entries, { shellKeys = [], familyLabel = 'this encoding', otherKeys = new Set() } = {}) {
  const byName = new Map(parameters.map((p) => [p.name, p]));
  const raw = {};
  const warnings = [];
  for (const [key, value] of entries) {
    if (shellKeys.includes(key)) continue;
    const p = byName.get(key);
    if (!p) {
      warnings.push({ param: key, message: otherKeys.has(key)
        ? `${key} = ${JSON.stringify(value)} ignored: ${familyLabel} has no parameter ${key}`
        : `${key} = ${JSON.stringify(value)} ignored: unknown parameter` });
      continue;
    }
    try {
      parseOne(p, value);
      raw[key] = value;
    } catch (message) {
      warnings.push({ param: key, message: `${message}; using the default ${JSON.stringify(format(p.default) || p.placeholder || '(none)')}` });
    }
  }
  return { raw, warnings };
}

/**
 * The raw values that carry over to another family: those of the settings both
 * share (the same name, both model settings or both view settings) that the
 * reader changed from the old default and that parse in the new family (a view
 * setting within its limits; a model setting the core may still refuse, and
 * then says so beside its control).
 */
export function carryOver(fromParameters, raw, toParameters) {
  const out = {};
  for (const p of toParameters) {
    const q = fromParameters.find((x) => x.name === p.name);
    if (!q || p.name === 'encoding' || Boolean(q.view) !== Boolean(p.view) || !Object.hasOwn(raw, p.name) || raw[p.name] === format(q.default)) continue;
    try {
      parseOne(p, raw[p.name]);
      out[p.name] = raw[p.name];
    } catch { /* out of the new family's range: its default */ }
  }
  return out;
}

/**
 * The query string of params: the parameters that apply and differ from `base`
 * (raw strings; by default the parameters' defaults, for a model preset its values).
 */
export function toQuery(parameters, params, base = defaultsOf(parameters)) {
  const query = new URLSearchParams();
  const visible = visibleNames(parameters, params);
  for (const p of parameters) {
    // p.toLink: how the link writes a value (compare mode: a pasted config.json as its short line).
    const value = p.toLink ? p.toLink(format(params[p.name])) : format(params[p.name]);
    // A list is written compactly (1,2 for "1, 2"); a text, as the reader typed it.
    const compact = p.kind === 'list' || p.kind === 'dims';
    if (visible.has(p.name) && value !== base[p.name]) query.set(p.name, compact ? value.replaceAll(', ', ',') : value);
  }
  const text = query.toString().replaceAll('%2C', ',');
  return text ? `?${text}` : '';
}

// Names the JS API uses for what the page calls otherwise (looked up as own keys: a .param is never Object.prototype's).
// The core names some arguments as its JS functions do (seqLen); the page's controls use the config key.
const ALIASES = { seqLen: 'seq_len', maxDistance: 'max_distance', nHeads: 'n_heads' };

/**
 * The control an error belongs to: its .param (set by the core for every bad
 * input, and by the page's own checks), as the page names that control; null
 * when the error names none, or a control not in `parameters`.
 */
export function parameterOf(parameters, error) {
  const name = error?.param && ((Object.hasOwn(ALIASES, error.param) ? ALIASES[error.param] : null) ?? error.param);
  return name && parameters.some((p) => p.name === name) ? name : null;
}
