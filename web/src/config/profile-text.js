// A pasted config.json's per-layer profile with the core's names: config/profile.js readProfile given the family types
// and rope_type names of describe(). A module of its own so that the page, which reads configs through model-config.js
// (presets, compare mode), does not load the profile reader; the engine's worker imports it on first use (calls.js profile).
import { FAMILY_TYPES, ROPE_TYPES } from '../describe.js';
import { parseConfigText } from './hf-config.js';
import { IGNORED_LISTED } from './model-config.js';
import { readProfile } from './profile.js';

/**
 * A pasted config.json's per-layer profile (profile.js readProfile with the core's names): {read, num_hidden_layers,
 * kinds, layers, mrope, notes, model (the name the legends use)}, read.ignored cut to its first 40 (read.ignoredCount: how many).
 * @param {string} text
 * @throws {Error} .param 'config': not JSON, nested too deeply, not a config posenc reads, or layer keys that contradict
 */
export function profileFromText(text) {
  const config = parseConfigText(text);
  const profile = readProfile(config, { familyTypes: FAMILY_TYPES, ropeTypes: ROPE_TYPES });
  const { read } = profile;
  return { ...profile, model: modelName(config),
    read: { ...read, ignored: read.ignored.slice(0, IGNORED_LISTED), ignoredCount: read.ignored.length } };
}

/** The model a config names: its _name_or_path's last part, else its (text config's) model_type, else "pasted config". */
function modelName(config) {
  const named = config?._name_or_path ?? config?.text_config?.model_type ?? config?.model_type;
  return typeof named === 'string' && named.trim() ? named.trim().split('/').pop() : 'pasted config';
}
