// Values written into Python source (the model lab's PyTorch snippet, export.js pytorchSnippet) as Python literals,
// never as raw text: a model's name from a pasted config or a GGUF file can hold a newline, a quote or a backslash, and
// text after "#" ends at the first line break, so a name written there could start a line of code of its own.

// Characters Python's str.isprintable() calls non-printable, which its repr() escapes: the categories Other (Cc control,
// Cf format, Cs surrogate, Co private use, Cn unassigned) and Separator (Zs, Zl U+2028, Zp U+2029), except the space.
const NON_PRINTABLE = /^[\p{C}\p{Z}]$/u;
const SHORT_ESCAPES = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A Python string literal of `text`, on one line, in double quotes (as black writes them), escaped as Python's repr()
 * escapes: backslash, the quote, \n \r \t, and every other non-printable character as \xhh, \uhhhh or \Uhhhhhhhh
 * (a lone surrogate too: Python's '\ud800' is the same one-character string). Python reads it back as `text` exactly.
 * @param {string} text
 * @returns {string} e.g. "org/x\nimport os" for the two lines org/x and import os
 */
export function pythonString(text) {
  let out = '"';
  for (const ch of String(text)) {  // by code point: a surrogate pair is one character, a lone surrogate one too
    if (Object.hasOwn(SHORT_ESCAPES, ch)) out += SHORT_ESCAPES[ch];
    else if (ch === ' ' || !NON_PRINTABLE.test(ch)) out += ch;
    else {
      const code = ch.codePointAt(0);
      const [prefix, digits] = code < 0x100 ? ['\\x', 2] : code < 0x10000 ? ['\\u', 4] : ['\\U', 8];
      out += prefix + code.toString(16).padStart(digits, '0');
    }
  }
  return `${out}"`;
}

/**
 * A Python float literal of `x`: always with a point or an exponent (1.0, not 1, so a tensor of them is float),
 * -0.0 keeping its sign, and float("nan"), float("inf"), -float("inf") for the non-finite values.
 * @param {number} x
 * @returns {string}
 */
export function pythonFloat(x) {
  const value = Number(x);
  if (Number.isNaN(value)) return 'float("nan")';
  if (value === Infinity) return 'float("inf")';
  if (value === -Infinity) return '-float("inf")';
  const text = Object.is(value, -0) ? '-0' : String(value);
  return /[.e]/.test(text) ? text : `${text}.0`;
}

/**
 * A Python int literal of `x`, a whole number.
 * @param {number} x
 * @returns {string}
 * @throws {TypeError} for anything that is not a safe integer (a caller's bug: such a value is not a count or an index)
 */
export function pythonInt(x) {
  if (!Number.isSafeInteger(x)) throw new TypeError(`python: ${String(x).slice(0, 40)} is not a whole number`);
  return String(x);
}
