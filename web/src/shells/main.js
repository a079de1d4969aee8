// The playground: the URL's state, every view of the chosen encoding, its
// controls, and the history (each committed change is a step of Back/Forward).
import { linkify } from '../citations.js';
import { sharedEngine } from '../engine/page.js';
import { needsFullModule } from '../engine/modules.js';
import { carryOver } from '../state.js';
import { createStage, queryOf, readLink } from '../stage.js';
import { ENCODING, FAMILY_NAMES, familyLabel, loadFamily, loadedFamily, parametersOf } from '../families/catalogue.js';
import { familyDescription } from '../describe.js';
import { createWarnings } from '../warnings.js';
import { viewIdOf } from '../views/index.js';

const form = document.getElementById('controls');
const viewsBox = document.getElementById('views');
const sidebar = document.getElementById('sidebar');
const panel = document.getElementById('controls-panel');
const generalError = document.getElementById('error-general');
const paste = document.getElementById('paste-config');
const ropeExport = document.getElementById('rope-export');
const gguf = document.getElementById('gguf');
const warnings = createWarnings(document.getElementById('warnings'));
const narrow = matchMedia('(max-width: 999px)');

function showGeneral(message) {
  generalError.textContent = message ?? '';
  generalError.hidden = !message;
}

// posenc-view.wasm first (posenc.wasm when a view needs it: those that train wait for the first figure, session.js), but
// the experiment lab's every view trains: posenc.wasm alone there.
const asked = new URLSearchParams(location.search);
const engine = sharedEngine({ module: needsFullModule(asked.get('encoding'), {}, []) ? 'full' : 'view' });
// The worker loads what it computes the link's family with (its fields, its trained set) beside the .wasm (engine/page.js expect).
engine.expect(FAMILY_NAMES.includes(asked.get('encoding')) ? asked.get('encoding') : ENCODING.default, { weights: asked.get('weights') ?? undefined });
engine.ready.then(
  (version) => { document.getElementById('status').textContent = `${version} · computed ${engine.mode === 'worker' ? 'in a Web Worker' : 'on the page’s thread'}`; },
  (error) => { showGeneral(`The WebAssembly engine failed to load: ${error.message}`); },
);

// On a narrow screen the controls sit above the views, folded, so the first figure is in sight.
if (narrow.matches) panel.open = false;

let stage = null;
let current = null;  // {name}
let applied = null;  // the query the page shows
let generation = 0;

/** Shows family `name` with raw values (the rest take defaults); fromLinkNames came from the URL. */
async function show(name, raw, fromLinkNames) {
  const mine = ++generation;
  const container = document.createElement('div');
  const next = await createStage({
    engine, name, raw, fromLink: new Set(fromLinkNames), container, form, viewControls: true,
    warn: (w) => warnings.add(w),
    shareContext: () => ({ site: new URL('.', location.href) }),
    onEncoding: (nextRaw) => switchEncoding(nextRaw),
    onCommit: (raw, changed) => commit(changed),
  });
  if (mine !== generation) { next.destroy(); return; }
  stage?.destroy();
  stage = next;
  current = { name };
  const family = loadedFamily(name);
  viewsBox.replaceChildren(container);
  showFamilyFormula(name, family);
  paste.hidden = name === 'compare' || name === 'experiment' || name === 'language_model' || name === 'model_profile';
  gguf.hidden = paste.hidden && name !== 'model_profile';
  layersBox.hidden = true;
  if (name === 'model_profile') offerKinds(next.state().raw.config_json);
  ropeExport.hidden = !family.jsonFields;
  buildToc(next.views);
  summarise();
  followViews(next);
  return next;
}

/**
 * The family's formula in the sidebar: formulas.js's, typeset once KaTeX has loaded (the views' formulas
 * come from the same module), with the core's source of it (describe()) and the page's note; a family
 * without one (compare mode, the labs) has a description in its `formula` (plain text).
 */
async function showFamilyFormula(name, family) {
  const box = document.getElementById('family-formula');
  // A lab's description at once; a family's formula after the first figures (a lab's may take minutes to train):
  // formulas.js and KaTeX are not what the reader waits for.
  if (family.formula) { box.replaceChildren(...linkify(family.formula)); return; }  // text, its citations linked
  box.replaceChildren();
  await stage?.whenSettled();
  if (current?.name !== name) return;
  const [{ FAMILY_FORMULAS }, { typeset }] = await Promise.all([import('../formulas.js'), import('../lib/katex.js')]);
  if (current?.name !== name) return;
  const entry = FAMILY_FORMULAS[name];
  if (!entry) return;
  const math = document.createElement('span');
  typeset(math, entry.tex, { displayMode: false });
  const cite = document.createElement('span');
  cite.className = 'cite';
  cite.replaceChildren(...linkify(` (${[familyDescription(name).source, entry.note].filter(Boolean).join('; ')})`));
  box.replaceChildren(math, cite);
}

/** families/pages.js's rawFromSpec, with family `type`'s page file loaded: on a paste, not before the first figure. */
async function rawFromSpecOf(type) {
  const { loadFamilyPages, rawFromSpec } = await import('../families/pages.js');
  await loadFamilyPages([type]);
  return rawFromSpec;
}

function buildToc(views) {
  document.getElementById('toc').replaceChildren(...views.map((view) => {
    const link = document.createElement('a');
    link.href = `#${view.id}`;
    link.textContent = view.title.split(':')[0];
    return link;
  }));
}

function summarise() {
  document.getElementById('controls-summary').textContent = `${familyLabel(current.name)}: tap to change`;
}

/** The encoding control changed: keep the settings the two families share. */
async function switchEncoding(raw) {
  await loadFamily(raw.encoding);
  const carried = carryOver(parametersOf(current.name), stage.state().raw, parametersOf(raw.encoding));
  await show(raw.encoding, carried, []);
  await commit();
}

/** A burst: changes of one control less than this many ms apart (a held arrow key) make one history entry. */
const BURST_MS = 1000;
let lastCommit = { changed: null, at: -Infinity };

/** A committed change: once drawn without errors, a new history entry (or the burst's entry, updated). */
async function commit(changed = null) {
  const here = stage;
  const outcome = await here.whenSettled();
  if (here !== stage || !outcome.ok) return;
  if (current.name === 'model_profile' && (changed === 'config_json' || changed === 'model' || changed === null)) {
    offerKinds(stage.state().raw.config_json);
  }
  const query = queryOf(current.name, stage.state().raw);
  if (query === applied) return;
  applied = query;
  const now = performance.now();
  const burst = changed !== null && changed === lastCommit.changed && now - lastCommit.at < BURST_MS;
  lastCommit = { changed, at: now };
  history[burst ? 'replaceState' : 'pushState'](null, '', `${location.pathname}${query}${location.hash}`);
}

let loads = 0;
/**
 * Loads the state the URL holds (first load, Back, Forward). body[data-ready] is "false" from its first step until the
 * latest load has drawn (or refused) it: a host or a test waits for "true".
 */
async function loadLocation() {
  const mine = ++loads;
  document.body.dataset.ready = 'false';
  // A shown link ends a burst: the next change is a history entry of its own, not a replacement of the one shown.
  lastCommit = { changed: null, at: -Infinity };
  try {
    await loadState();
  } finally {
    if (mine === loads) document.body.dataset.ready = 'true';
  }
}

async function loadState() {
  const { name, raw, warnings: found } = await readLink(new URLSearchParams(location.search));
  // The warnings are the shown link's: a link left by Back or Forward takes its own.
  warnings.clear();
  for (const w of found) warnings.add(w);
  applied = location.search;
  let target = null;
  if (stage && current.name === name) {
    target = stage;
    target.load(raw, Object.keys(raw));
  } else {
    target = await show(name, raw, Object.keys(raw));
  }
  if (!target) return;
  const outcome = await target.whenSettled();
  if (target !== stage) return;
  // The URL shows what is drawn: refused values are gone from it.
  if (outcome.ok) {
    applied = queryOf(current.name, stage.state().raw);
    history.replaceState(null, '', `${location.pathname}${applied}${location.hash}`);
  }
}

window.addEventListener('popstate', () => {
  if (location.search !== applied) loadLocation();
});

// The cheapest call that has the core read every key of a spec, by where its family acts.
const VERDICT = { absolute: (spec) => ['table', spec, 1], none: (spec) => ['table', spec, 1],
  rotary: (spec) => ['rotary', spec, 1], bias: (spec) => ['bias', spec, 1] };

/** The note under the paste box: the reader's notes, then every key used, not modelled, and ignored. */
function configNote({ spec, notes, used, unmodelled, ignored, ignoredCount }) {
  return [
    `shown as ${familyLabel(spec.type)}`,
    ...notes,
    used.length ? `read: ${used.join(', ')}` : '',
    ...unmodelled.map(({ key, why }) => `positional, not modelled: ${key} (${why})`),
    ignored.length ? `ignored (not positional): ${ignored.join(', ')}${ignoredCount > ignored.length ? `, and ${ignoredCount - ignored.length} more` : ''}` : '',
  ].filter(Boolean).join('\n');
}

// Pasting a config.json: read it into its family (in the engine's worker: a paste of megabytes is
// parsed off this thread), check it with the core, then switch to that family with its controls filled from it.
document.getElementById('config-apply').addEventListener('click', async () => {
  const error = document.getElementById('error-config');
  const notes = document.getElementById('config-notes');
  error.textContent = '';
  notes.textContent = '';
  try {
    const read = await engine.call('readConfig', document.getElementById('config-text').value);
    const [method, ...args] = VERDICT[familyDescription(read.spec.type).acts](read.spec);
    await engine.call(method, ...args);  // the core's verdict on every key, before any control changes
    const raw = { ...(await rawFromSpecOf(read.spec.type))(read.spec, read.sliding), ...(read.spec.type === 'rope' ? { preset: 'custom' } : {}) };
    if (current.name === read.spec.type) await stage.change(raw);
    else await show(read.spec.type, raw, []);
    notes.textContent = configNote(read);
    commit();
    offerKinds(document.getElementById('config-text').value, read);
  } catch (e) {
    error.textContent = e.message;
  }
});

// A model with several kinds of layer (Gemma's local and global, Llama 4's NoPE layers): the paste box offers each kind's
// spec for the family's views, and the model lab for every layer at once.
let pastedProfile = null;
const layersBox = document.getElementById('config-layers');
const kindSelect = document.getElementById('config-kind');

/**
 * Reads the config's per-layer profile and offers its layer kinds. After a paste (`read`: the config reader's result),
 * the note then lists the layer keys as read (the profile reads layer_types, no_rope_layers, ...) and what it found.
 */
async function offerKinds(text, read = null) {
  layersBox.hidden = true;
  pastedProfile = null;
  let profile;
  try { profile = await engine.call('profile', text); } catch { return; }  // the config's own error is shown already
  if (read && profile.num_hidden_layers != null && document.getElementById('config-text').value === text) {
    document.getElementById('config-notes').textContent = configNote({ ...profile.read, notes: [...profile.read.notes, ...profile.notes], spec: read.spec });
  }
  const lab = current.name === 'model_profile';
  if (profile.kinds.length < (lab ? 1 : 2)) return;
  document.getElementById('config-profile').hidden = lab;
  document.getElementById('config-show-kind').hidden = !lab;
  pastedProfile = { text, profile };
  kindSelect.replaceChildren(...profile.kinds.map((k, i) => {
    const option = document.createElement('option');
    option.value = String(i);
    option.textContent = `${i}: ${k.name} (${k.layers.length} layers)${k.spec.type === 'rope' ? '' : ', no position'}`;
    return option;
  }));
  const shown = profile.kinds.findIndex((k) => k.name === 'full_attention' && k.spec.type === 'rope');
  kindSelect.value = String(Math.max(shown, profile.kinds.findIndex((k) => k.spec.type === 'rope'), 0));
  layersBox.hidden = false;
}

/** Shows the chosen layer kind's spec in its family's views (a NoPE kind in the none family's). */
async function showKind() {
  const kind = pastedProfile?.profile.kinds[Number(kindSelect.value)];
  if (!kind) return;
  const raw = { ...(await rawFromSpecOf(kind.spec.type))(kind.spec, null), ...(kind.spec.type === 'rope' ? { preset: 'custom' } : {}) };
  if (current.name === kind.spec.type) await stage.change(raw);
  else await show(kind.spec.type, raw, []);
  commit();
}
// On a family's page, picking a kind shows it at once; in the model lab, "show it" leaves the lab for the family.
kindSelect.addEventListener('change', () => { if (current.name !== 'model_profile') showKind(); });
document.getElementById('config-show-kind').addEventListener('click', showKind);

document.getElementById('config-profile').addEventListener('click', async () => {
  if (!pastedProfile) return;
  await show('model_profile', { model: 'custom', config_json: pastedProfile.text }, []);
  commit();
});

// A llama.cpp .gguf file: its header is read in the engine's worker (only slices of it: a file of many GB is never read
// whole), mapped to a config.json-like object, and shown as a pasted config would be (the model lab reads it per layer).
const ggufError = document.getElementById('error-gguf');
const ggufNotes = document.getElementById('gguf-notes');
const ggufInput = document.getElementById('gguf-file');

async function openGguf(file) {
  ggufError.textContent = '';
  ggufNotes.textContent = '';
  try {
    const read = await engine.call('readGguf', file);
    const text = JSON.stringify(read.config, null, 1);
    const keys = read.keysRead.map(({ key, value, mappedTo }) => `${key} = ${String(value).slice(0, 40)}${mappedTo ? ` → ${mappedTo}` : ''}`);
    ggufNotes.textContent = [`${file.name}: read the header (${keys.length} rope and shape keys)`, ...keys, ...read.notes].join('\n');
    if (current.name === 'model_profile') {
      await stage.change({ model: 'custom', config_json: text });
      commit();
    } else {
      document.getElementById('config-text').value = text;
      paste.open = true;
      document.getElementById('config-apply').click();
    }
  } catch (e) {
    ggufError.textContent = e.message;  // the page keeps what it showed
  }
}

ggufInput.addEventListener('change', () => {
  if (ggufInput.files[0]) openGguf(ggufInput.files[0]);
  ggufInput.value = '';  // the same file again is a change
});
for (const target of [gguf, paste]) {
  target.addEventListener('dragover', (event) => {
    if (![...event.dataTransfer.items].some((i) => i.kind === 'file')) return;
    event.preventDefault();
    gguf.classList.add('dragging');
  });
  target.addEventListener('dragleave', () => gguf.classList.remove('dragging'));
  target.addEventListener('drop', (event) => {
    const file = event.dataTransfer.files[0];
    gguf.classList.remove('dragging');
    if (!file) return;
    event.preventDefault();
    openGguf(file);
  });
}

// RoPE's numbers for an inference-engine developer: the spectrum view's JSON export.
document.getElementById('rope-json').addEventListener('click', () => {
  const first = stage.views[0];
  stage.frames.get(first.id).section.querySelector('[data-export=json]').click();
});

/**
 * Keeps the controls of the figure being read in sight: when a view fills most
 * of the window, the sidebar scrolls to the first setting that view reads
 * (unless the reader is using the sidebar).
 */
let observer = null;
function followViews(s) {
  observer?.disconnect();
  observer = new IntersectionObserver((entries) => {
    if (narrow.matches || sidebar.matches(':hover') || sidebar.contains(document.activeElement)) return;
    const seen = entries.filter((e) => e.isIntersecting).sort((a, b) => b.intersectionRatio - a.intersectionRatio)[0];
    if (!seen) return;
    const read = s.session.dependencies(seen.target.id);
    const parameters = parametersOf(current.name).filter((p) => read.has(p.name));
    const target = parameters.find((p) => p.view) ?? parameters[0];
    const row = target && form.querySelector(`.control[data-name="${target.name}"]`);
    if (row && !row.hidden) row.scrollIntoView({ block: 'nearest' });
  }, { threshold: [0.5] });
  for (const f of s.frames.values()) observer.observe(f.section);
}

await loadLocation();
// A deep link (#decay) lands on its view once the figures above it have their sizes.
/** The element id a link's #fragment names (percent-decoded; as written when it is not valid percent-encoding). */
function fragmentId(hash) {
  try {
    return decodeURIComponent(hash);
  } catch {
    return hash;  // "#%E0%A4%A": no view has that id, and no URIError reaches the reader
  }
}
if (location.hash.length > 1 && window.scrollY === 0) document.getElementById(viewIdOf(fragmentId(location.hash.slice(1))))?.scrollIntoView();
