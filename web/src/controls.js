// The controls: built from the parameter list of state.js. Each numeric one is a
// slider plus a number box (the slider of `base` is logarithmic); each writes raw
// strings back through onInput, and shows its error beside itself.
import { PARAMETERS } from './state.js';

const CHOICE_TEXT = {
  interleaved: 'interleaved: sin, cos, sin, cos, …',
  concat: 'concat: [sin … | cos …]',
  vaswani: 'vaswani (paper): base^(−2i/d)',
  tensor2tensor: 'tensor2tensor, fairseq: base^(−i/(d/2−1))',
};
const HELP = {
  n: 'How many positions (rows), 0 … n−1.',
  d_model: 'Width of the embedding; must be even (sin/cos pairs).',
  base: 'Wavelength base: the slowest pair has wavelength about 2π·base tokens.',
  layout: 'Where each pair’s sine and cosine sit among the dimensions.',
  timescales: 'How the pair frequencies are spaced (the paper vs. tensor2tensor / fairseq).',
  dims: 'Dimensions to plot as waves: "auto" or a list such as 0, 1, 20.',
};

function element(tag, attributes = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  node.append(...children);
  return node;
}

/**
 * Builds the controls inside `form`.
 * @param {HTMLFormElement} form
 * @param {(raw: Record<string, string>) => void} onInput  called with every control's raw value
 * @returns {{set(raw): void, showErrors(errors: Record<string, string>): void}}
 */
export function createControls(form, onInput) {
  const fields = new Map();  // name -> {read(), write(text), error}
  for (const p of PARAMETERS) {
    const id = `control-${p.name}`;
    const error = element('output', { class: 'error', id: `error-${p.name}`, for: id, 'aria-live': 'polite' });
    const label = element('label', { for: id, title: HELP[p.name] }, [p.label]);
    let inputs;
    let read;
    let write;
    if (p.kind === 'choice') {
      const select = element('select', { id, name: p.name, 'aria-describedby': error.id },
        p.choices.map((c) => element('option', { value: c }, [CHOICE_TEXT[c] ?? c])));
      inputs = [select];
      read = () => select.value;
      write = (text) => { select.value = text; };
    } else if (p.kind === 'dims') {
      const box = element('input', { id, name: p.name, type: 'text', placeholder: 'auto', 'aria-describedby': error.id, spellcheck: 'false' });
      inputs = [box];
      read = () => box.value;
      write = (text) => { box.value = text; };
    } else {
      const toSlider = p.log ? (x) => Math.log10(x) : (x) => x;
      const fromSlider = p.log ? (s) => Number(Math.pow(10, s).toPrecision(3)) : (s) => s;
      const slider = element('input', {
        type: 'range', name: `${p.name}-slider`, 'aria-label': `${p.label} slider`,
        min: toSlider(p.min), max: toSlider(p.max), step: p.log ? 0.01 : (p.step ?? 1),
      });
      const box = element('input', { id, name: p.name, type: 'text', inputmode: 'decimal', 'aria-describedby': error.id, spellcheck: 'false', size: 8 });
      slider.addEventListener('input', () => { box.value = String(fromSlider(Number(slider.value))); });
      inputs = [slider, box];
      read = () => box.value;
      write = (text) => {
        box.value = text;
        const x = Number(text);
        if (Number.isFinite(x) && x > 0) slider.value = String(toSlider(x));
      };
      box.addEventListener('input', () => write(box.value));
    }
    fields.set(p.name, { read, write, error });
    form.append(element('div', { class: 'control', 'data-name': p.name }, [label, element('div', { class: 'inputs' }, inputs), error]));
  }
  const rawValues = () => Object.fromEntries([...fields].map(([name, f]) => [name, f.read()]));
  form.addEventListener('input', () => onInput(rawValues()));
  form.addEventListener('submit', (event) => event.preventDefault());

  return {
    set(raw) {
      for (const [name, text] of Object.entries(raw)) fields.get(name)?.write(text);
    },
    showErrors(errors) {
      for (const [name, field] of fields) {
        field.error.textContent = errors[name] ?? '';
        field.error.closest('.control').classList.toggle('invalid', name in errors);
      }
    },
  };
}
