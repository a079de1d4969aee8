// wasm/post.js (emcc --post-js; runs inside the module factory): the JS API of
// wasm/posenc.d.ts over the embind functions of wasm/bindings.cpp (Module.posenc_<name>),
// whose top comment says what crosses.
//
// A call reads and checks its arguments here, in JS, before any wasm frame
// exists (so whatever JS throws, a getter, a Proxy, a cycle, leaves no wasm
// stack or heap behind): a spec object becomes a Spec parsed once from its JSON
// text and cached by that text; an array becomes a typed array of its items, or
// an allocFloat32 buffer's {address, length}; a scalar of the wrong type becomes
// {shown: how a message quotes it}. Then one embind function runs and returns
// the result, or undefined: the error it kept (lastError()) is thrown as a
// RangeError or Error with .code, .param, .value and .allowed.

// In a function of its own, so that no name here meets one of the runtime's.
// (Emscripten 3.1.6's JS optimizer, which minifies this file, fails on object
// spread and on destructured arrow parameters: neither is used here.)
(function posencApi() {
  /**
   * The cache of parsed specs (specOf): at most SPEC_CACHE_SIZE of them and SPEC_CACHE_BYTES in all (each counted as
   * its JSON text, 2 bytes a character, and the bytes its parsed copy holds in C++), the least recently used deleted
   * first. A spec of more than SPEC_CACHE_ENTRY_BYTES (a trainer's corpus, a long attention request) is not kept: it
   * is parsed for its call and freed when the call returns.
   */
  const SPEC_CACHE_SIZE = 256;
  const SPEC_CACHE_BYTES = 16 * 1048576;
  const SPEC_CACHE_ENTRY_BYTES = 1048576;
  /** The largest allocFloat32 buffer: 2^28 floats (1 GiB of the 2 GiB heap). */
  const MAX_BUFFER_LENGTH = 268435456;
  const OUT_OF_MEMORY = 'out of memory: the request is too large for this browser tab';
  /** The embind functions, Module.posenc_<name> (registered when the module starts, after this file has run). */
  const core = (name) => Module['posenc_' + name];

  /** An error of the API: `Type` (Error, RangeError, TypeError) with `message`, .code, .param, .value and .allowed. */
  function apiError(Type, message, code, param, value, allowed) {
    const error = new Type(message);
    error.code = code;
    error.param = param;
    error.value = value;
    error.allowed = allowed;
    return error;
  }

  /**
   * A RangeError with .code 'bad_param', .param, .value and .allowed; its message "<name> = <value> is
   * invalid: expected <allowed>" (`name` may hold an index: x[3]), or `message` when given.
   */
  function badParam(param, value, allowed, name, message) {
    return apiError(RangeError, message || `${name || param} = ${value} is invalid: expected ${allowed}`, 'bad_param', param,
      value, allowed);
  }

  /** The largest the module's memory may grow to, in MiB (-sMAXIMUM_MEMORY). */
  const MAX_MEMORY_MIB = 2048;

  /**
   * The error the last failing embind function (of the API's function `name`) kept, as a JS error with .code,
   * .param, .value and .allowed. The core names the parameter of every bad input; an error that is not about one
   * input (out of memory, an internal error) names the function that asked, as .param.
   */
  function lastError(name) {
    const data = core('lastError')();
    if (data === undefined)
      return apiError(Error, `posenc: ${name} failed and its error could not be kept`, 'internal', name, 'a failed call', 'a call that succeeds');
    const error = new (data.name === 'RangeError' ? RangeError : Error)(data.message);
    for (const part of ['code', 'param', 'value', 'allowed']) if (data[part] !== undefined) error[part] = data[part];
    if (error.param === undefined) {
      error.param = name;
      if (error.code === 'out_of_memory') {
        const used = Math.round(HEAPU8.buffer.byteLength / 1048576);
        error.value = `a ${name} request larger than the memory left (${used} MiB of ${MAX_MEMORY_MIB} MiB in use)`;
        error.allowed = `a request that fits in the ${MAX_MEMORY_MIB} MiB WebAssembly memory of this tab; ` +
          'free the trainers and allocFloat32 buffers no longer needed';
        error.message = `${name}: ${OUT_OF_MEMORY} (${used} MiB of ${MAX_MEMORY_MIB} MiB of WebAssembly memory in use; ` +
          'free the trainers and allocFloat32 buffers no longer needed, or ask for less)';
      } else {
        if (error.value === undefined) error.value = 'a failed call';
        if (error.allowed === undefined) error.allowed = 'a call that succeeds';
      }
    }
    return error;
  }

  /** A JS value as a message quotes it: a string in quotes (its first 40 characters), a number, boolean or BigInt as written, else its kind. */
  function quoted(value) {
    switch (typeof value) {
      case 'string': return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
      case 'bigint': return `${value}n`;
      case 'number': case 'boolean': case 'undefined': return String(value);
      case 'object': return value === null ? 'null' : Array.isArray(value) ? 'an array' : 'an object';
      default: return `a ${typeof value}`;
    }
  }

  // ---------------------------------------------------------------------------
  // Arguments. A call converts its arguments in two phases. read(value) runs
  // first, for every argument, in JS: it reads each value once (a getter, Proxy
  // trap or toJSON of the caller's runs here, and may throw or even call the
  // module again) and checks types, lengths against the core's limits and the
  // items of arrays, into a staged form. Then args(list, staged) appends the
  // embind function's arguments (a spec's Spec, parsed or cached; an allocFloat32
  // buffer's address, refused if it was freed meanwhile); from there on no code
  // of the caller's runs until the result is returned.

  /**
   * True when JSON.stringify wrote `object` as it is: no non-finite number (JSON
   * writes null, read as "absent"), no function or symbol (dropped), no typed
   * array (written as an object), no undefined in an array (written as null).
   */
  function plainJson(object) {
    if (ArrayBuffer.isView(object)) return false;
    const array = Array.isArray(object);
    for (const key in object) {
      const item = object[key];
      switch (typeof item) {
        case 'number': if (item - item !== 0) return false; break;
        case 'object': if (item !== null && !plainJson(item)) return false; break;
        case 'function': case 'symbol': return false;
        case 'undefined': if (array) return false; break;
      }
    }
    return true;
  }

  /**
   * The JSON text of `value` as JSON.stringify writes it, except that a
   * non-finite number is written NaN, Infinity or -Infinity (core/json.hpp reads
   * them, so the family's reader names the key and its range), a typed array as
   * a list, and a function, symbol or BigInt is refused (`path` and `key` name it).
   */
  function exactJson(value, path, key) {
    if (typeof value === 'bigint')
      throw badParam(key, 'bigint', 'a number (not a BigInt)', null, `${path} must be a number, not bigint`);
    if (typeof value === 'number') return value - value === 0 ? JSON.stringify(value) : String(value);
    if (typeof value !== 'object' || value === null || typeof value.toJSON === 'function') return JSON.stringify(value);
    if (Array.isArray(value) || ArrayBuffer.isView(value)) {
      const expected = typeof value[0] === 'string' ? 'string' : 'number';
      const items = [];
      for (let i = 0; i < value.length; i++) {
        const type = typeof value[i];
        if (type === 'undefined' || type === 'function' || type === 'symbol')
          throw badParam(key, type, `a ${expected} like the first item`, null,
            `${path}[${i}] must be a ${expected} like the first item, not ${type}`);
        items.push(exactJson(value[i], `${path}[${i}]`, key));
      }
      return `[${items.join(',')}]`;
    }
    const members = [];
    for (const name of Object.keys(value)) {
      const item = value[name];
      const type = typeof item;
      if (type === 'undefined') continue;  // {base: undefined} means "not given"
      if (type === 'function' || type === 'symbol')
        throw badParam(name, type, 'a number, string, boolean, list of numbers, object or null', null,
          `${path}.${name} must be a number, string, boolean, list of numbers, object or null, not ${type}`);
      members.push(`${JSON.stringify(name)}:${exactJson(item, `${path}.${name}`, name)}`);
    }
    return `{${members.join(',')}}`;
  }

  let coreLimits = null;
  /** describe().limits, read from the core once, when first needed (posenc_limits: both modules have it; describe()
   *  is posenc.wasm's only). */
  function limits() {
    if (coreLimits === null) coreLimits = core('limits')();
    return coreLimits;
  }

  /** Throws unless `length` (of a string or array named `name`) is at most `max`. */
  function checkLength(name, length, max, unit) {
    if (length > max)
      throw badParam(name, `${unit === 'characters' ? 'a string' : 'an array'} of length ${length}`, `at most ${max} ${unit}`);
  }

  /**
   * Refuses a spec nested deeper than the core reads (max_json_depth) or with
   * more values than its JSON could hold (max_json_bytes, at least two
   * characters a value), before JSON.stringify walks it: an object that shares
   * one child ten times per level is small in memory but 10^depth values long.
   * Typed arrays count by their length. Stops at the first level or value past
   * the limit, so it is bounded whatever the object.
   */
  function checkShape(value, name) {
    const { max_json_depth: maxDepth, max_json_bytes: maxBytes } = limits();
    const maxValues = maxBytes / 2;
    let values = 0;
    // Named as the spec's own key that holds the excess (its top-level key), else as the spec.
    const refuse = (what, key) => badParam(key === undefined ? name : key, what, `a ${name} of at most ${maxDepth} levels and ${maxBytes} bytes of JSON`);
    const walk = (node, depth, top) => {
      if (typeof node !== 'object' || node === null) return;
      if (depth > maxDepth) throw refuse(`an object nested more than ${maxDepth} levels deep`, top);
      if (ArrayBuffer.isView(node)) { values += node.length; return; }
      for (const key in node) {
        if ((values += 1) > maxValues) throw refuse(`an object of more than ${maxValues} values`, top === undefined ? key : top);
        walk(node[key], depth + 1, top === undefined ? key : top);
      }
    };
    walk(value, 1, undefined);
    if (values > maxValues) throw refuse(`an object of more than ${maxValues} values`);
  }

  /** The bytes of `text` in UTF-8 (what the core's limit on a JSON text counts). */
  function utf8Length(text) {
    let bytes = text.length;  // one a UTF-16 unit, and more for the units above U+007F
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      if (unit >= 0x800) bytes += unit >= 0xD800 && unit <= 0xDFFF ? 1 : 2;  // a surrogate pair's two units: 4 bytes
      else if (unit >= 0x80) bytes += 1;
    }
    return bytes;
  }

  /**
   * The key of `value` (a plain object) whose JSON is the longest, with that length: the key a text too long is
   * named by (the request's `text`). Only data properties are read (no getter runs twice); undefined for none.
   */
  function longestMember(value) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || ArrayBuffer.isView(value)) return undefined;
    let best;
    for (const key of Object.keys(value)) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (!descriptor || !('value' in descriptor)) continue;
      let length = 0;
      try {
        length = utf8Length(exactJson(descriptor.value, key, key));
      } catch (error) {
        continue;  // a value JSON cannot write: its own error was thrown already, or will be
      }
      if (best === undefined || length > best.length) best = { key, length };
    }
    return best;
  }

  /**
   * The JSON text of a spec object (`what`: 0 "spec", 1 "request"), at most
   * max_json_bytes bytes of UTF-8 (a longer one is refused as its key that holds
   * the most: a trainer's `text`). Throws here, in JS, for a cycle, a BigInt, a
   * throwing getter or Proxy trap.
   */
  function specText(value, what) {
    const name = what === 1 ? 'request' : 'spec';
    checkShape(value, name);
    let text;
    try {
      text = JSON.stringify(value);
    } catch (error) {
      // A BigInt: exactJson names where it is (a getter's own error, thrown again there, goes on as it is).
      if (!(error instanceof TypeError) || !/BigInt/.test(error.message)) throw error;
      text = exactJson(value, name, name);
    }
    if (text === undefined) text = 'null';  // undefined, a function: C++ says what a spec must be
    else if (typeof value === 'object' && value !== null && !plainJson(value)) text = exactJson(value, name, name);
    const maxBytes = limits().max_json_bytes;
    const bytes = text.length * 3 > maxBytes ? utf8Length(text) : text.length;
    if (bytes > maxBytes) {  // named as the key that made it too long (a trainer's text), else as the spec
      const member = longestMember(value);
      const key = member ? member.key : name;
      throw badParam(key, `a value of ${member ? member.length : bytes} bytes of JSON`,
        `a ${name} of at most ${maxBytes} bytes of JSON in all (describe().limits.max_json_bytes; this one has ${bytes})`);
    }
    return text;
  }

  // JSON text -> {spec, used, bytes}: the Spec parsed from it, when it was last used (a counter: a hit only writes
  // it; the scan for the least recently used happens on a miss, when the cache is full) and what it holds.
  const specs = new Map();
  let specClock = 0;
  let specBytes = 0;
  /** The Specs parsed for the call under way and not kept (too large to cache): freed when it returns (define). */
  const transientSpecs = [];

  /** Deletes the cached Spec of the JSON text `text`, if any. */
  function dropSpec(text) {
    const entry = specs.get(text);
    if (entry === undefined) return;
    core('freeSpec')(entry.spec);
    specs.delete(text);
    specBytes -= entry.bytes;
  }

  /** Deletes the least recently used Spec. */
  function dropOldestSpec() {
    let oldest;
    let oldestUse = Infinity;
    specs.forEach((entry, key) => {  // (the Emscripten 3.1.6 optimizer drops a destructured for-of binding)
      if (entry.used < oldestUse) {
        oldest = key;
        oldestUse = entry.used;
      }
    });
    dropSpec(oldest);
  }

  /** The Spec parsed from the JSON text `text` (`what`: 0 "spec", 1 "request", as messages name it). */
  function specOf(text, what) {
    const cached = specs.get(text);
    if (cached !== undefined) {
      cached.used = ++specClock;
      return cached.spec;
    }
    const parsed = core('parseSpec')(text, what);
    if (parsed === undefined) throw lastError(what === 1 ? 'request' : 'spec');
    const bytes = 2 * text.length + parsed.bytes;
    if (bytes > SPEC_CACHE_ENTRY_BYTES) {
      transientSpecs.push(parsed.id);
      return parsed.id;
    }
    while (specs.size > 0 && (specs.size >= SPEC_CACHE_SIZE || specBytes + bytes > SPEC_CACHE_BYTES)) dropOldestSpec();
    specs.set(text, { spec: parsed.id, used: ++specClock, bytes });
    specBytes += bytes;
    return parsed.id;
  }

  // A typed array's own length and type, read through the built-in getters
  // (an own `length` property or a Proxy cannot change what is copied).
  const typedArrayProto = Object.getPrototypeOf(Int8Array.prototype);
  const typedLengthGetter = Object.getOwnPropertyDescriptor(typedArrayProto, 'length').get;
  const typedTagGetter = Object.getOwnPropertyDescriptor(typedArrayProto, Symbol.toStringTag).get;
  /** The element type of a typed array ('Float32Array', ...), undefined for anything else. */
  function typedArrayType(value) {
    return typedTagGetter.call(value);
  }
  function typedLength(value) {
    return typedLengthGetter.call(value);
  }

  /**
   * The items of a plain array (or array-like Proxy), each read once and
   * checked to be a finite number, copied into a fresh `Type` array.
   */
  function stagedNumbers(array, Type, name, allowed, max) {
    const length = array.length;
    if (typeof length !== 'number' || !(length >= 0) || length > 4294967295)
      throw badParam(name, 'an array of length ' + String(length), allowed);
    checkLength(name, length, max, 'numbers');
    const copy = new Type(length);
    for (let i = 0; i < length; i++) {
      const item = array[i];
      if (typeof item !== 'number' || item - item !== 0)
        throw badParam(name, quoted(item), allowed, `${name}[${i}]`);
      copy[i] = item;
      if (copy[i] - copy[i] !== 0)  // finite as a double, infinite as a float32
        throw badParam(name, String(item), 'a finite float32 (|x| <= 3.4028234663852886e38)', `${name}[${i}]`);
    }
    return copy;
  }

  // allocFloat32 buffers -> their state {address (0 once freed), length}.
  const handles = new WeakMap();
  /** The key under which a buffer's .array view holds the buffer. */
  const OWNER = Symbol('posenc allocFloat32 buffer');

  /** A number, boolean or undefined as it is; another value as {shown: how a message quotes it} (bindings.cpp reads either). */
  function scalar(value) {
    const type = typeof value;
    return type === 'number' || type === 'boolean' || type === 'undefined' ? value : { shown: quoted(value) };
  }

  /** An argument the core reads as a number or boolean. */
  const number = {
    read: scalar,
    args(list, staged) {
      list.push(staged);
    },
  };

  /** A string argument (anything else staged as number's). */
  function string(name) {
    return {
      read(value) {
        if (typeof value !== 'string') return scalar(value);
        checkLength(name, value.length, limits().max_table_elements, 'characters');
        return value;
      },
      args: number.args,
    };
  }

  const spec = {
    read: (value) => specText(value, 0),
    args(list, staged) {
      list.push(specOf(staged, 0));
    },
  };

  /** The JSON text of the last trainerStart's request: the trainer it started drops its cached Spec when freed. */
  let startedText = null;
  /** A train request (train, trainerStart): a spec named "request" in messages. */
  const trainRequest = {
    read: (value) => specText(value, 1),
    args(list, staged) {
      startedText = staged;
      list.push(specOf(staged, 1));
    },
  };

  /** An allocFloat32 buffer as bindings.cpp reads it: {address, length}, refused if freed since it was read. */
  function buffer(state, name) {
    if (state.address === 0)
      throw badParam(name, 'a freed buffer', 'a buffer from allocFloat32(length) that has not been freed');
    return { address: state.address, length: state.length };
  }

  /** The optional last argument `out`: an allocFloat32 buffer the result is written into. */
  const out = {
    read(value) {
      if (value === undefined || value === null) return undefined;
      const state = handles.get(value);
      if (state === undefined) throw badParam('out', typeof value, 'a buffer from allocFloat32(length)');
      return { value, state };
    },
    args(list, staged) {
      if (staged === undefined) {
        list.push(undefined);
        return;
      }
      const target = buffer(staged.state, 'out');
      target.buffer = staged.value;
      list.push(target);
    },
  };

  /**
   * An input array named `name`, at most `maxLength()` numbers: {typed, length} (the caller's typed array of type
   * `typed`, or a `Copy` of a plain array's items, each `item()`: 'a finite number' by default), or an allocFloat32
   * buffer's {address, length}, read in place. Every item is checked finite before the core reads it, so a NaN or
   * infinity is named where it is (wk[17] = NaN): a plain array's here, a typed array's or buffer's by
   * bindings.cpp (check_finite, SIMD, on the heap copy or the buffer itself).
   */
  function floats(name, allowed, maxLength, typed = 'Float32Array', Copy = Float32Array, item = () => 'a finite number') {
    return {
      read(value) {
        const state = handles.get(value);
        if (state !== undefined) return { state };
        if (typedArrayType(value) === typed) {
          const length = typedLength(value);
          checkLength(name, length, maxLength(), 'numbers');
          return { typed: value, length };
        }
        if (!Array.isArray(value)) throw badParam(name, quoted(value), allowed);
        const copy = stagedNumbers(value, Copy, name, item(), maxLength());
        return { typed: copy, length: copy.length };
      },
      args(list, staged) {
        list.push(staged.state !== undefined ? buffer(staged.state, name) : staged);
      },
    };
  }

  const tableElements = () => limits().max_table_elements;

  /**
   * t5Bucket's positions, at most max_table_elements: the caller's Int32Array, a float64 copy of an array of
   * integers (the core's range of a relative position, posenc::args::relative_position), or an allocFloat32 buffer.
   */
  const relativePositions = floats('relativePositions', 'an Int32Array or array of integers', tableElements, 'Int32Array',
    Float64Array, () => `an integer in [-${limits().max_position}, ${limits().max_position}]`);

  /** The keys of `value` but `names`, in a plain copy (no object spread: the Emscripten 3.1.6 JS optimizer cannot walk it). */
  function without(value, names) {
    const rest = Object.assign({}, value);
    for (const name of names) delete rest[name];
    return rest;
  }

  const attentionX = floats('x', 'a Float32Array, array or allocFloat32 buffer of n * d_model numbers',
    () => limits().max_tokens * limits().max_model_dim);
  /** attention's request: its Spec, then its optional x (sent apart from the JSON). */
  const request = {
    read(value) {
      let x;
      if (typeof value === 'object' && value !== null && Object.prototype.hasOwnProperty.call(value, 'x')) {
        x = value.x;
        value = without(value, ['x']);
      }
      if (typeof value === 'object' && value !== null && ['wq', 'wk', 'wv'].some((key) => ArrayBuffer.isView(value[key]))) {
        value = Object.assign({}, value);  // a trained head's projections (train()'s Float32Arrays) travel in the JSON
        for (const key of ['wq', 'wk', 'wv']) if (ArrayBuffer.isView(value[key])) value[key] = Array.from(value[key]);
      }
      const text = specText(value, 1);
      return { text, x: x === undefined || x === null ? undefined : attentionX.read(x) };
    },
    args(list, staged) {
      list.push(specOf(staged.text, 1));
      if (staged.x === undefined) list.push(undefined);
      else attentionX.args(list, staged.x);
    },
  };

  const weights = 'a Float32Array, array or allocFloat32 buffer of d_model * d_head numbers';
  const weightLength = () => limits().max_model_dim * limits().max_forward_head_dim;
  /** attentionForward's arrays, in the export's order, each with its converter. */
  const FORWARD_ARRAYS = {
    x: floats('x', 'a Float32Array, array or allocFloat32 buffer of n * d_model numbers',
      () => limits().max_forward_tokens * limits().max_model_dim),
    wq: floats('wq', weights, weightLength),
    wk: floats('wk', weights, weightLength),
    wv: floats('wv', weights, weightLength),
  };

  /**
   * A request whose arrays travel apart from its JSON: the Spec of its other keys, then
   * each array of `arrays` in order, then (withOut) the optional out buffer.
   */
  function arraysRequest(arrays, withOut) {
    const names = Object.keys(arrays);
    const apart = withOut ? names.concat(['out']) : names;
    return {
      read(value) {
        const given = {};
        let target;
        if (typeof value === 'object' && value !== null) {
          for (const name of names) given[name] = value[name];
          target = value.out;
          value = without(value, apart);
        }
        const staged = { text: specText(value, 1), arrays: {}, out: withOut ? out.read(target) : undefined };
        for (const name of names) staged.arrays[name] = arrays[name].read(given[name]);
        return staged;
      },
      args(list, staged) {
        list.push(specOf(staged.text, 1));
        for (const name of names) arrays[name].args(list, staged.arrays[name]);
        if (withOut) out.args(list, staged.out);
      },
    };
  }

  /** attentionForward's request: x, wq, wk, wv apart, and out. */
  const forwardRequest = arraysRequest(FORWARD_ARRAYS, true);

  /** cope's request: q, k [n, d_head] and pos_emb [npos_max, d_head] apart. */
  const copeLength = () => limits().max_matrix_n * limits().max_model_dim;
  const copeRequest = arraysRequest({
    q: floats('q', 'a Float32Array, array or allocFloat32 buffer of n * d_head numbers', copeLength),
    k: floats('k', 'a Float32Array, array or allocFloat32 buffer of n * d_head numbers', copeLength),
    pos_emb: floats('pos_emb', 'a Float32Array, array or allocFloat32 buffer of npos_max * d_head numbers',
      () => limits().max_model_dim * limits().max_model_dim),
  }, false);

  // ---------------------------------------------------------------------------
  // The API

  /** The name of the function whose call is inside the module (phase two), or null. */
  let running = null;

  /**
   * The Error of a function this module was linked without (posenc-view.wasm has no trainer, model-lab functions,
   * attentionForward or describe; a posenc-view-<group>.wasm no other group's family's own functions either;
   * CMakeLists.txt): .code 'unavailable', .param the function's name.
   */
  function unavailable(name) {
    return apiError(Error, `posenc: ${name} is not in this module (posenc-view.wasm, or a family group's posenc-view-<group>.wasm); posenc.wasm has every function`, 'unavailable',
      name, 'posenc-view.wasm', 'posenc.wasm');
  }

  /** Module[name] = the JS function over the embind function Module.posenc_<name>, one converter per argument. */
  function define(name, converters) {
    const arity = converters.length;
    Module[name] = {
      [name](...values) {
        if (core(name) === undefined) throw unavailable(name);
        if (values.length > arity)
          throw apiError(TypeError, `${name} takes ${arity} arguments, got ${values.length}`, 'bad_call', 'arguments',
            `${values.length} arguments`, `at most ${arity}`);
        // Nothing of the caller's runs once a call is inside the module, so this
        // is only reached if a built-in the API uses was replaced: refused, named.
        if (running !== null)
          throw apiError(Error, `posenc: ${name} was called while ${running} was running; call it after ${running} returns`,
            'reentrant', name, `a call inside ${running}`, `a call after ${running} returns`);
        const staged = new Array(arity);
        for (let i = 0; i < arity; i++) staged[i] = converters[i].read(values[i]);
        running = name;
        let result;
        try {
          const list = [];
          for (let i = 0; i < arity; i++) converters[i].args(list, staged[i]);
          result = core(name)(...list);
        } finally {
          running = null;
          while (transientSpecs.length) core('freeSpec')(transientSpecs.pop());
        }
        if (result === undefined) throw lastError(name);
        return result;
      },
    }[name];
  }

  define('positionTable', [spec, number, out]);
  define('positionFrequencies', [spec]);
  define('ropeInvFreq', [spec, number]);
  define('ropeStacks', [spec, number]);
  define('applyRope',
    [floats('x', 'a Float32Array, array or allocFloat32 buffer of n * d numbers', tableElements), number, number, spec, number, out]);
  define('decay', [spec, number, number]);
  define('attentionTemperature', [number, number, number]);
  define('mropePairAxes', [floats('sections', 'an array of 3 integers (t, h, w)', () => 3, 'Int32Array', Float64Array,
    () => 'an integer >= 0'), number]);
  define('mropePositions', [number, number, number, number]);
  define('alibiSlopes', [number]);
  define('alibiBias', [number, number, number, number]);
  define('t5Bucket', [relativePositions, number, number, number]);
  define('attentionBias', [spec, number]);
  define('debertaRelativePosition', [number, number, number, number]);
  define('positionSimilarity', [spec, number, string('metric')]);
  define('attention', [request]);
  define('attentionForward', [forwardRequest]);
  define('cope', [copeRequest]);
  define('embedTokens', [string('text'), number, number]);
  define('tokenIds', [string('text'), number]);
  define('train', [trainRequest]);
  define('trainerStart', [trainRequest]);
  define('trainerStep', [number, number]);
  define('trainerEvaluate', [number, number]);
  define('trainerFinish', [number]);
  define('trainerLosses', [number, number]);

  /**
   * An experiment of train(request) run a chunk of steps at a time, so a worker can report
   * progress and stop between chunks: {total, done, step(count) -> done, stepsPerCall, evaluationTotal, evaluated,
   * evaluate(count) -> evaluated (after the steps: the evaluation's units, an example or a sampled
   * character each), losses(from = 0) -> {loss: the training loss of steps from + 1 .. done, validation: every
   * validation point so far} (the curves while they train), finish() -> train()'s result (and frees it), free()}. total = steps +
   * recalibration_steps. The result is the same as train(request)'s whatever the chunks. Every request it accepts
   * can run step(1) and evaluate(1); step(count) takes up to stepsPerCall steps, and finish() what train() would (the
   * steps and evaluation left within one call's budget, else a RangeError .param 'steps', the trainer kept). Call
   * free() (or finish()) when done with it: the model lives in the wasm heap until then. Throws as train() for a bad
   * request; step and finish throw an Error (.code 'freed') after free().
   */
  Module['trainer'] = function trainer(request) {
    const started = Module['trainerStart'](request);
    // What the finalizer frees (it must not hold the trainer itself): the trainer, and its request's cached Spec.
    const owned = { handle: started.handle, text: startedText };
    const check = (what) => {
      if (owned.handle === 0)
        throw apiError(Error, `trainer: ${what} after finish() or free()`, 'freed', 'trainer', 'a finished or freed trainer',
          'a trainer before finish() or free()');
      return owned.handle;
    };
    const state = {
      total: started.total,
      done: 0,
      step(count) {
        state.done = Module['trainerStep'](check('step'), count);
        return state.done;
      },
      stepsPerCall: started.stepsPerCall,
      evaluationTotal: started.evaluationTotal,
      evaluated: 0,
      evaluate(count) {
        state.evaluated = Module['trainerEvaluate'](check('evaluate'), count);
        return state.evaluated;
      },
      losses(from = 0) {
        return Module['trainerLosses'](check('losses'), from);
      },
      finish() {
        const result = Module['trainerFinish'](check('finish'));  // refused by budget: the trainer is kept
        dropped.unregister(state);
        owned.handle = 0;
        freeOwned(owned);
        state.done = state.total;
        state.evaluated = state.evaluationTotal;
        return result;
      },
      free() {
        dropped.unregister(state);
        freeOwned(owned);
      },
    };
    dropped.register(state, owned, state);
    return state;
  };
  define('describe', []);
  define('version', []);

  /**
   * Frees what a trainer ({handle, text}: the trainer and its request's cached Spec) or an allocFloat32 buffer
   * ({address}) holds in the wasm heap, once.
   */
  function freeOwned(owned) {
    if (owned.handle) core('trainerFree')(owned.handle);
    else if (owned.address) _free(owned.address);
    if (owned.text) dropSpec(owned.text);
    owned.handle = 0;
    owned.address = 0;
    owned.text = null;
  }

  /**
   * The safety net for what a caller drops without free(): a trainer or allocFloat32 buffer that is garbage
   * collected gives its wasm memory back (when the collector gets to it: free() gives it back at once).
   * A buffer's .array view keeps the buffer alive, so memory still read through a view is never freed.
   */
  const dropped = new FinalizationRegistry(freeOwned);

  /** Drops an experiment under way by its trainerStart handle (nothing for one finished or freed: no other trainer). */
  Module['trainerFree'] = (handle) => {
    if (typeof handle === 'number' && core('trainerFree') !== undefined) core('trainerFree')(handle);
  };

  /** Bytes of wasm heap allocated by malloc: a diagnostic for the leak tests. */
  Module['heapBytesInUse'] = function heapBytesInUse() {
    return core('heapBytesInUse')();
  };

  // The micro-kernels of the products and of attention: the C++ SIMD128 code, or wasm/relaxed-kernels.wat's
  // fused multiply-add versions (relaxed SIMD), whose bytes the glue carries (the --pre-js posencRelaxedKernels,
  // base64). Once the runtime is ready (embind registered): where the engine validates them, they are
  // instantiated on this module's own WebAssembly.Memory (growth keeps it), put in its function table (a
  // call_indirect from C++ then calls them directly, wasm to wasm) and installed.
  const KERNEL_PATHS = ['relaxed-simd', 'simd128'];
  /** The names of wasm/relaxed-kernels.wat's functions, in setMicroKernels's order. */
  const RELAXED_KERNELS = ['tile4', 'tile1', 'weightedSum4x2', 'weightedSum1x2', 'tile6', 'weightedSum6x2', 'softmaxRows'];
  /** The table slots of the relaxed kernels (RELAXED_KERNELS's order), or null where the engine has no relaxed SIMD. */
  let relaxedSlots = null;
  let kernelsNow = 'simd128';

  /**
   * Puts a validated relaxed module's kernels in the function table (Table.set takes only wasm functions: the
   * entries are the other instance's own code, which call_indirect enters directly). Returns their slots.
   */
  function relaxedKernelSlots(bytes) {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory: wasmMemory } });
    const first = wasmTable.grow(RELAXED_KERNELS.length);
    return RELAXED_KERNELS.map((name, k) => {
      wasmTable.set(first + k, instance.exports[name]);
      return first + k;
    });
  }

  addOnInit(() => {
    const text = atob(posencRelaxedKernels);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    if (!WebAssembly.validate(bytes)) return;
    try {
      relaxedSlots = relaxedKernelSlots(bytes);
    } catch (error) {
      return;  // validated but not instantiable (it imports only the memory): keep the C++ kernels
    }
    Module['useKernels']('relaxed-simd');
  });

  /** The path the hot micro-kernels take now: 'relaxed-simd' (fused multiply-add) or 'simd128' (the C++ code). */
  Module['kernelPath'] = function kernelPath() {
    return kernelsNow;
  };

  /**
   * Switches the hot micro-kernels to `path`, 'relaxed-simd' or 'simd128', for every later call; returns the path now
   * in use. A RangeError (.param 'path') for another value, or for 'relaxed-simd' where this engine has no relaxed SIMD.
   */
  Module['useKernels'] = function useKernels(path) {
    const available = relaxedSlots ? KERNEL_PATHS : ['simd128'];
    if (!available.includes(path)) {
      const allowed = relaxedSlots ? "'relaxed-simd' or 'simd128'" : "'simd128' (this engine has no relaxed SIMD)";
      throw badParam('path', quoted(path), allowed);
    }
    const slots = path === 'relaxed-simd' ? relaxedSlots : RELAXED_KERNELS.map(() => 0);
    core('setMicroKernels')(...slots);
    kernelsNow = path;
    return kernelsNow;
  };

  /**
   * A float32 buffer in the wasm heap, for calls without copies: pass it where
   * an array goes (read in place) or as `out` (written in place).
   * {ptr, length, array: a Float32Array view on it (a new view after the heap
   * has grown, so read .array again after any call), free()}. free() twice does
   * nothing; ptr and array throw after free(). Zero-filled when made.
   */
  Module['allocFloat32'] = function allocFloat32(length) {
    if (typeof length !== 'number' || !Number.isInteger(length) || length < 1 || length > MAX_BUFFER_LENGTH)
      throw badParam('length', typeof length === 'number' ? String(length) : typeof length, `an integer in [1, ${MAX_BUFFER_LENGTH}]`);
    const state = { address: _malloc(length * 4), length };
    if (!state.address) throw badParam('length', String(length), `a length that fits in this tab's memory (${OUT_OF_MEMORY})`);
    HEAPF32.fill(0, state.address >>> 2, (state.address >>> 2) + length);
    let view = null;
    const buffer = Object.freeze({
      get ptr() {
        if (state.address === 0)
          throw apiError(Error, 'allocFloat32: this buffer was freed', 'freed', 'buffer', 'a freed buffer', 'a buffer before free()');
        return state.address;
      },
      length,
      get array() {
        const start = this.ptr;
        if (view === null || view.buffer !== HEAPF32.buffer) {
          view = new Float32Array(HEAPF32.buffer, start, length);
          Object.defineProperty(view, OWNER, { value: buffer });  // while the view is in use, the buffer is not collected
        }
        return view;
      },
      free() {
        dropped.unregister(buffer);
        freeOwned(state);
        view = null;
      },
    });
    handles.set(buffer, state);
    dropped.register(buffer, state, buffer);
    return buffer;
  };
})();
