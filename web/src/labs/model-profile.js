// The model lab: every layer of a model as its runtime reads the config (issue 26). The config reader's per-layer profile
// (config/profile.js, run in the engine's worker) says which layers rotate, with which base, scaling and share of pairs,
// which attend through a sliding or chunked window and which carry no position at all; the core computes each layer
// kind's frequencies, decay and its numbers under three inference stacks. A config comes from a ready-made model, a
// paste, or a llama.cpp .gguf file's header (the page's file picker, config/gguf.js). This file is the page's (controls,
// ready-made models); the worker computes with model-profile-fields.js.
import { MODEL_PROFILES, presetText } from '../config/profile-presets.js';

export const formula = 'Every layer of a model as transformers reads its config.json: which layers rotate and with which base, ' +
  'scaling and share of pairs; which attend through a sliding or chunked window; which carry no position at all (NoPE). ' +
  'Pick a model, paste a config.json, or open a llama.cpp .gguf file (only its header is read).';

export const parameters = [
  { name: 'model', kind: 'choice', default: 'gemma-4', choices: ['custom', ...Object.keys(MODEL_PROFILES)], label: 'model',
    choiceLabels: { custom: 'custom (the config below)', ...Object.fromEntries(Object.entries(MODEL_PROFILES).map(([k, m]) => [k, m.label])) },
    help: 'Fills the config below with the model’s positional keys (its whole config.json is on the Hugging Face Hub).' },
  { name: 'config_json', kind: 'text', rows: 9, default: presetText('gemma-4'), label: 'config.json',
    help: 'A whole config.json (or its text_config): every key that decides how a layer sees positions is read; the notes say which.' },
  { name: 'seq_len', view: true, kind: 'int', default: 8192, min: 1, max: 1e9, sliderMin: 16, sliderMax: 1048576, log: true,
    label: 'context (tokens)', help: 'The sequence length the frequencies are computed for (dynamic NTK and longrope read it).' },
  { name: 'max_distance', view: true, kind: 'int', default: 1024, min: 1, max: 200000, sliderMin: 16, log: true, label: 'decay: max distance' },
  { name: 'layer_kind', view: true, kind: 'optional-int', default: null, min: 0, max: 7, placeholder: 'where they differ most',
    label: 'three stacks: layer kind (0 = first)',
    help: 'Which of the model’s layer kinds the three-stack comparison reads (the strip numbers them). Empty: the kind ' +
      'where the stacks differ most (the most pairs of stacks that disagree; the first such kind).' },
];

/** The raw values a link is read against: the defaults, with a ready-made model's config. */
export function baseRaw(defaults, raw) {
  return Object.hasOwn(MODEL_PROFILES, raw.model) ? { ...defaults, config_json: presetText(raw.model) } : defaults;
}

/** Picking a model fills its config; a config that differs from the model's makes it "custom". */
export function adjustRaw(raw, changed) {
  if (!Object.hasOwn(MODEL_PROFILES, raw.model)) return raw;
  if (changed === 'model') return { ...raw, config_json: presetText(raw.model) };
  return (raw.config_json ?? '').trim() !== presetText(raw.model) ? { ...raw, model: 'custom' } : raw;
}

export { fields } from './model-profile-fields.js';

export const views = ['profile-layers', 'profile-spectrum', 'profile-decay', 'profile-stacks', 'profile-temperature', 'profile-mrope'];
