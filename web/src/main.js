// The playground page: URL -> state -> engine -> views, one direction.
import { loadEngine } from './engine.js';
import { createControls } from './controls.js';
import { encodingSpec, fromQuery, parameterOf, parse, toQuery, toRaw, PARAMETERS } from './state.js';
import * as heatmap from './views/heatmap.js';
import * as waves from './views/waves.js';

const views = [
  { view: heatmap, element: document.querySelector('#heatmap .figure'), uses: [] },
  { view: waves, element: document.querySelector('#waves .figure'), uses: ['dims'] },
];
const generalError = document.getElementById('error-general');
const status = document.getElementById('status');

function showGeneral(message) {
  generalError.textContent = message;
  generalError.hidden = !message;
}

let engine;
try {
  engine = await loadEngine();
  status.textContent = engine.version();
} catch (error) {
  showGeneral(`The WebAssembly engine failed to load: ${error.message}`);
  throw error;
}

const defaults = toRaw(Object.fromEntries(PARAMETERS.map((p) => [p.name, p.default])));
const controls = createControls(document.getElementById('controls'), schedule);
const initial = { ...defaults, ...fromQuery(location.search) };
controls.set(initial);

const drawn = new Map();  // view -> the inputs it last drew, to skip needless redraws
let pending = null;

function update(raw) {
  const { params, errors } = parse(raw);
  const general = [];
  let result = null;
  if (Object.keys(errors).length === 0) {
    try {
      result = engine.absolute(encodingSpec(params), params.n);
    } catch (error) {
      const name = parameterOf(error.message);
      if (name) errors[name] = error.message;
      else general.push(error.message);
    }
  }
  if (result) {
    for (const { view, element, uses } of views) {
      const key = [result, ...uses.map((u) => JSON.stringify(params[u]))];
      const last = drawn.get(view);
      if (last && last.every((k, i) => k === key[i])) continue;
      try {
        view.render(element, result, params);
        drawn.set(view, key);
      } catch (error) {
        // A view keeps its last good figure and says why it did not redraw.
        const name = parameterOf(error.message);
        if (name) errors[name] = error.message;
        else general.push(error.message);
      }
    }
  }
  controls.showErrors(errors);
  showGeneral(general.join('\n'));
  document.body.classList.toggle('has-errors', Object.keys(errors).length + general.length > 0);
  if (Object.keys(errors).length === 0 && general.length === 0) {
    history.replaceState(null, '', `${location.pathname}${toQuery(params)}${location.hash}`);
  }
}

function schedule(raw) {
  if (pending === null) requestAnimationFrame(() => { const r = pending; pending = null; update(r); });
  pending = raw;
}

update(initial);
document.body.dataset.ready = 'true';
