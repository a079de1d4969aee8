// The page's DOM from data. Every string a view, a note, a table or a tooltip shows (much of it from a link, a pasted
// config.json or a .gguf file) goes in as a text node, never parsed as markup: element() and labelledLines() build
// nodes; no module of the page assigns innerHTML (the built pages enforce Trusted Types, web/README.md "Under a strict
// Content-Security-Policy", so a string that reached markup would be refused, not run). escapeHtml is for the markup
// posenc writes out as text: the SVG export and the share snippets.

/** `text` with &, <, > and " escaped, safe in element content and in a quoted attribute. */
export function escapeHtml(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
}

/**
 * A new HTML element.
 * @param {string} tag
 * @param {Record<string, string>} [attributes]  set with setAttribute; their names are the caller's own, never input
 * @param {(Node|string)[]} [children]  appended; a string becomes a text node
 * @returns {HTMLElement}
 */
export function element(tag, attributes = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  node.append(...children);
  return node;
}

/**
 * Lines of text with a bold label each (a tooltip's): a line [label, text] shows the label in bold, a space and the
 * text; a string line is plain text; a <br> between lines (so innerText reads one line each).
 * @param {(string|[string, string])[]} lines
 * @returns {(Node|string)[]}  the nodes, to append
 */
export function labelledLines(lines) {
  return lines.flatMap((line, k) => [...(k ? [document.createElement('br')] : []),
    ...(typeof line === 'string' ? [line] : [element('b', {}, [line[0]]), ` ${line[1]}`])]);
}
