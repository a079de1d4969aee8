// The text a control shows for a typed value (state.js parses it back): a list
// as "1, 1.5, 2", absent as ''. A leaf, for the family files the worker loads too.

/** The text a control shows for a typed value. */
export function format(value) {
  if (value === null || value === undefined) return '';
  return Array.isArray(value) ? value.join(', ') : String(value);
}
