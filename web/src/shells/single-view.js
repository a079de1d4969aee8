// One view with its title, caption, legend and figure, a warning box, an
// "open in posenc" link carrying the same state, and (on request) the view's
// own controls: what embed.html shows in an iframe and <posenc-view> in a
// shadow root.
import { createStage, queryOf, readLink } from '../stage.js';
import { createWarnings } from '../warnings.js';
import { loadView, viewIdOf } from '../views/index.js';
import { FAMILY_NAMES, loadFamily } from '../families/catalogue.js';
import { SHIPPED_HEAD_TASK, startingModule } from '../engine/modules.js';
import { CROSS_FAMILY_VIEWS } from '../engine/view-groups.js';

/** Keys the single-view shells read themselves. */
export const SHELL_KEYS = ['view', 'controls', 'theme'];

/**
 * Mounts one view into `root` from a state's entries (a query, or attributes).
 * @param {HTMLElement} root  emptied and filled
 * @param {object} o
 * @param {object} o.engine
 * @param {Iterable<[string, string]>} o.entries  view=<id> and the playground's state keys
 * @param {URL} o.site        where index.html is (for "open in posenc")
 * @param {boolean} [o.anyCase]  the keys are HTML attribute names (lowercased by HTML; stage.js readLink)
 * @param {string[]} [o.primary]  with controls: these in a strip above the figure, the rest folded below it (a tour
 *   stop's); without, every control is above the figure on a wide screen and below it on a narrow one (views.css)
 * @returns {Promise<{stage: object|null, update(entries): Promise|null, destroy(): void}>}
 */
export async function mountSingleView(root, { engine, entries, site, anyCase = false, primary = null }) {
  const pairs = [...entries];
  const get = (key) => pairs.find(([k]) => k === key)?.[1];
  const viewId = viewIdOf(get('view'));  // a former id (a link shared before a view was renamed) names its view
  const warningsBox = document.createElement('div');
  warningsBox.className = 'warnings';
  warningsBox.setAttribute('role', 'status');
  warningsBox.hidden = true;
  const views = document.createElement('div');
  views.className = 'single-view';
  root.replaceChildren(warningsBox, views);
  // The family's module downloads beside the view's (readLink and createStage load it again, from the same promise):
  // on a phone network its imports are three request levels (issue 40).
  const encoding = get('encoding');
  if (FAMILY_NAMES.includes(encoding)) loadFamily(encoding).catch(() => {});
  // What the engine reads for the view's first request, its family's trained set and a trained-head view's shipped head,
  // downloads in the engine now, beside the view's module, not once the view asks: a request level fewer.
  if (FAMILY_NAMES.includes(encoding)) {
    engine.expect?.(encoding, { weights: get('weights'), head: startingModule(viewId) === 'auto' && get('trained_head') !== 'false'
      && (get('trained_task') ?? SHIPPED_HEAD_TASK) === SHIPPED_HEAD_TASK, crossFamily: CROSS_FAMILY_VIEWS.includes(viewId),
    compareDistance: get('compare_distance') });
  }
  // The controls' module only when asked for them (an embed without controls draws without it), fetched beside the view's.
  const controlsModule = get('controls') === '1' ? import('../controls.js') : null;
  controlsModule?.catch(() => {});  // said where it is awaited (an unknown view returns before)
  // An unknown id, or a family's own view with no file, is said in place of the figure.
  const unknown = await loadView(viewId).then(() => null, (error) => error);
  if (unknown) {
    const error = document.createElement('p');
    error.className = 'error';
    error.setAttribute('role', 'alert');
    error.textContent = unknown.message;
    views.append(error);
    return { stage: null, update: () => null, destroy() {} };
  }
  const warnings = createWarnings(warningsBox);
  const { name, raw, warnings: found } = await readLink(pairs, { shellKeys: SHELL_KEYS, viewId, anyCase });
  for (const w of found) warnings.add(w);

  const open = document.createElement('a');
  open.className = 'open-link tool';
  open.target = '_blank';
  open.rel = 'noopener';
  open.textContent = 'open in posenc ↗';
  const form = controlsModule ? (await controlsModule).inlineForm('Controls of this view') : null;
  const linkTo = (state) => { open.href = `${new URL('index.html', site).href}${queryOf(name, state)}#${viewId}`; };
  const stage = await createStage({
    engine, name, raw, fromLink: new Set(Object.keys(raw)), container: views, form, controls: 'dependencies', viewIds: [viewId],
    primaryControls: primary,
    warn: (w) => warnings.add(w),
    tools: () => [open],
    onSettled: (state) => linkTo(state),
  });
  linkTo(stage.state().raw ?? raw);
  if (form) {
    const { section } = stage.frames.get(viewId);
    section.classList.add('with-controls');
    section.querySelector('.caption').after(form);
  }
  let theme = get('theme');
  return {
    stage,
    /**
     * Applies new entries in place when they keep the view, the encoding and the controls: a promise that resolves once
     * they are read and the view is on its way to them (stage.whenSettled then waits for them); null when the view must
     * be mounted anew.
     */
    update(nextEntries) {
      const next = [...nextEntries];
      const value = (key) => next.find(([k]) => k === key)?.[1];
      if (viewIdOf(value('view')) !== viewId || (value('encoding') ?? name) !== name || (value('controls') === '1') !== Boolean(form)) return null;
      return readLink(next, { shellKeys: SHELL_KEYS, viewId, anyCase }).then((read) => {
        warnings.clear();
        for (const w of read.warnings) warnings.add(w);
        if (value('theme') !== theme) { theme = value('theme'); stage.rerender(); }
        stage.load(read.raw, Object.keys(read.raw));
        return true;
      });
    },
    destroy: () => stage.destroy(),
  };
}
