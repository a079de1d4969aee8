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
 * with .code 'bad_param', .param, .value and .allowed.
 */
export function badParam(param, value, allowed) {
  return Object.assign(new RangeError(invalid(param, value, allowed)), { code: 'bad_param', param, value: String(value), allowed });
}

/**
 * Runs `compute` and, if the core refuses one of the keys of `names` ({core's name: the page's}), throws the same
 * error as the page names that key: .param and the message's leading name. (Gemma-3's rope_local_base_freq goes to
 * the core as the rope_theta of the sliding layers' spec; T5's bucket map calls t5Bucket, whose argument is numBuckets.)
 */
export function renamingParam(names, compute) {
  try {
    return compute();
  } catch (error) {
    const to = Object.hasOwn(names, error?.param ?? '') ? names[error.param] : null;
    if (!to) throw error;
    const renamed = new RangeError(String(error.message).replace(new RegExp(`^${error.param}\\b`), to));
    throw Object.assign(renamed, { code: error.code, param: to, value: error.value, allowed: error.allowed });
  }
}
