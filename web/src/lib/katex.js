// KaTeX for the formulas beside the views (formulas.js), loaded on first use
// (view-frame.js imports this module dynamically), with its stylesheet and
// fonts from the bundle: nothing is fetched from elsewhere. In a document (the
// playground, embed.html, the tour) a formula is KaTeX's HTML, set in its own
// fonts, with MathML for assistive technology; the fonts are registered in the
// document. In a shadow root (a <posenc-view> on someone's page) it is MathML
// alone, set by the browser in its math font: KaTeX's HTML needs its fonts,
// and a font reaches a shadow root only through the host's document.fonts
// (Chromium ignores an @font-face inside a shadow root, crbug.com/336876),
// which the component leaves as it found it (README, "Embed in your post").
import katex from 'katex';
import katexCss from 'katex/dist/katex.min.css?raw';

// KaTeX_<Family>-<Style>.woff2, as URLs of the built files (relative to this script, so any host and sub-path works).
const FONTS = import.meta.glob('../../../node_modules/katex/dist/fonts/*.woff2', { query: '?url', import: 'default', eager: true });
const RULES = katexCss.replace(/@font-face\{[^}]*\}/g, '');

let fontsAdded = false;
/** Registers KaTeX's fonts in the document once (for its HTML output); each loads when a formula first uses it. */
function addFonts() {
  if (fontsAdded || typeof FontFace !== 'function') return;
  fontsAdded = true;
  for (const [file, url] of Object.entries(FONTS)) {
    const [, family, style] = file.match(/(KaTeX_\w+)-(\w+)\.woff2$/);
    document.fonts.add(new FontFace(family, `url(${JSON.stringify(url)}) format("woff2")`, {
      weight: style.startsWith('Bold') ? 'bold' : 'normal', style: style.endsWith('Italic') ? 'italic' : 'normal', display: 'block',
    }));
  }
}

let sheet = null;
/**
 * KaTeX's rules (without the fonts) in the root that holds `node`: a shadow root, else the document; a constructed
 * stylesheet, which a strict Content-Security-Policy allows (a <style> element it blocks).
 */
function addRules(node) {
  const root = node.getRootNode();
  const target = root instanceof ShadowRoot ? root : document;
  sheet ??= new CSSStyleSheet();
  if (!sheet.cssRules.length) sheet.replaceSync(RULES);
  if (!target.adoptedStyleSheets.includes(sheet)) target.adoptedStyleSheets = [...target.adoptedStyleSheets, sheet];
}

/**
 * KaTeX's tree with every style="..." attribute (its stretchy SVGs carry one: braces, \\begin{cases}) set through
 * element.style instead, which a Content-Security-Policy without 'unsafe-inline' allows; its other nodes already
 * set their sizes so.
 */
function styleThroughCssom(node) {
  const css = node.attributes?.style;
  if (css !== undefined) {
    delete node.attributes.style;
    const toNode = node.toNode.bind(node);
    node.toNode = () => {
      const built = toNode();
      built.style.cssText = css;
      return built;
    };
  }
  for (const child of node.children ?? []) styleThroughCssom(child);
  return node;
}

/**
 * Typesets TeX into `element` (its content replaced): in a document, HTML for the eye and MathML for assistive
 * technology; in a shadow root, MathML for both (it needs no web font: see the top of this file).
 * Built as nodes (what katex.render does, with styleThroughCssom between tree and nodes), never as markup:
 * renderToString's style="..." attributes are blocked by a strict Content-Security-Policy.
 * A TeX error shows as the source text in red (.katex-error), never as an exception (KaTeX's own error span
 * sets a style attribute).
 * @param {HTMLElement} element  in the document or in a shadow root (where it is when this is called)
 * @param {string} tex
 * @param {{displayMode?: boolean}} [o]  display (centred, full size) or inline (wraps at relations and operators)
 */
export function typeset(element, tex, { displayMode = true } = {}) {
  const inShadow = element.getRootNode() instanceof ShadowRoot;
  if (!inShadow) addFonts();
  addRules(element);
  try {
    const tree = katex.__renderToDomTree(tex, { displayMode, throwOnError: true, output: inShadow ? 'mathml' : 'htmlAndMathml' });
    element.replaceChildren(styleThroughCssom(tree).toNode());
  } catch (error) {
    if (!(error instanceof katex.ParseError)) throw error;
    const source = document.createElement('span');
    source.className = 'katex-error';
    source.title = String(error);
    source.textContent = tex;
    element.replaceChildren(source);
  }
}
