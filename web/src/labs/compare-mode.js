// Compare mode: two to four configurations (any families, or one family with
// other values, a model preset, or a pasted model config.json) on one decay
// axis, one spectrum axis, and their attention maps for one sentence on one
// colour scale. Each configuration is a line of text: the encoding, then
// key=value pairs of its playground parameters ("rope preset=llama-2-7b").
// The page reads the lines (request: each line's family and parameters, as the
// page's own parser reads a link); the engine's worker computes from what it
// read (labs/compare-mode-fields.js).
import { COMPARE_DISTANCE, COMPARE_VALUES } from '../families/compare.js';
import { ATTENTION_PARAMETERS } from './attention-lab.js';
import { familyPage, loadFamilyPages, rawFromSpec } from '../families/pages.js';
import { FAMILY_TYPES } from '../describe.js';
import { defaultsOf, parse } from '../state.js';
import { specFromConfig } from '../config/model-config.js';
import { parseConfigText } from '../config/hf-config.js';

export const formula = 'each configuration: the encoding, then its parameters, e.g. “rope preset=llama-3.1-8b” ' +
  'or “rope rope_type=yarn factor=8”; or a pasted model config.json';

export const SLOTS = ['config_a', 'config_b', 'config_c', 'config_d'];

/** Ready-made comparisons: the slots each fills. */
export const COMPARISONS = {
  // Four shapes, none a copy of another (RoPE at rope_theta 10000 would be the sinusoid's curve, by construction) and
  // none a random draw: a wave, a slower wave, a straight line, a logarithm.
  families: { label: 'sinusoidal vs RoPE (θ 500000) vs ALiBi vs KERPLE (one sentence)',
    slots: ['sinusoidal d_model=64', 'rope head_dim=64 rope_theta=500000', 'alibi', 'kerple'] },
  llama: { label: 'Llama-2 vs Llama-3.1 (spectra)', slots: ['rope preset=llama-2-7b', 'rope preset=llama-3.1-8b', '', ''] },
  scalings: { label: 'PI vs NTK vs YaRN vs llama3, factor 8', slots: ['rope rope_type=linear factor=8 seq_len=32768',
    'rope rope_type=ntk factor=8 seq_len=32768', 'rope rope_type=yarn factor=8 original_max_position_embeddings=4096 seq_len=32768',
    'rope rope_type=llama3 factor=8 original_max_position_embeddings=4096 seq_len=32768'] },
  bias: { label: 'ALiBi vs T5 vs KERPLE vs NoPE (decay)', slots: ['alibi', 't5', 'kerple', 'none'] },
  extrapolation: { label: 'FIRE vs ALiBi vs T5 past a training length of 512',
    slots: ['fire init_L=512', 'alibi causal=true', 't5 bidirectional=false', ''] },
  newer: { label: 'DeBERTa vs FIRE vs CoPE (one sentence)', slots: ['deberta', 'fire', 'cope', ''] },
  // Two 2025 ideas against the RoPE they answer: a forget gate instead of positions, and RoPE's phases without the content.
  recent: { label: 'FoX vs PoPE vs RoPE (2025, one sentence)', slots: ['fox', 'pope', 'rope', ''] },
};

const slotHelp = 'The encoding, then key=value pairs of its controls (as in its link), e.g. “rope preset=llama-2-7b rope_theta=10000”; ' +
  'or a model’s config.json pasted whole. Empty: unused.';

export const parameters = [
  { name: 'comparison', kind: 'choice', default: 'families', choices: ['custom', ...Object.keys(COMPARISONS)], label: 'comparison',
    choiceLabels: { custom: 'custom (your configurations)', ...Object.fromEntries(Object.entries(COMPARISONS).map(([k, c]) => [k, c.label])) },
    help: 'Fills the configurations below.' },
  ...SLOTS.map((name, k) => ({ name, kind: 'text', default: COMPARISONS.families.slots[k], label: `configuration ${'ABCD'[k]}`,
    help: k === 0 ? slotHelp : undefined, toLink: (text) => linkLine(text) })),
  COMPARE_VALUES,
  COMPARE_DISTANCE,
  ...ATTENTION_PARAMETERS.filter((p) => p.name !== 'text2' && p.name !== 'terms_scale' && p.name !== 'panels_scale'),
];

/** The named comparison `name` (a link's value: "constructor" names none), or undefined. */
const namedComparison = (name) => (typeof name === 'string' && Object.hasOwn(COMPARISONS, name) ? COMPARISONS[name] : undefined);

/** A named comparison's configurations as raw values: {config_a: ..., config_d: ...}. */
const filled = (named) => Object.fromEntries(SLOTS.map((s, k) => [s, named.slots[k]]));

/** The raw values a link is read against: the defaults, with a named comparison's configurations. */
export function baseRaw(defaults, raw) {
  const named = namedComparison(raw.comparison);
  return named ? { ...defaults, ...filled(named) } : defaults;
}

/**
 * Raw values made consistent: picking a comparison fills its configurations; configurations that
 * differ from the named comparison's (from a control or a link) make it "custom".
 */
export function adjustRaw(raw, changed) {
  const named = namedComparison(raw.comparison);
  if (!named) return raw;
  if (changed === 'comparison') return { ...raw, ...filled(named) };
  return SLOTS.some((s, k) => (raw[s] ?? '').trim() !== named.slots[k]) ? { ...raw, comparison: 'custom' } : raw;
}

/** The longest configuration line read (a pasted config.json included): parsing 1 MiB of JSON takes ~10 ms. */
export const MAX_SLOT_CHARS = 2 ** 20;

/**
 * Reads one configuration line into its family and parameters.
 * @param {string} slot  the parameter name (config_a ...), for messages
 * @param {string} text  "rope preset=llama-2-7b rope_theta=10000", or a model config.json; its family's page file
 *   loaded (loadFamilyPages, familiesOf: request does)
 * @returns {{family: string, params: object, label: string}}
 * @throws {RangeError} naming the slot, the text and what is wrong, with .param = slot; an Error if its family's file
 *   is not loaded
 */
export function readSlot(slot, text) {
  const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text;
  const fail = (why) => Object.assign(new RangeError(`${slot} = ${JSON.stringify(shown)} is invalid: ${why}`), { param: slot });
  // The page reads a line on its own thread at every change (and again to write the link): a cheap size check first.
  if (text.length > MAX_SLOT_CHARS) {
    throw fail(`${text.length} characters, more than ${MAX_SLOT_CHARS}: a model's config.json is a few kilobytes (or paste its positional keys)`);
  }
  const trimmed = text.trim();
  let family;
  let raw = {};
  let model = null;  // a pasted config's model: its _name_or_path (as transformers saves it), else its model_type
  if (trimmed.startsWith('{')) {
    let config;
    try { config = parseConfigText(trimmed); } catch (error) { throw fail(error.message.replace(/^config: /, '')); }
    const named = config?._name_or_path ?? config?.model_type;
    model = typeof named === 'string' && named.trim() ? named.trim().split('/').pop() : null;
    let read;
    try { read = specFromConfig(config); } catch (error) { throw fail(error.message.replace(/^config: /, '')); }
    family = read.spec.type;
    raw = rawFromSpec(read.spec, read.sliding);
  } else {
    const [name, ...pairs] = trimmed.split(/\s+/);
    family = name;
    if (!FAMILY_TYPES.includes(family)) throw fail(`expected an encoding first, one of ${FAMILY_TYPES.join(', ')}`);
    const given = [];
    for (const pair of pairs) {
      const at = pair.indexOf('=');
      if (at < 1) throw fail(`expected key=value pairs after the encoding, not ${JSON.stringify(pair)}`);
      if (pair.slice(0, at) === 'as') model = pair.slice(at + 1);  // the name a pasted config had (linkLine)
      else given.push([pair.slice(0, at), pair.slice(at + 1)]);
    }
    // Object.fromEntries: a key "__proto__" is an entry (refused below as no parameter), not the object's prototype.
    raw = Object.fromEntries(given);
  }
  const f = familyPage(family);
  const list = f.parameters;
  const unknown = Object.keys(raw).filter((k) => !list.some((p) => p.name === k));
  if (unknown.length) throw fail(`${family} has no parameter ${unknown[0]}`);
  const defaults = defaultsOf(list);
  const full = { ...(f.baseRaw ? f.baseRaw(defaults, raw) : defaults), ...raw };
  const { params, errors } = parse(list, full);
  const first = Object.values(errors)[0];
  if (first) throw fail(first);
  const scaling = family === 'rope' ? `, ${params.rope_type}` : '';
  const label = model ? `${model} (${family}${scaling})` : trimmed.startsWith('{') ? `${family} (pasted config${scaling})` : trimmed;
  return { family, params: { ...params, encoding: family }, label, raw, model };
}

/**
 * The families lines `texts` name, read as cheaply as readSlot would find them (a line's first word; a pasted
 * config's type, the config reader's); a line that does not read names none (readSlot says why).
 * @param {string[]} texts
 * @returns {string[]}
 */
export function familiesOf(texts) {
  return texts.flatMap((text) => {
    const trimmed = text.trim();
    if (text.length > MAX_SLOT_CHARS || !trimmed) return [];
    if (!trimmed.startsWith('{')) return [trimmed.split(/\s+/)[0]];
    try { return [specFromConfig(parseConfigText(trimmed)).spec.type]; } catch { return []; }
  });
}

/**
 * A configuration as its link writes it (its family's page file loaded, as a line the page has read has it; else the
 * text itself): a pasted config.json (kilobytes) as the line it reads into, "<encoding>
 * key=value ..." with the values that differ from the family's defaults, and as=<model> naming it; a line as it is.
 * What does not read is linked as typed (the page says what is wrong).
 */
export function linkLine(text) {
  if (!text.trim().startsWith('{')) return text;
  let read;
  try { read = readSlot('config', text); } catch { return text; }
  const defaults = defaultsOf(familyPage(read.family).parameters);
  const pairs = Object.entries(read.raw).filter(([k, v]) => !/\s/.test(String(v)) && String(v) !== String(defaults[k]))
    .map(([k, v]) => `${k}=${String(v).replaceAll(', ', ',')}`);
  const line = [read.family, ...pairs, ...(read.model && !/\s/.test(read.model) ? [`as=${read.model}`] : [])].join(' ');
  try { readSlot('config', line); } catch { return text; }  // (a value the line form cannot carry: the text itself)
  return line;
}

/** The configurations in use, read: [{slot, family, params, label}]. */
function slotsOf(params) {
  const used = SLOTS.filter((s) => params[s].trim() !== '');
  if (used.length < 2) {
    throw Object.assign(new RangeError(`${SLOTS.find((s) => params[s].trim() === '')} = "" is invalid: compare needs at least 2 configurations`),
      { param: SLOTS.find((s) => params[s].trim() === '') });
  }
  return used.map((slot) => ({ slot, short: 'ABCD'[SLOTS.indexOf(slot)], ...readSlot(slot, params[slot]) }));
}

/**
 * The params sent to the engine: params with `slots`, the configurations read ([{slot, short, family, params,
 * label}]), or {error: {message, param}} naming the line that does not read (labs/compare-mode-fields.js throws it).
 * The page files of the families the lines name load first (loadFamilyPages): only theirs.
 * @param {object} params
 * @returns {Promise<object>}
 */
export async function request(params) {
  const texts = SLOTS.map((s) => params[s] ?? '');
  try {
    await loadFamilyPages(familiesOf(texts));
  } catch (error) {
    const param = SLOTS.find((s, k) => texts[k].trim() !== '');
    return { ...params, slots: { error: { message: `${param}: an encoding's file could not load (${error?.message ?? error}); change a value to try again`, param } } };
  }
  try {
    return { ...params, slots: slotsOf(params) };
  } catch (error) {
    return { ...params, slots: { error: { message: error.message, param: error.param } } };
  }
}

export const views = ['compare-decay', 'compare-spectrum', 'compare-attention'];

// The default comparison's families' files, asked for as this file arrives, beside the view's code: its first figure
// waits for them, and request (which loads what any lines name) runs only once the view's code has loaded.
loadFamilyPages(familiesOf(COMPARISONS.families.slots)).catch(() => {});  // a failure is said by the request
