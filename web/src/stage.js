// One family's views, with their controls and state: what the three shells
// (the playground, embed.html, <posenc-view>) have in common. Raw control
// values are parsed (state.js), the session brings the views up to them
// (session.js), and every error lands where the reader can act on it: beside
// the control it names, or in the view it stopped. A value that came from a
// link (or an attribute) and is refused becomes a warning, and its default
// is used, so a page opened from a link always draws.
import { defaultsOf, parameterOf, parse, readQuery, toQuery, visibleNames } from './state.js';
import { ENCODING, FAMILY_NAMES, loadFamilies, loadFamily, loadedFamily, parametersOf } from './families/catalogue.js';
import { loadView } from './views/index.js';
import { loadTrained } from './families/trained.js';
import { createViewFrame } from './view-frame.js';
import { createSession } from './session.js';
import { escapeHtml as escapeAttribute } from './lib/html.js';

/** A link's raw value as a warning writes it: its JSON, cut at 120 characters (a pasted config's text runs to kilobytes). */
function shownValue(value) {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 116)}..."` : text;
}


/** The raw values a query is read against: the defaults, or a family's base for them (a model preset's values). Family
 * `name` loaded (catalogue.js loadFamily). */
export function baseOf(name, raw) {
  const family = loadedFamily(name);
  const defaults = { ...defaultsOf(parametersOf(name)), encoding: name };
  return family.baseRaw ? family.baseRaw(defaults, raw) : defaults;
}

/**
 * The query string of a state: the parameters that apply and differ from the
 * base (the encoding only when it is not the default one). Family `name` loaded.
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
    // The element's own content shows until it is defined (its shadow root then hides it): a reader whose browser
    // could not load posenc-view.js (a server without CORS, a blocked script) gets a line and a link, not nothing.
    component: `<script type="module" src="${root}posenc-view.js"></script>\n` +
      `<posenc-view view="${viewId}" encoding="${name}"${pairs.filter(([k]) => k !== 'encoding').map(([k, v]) => ` ${k}="${escapeAttribute(v)}"`).join('')}>` +
      `\n  <a href="${escapeAttribute(`${root}index.html${query}#${viewId}`)}">posenc: ${escapeAttribute(title)} (open the live figure)</a>\n</posenc-view>`,
  };
}

/**
 * Builds a family's views (and controls) and keeps them in step with raw values.
 * @param {object} o
 * @param {object} o.engine          engine/page.js
 * @param {string} o.name            the family (its spec type)
 * @param {Record<string, string>} o.raw  raw values read from a link or attributes (the rest take defaults)
 * @param {Set<string>} [o.fromLink]  the names in o.raw that came from a link: refused ones become warnings
 * @param {(w: {param: string, message: string, id?: string}) => void} o.warn  (a warning with an id replaces the one of that id)
 * @param {string[]} [o.viewIds]     the views to show (the family's by default)
 * @param {HTMLElement} o.container  where the view frames go
 * @param {'h2'|'h3'} [o.heading]
 * @param {HTMLFormElement} [o.form] where the controls go (none without it)
 * @param {string[]} [o.primaryControls]  those of o.form in a strip, the rest folded (controls.js createControls)
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
  const family = await loadFamily(name);
  const parameters = parametersOf(name);
  const fromLink = new Set(o.fromLink ?? []);
  // The controls' module only where there are controls (an embed without them draws without it).
  const [views, { createControls, inlineForm } = {}] = await Promise.all([Promise.all((o.viewIds ?? family.views).map(loadView)),
    o.form || o.viewControls ? import('./controls.js') : undefined]);
  const frames = new Map();
  const controlErrors = new Map();  // view id -> {param, message}
  let parseErrors = {};
  let destroyed = false;
  let raw;
  let params;
  let lastChanged = null;

  const commitOf = (changed) => o.onCommit?.(raw, changed);
  const controls = o.form ? createControls(o.form, parameters, (r, c) => onInput(r, c, controls), commitOf, '',
    { primary: o.primaryControls ?? null }) : null;
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
    leaveLink();
    set(nextRaw, changed, source);
  }

  /**
   * Applies raw values (a family's consistency rule first) and brings the views up to them; every set of
   * controls shows them (the one the reader typed in too, when the rule changed what was typed).
   */
  function set(nextRaw, changed, source = null) {
    const fixed = family.adjustRaw ? family.adjustRaw(nextRaw, changed) : nextRaw;
    // A link's value the family's rule moved (a rotation pair past the last pair of head_dim): said, not silent.
    // (A preset or comparison that becomes "custom" only says the values no longer match it.)
    for (const key of fromLink) {
      if (fixed[key] === nextRaw[key] || fixed[key] === 'custom') continue;
      o.warn({ param: key, message: `${key} = ${shownValue(nextRaw[key])} does not fit the link's other values; using ${shownValue(fixed[key])}` });
      fromLink.delete(key);
    }
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

  let runs = 0;  // runs started: one whose family's request (compare mode's lines) resolved after a newer one began is stale
  /** @returns {Promise<{ok: boolean} | {superseded: true}>} */
  async function run(changed) {
    if (destroyed) return { superseded: true };
    const ticket = ++runs;
    const parsed = parse(parameters, raw);
    params = parsed.params;
    parseErrors = parsed.errors;
    showErrors();
    // The formulas follow the values, not a bad one the views keep their last figure through. Before any figure is
    // drawn they wait: formulas.js and KaTeX (about 85 KB gzip) load after the first figure, not before it.
    const drawnBefore = [...frames.keys()].some((id) => session.drawn(id));
    if (drawnBefore && !Object.keys(parseErrors).length) for (const frame of frames.values()) frame.setFormula(params).catch((e) => console.error(e));
    // What the engine computes from: the params, or what the family's page reads from them (compare: its lines).
    // (compare mode's loads its lines' families' files first: a newer run may begin meanwhile, and then this one is stale)
    const sent = family.request ? await family.request(params) : params;
    if (ticket !== runs || destroyed) return { superseded: true };
    const outcome = await session.update(sent, new Set(Object.keys(parsed.errors)));
    if (outcome.superseded || destroyed) return { superseded: true };
    // Again with what each view drew: its formula shows the figure's own values (a value the core refused
    // leaves the last good figure, and so its formula) and the numbers that are the core's (formulas.js formulaOf).
    for (const [id, frame] of frames) {
      const drawn = session.drawn(id);
      if (drawn) frame.setFormula(drawn.params, drawn.data).catch((e) => console.error(e));
      else if (!drawnBefore && !Object.keys(parseErrors).length) frame.setFormula(params).catch((e) => console.error(e));  // not drawn: its formula still
    }
    // Values from a link (or attributes) that the core refuses together: fall back, draw again.
    if (outcome.errors.length && (fromLink.size || fallback)) {
      const next = fallBack(outcome.errors);
      if (next) {
        // Said at once, not after the next run: a lab's run takes minutes. The finished fallback's warning replaces it.
        warnFallback({ final: false });
        return set(next, null);
      }
    }
    if (fallback) warnFallback();
    const ok = outcome.errors.length === 0 && !outcome.cancelled.length && Object.keys(parsed.errors).length === 0;
    if (ok) {
      lastGood = { ...raw };
      o.onSettled?.(raw, params, changed);
    }
    return { ok };
  }

  /**
   * The reader changed a value: the state is theirs now, not the link's. A value the core refuses from here on is
   * said beside its control and never replaced (a fallback under way stops: what it replaced is warned of).
   */
  function leaveLink() {
    fromLink.clear();
    if (fallback) warnFallback();
  }

  // A link's fallback under way: {replaced: [{param, from, to, why}], whole: the whole states tried ('last good', 'defaults')}.
  let fallback = null;
  /** The raw values of the last state every view drew without error (a component's attributes before a bad change). */
  let lastGood = null;

  /**
   * The raw values to try after the core refused the link's values (`errors`, one per failing view), or null when
   * nothing is left to replace. Each round replaces, key by key: a link key an error names; else the last link key
   * (in the link's order) that a failing view read, for a refusal of values that are each valid alone (yarn with
   * factor 1e308) or of a default with a link value (n = 128 with d_model = 2^24). Its default comes in (the
   * family's base: a model preset's value). When no link key is left to blame, the last state that drew comes
   * back whole, else the family's defaults: the page always draws, and a fallback is never itself left invalid.
   */
  function fallBack(errors) {
    fallback ??= { replaced: [], whole: [] };
    const base = baseOf(name, raw);
    const blamed = new Map();  // key -> the message that blamed it
    for (const { viewId, error } of errors) {
      const param = paramOf(error);
      const read = session.dependencies(viewId);
      const key = param && fromLink.has(param) ? param : [...fromLink].reverse().find((k) => read.has(k));
      if (key && !blamed.has(key)) blamed.set(key, error.message);
    }
    const next = { ...raw };
    for (const [key, why] of blamed) {
      fallback.replaced.push({ param: key, from: raw[key], to: base[key], why });
      fromLink.delete(key);
      next[key] = base[key];
    }
    if (blamed.size) return next;
    // Nothing left to blame key by key: the last state that drew (a component's attributes before this change), then the
    // defaults, each tried once (by name: the defaults are a new object each round).
    const [tried, whole] = [['last good', lastGood], ['defaults', { ...base, encoding: name }]]
      .find(([label, state]) => state && !fallback.whole.includes(label)) ?? [];
    if (!whole) return null;  // the defaults refused too: each view says why (the defaults' test keeps this from happening)
    fallback.whole.push(tried);
    const why = errors[0].error.message;
    for (const key of Object.keys(raw)) {
      if (raw[key] !== whole[key] && !fallback.replaced.some((r) => r.param === key)) fallback.replaced.push({ param: key, from: raw[key], to: whole[key], why });
    }
    fromLink.clear();
    return { ...whole };
  }

  /**
   * One warning for a fallback: what the core refused, and each value replaced with what replaced it. Under way
   * (final false) it is said and the fallback goes on; finished, it replaces the one said under way (one id).
   */
  function warnFallback({ final = true } = {}) {
    const { replaced } = fallback;
    if (final) fallback = null;
    if (!replaced.length) return;
    // An empty value: the key unset, named by its placeholder (layer_kind: "where they differ most").
    const placeholderOf = (name) => parameters.find((p) => p.name === name)?.placeholder;
    const shown = (value, name) => shownValue(value || placeholderOf(name) || '(none)');
    const swap = (r) => `${r.param} = ${shown(r.from, r.param)} by ${shown(r.to, r.param)}`;
    const whys = [...new Set(replaced.map((r) => r.why))];
    // One value the core's message names: that message, as for a value refused alone; else what was replaced, for each reason.
    const message = replaced.length === 1 && replaced[0].why.startsWith(`${replaced[0].param} = `)
      ? `${replaced[0].why}; using the default ${shown(replaced[0].to, replaced[0].param)}`
      : whys.length === 1 ? `${whys[0]}; replaced ${replaced.map(swap).join(', ')}`
        : `These values of the link do not work together: ${whys.map((why) =>
          `${why} (replaced ${replaced.filter((r) => r.why === why).map(swap).join(', ')})`).join('; ')}`;
    o.warn({ param: replaced[0].param, message, id: 'fallback' });
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
      // a family's trained set (or its start), whose tensors its spec carries (families/trained.js)
      await loadTrained([name], { initial: drawn.params.weights === 'initial' });
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
      fallback = null;
      for (const n of fromLinkNames) fromLink.add(n);
      return set({ ...baseOf(name, nextRaw), ...nextRaw, encoding: name }, null);
    },
    /** Sets some raw values as if the reader had typed them. */
    change(values, changed = null) {
      leaveLink();
      return set({ ...raw, ...values }, changed);
    },
    /**
     * Resolves when the latest state has been drawn: {ok} (no errors anywhere), after any newer one. With
     * formulas, also once every formula shows it (a change made while one was typeset is waited for too): what a
     * component's whenReady() promises; the playground's URL follows the figures without waiting for them.
     * @param {{formulas?: boolean}} [o]
     */
    async whenSettled({ formulas = false } = {}) {
      for (;;) {
        const outcome = await (scheduled ?? latestRun);
        if (outcome.superseded) {
          if (destroyed) return { ok: false };
          continue;
        }
        if (!formulas) return outcome;
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


/** Every family's keys, and each by its name in lower case (HTML lowercases attribute names): loaded on first use, to
 * word the warning for a key the family shown does not have (another family's, or none). */
let allKeys = null;
async function everyKey() {
  allKeys ??= loadFamilies().then(() => {
    const keys = new Set(FAMILY_NAMES.flatMap((n) => parametersOf(n).map((p) => p.name)));
    return { keys, byLowerCase: new Map([...keys].map((key) => [key.toLowerCase(), key])) };
  });
  return allKeys;
}

/** The first family (the default one first) that shows view `viewId` (any, without one), loading families only as needed. */
async function familyShowing(viewId) {
  if (!viewId || (await loadFamily(ENCODING.default)).views.includes(viewId)) return ENCODING.default;
  const all = await loadFamilies();
  return FAMILY_NAMES[all.findIndex((f) => f.views.includes(viewId))] ?? ENCODING.default;
}

/**
 * Reads a link's query (or a component's attributes) into a family and its raw values, once that family is loaded.
 * The encoding is `encoding`, else the default one (for a single view: the first family
 * that shows it); an unknown encoding, an unknown key or a value that does not parse
 * becomes a warning and its default is used. Only the family shown is loaded, unless a key is not one of its own
 * (then every family, to say whose it is) or it lacks the view (then the one to show it for).
 * @param {Iterable<[string, string]>} entries
 * @param {object} [o]
 * @param {string[]} [o.shellKeys]  keys the shell reads itself
 * @param {string} [o.viewId]       the one view to show (embed, component)
 * @param {boolean} [o.anyCase]     keys are HTML attribute names, which HTML lowercases: init_l stands for init_L
 * @returns {Promise<{name: string, raw: Record<string, string>, warnings: {param: string, message: string}[]}>}
 */
export async function readLink(entries, { shellKeys = [], viewId = null, anyCase = false } = {}) {
  let pairs = [...entries];
  const asked = pairs.find(([k]) => k === 'encoding')?.[1];
  const warnings = [];
  const known = FAMILY_NAMES.includes(asked);
  const hasView = async (n) => !viewId || (await loadFamily(n)).views.includes(viewId);
  let name = asked;
  if (!known || !(await hasView(asked))) {
    const fallback = await familyShowing(viewId);
    if (asked === undefined) {
      // no encoding asked: the default, or the first family with the view
    } else if (!known) {
      warnings.push({ param: 'encoding', message: `encoding = ${shownValue(asked)} ignored: expected one of ${FAMILY_NAMES.join(', ')}; showing ${fallback}` });
    } else {
      warnings.push({ param: 'view', message: `view = ${shownValue(viewId)} is not a view of ${asked}; showing it for ${fallback}` });
    }
    name = fallback;
  }
  const family = await loadFamily(name);
  const parameters = parametersOf(name);
  const own = new Set([...parameters.map((p) => p.name), ...shellKeys]);
  const ownByLowerCase = new Map([...own].map((key) => [key.toLowerCase(), key]));
  if (anyCase) pairs = pairs.map(([k, v]) => [own.has(k) ? k : ownByLowerCase.get(k.toLowerCase()) ?? k, v]);
  let otherKeys = new Set();
  if (pairs.some(([k]) => !own.has(k))) {
    const every = await everyKey();
    otherKeys = every.keys;
    if (anyCase) pairs = pairs.map(([k, v]) => [own.has(k) ? k : every.byLowerCase.get(k.toLowerCase()) ?? k, v]);
  }
  const read = readQuery(parameters, pairs.filter(([k]) => k !== 'encoding'), { shellKeys, familyLabel: family.label, otherKeys });
  return { name, raw: read.raw, warnings: [...warnings, ...read.warnings] };
}
