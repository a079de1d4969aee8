// What each trained language model writes: characters drawn one at a time
// (temperature 0.8) after a long prompt from the held-out text, so the model reads
// past L_train while it writes.
import { element as el } from '../lib/html.js';
import { nothingYet } from '../lib/partial.js';

export const id = 'lm-samples';
export const title = 'Generated text per encoding';
export const caption = 'After a prompt of 4 × L_train characters from the held-out part of the book (its end shown faint), ' +
  'each model writes up to 160 characters (4 × L_train at most), each drawn from its predicted distribution at temperature 0.8, reading the whole ' +
  'prompt and what it wrote so far: past L_train, an encoding that does not extrapolate writes worse than it did at L_train.';
export const needs = ['languageModel'];

/** The last `count` characters of text, with an ellipsis when cut. */
const tail = (text, count) => (text.length > count ? `…${text.slice(-count)}` : text);

/** @param {{languageModel: {runs: {name, samples: {prompt, generated}[], retrained: boolean}[]}}} result */
export function render(element, result) {
  // While the arms train: those whose test (and samples) ended.
  const runs = result.languageModel.runs.filter((r) => !r.running);
  if (!runs.length) throw nothingYet();
  element.replaceChildren(el('div', { class: 'lm-samples' }, runs.map((r) => el('section', { class: 'lm-sample' }, [
    el('h4', {}, [r.name]),
    ...r.samples.map((s) => el('p', { class: 'sample' }, [
      el('span', { class: 'prompt', title: 'the prompt (its last 80 characters)' }, [tail(s.prompt, 80)]),
      el('span', { class: 'generated' }, [s.generated])])),
  ]))));
}

/** The CSV table: one row per sample. */
export function table(result) {
  const rows = result.languageModel.runs.filter((r) => !r.running).flatMap((r) => r.samples.map((s, k) => [r.name, k, s.prompt, s.generated]));
  return { columns: ['encoding', 'sample', 'prompt', 'generated'], rows: rows.length, row: (k) => rows[k] };
}
