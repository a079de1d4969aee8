// <posenc-view view="decay" encoding="rope" rope_theta="500000" ...>: one view
// of posenc in any page. Attributes are the playground's URL state keys (and
// view, controls="1", theme="light|dark"); the view draws in a shadow root,
// redraws when an attribute changes, and shows a warning in place for a bad
// one. Every <posenc-view> of a page shares one engine (one Web Worker, one
// .wasm fetch: the first component's view says which, engine/modules.js startingModule), loaded relative to this script, so the page may load it from
// another origin that serves it with CORS. It adds nothing to the page outside
// itself: no preload link (vite.config.js), no font (its formulas are MathML,
// lib/katex.js), and the page's inherited styles stop at :host (views.css).
import { sharedEngine } from '../engine/page.js';
import { startingModule } from '../engine/modules.js';
import { viewGroupFor } from '../engine/view-groups.js';
import css from '../../views.css?inline';

// The views' code (single-view.js and what it imports: several request levels) is imported on demand, so this script
// and the engine's few modules are all that load before the engine starts: its worker and its .wasm download beside
// the views' code, not after it (issue 40). The element is defined at once all the same.
let views = null;
const loadViews = () => {
  views ??= import('./single-view.js');
  return views;
};
// The components already in the page (a module script runs once the document is parsed): the engine starts now, on the
// module the first one's view says (engine/modules.js startingModule), and the views' code is fetched.
const first = document.querySelector('posenc-view');
if (first) {
  // One family group's module (engine/view-groups.js) when every component in the page shows a family of that group;
  // posenc-view.wasm (every family) for components of several groups, or one without an encoding.
  const groups = new Set([...document.querySelectorAll('posenc-view')].map((e) => viewGroupFor(e.getAttribute('view'), e.getAttribute('encoding'),
    e.getAttribute('compare_distance'))));
  sharedEngine({ module: startingModule(first.getAttribute('view')), group: groups.size === 1 ? [...groups][0] : null });
  loadViews().catch(() => {});  // said where it is awaited (#render)
}

// Where index.html is: next to this script once built, one folder up in the sources.
const SITE = new URL(import.meta.env.DEV ? '../../' : './', import.meta.url);
let sheet = null;

class PosencView extends HTMLElement {
  #mounted = null;
  #observer = null;
  #pending = null;
  #dirty = false;
  #generation = 0;

  constructor() {
    super();
    this.attachShadow({ mode: 'open' });
    // A constructed stylesheet, not a <style> element, which a host's strict Content-Security-Policy would block
    // (every browser with the engine's WebAssembly SIMD but Firefox 89-100 has them).
    sheet ??= new CSSStyleSheet();
    if (!sheet.cssRules.length) sheet.replaceSync(css);
    this.shadowRoot.adoptedStyleSheets = [sheet];
    this.root = document.createElement('div');
    this.root.className = 'posenc-root';
    this.shadowRoot.append(this.root);
  }

  connectedCallback() {
    this.#observer = new MutationObserver(() => this.#schedule());
    this.#observer.observe(this, { attributes: true });
    this.#schedule();
  }

  disconnectedCallback() {
    this.#observer?.disconnect();
    this.#mounted?.destroy();
    this.#mounted = null;
    this.#generation++;
  }

  /** Resolves when the view has drawn its current attributes (those set just before the call too): figure and formula. */
  async whenReady() {
    // setAttribute(...) then whenReady(): the observer's record is still queued (a microtask away); take it now.
    if (this.#observer?.takeRecords().length) this.#schedule();
    while (this.#pending) await this.#pending;
    await this.#mounted?.stage?.whenSettled({ formulas: true });
  }

  /** The state entries: every attribute but the element's own HTML ones (names as HTML has them: lower case). */
  #entries() {
    return [...this.attributes].map((a) => [a.name, a.value])
      .filter(([k]) => !['class', 'style', 'id', 'title', 'hidden', 'lang', 'slot', 'tabindex'].includes(k) && !/^(aria|data)-/.test(k));
  }

  #schedule() {
    this.#dirty = true;
    this.#pending ??= (async () => {
      while (this.#dirty) {
        this.#dirty = false;
        await this.#render();
      }
    })().finally(() => { this.#pending = null; });
  }

  async #render() {
    const mine = ++this.#generation;
    const entries = this.#entries();
    const inPlace = this.#mounted?.update(entries);
    if (inPlace) { await inPlace; return; }
    this.#mounted?.destroy();
    const engine = sharedEngine({ module: startingModule(this.getAttribute('view')),
      group: viewGroupFor(this.getAttribute('view'), this.getAttribute('encoding'), this.getAttribute('compare_distance')) });
    const { mountSingleView } = await loadViews();
    const mounted = await mountSingleView(this.root, { engine, entries, site: SITE, anyCase: true });
    if (mine !== this.#generation) { mounted.destroy(); return; }
    this.#mounted = mounted;
  }
}

if (!customElements.get('posenc-view')) customElements.define('posenc-view', PosencView);
