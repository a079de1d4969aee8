// The controls of one encoding family, built from its parameter list. Numeric
// ones are a slider plus a text box (log sliders for wide ranges); each control
// writes raw strings back through onInput and shows its own error beside it.
// A parameter's `when(params)` hides it when it does not apply.

import { linkify } from './citations.js';
import { element } from './lib/html.js';

/**
 * A slider's range and scale: [sliderMin ?? min, sliderMax ?? max], logarithmic when the
 * parameter says so or when the range spans more than two decades (hi / lo > 100, lo > 0).
 */
export function sliderScale(p) {
  const lo = p.sliderMin ?? p.min;
  const hi = p.sliderMax ?? p.max;
  return { lo, hi, log: p.log ?? (lo > 0 && hi / lo > 100) };
}

function numericField(p, id, describedBy) {
  const { lo: ownLo, hi: ownHi, log } = sliderScale(p);
  let lo = ownLo;
  let hi = ownHi;
  // A log slider's value, rounded to 3 digits, and for an integer to its step (d_model stays even).
  const step = p.kind.endsWith('int') ? (p.step ?? 1) : null;
  const round = (x) => {
    const y = Number(x.toPrecision(3));
    return step ? Math.max(lo, Math.round(y / step) * step) : y;
  };
  const toSlider = log ? (x) => Math.log10(x) : (x) => x;
  const logStep = 0.01;
  // A log slider's top step lies below log10(hi) (steps count from log10(lo)): the top step is hi itself, so End
  // reaches 4096, not 4070.
  const fromSlider = log ? (s) => (s + logStep > Math.log10(hi) ? hi : round(Math.pow(10, s))) : (s) => s;
  const slider = element('input', {
    type: 'range', name: `${p.name}-slider`, 'aria-label': `${p.label} slider`,
    min: toSlider(lo), max: toSlider(hi), step: log ? logStep : (p.step ?? 1), 'data-scale': log ? 'log' : 'linear',
  });
  const box = element('input', { id, name: p.name, type: 'text', inputmode: 'decimal', 'aria-describedby': describedBy,
    spellcheck: 'false', size: 8, placeholder: p.placeholder ?? '' });
  // What assistive technology announces: the value itself, not the slider's log10 of it.
  const announce = (text) => { if (log) slider.setAttribute('aria-valuetext', text); };
  slider.addEventListener('input', () => {
    slider.classList.remove('unset');
    box.value = String(fromSlider(Number(slider.value)));
    announce(box.value);
  });
  const write = (text) => {
    box.value = text;
    // An unset optional key ((none)): the slider looks off, its thumb hidden, until a value is set (views.css).
    slider.classList.toggle('unset', text.trim() === '');
    const x = Number(text);
    if (text !== '' && Number.isFinite(x) && (!log || x > 0)) {
      slider.value = String(toSlider(x));
      announce(text);
    }
  };
  box.addEventListener('input', () => write(box.value));
  /** Narrows the slider to [min, max] within its own range (p.sliderRange: the values valid with the others). */
  const limit = ({ min, max }) => {
    lo = Number.isFinite(min) ? Math.max(ownLo, Math.min(min, ownHi)) : ownLo;
    hi = Number.isFinite(max) ? Math.max(lo, Math.min(max, ownHi)) : ownHi;
    slider.min = String(toSlider(lo));
    slider.max = String(toSlider(hi));
  };
  return { inputs: [slider, box], read: () => box.value, write, limit };
}

function makeField(p, id, describedBy) {
  switch (p.kind) {
    case 'choice': {
      const select = element('select', { id, name: p.name, 'aria-describedby': describedBy },
        p.choices.map((c) => element('option', { value: c }, [p.choiceLabels?.[c] ?? c])));
      return { inputs: [select], read: () => select.value, write: (t) => { select.value = t; } };
    }
    case 'bool': {
      const box = element('input', { id, name: p.name, type: 'checkbox', 'aria-describedby': describedBy });
      return { inputs: [box], read: () => String(box.checked), write: (t) => { box.checked = t === 'true'; } };
    }
    case 'text': {
      // p.rows: a box of several lines (a pasted config.json), else one line.
      const box = p.rows
        ? element('textarea', { id, name: p.name, rows: p.rows, 'aria-describedby': describedBy, spellcheck: 'false', class: 'wide' })
        : element('input', { id, name: p.name, type: 'text', 'aria-describedby': describedBy, spellcheck: 'false', class: 'wide' });
      return { inputs: [box], read: () => box.value, write: (t) => { box.value = t; } };
    }
    case 'list':
    case 'dims': {
      const box = element(p.kind === 'list' ? 'textarea' : 'input', { id, name: p.name, 'aria-describedby': describedBy,
        spellcheck: 'false', placeholder: p.placeholder ?? '', ...(p.kind === 'list' ? { rows: 2 } : { type: 'text' }) });
      return { inputs: [box], read: () => box.value, write: (t) => { box.value = t; } };
    }
    default:
      return numericField(p, id, describedBy);
  }
}

/**
 * An empty form for a view's own controls, beside the view (an embed's controls=1, a narrow playground's).
 * @param {string} label  what assistive technology calls it
 * @returns {HTMLFormElement}
 */
export function inlineForm(label) {
  return element('form', { class: 'inline-controls', 'aria-label': label, autocomplete: 'off', novalidate: '' });
}

/**
 * Builds the controls of `parameters` inside `form` (emptying it first).
 * @param {HTMLFormElement} form
 * @param {object[]} parameters  a family's parameter list (see families/); a numeric one's sliderRange(raw) ->
 *   {min?, max?} narrows its slider to the values valid with the other raw values (a number box takes any)
 * @param {(raw: Record<string, string>, changed: string) => void} onInput  every raw value, and the
 *   name of the parameter the user changed
 * @param {(changed: string) => void} [onCommit]  the user finished a change: released a slider, left or
 *   submitted a text box, picked a choice, or paused typing for a second
 * @param {string} [prefix]  before each id (control-<name>, error-<name>), for a second set of the same controls
 *   in one page (a view's own, stage.js)
 * @param {object} [o]
 * @param {string[]} [o.primary]  the controls of a strip (div.primary-controls); the others fold into a "more
 *   controls" disclosure (details.more-controls), and the form gets the class "split" (a tour stop: its Try's
 *   controls above the figure, the rest below it; views.css)
 * @returns {{set(raw), showErrors(errors), showOnly(visible: Set<string>)}}
 */
export function createControls(form, parameters, onInput, onCommit = () => {}, prefix = '', { primary = null } = {}) {
  form.replaceChildren();
  let strip = form;
  let rest = form;
  if (primary) {
    strip = element('div', { class: 'primary-controls', role: 'group', 'aria-label': 'the controls this stop is about' });
    rest = element('div', { class: 'more-grid' });
    form.classList.add('split');
    form.append(strip, element('details', { class: 'more-controls' }, [element('summary', {}, ['more controls']), rest]));
  }
  const fields = new Map();
  for (const p of parameters) {
    const id = `${prefix}control-${p.name}`;
    const error = element('output', { class: 'error', id: `${prefix}error-${p.name}`, for: id, 'aria-live': 'polite' });
    const label = element('label', { for: id, title: p.help ?? '' }, [p.label]);
    const field = makeField(p, id, error.id);
    const row = element('div', { class: `control kind-${p.kind}`, 'data-name': p.name },
      [label, element('div', { class: 'inputs' }, field.inputs), error]);
    if (p.help) row.append(element('div', { class: 'help' }, linkify(p.help)));
    fields.set(p.name, { ...field, error, row });
    (primary?.includes(p.name) ? strip : rest).append(row);
  }
  const rawValues = () => Object.fromEntries([...fields].map(([name, f]) => [name, f.read()]));
  // Sliders whose valid values depend on other controls (a head below n_heads): narrowed to them on every change.
  const ranged = parameters.filter((p) => p.sliderRange);
  const narrow = () => {
    if (!ranged.length) return;
    const raw = rawValues();
    for (const p of ranged) fields.get(p.name).limit?.(p.sliderRange(raw));
  };
  const changedName = (target) => (target.name ?? '').replace(/-slider$/, '');
  let idle = null;
  form.oninput = (event) => {
    const name = changedName(event.target);
    narrow();
    onInput(rawValues(), name);
    clearTimeout(idle);
    idle = setTimeout(() => onCommit(name), 1000);
  };
  form.onchange = (event) => {
    const name = changedName(event.target);
    if (event.target.type === 'checkbox') {
      narrow();
      onInput(rawValues(), name);
    }
    clearTimeout(idle);
    onCommit(name);
  };
  form.onsubmit = (event) => event.preventDefault();

  return {
    set(raw) {
      for (const [name, text] of Object.entries(raw)) fields.get(name)?.write(text);
      narrow();
    },
    showErrors(errors) {
      for (const [name, field] of fields) {
        field.error.textContent = errors[name] ?? '';
        field.row.classList.toggle('invalid', name in errors);
      }
    },
    showOnly(visible) {
      for (const [name, field] of fields) field.row.hidden = !visible.has(name);
    },
  };
}
