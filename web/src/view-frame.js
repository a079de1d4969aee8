// The frame around one view, the same in the playground, the embed page and
// the web component: its title, caption, a toolbar (CSV, JSON, SVG, PNG,
// share), its formula (formulas.js, typeset by KaTeX), the figure, a progress
// note that covers a figure being recomputed (the old figure stays beneath it
// until the new one is drawn; a job's progress bar and Cancel button), a line
// for an error that belongs to the view itself, and a note (e.g. "cancelled").

import { linkify } from './citations.js';
import { element } from './lib/html.js';
import { familyDescription } from './describe.js';
import { effectiveParams } from './families/trained.js';

/**
 * @param {object} view  a view module (views/index.js)
 * @param {object} o
 * @param {'h2'|'h3'} [o.heading]
 * @param {(kind: 'csv'|'json'|'svg'|'png') => void} o.onExport
 * @param {() => {link: string, iframe: string, component: string}} [o.share]  the snippets (no share control without it)
 * @param {HTMLElement[]} [o.extra]  more toolbar items (e.g. "open in posenc")
 * @returns {{section: HTMLElement, figure: HTMLElement, setBusy(on: boolean): void, setError(message: string|null): void,
 *   setStale(on: boolean): void, setFormula(params: object, result?: object): Promise<void>, whenFormula(): Promise<void>,
 *   setProgress(progress: {done: number, total: number, arm?: {name, index, count, done, total}}, onCancel: () => void): void,
 *   setPartial(on: boolean): void,
 *   setNote(message: string|null, action?: {label: string, run: () => void}): void}}
 */
export function createViewFrame(view, { heading = 'h2', onExport, share, extra = [] }) {
  const title = element(heading, { id: `${view.id}-title`, class: 'view-title' }, [view.title]);
  const tools = element('div', { class: 'view-tools', role: 'toolbar', 'aria-label': `${view.title}: export and share` });
  for (const [kind, label, hint] of [['csv', 'CSV', 'the plotted numbers, a header row first'],
    ['json', 'JSON', 'the numbers, every parameter, the spec and the engine version'],
    ['svg', 'SVG', 'the figure as a vector image'], ['png', 'PNG', 'the figure as a picture (2x)']]) {
    const button = element('button', { type: 'button', class: 'tool', 'data-export': kind, title: `Download ${hint}`,
      'aria-label': `Download ${view.title}: ${label}` }, [label]);
    button.addEventListener('click', () => onExport(kind));
    tools.append(button);
  }
  if (share) tools.append(shareControl(view, share));
  tools.append(...extra);

  const figure = element('div', { class: 'figure' });
  const elapsed = element('span', { id: `${view.id}-busy-text`, class: 'busy-text', 'aria-hidden': 'true' }, ['computing…']);
  const bar = element('progress', { 'aria-label': 'computing' });
  const cancel = element('button', { type: 'button', class: 'tool cancel', hidden: '' }, ['Cancel']);
  const busy = element('div', { class: 'busy', hidden: '' }, [bar, elapsed, cancel]);
  const box = element('div', { class: 'figure-box' }, [busy, figure]);  // over the figure; Cancel first in the tab order
  const error = element('output', { class: 'error view-error', 'aria-live': 'polite' });
  const noteText = element('span');
  const noteAction = element('button', { type: 'button', class: 'tool', hidden: '' });
  const note = element('p', { class: 'view-note', 'aria-live': 'polite', hidden: '' }, [noteText, ' ', noteAction]);
  let onCancel = null;
  let noteRun = null;
  cancel.addEventListener('click', () => {
    const focused = cancel.getRootNode().activeElement === cancel;
    onCancel?.();
    if (focused && !noteAction.hidden) noteAction.focus();  // the keyboard lands on "run again", not on the page's start
  });
  noteAction.addEventListener('click', () => noteRun?.());
  const formula = element('div', { class: 'formula', hidden: '' });
  const section = element('section', { id: view.id, class: 'view', 'aria-labelledby': title.id },
    [element('div', { class: 'view-head' }, [title, tools]), element('p', { class: 'caption' }, linkify(view.caption)), formula, box, error, note]);
  let shownTex = null;
  let formulaRequest = 0;
  let formulaTypeset = Promise.resolve();

  let timer = null;
  return {
    section,
    figure,
    setBusy(on) {
      if (on && onCancel) return;  // a job's progress shows already
      clearInterval(timer);
      busy.hidden = !on;
      section.classList.toggle('busy-view', on);
      section.setAttribute('aria-busy', String(on));  // assistive technology waits for the new figure
      // Back to a plain "computing…": no bar value, no Cancel.
      onCancel = null;
      cancel.hidden = true;
      bar.removeAttribute('value');
      bar.removeAttribute('max');
      bar.removeAttribute('aria-labelledby');
      bar.setAttribute('aria-label', 'computing');
      elapsed.setAttribute('aria-hidden', 'true');
      box.classList.remove('job', 'partial');
      if (!on) return;
      const start = performance.now();
      elapsed.textContent = 'computing…';
      timer = setInterval(() => { elapsed.textContent = `computing… ${((performance.now() - start) / 1000 + 0.2).toFixed(1)} s`; }, 250);
    },
    /**
     * A job's progress (steps done of total, the arm in training, or its own label: arms in parallel) over the figure,
     * with a Cancel button that calls onCancel.
     */
    setProgress(progress, cancelJob) {
      clearInterval(timer);
      if (busy.hidden) {
        busy.hidden = false;
        section.classList.add('busy-view');
        section.setAttribute('aria-busy', 'true');
      }
      onCancel = cancelJob;
      cancel.hidden = false;
      box.classList.add('job');
      bar.max = progress.total;
      bar.value = progress.done;
      bar.removeAttribute('aria-label');
      bar.setAttribute('aria-labelledby', elapsed.id);
      elapsed.removeAttribute('aria-hidden');
      const arm = progress.arm;
      elapsed.textContent = progress.label ?? (arm
        ? `training ${arm.name}: ${arm.done} / ${arm.total} steps (arm ${arm.index + 1} of ${arm.count})`
        : `${progress.done} / ${progress.total}`);
    },
    /**
     * The figure beneath a job's progress is the job's result so far (a lab's arms finished and in training): the
     * progress moves to a bar above it, leaving it in sight, until setBusy(false).
     */
    setPartial(on) {
      box.classList.toggle('partial', on);
    },
    setNote(message, action = null) {
      note.hidden = !message;
      noteText.textContent = message ?? '';
      noteRun = action?.run ?? null;
      noteAction.hidden = !action;
      noteAction.textContent = action?.label ?? '';
    },
    setError(message) {
      error.textContent = message ?? '';
    },
    setStale(on) {
      section.classList.toggle('stale', on);
    },
    /**
     * Shows the view's formula for params (and the view's result, once drawn: the core's numbers it shows). formulas.js and KaTeX load on first use (an embed's first figure does not
     * wait for them); each formula is typeset in a task of its own once the values have rested for 120 ms, so a
     * dragged slider's figures come first.
     */
    setFormula(params, result) {
      const shown = showFormula(params, result);
      formulaTypeset = shown.catch(() => {});  // the caller reports the error
      return shown;
    },
    /** Resolves once the formula of the latest setFormula is shown (or failed), after any newer call. */
    async whenFormula() {
      for (let waited = null; waited !== formulaTypeset;) {
        waited = formulaTypeset;
        await waited;
      }
    },
  };

  /** setFormula's work: the latest call typesets, an older one returns once a newer one has come. */
  async function showFormula(params, result) {
    const mine = ++formulaRequest;
    const [{ formulaOf }, { typeset }] = await Promise.all([import('./formulas.js'), import('./lib/katex.js')]);
    params = await effectiveParams(params);  // trained parameters: the trained model's settings, as the views draw them
    await new Promise((resolve) => { setTimeout(resolve, 120); });
    if (mine !== formulaRequest) return;
    const tex = formulaOf(view.id, params, result, familyDescription(params.encoding) ?? null, view.formula);
    if (tex === shownTex) return;
    shownTex = tex;
    formula.hidden = !tex;
    if (tex) typeset(formula, tex);
    else formula.replaceChildren();
    // A formula wider than its box scrolls sideways: the keyboard can reach it then (and the shade says so, views.css).
    if (formula.scrollWidth > formula.clientWidth + 1) {
      formula.tabIndex = 0;
      formula.setAttribute('role', 'group');
      formula.setAttribute('aria-label', 'formula (scrolls sideways)');
    } else {
      for (const name of ['tabindex', 'role', 'aria-label']) formula.removeAttribute(name);
    }
  }
}

/** "share": the link, the iframe snippet and the component snippet, each with a copy button. */
function shareControl(view, snippets) {
  const details = element('details', { class: 'share' });
  const summary = element('summary', { class: 'tool', title: 'Copy a link or an embed snippet of this view and its state' }, ['share']);
  const body = element('div', { class: 'share-body' });
  details.append(summary, body);
  details.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || !details.open) return;
    details.open = false;
    summary.focus();
  });
  details.addEventListener('toggle', () => {
    if (!details.open) return;
    const s = snippets();
    body.replaceChildren(...[['link', 'link', s.link], ['iframe', 'iframe snippet', s.iframe], ['component', 'web component snippet', s.component]]
      .map(([key, label, text]) => {
        const id = `${view.id}-share-${key}`;
        const field = element(key === 'link' ? 'input' : 'textarea', { id, readonly: '', spellcheck: 'false', 'data-share': key,
          ...(key === 'link' ? { type: 'text' } : { rows: key === 'iframe' ? 4 : 3 }) });
        field.value = text;
        const status = element('span', { class: 'copied', 'aria-live': 'polite' });
        const copy = element('button', { type: 'button', class: 'tool', 'data-copy': key }, [`copy ${key}`]);
        copy.addEventListener('click', async () => {
          status.textContent = (await copyText(field)) ? 'copied' : 'select and copy (Ctrl+C)';
        });
        return element('div', { class: 'share-row' }, [element('label', { for: id }, [label]), field, element('div', {}, [copy, status])]);
      }));
  });
  return details;
}

/** Copies a field's text to the clipboard; true on success. */
async function copyText(field) {
  try {
    await navigator.clipboard.writeText(field.value);
    return true;
  } catch {
    field.select();
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    }
  }
}
