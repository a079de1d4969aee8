// The page's own errors, in the core's format: a message
// "<param> = <value> is invalid: expected <allowed>" and, on an Error, the core's
// fields .param, .value and .allowed, so the page places it as it places the core's.
// A leaf: the controls, the engine's worker and the views all use it.

/** The message of a bad value: "<name> = <value> is invalid: expected <expected>". */
export function invalid(name, value, expected) {
  return `${name} = ${value} is invalid: expected ${expected}`;
}

/**
 * A bad value the page itself refuses, in the core's format and with the
 * core's fields: a RangeError "<param> = <value> is invalid: expected <allowed>"
 * with .param, .value and .allowed.
 */
export function badParam(param, value, allowed) {
  return Object.assign(new RangeError(invalid(param, value, allowed)), { param, value: String(value), allowed });
}
