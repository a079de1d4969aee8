// RoPE on the page: rope.js with its model presets (presets.js, read by the
// config reader as a pasted config.json would be). The preset control comes
// first; picking one fills the values, and changing a model value makes it
// "custom". Page only: the engine's worker never loads the presets.
// By name, not as a namespace (`import * as`): a namespace object spread into ropePage would make the bundler build
// it in rope.js's chunk, a chunk more (its runtime helper) before an embed of RoPE can draw; a test checks that
// ropePage carries every export of rope.js (tests/wasm/presets.test.mjs).
import { fields, jsonFields, parameters as ropeParameters, rawFromSpec as ropeRawFromSpec, spec, views } from '../families/page/rope.js';
import { PRESETS } from './presets.js';
import { format, parse, visibleNames } from '../state.js';
import { specFromConfig } from './model-config.js';
import { adjustPair } from '../families/rotary.js';

const PRESET = { name: 'preset', kind: 'choice', default: 'custom', choices: ['custom', ...PRESETS.map((p) => p.id)], label: 'model preset',
  choiceLabels: Object.fromEntries([['custom', 'custom (your values)'], ...PRESETS.map((p) => [p.id, p.label])]),
  help: 'Fills the values below from a published config.json.' };

const parameters = [PRESET, ...ropeParameters];

/**
 * The raw values a link's query is read against: the defaults, with a model
 * preset's values over them when the query names one (so its link stays short).
 */
function baseRaw(defaults, raw) {
  const id = raw.preset;
  if (!PRESETS.some((p) => p.id === id)) return defaults;
  const { preset: _, ...values } = rawFromPreset(id);
  return { ...defaults, ...values };
}

/** Raw control values of a preset by id. */
function rawFromPreset(id) {
  const preset = PRESETS.find((p) => p.id === id);
  const { spec: s, sliding } = specFromConfig(preset.config);
  return { ...ropeRawFromSpec(s, sliding), preset: id };
}

/** Whether raw holds preset `id`'s model values (those that apply; view settings aside). */
function matchesPreset(raw, id) {
  const mine = parse(parameters, raw).params;
  const its = parse(parameters, { ...raw, ...rawFromPreset(id) }).params;
  const model = parameters.filter((p) => !p.view && p.name !== 'preset');
  const applies = new Set([...visibleNames(model, mine), ...visibleNames(model, its)]);
  return model.every((p) => !applies.has(p.name) || format(mine[p.name]) === format(its[p.name]));
}

/**
 * Raw values made consistent after a change: picking a preset fills in its
 * values; a model value (not a view setting) that differs from the preset's,
 * changed in a control or given by a link, makes the preset "custom", as it no
 * longer describes them; the rotation pair stays in range (see adjustPair).
 * @param {Record<string, string>} raw
 * @param {string|null} changed  the control the reader changed (null: a loaded link)
 */
function adjustRaw(raw, changed) {
  if (changed === 'preset' && PRESETS.some((p) => p.id === raw.preset)) {
    raw = { ...raw, ...rawFromPreset(raw.preset) };
  } else if (PRESETS.some((p) => p.id === raw.preset) && !matchesPreset(raw, raw.preset)) {
    raw = { ...raw, preset: 'custom' };
  }
  return adjustPair(raw, changed);
}

/** The rope family as the page has it: rope.js, its parameters led by the preset control, and what presets do. */
export const ropePage = { fields, jsonFields, spec, views, rawFromSpec: ropeRawFromSpec, parameters, baseRaw, rawFromPreset, adjustRaw };
