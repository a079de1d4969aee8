// The playground page: URL -> state -> engine -> views, one direction.
import { loadEngine } from './engine.js';
import { createControls } from './controls.js';
import { defaultsOf, fromQuery, parameterOf, parse, toQuery, visibleNames } from './state.js';
import { ENCODING, FAMILIES, parametersOf } from './families/index.js';
import { parseConfigText, ropeSpecFromConfig } from './hf-config.js';

const form = document.getElementById('controls');
const viewsElement = document.getElementById('views');
const generalError = document.getElementById('error-general');
const paste = document.getElementById('paste-config');

function showGeneral(messages) {
  generalError.textContent = [...new Set(messages)].join('\n');
  generalError.hidden = messages.length === 0;
}

let engine;
try {
  engine = await loadEngine();
  document.getElementById('status').textContent = engine.version();
} catch (error) {
  showGeneral([`The WebAssembly engine failed to load: ${error.message}`]);
  throw error;
}

let current;  // {name, family, parameters, controls, sections: Map(view id -> figure element), drawn: Map}
let pending = null;

/** Shows family `name` with the raw values given (the rest take defaults). */
function selectFamily(name, raw) {
  const family = FAMILIES[name];
  const parameters = parametersOf(name);
  const controls = createControls(form, parameters, onInput);
  document.getElementById('family-formula').innerHTML = family.formula;
  paste.hidden = name !== 'rope';
  const sections = new Map();
  viewsElement.replaceChildren(...family.views.map((view) => {
    const section = document.createElement('section');
    section.id = view.id;
    section.innerHTML = `<h2 id="${view.id}-title"></h2><p class="caption"></p><div class="figure"></div>`;
    section.setAttribute('aria-labelledby', `${view.id}-title`);
    section.querySelector('h2').textContent = view.title;
    section.querySelector('.caption').textContent = view.caption;
    sections.set(view.id, section.querySelector('.figure'));
    return section;
  }));
  // "On this page": a link to each view.
  const toc = document.getElementById('toc');
  toc.replaceChildren(...family.views.map((view) => {
    const link = document.createElement('a');
    link.href = `#${view.id}`;
    link.textContent = view.title.split(':')[0];
    link.addEventListener('click', (event) => {  // keep the query; scroll without touching the URL
      event.preventDefault();
      document.getElementById(view.id).scrollIntoView({ behavior: 'smooth' });
    });
    return link;
  }));
  current = { name, family, parameters, controls, sections, drawn: new Map() };
  const values = adjust({ ...baseOf(raw), ...raw, encoding: name }, null);
  controls.set(values);
  update(values);
}

/** The family's own consistency rule for raw values, if it has one (rope, xpos: the rotation pair). */
function adjust(raw, changed) {
  const fixed = current.family.adjustRaw ? current.family.adjustRaw(raw, changed) : raw;
  if (fixed !== raw) current.controls.set(fixed);
  return fixed;
}

/** What the URL is read against: the defaults, or a family's base for these values (a preset's). */
function baseOf(raw) {
  const defaults = { ...defaultsOf(current.parameters), encoding: current.name };
  return current.family.baseRaw ? current.family.baseRaw(defaults, raw) : defaults;
}

function onInput(raw, changed) {
  if (changed === 'encoding') {
    selectFamily(raw.encoding, {});
    return;
  }
  if (current.name === 'rope' && 'preset' in raw) {
    if (changed === 'preset' && raw.preset !== 'custom') {
      raw = { ...raw, ...FAMILIES.rope.rawFromPreset(raw.preset) };
      current.controls.set(raw);
    } else if (changed !== 'preset' && raw.preset !== 'custom' && !current.parameters.find((p) => p.name === changed)?.view) {
      // A model value changed: the preset no longer describes it (view settings do not count).
      raw = { ...raw, preset: 'custom' };
      current.controls.set({ preset: 'custom' });
    }
  }
  raw = adjust(raw, changed);
  if (pending === null) requestAnimationFrame(() => { const r = pending; pending = null; update(r); });
  pending = raw;
}

function update(raw) {
  const { parameters, family, controls } = current;
  const { params, errors } = parse(parameters, raw);
  controls.showOnly(visibleNames(parameters, params));
  const general = [];
  const report = (error) => {
    const name = parameterOf(parameters, error.message);
    if (name) errors[name] = error.message;
    else general.push(error.message);
  };
  if (Object.keys(errors).length === 0) {
    let result = null;
    try {
      result = family.compute(engine, params);
    } catch (error) {
      report(error);
    }
    for (const view of result ? family.views : []) {
      // A view keeps its last good figure when its inputs fail or its drawing does.
      try {
        const key = view.inputs(result, params);
        const last = current.drawn.get(view.id);
        if (last && last.length === key.length && last.every((k, i) => k === key[i])) continue;
        view.render(current.sections.get(view.id), result, params);
        current.drawn.set(view.id, key);
      } catch (error) {
        report(error);
      }
    }
  }
  controls.showErrors(errors);
  showGeneral(general);
  const ok = Object.keys(errors).length === 0 && general.length === 0;
  document.body.classList.toggle('has-errors', !ok);
  if (ok) {
    const base = { ...baseOf(raw), encoding: ENCODING.default };  // the encoding is written unless it is the default
    history.replaceState(null, '', `${location.pathname}${toQuery(parameters, params, base)}${location.hash}`);
  }
}

// Pasting a config.json: check it with the core, then fill the controls from it.
document.getElementById('config-apply').addEventListener('click', () => {
  const error = document.getElementById('error-config');
  const notes = document.getElementById('config-notes');
  error.textContent = '';
  notes.textContent = '';
  try {
    const { spec, ignored, notes: mapped } = ropeSpecFromConfig(parseConfigText(document.getElementById('config-text').value));
    engine.rotary(spec, 1);  // the core's verdict on every key, before any control changes
    const raw = { ...defaultsOf(current.parameters), ...FAMILIES.rope.rawFromSpec(spec), encoding: 'rope', preset: 'custom' };
    current.controls.set(raw);
    update(raw);
    notes.textContent = [...mapped, ignored.length ? `ignored (not positional): ${ignored.join(', ')}` : ''].filter(Boolean).join('; ');
  } catch (e) {
    error.textContent = e.message;
  }
});

const encoding = new URLSearchParams(location.search).get('encoding');
const name = ENCODING.choices.includes(encoding) ? encoding : ENCODING.default;
selectFamily(name, fromQuery(parametersOf(name), location.search));
document.body.dataset.ready = 'true';
