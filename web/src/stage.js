// One family's views, with their controls and state: what the three shells
// (the playground, embed.html, <posenc-view>) have in common. Raw control
// values are parsed (state.js), the session brings the views up to them
// (session.js), and every error lands where the reader can act on it: beside
// the control it names, or in the view it stopped. A value that came from a
// link (or an attribute) and is refused becomes a warning, and its default
// is used, so a page opened from a link always draws.
import { createControls, inlineForm } from './controls.js';
import { defaultsOf, parameterOf, parse, readQuery, toQuery, visibleNames } from './state.js';
import { ENCODING, FAMILIES, parametersOf } from './families/index.js';
import { loadView } from './views/index.js';
import { createViewFrame } from './view-frame.js';
import { createSession } from './session.js';
import { escapeHtml as escapeAttribute } from './lib/html.js';


/** The raw values a query is read against: the defaults, or a family's base for them (a model preset's values). */
export function baseOf(name, raw) {
  const family = FAMILIES[name];
  const defaults = { ...defaultsOf(parametersOf(name)), encoding: name };
  return family.baseRaw ? family.baseRaw(defaults, raw) : defaults;
}

/**
 * The query string of a state: the parameters that apply and differ from the
 * base (the encoding only when it is not the default one).
 */
export function queryOf(name, raw) {
  const parameters = parametersOf(name);
  const { params } = parse(parameters, raw);
  return toQuery(parameters, params, { ...baseOf(name, raw), encoding: ENCODING.default });
}

/**
 * What the iframe snippet carries after the iframe: embed.html posts its height ({type: 'posenc:resize', height},
 * shells/embed.js) on load and whenever it changes; this sizes the iframe to it, so a narrow screen, where the view is
 * taller, does not clip it (once per page is enough for every posenc iframe).
 */
export const RESIZE_SCRIPT = `<script>
  // posenc: each embed posts its height; this sizes its iframe to it.
  addEventListener('message', (e) => {
    if (e.data?.type !== 'posenc:resize') return;
    for (const f of document.querySelectorAll('iframe')) if (f.contentWindow === e.source) f.style.height = \`\${e.data.height}px\`;
  });
</script>`;

/**
 * The three ways to share a view in a state.
 * @param {URL|string} site  where index.html, embed.html and posenc-view.js are
 * @returns {{link: string, iframe: string, component: string}}
 */
export function shareSnippets(site, viewId, name, raw, { title = viewId, height = 480 } = {}) {
  const query = queryOf(name, raw);
  const pairs = [...new URLSearchParams(query)];
  const root = new URL('.', site).href;
  const embedQuery = new URLSearchParams([['view', viewId], ...(pairs.some(([k]) => k === 'encoding') ? [] : [['encoding', name]]), ...pairs]);
  return {
    link: `${root}index.html${query}#${viewId}`,
    iframe: `<iframe src="${escapeAttribute(`${root}embed.html?${embedQuery.toString().replaceAll('%2C', ',')}`)}" title="posenc: ${escapeAttribute(title)}"\n` +
      `  width="100%" height="${Math.round(height)}" style="border: 0" loading="lazy"></iframe>\n${RESIZE_SCRIPT}`,
    component: `<script type="module" src="${root}posenc-view.js"></script>\n` +
      `<posenc-view view="${viewId}" encoding="${name}"${pairs.filter(([k]) => k !== 'encoding').map(([k, v]) => ` ${k}="${escapeAttribute(v)}"`).join('')}></posenc-view>`,
  };
}

/**
 * Builds a family's views (and controls) and keeps them in step with raw values.
 * @param {object} o
 * @param {object} o.engine          engine.js
 * @param {string} o.name            the family (its spec type)
 * @param {Record<string, string>} o.raw  raw values read from a link or attributes (the rest take defaults)
 * @param {Set<string>} [o.fromLink]  the names in o.raw that came from a link: refused ones become warnings
 * @param {(w: {param: string, message: string}) => void} o.warn
 * @param {string[]} [o.viewIds]     the views to show (the family's by default)
 * @param {HTMLElement} o.container  where the view frames go
 * @param {'h2'|'h3'} [o.heading]
 * @param {HTMLFormElement} [o.form] where the controls go (none without it)
 * @param {boolean} [o.viewControls]  also give each view its own controls (those it reads), folded under its caption:
 *   the playground's, which a narrow screen shows instead of the one long box (styles.css); every set is one state
 * @param {'all'|'dependencies'} [o.controls]  every control, or only those the views read
 * @param {(viewId: string) => object} [o.shareContext]  {site, height} for the share control (none without it)
 * @param {(view: object) => HTMLElement[]} [o.tools]   more toolbar items per view
 * @param {(raw: object) => void} [o.onEncoding]  the encoding control changed (raw carries the new name)
 * @param {(raw: object, params: object, changed: string|null) => void} [o.onSettled]  every view is up to date, without errors
 * @param {(raw: object, changed: string) => void} [o.onCommit]  the reader committed a change (released a slider, left a box)
 */
export async function createStage(o) {
  const { engine, name } = o;
  const family = FAMILIES[name];
  const parameters = parametersOf(name);
  const fromLink = new Set(o.fromLink ?? []);
  const views = await Promise.all((o.viewIds ?? family.views).map(loadView));
  const frames = new Map();
  const controlErrors = new Map();  // view id -> {param, message}
  let parseErrors = {};
  let destroyed = false;
  let raw;
  let params;
  let lastChanged = null;

  const commitOf = (changed) => o.onCommit?.(raw, changed);
  const controls = o.form ? createControls(o.form, parameters, (r, c) => onInput(r, c, controls), commitOf) : null;
  const hasControl = (param) => controls && shownControls().has(param);
  /** Each view's own controls (o.viewControls), by view id; a change in one is written into the others. */
  const viewControls = new Map();

  for (const view of views) {
    const frame = createViewFrame(view, {
      heading: o.heading,
      onExport: (kind) => exportFigure(view, frame, kind),
      share: o.shareContext ? () => shareSnippets(o.shareContext(view.id).site, view.id, name, raw,
        { title: view.title, height: o.shareContext(view.id).height ?? frame.section.offsetHeight + 40 }) : null,
      extra: o.tools?.(view) ?? [],
    });
    frames.set(view.id, frame);
    o.container.append(frame.section);
    if (o.viewControls) {
      const box = document.createElement('details');
      box.className = 'view-controls';
      const summary = document.createElement('summary');
      summary.textContent = 'controls of this view';
      const form = inlineForm(`Controls of ${view.title}`);
      box.append(summary, form);
      frame.section.querySelector('.caption').after(box);
      const own = createControls(form, parameters, (r, c) => onInput(r, c, own), commitOf, `${view.id}--`);
      viewControls.set(view.id, own);
    }
  }

  const session = createSession({
    engine, family: name, views, frames,
    place(error, viewId) {
      const param = paramOf(error);
      if (!param || !hasControl(param)) return false;
      controlErrors.set(viewId, { param, message: error.message });
      return param;
    },
    onSettle(viewId, error) {
      if (!error || !paramOf(error) || !hasControl(paramOf(error))) controlErrors.delete(viewId);
      showErrors();
    },
  });

  function paramOf(error) {
    return parameterOf(parameters, error);
  }

  /** The controls shown: those that apply, and (for an embed) those its views read. */
  function shownControls() {
    const visible = visibleNames(parameters, params ?? parse(parameters, raw).params);
    if (o.controls !== 'dependencies') return visible;
    const read = new Set(views.flatMap((v) => [...session.dependencies(v.id)]));
    return new Set([...visible].filter((n) => read.has(n)));
  }

  function showErrors() {
    if (!controls) return;
    const errors = { ...parseErrors };
    for (const { param, message } of controlErrors.values()) errors[param] ??= message;
    const shown = shownControls();
    controls.showOnly(shown);
    controls.showErrors(errors);
    for (const [viewId, own] of viewControls) {  // a view's own: those of the shown ones it reads (not the encoding)
      const reads = session.dependencies(viewId);
      own.showOnly(new Set([...shown].filter((n) => reads.has(n) && n !== 'encoding')));
      own.showErrors(errors);
    }
  }

  function onInput(nextRaw, changed, source = null) {
    if (changed === 'encoding') {
      o.onEncoding?.(nextRaw);
      return;
    }
    fromLink.delete(changed);
    set(nextRaw, changed, source);
  }

  /**
   * Applies raw values (a family's consistency rule first) and brings the views up to them; every set of
   * controls shows them (the one the reader typed in too, when the rule changed what was typed).
   */
  function set(nextRaw, changed, source = null) {
    const fixed = family.adjustRaw ? family.adjustRaw(nextRaw, changed) : nextRaw;
    raw = fixed;
    const rewrite = fixed !== nextRaw || changed === null;
    // The other sets take the one value the reader changed (a dragged slider fires on every pixel); a rewrite, all.
    const values = rewrite ? fixed : { [changed]: fixed[changed] };
    for (const c of [controls, ...viewControls.values()]) if (c && (c !== source || rewrite)) c.set(values);
    lastChanged = changed;
    return update(changed);
  }

  let scheduled = null;
  let latestRun = Promise.resolve({ ok: false });
  let queued = null;
  /** Parses and updates at most once per animation frame (a dragged slider fires faster). */
  function update(changed) {
    queued = changed;
    scheduled ??= new Promise((resolve) => requestAnimationFrame(() => {
      scheduled = null;
      latestRun = run(queued);
      resolve(latestRun);
    }));
    return scheduled;
  }

  /** @returns {Promise<{ok: boolean} | {superseded: true}>} */
  async function run(changed) {
    if (destroyed) return { superseded: true };
    const parsed = parse(parameters, raw);
    params = parsed.params;
    parseErrors = parsed.errors;
    showErrors();
    // The formulas follow the values, not a bad one the views keep their last figure through.
    if (!Object.keys(parseErrors).length) for (const frame of frames.values()) frame.setFormula(params).catch((e) => console.error(e));
    // What the engine computes from: the params, or what the family's page reads from them (compare: its lines).
    const sent = family.request ? family.request(params) : params;
    const outcome = await session.update(sent, new Set(Object.keys(parsed.errors)));
    if (outcome.superseded || destroyed) return { superseded: true };
    // Again with what each view drew: its formula shows the figure's own values (a value the core refused
    // leaves the last good figure, and so its formula) and the numbers that are the core's (formulas.js formulaOf).
    for (const [id, frame] of frames) {
      const drawn = session.drawn(id);
      if (drawn) frame.setFormula(drawn.params, drawn.data).catch((e) => console.error(e));
    }
    // A value from the link that the core refuses: warn, use the default, draw again.
    const refused = [];
    for (const { error } of outcome.errors) {
      const param = paramOf(error);
      if (param && fromLink.has(param) && !refused.includes(param)) refused.push(param);
    }
    if (refused.length) {
      const defaults = defaultsOf(parameters);
      const next = { ...raw };
      for (const param of refused) {
        const { message } = outcome.errors.find(({ error }) => paramOf(error) === param).error;
        o.warn({ param, message: `${message}; using the default ${JSON.stringify(defaults[param] || '(none)')}` });
        fromLink.delete(param);
        next[param] = defaults[param];
      }
      return set(next, null);
    }
    const ok = outcome.errors.length === 0 && !outcome.cancelled.length && Object.keys(parsed.errors).length === 0;
    if (ok) o.onSettled?.(raw, params, changed);
    return { ok };
  }

  async function exportFigure(view, viewFrame, kind) {
    const drawn = session.drawn(view.id);
    if (!drawn) return;
    try {
      const [{ exportView }, version] = await Promise.all([import('./export.js'), engine.ready]);
      let extra = {};
      if (kind === 'json' && family.jsonFields) {
        const answer = await engine.view(`json:${view.id}`, name, drawn.params, family.jsonFields);
        if (answer.error) throw answer.error;
        extra = answer.data;
      }
      let spec = null;
      try { spec = family.spec(drawn.params); } catch { /* a family without a single spec */ }
      await exportView(kind, { view, data: drawn.data, params: drawn.params, encoding: name, spec, extra, version, figure: viewFrame.figure });
    } catch (error) {
      viewFrame.setError(`${kind.toUpperCase()} export failed: ${error.message}`);
    }
  }

  // Figures follow their box's width and the theme.
  let width = o.container.clientWidth;
  let resizeTimer = null;
  const resize = new ResizeObserver(() => {
    const now = o.container.clientWidth;
    if (Math.abs(now - width) < 8) return;
    width = now;
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => session.rerender(), 120);
  });
  resize.observe(o.container);
  const scheme = matchMedia('(prefers-color-scheme: dark)');
  const onScheme = () => session.rerender();
  scheme.addEventListener('change', onScheme);

  const first = set({ ...baseOf(name, o.raw), ...o.raw, encoding: name }, null);

  return {
    views,
    frames,
    session,
    /** Resolves once the first state has been drawn (or failed). */
    ready: first,
    /** The current raw values and parsed params. */
    state: () => ({ raw, params, changed: lastChanged }),
    /** Replaces the raw values (a link reloaded, an attribute changed); names in fromLinkNames came from a link. */
    load(nextRaw, fromLinkNames = []) {
      fromLink.clear();
      for (const n of fromLinkNames) fromLink.add(n);
      return set({ ...baseOf(name, nextRaw), ...nextRaw, encoding: name }, null);
    },
    /** Sets some raw values as if the reader had typed them. */
    change(values, changed = null) {
      for (const key of Object.keys(values)) fromLink.delete(key);
      return set({ ...raw, ...values }, changed);
    },
    /**
     * Resolves when the latest state has been drawn, figures and formulas: {ok} (no errors anywhere), after any newer
     * one (a change made while a formula was typeset is waited for too).
     */
    async whenSettled() {
      for (;;) {
        const outcome = await (scheduled ?? latestRun);
        if (outcome.superseded) {
          if (destroyed) return { ok: false };
          continue;
        }
        const run = latestRun;
        await Promise.all([...frames.values()].map((f) => f.whenFormula()));
        if (!scheduled && run === latestRun) return outcome;
      }
    },
    /** Draws the views again at the current size and theme. */
    rerender: () => session.rerender(),
    destroy() {
      destroyed = true;
      session.destroy();
      resize.disconnect();
      scheme.removeEventListener('change', onScheme);
      for (const f of frames.values()) f.section.remove();
    },
  };
}


const ALL_KEYS = new Set(Object.keys(FAMILIES).flatMap((n) => parametersOf(n).map((p) => p.name)));

/**
 * Reads a link's query (or a component's attributes) into a family and its raw values.
 * The encoding is `encoding`, else the default one (for a single view: the first family
 * that shows it); an unknown encoding, an unknown key or a value that does not parse
 * becomes a warning and its default is used.
 * @param {Iterable<[string, string]>} entries
 * @param {object} [o]
 * @param {string[]} [o.shellKeys]  keys the shell reads itself
 * @param {string} [o.viewId]       the one view to show (embed, component)
 * @returns {{name: string, raw: Record<string, string>, warnings: {param: string, message: string}[]}}
 */
export function readLink(entries, { shellKeys = [], viewId = null } = {}) {
  const pairs = [...entries];
  const asked = pairs.find(([k]) => k === 'encoding')?.[1];
  const warnings = [];
  const hasView = (n) => !viewId || FAMILIES[n].views.includes(viewId);
  const fallback = hasView(ENCODING.default) ? ENCODING.default : Object.keys(FAMILIES).find(hasView) ?? ENCODING.default;
  let name = asked ?? fallback;
  if (!Object.hasOwn(FAMILIES, name)) {
    warnings.push({ param: 'encoding', message: `encoding = ${JSON.stringify(asked)} ignored: expected one of ${Object.keys(FAMILIES).join(', ')}; showing ${fallback}` });
    name = fallback;
  } else if (!hasView(name)) {
    warnings.push({ param: 'view', message: `view = ${JSON.stringify(viewId)} is not a view of ${name}; showing it for ${fallback}` });
    name = fallback;
  }
  const read = readQuery(parametersOf(name), pairs.filter(([k]) => k !== 'encoding'),
    { shellKeys, familyLabel: FAMILIES[name].label, otherKeys: ALL_KEYS });
  return { name, raw: read.raw, warnings: [...warnings, ...read.warnings] };
}
