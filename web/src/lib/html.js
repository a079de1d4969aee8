// Text placed inside HTML or SVG markup (tooltips, snippets, exported SVG).

/** `text` with &, <, > and " escaped, safe in element content and in a quoted attribute. */
export function escapeHtml(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
}
