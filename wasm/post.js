// wasm/post.js (emcc --post-js; runs inside the module factory): the JS API of
// DESIGN.md over the raw exports of wasm/bindings.cpp, whose top comment gives
// the calling convention.
//
// A call checks and converts its arguments here, in JS, before any wasm frame
// exists (so whatever JS throws, a getter, a Proxy, a cycle, leaves no wasm
// stack or heap behind): a spec object becomes the id of a C++ copy parsed
// once from its JSON text and cached by that text; an array becomes a heap
// copy, freed however the call ends, or, for an allocFloat32 buffer, its own
// address (read in place). One export then runs and returns its reply, JSON
// whose arrays point into the heap; each is copied into a fresh typed array.
// Or it returns 0, and the error it stored is thrown as a RangeError or Error
// whose .param names the parameter, .value the value as the message writes it
// and .allowed what was expected.

// In a function of its own, so that no name here meets one of the runtime's.
// (Emscripten 3.1.6's JS optimizer, which minifies this file, fails on object
// spread and on destructured arrow parameters: neither is used here.)
(function posencApi() {
  /** Parsed specs kept in C++, least recently used evicted (and freed) first. */
  const SPEC_CACHE_SIZE = 256;
  /** The largest allocFloat32 buffer: 2^28 floats (1 GiB of the 2 GiB heap). */
  const MAX_BUFFER_LENGTH = 268435456;
  const OUT_OF_MEMORY = 'out of memory: the request is too large for this browser tab';
  /** The JS type of a value as the exports' `kinds` argument codes it (3 bits; see Kind in bindings.cpp). */
  function typeCode(value) {
    switch (typeof value) {
      case 'number': return 0;
      case 'undefined': return 1;
      case 'string': return 2;
      case 'boolean': return 3;
      case 'object': return 4;
      case 'function': return 5;
      case 'symbol': return 6;
      default: return 7;  // bigint
    }
  }
  const textDecoder = new TextDecoder();
  const textEncoder = new TextEncoder();

  /**
   * A RangeError with .param, .value and .allowed; its message "<name> = <value> is
   * invalid: expected <allowed>" (`name` may hold an index: x[3]), or `message` when given.
   */
  function badParam(param, value, allowed, name, message) {
    const error = new RangeError(message || `${name || param} = ${value} is invalid: expected ${allowed}`);
    error.param = param;
    error.value = value;
    error.allowed = allowed;
    return error;
  }

  // ---------------------------------------------------------------------------
  // Replies

  /** The ASCII JSON text of the reply at `address` (a uint32 byte count, then the bytes). */
  function replyText(address) {
    const length = HEAPU32[address >>> 2];
    return textDecoder.decode(HEAPU8.subarray(address + 4, address + 4 + length));
  }

  /** The error the last failing export stored, as a JS error with .param, .value and .allowed. */
  function lastError() {
    const reply = JSON.parse(replyText(Module['_posenc_error']()));
    const error = new (reply.name === 'RangeError' ? RangeError : Error)(reply.message);
    for (const part of ['param', 'value', 'allowed']) if (reply[part] !== undefined) error[part] = reply[part];
    return error;
  }

  /** Replaces the tagged values of a parsed reply: arrays in the heap by fresh copies. */
  function materialise(value, out) {
    if (typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) {  // lists of objects or arrays (train's layers and maps); numbers stay as they are
      for (let i = 0; i < value.length; i++) if (typeof value[i] === 'object' && value[i] !== null) value[i] = materialise(value[i], out);
      return value;
    }
    for (const key in value) {
      if (key.charCodeAt(0) === 36) {  // '$': the object is a tag
        const tagged = value[key];
        switch (key) {
          case '$f32': return HEAPF32.slice(tagged[0] >>> 2, (tagged[0] >>> 2) + tagged[1]);
          case '$i32': return HEAP32.slice(tagged[0] >>> 2, (tagged[0] >>> 2) + tagged[1]);
          case '$out': return out.array;
          case '$num': return Number(tagged);  // NaN, Infinity, -Infinity
        }
      }
      const item = value[key];
      if (typeof item === 'object' && item !== null) value[key] = materialise(item, out);
    }
    return value;
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

  /** An error of the core whose value is a JS argument it did not receive ("<argument 1: string>"), with that argument's value. */
  function withValues(error, values) {
    const tag = /<argument (\d+): \w+>/;
    if (!error || typeof error.message !== 'string' || !tag.test(error.message)) return error;
    const shown = quoted(values[Number(tag.exec(error.message)[1])]);
    error.message = error.message.replace(tag, shown);
    if (typeof error.value === 'string') error.value = error.value.replace(tag, shown);
    return error;
  }

  /** The result of an export that returned `address` (0: it failed). */
  function takeReply(address, out) {
    if (address === 0) throw lastError();
    const value = materialise(JSON.parse(replyText(address)), out);
    Module['_posenc_release']();
    return value;
  }

  // ---------------------------------------------------------------------------
  // Arguments. A call converts its arguments in two phases. read(value) runs
  // first, for every argument, in JS: it reads each value once (a getter, Proxy
  // trap or toJSON of the caller's runs here, and may throw or even call the
  // module again) and checks types, lengths against the core's limits and the
  // items of arrays, into a staged form (a number, a JSON text, a Float32Array
  // copy of a plain array), allocating nothing in the heap. Then write(call,
  // staged) puts it in the heap and appends the export's arguments to
  // call.args (heap it allocates goes to call.temps); from there on no code
  // of the caller's runs until the reply is copied out.

  function allocate(call, bytes, name, length) {
    const address = _malloc(bytes);
    if (!address)
      throw badParam(name, `an array of length ${length}`, `one that fits in this tab's memory (${OUT_OF_MEMORY})`);
    if (call.temps === null) call.temps = [address];
    else call.temps.push(address);
    return address;
  }

  /** Writes `text` as UTF-8 into the heap; returns [address, byte length]. */
  function heapText(call, text, name) {
    const capacity = text.length * 3 + 1;
    const address = allocate(call, capacity, name, text.length);
    const { written } = textEncoder.encodeInto(text, HEAPU8.subarray(address, address + capacity));
    return [address, written];
  }

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
  /** describe().limits, read from the core once, when first needed. */
  function limits() {
    if (coreLimits === null) coreLimits = takeReply(Module['_posenc_describe'](), undefined).limits;
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
    const refuse = (what) => badParam(name, what, `a spec of at most ${maxDepth} levels and ${maxBytes} bytes of JSON`);
    const walk = (node, depth) => {
      if (typeof node !== 'object' || node === null) return;
      if (depth > maxDepth) throw refuse(`an object nested more than ${maxDepth} levels deep`);
      if (ArrayBuffer.isView(node)) { values += node.length; return; }
      for (const key in node) {
        if ((values += 1) > maxValues) throw refuse(`an object of more than ${maxValues} values`);
        walk(node[key], depth + 1);
      }
    };
    walk(value, 1);
    if (values > maxValues) throw refuse(`an object of more than ${maxValues} values`);
  }

  /**
   * The JSON text of a spec object (`what`: 0 "spec", 1 "request"), at most
   * max_table_elements characters long. Throws here, in JS, for a cycle, a
   * BigInt, a throwing getter or Proxy trap.
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
    checkLength(name, text.length, limits().max_table_elements, 'characters of JSON');
    return text;
  }

  // JSON text -> {id, used}: the spec id of the C++ copy and when it was last
  // used (a counter: a hit only writes it; the scan for the least recently used
  // happens on a miss, when the map is full).
  const specIds = new Map();
  let specClock = 0;

  /** The id of the parsed copy of the spec whose JSON text is `text`. */
  function specId(text, what) {
    const cached = specIds.get(text);
    if (cached !== undefined) {
      cached.used = ++specClock;
      return cached.id;
    }
    if (specIds.size >= SPEC_CACHE_SIZE) {
      let oldest;
      let oldestUse = Infinity;
      for (const [key, entry] of specIds) {
        if (entry.used < oldestUse) {
          oldest = key;
          oldestUse = entry.used;
        }
      }
      Module['_posenc_spec_free'](specIds.get(oldest).id);
      specIds.delete(oldest);
    }
    const call = { temps: null };
    let id;
    try {
      const [address, length] = heapText(call, text, what === 1 ? 'request' : 'spec');
      id = Module['_posenc_spec_parse'](address, length, what);
    } finally {
      if (call.temps !== null) _free(call.temps[0]);
    }
    if (id === 0) throw lastError();
    specIds.set(text, { id, used: ++specClock });
    return id;
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

  /** The address of a staged allocFloat32 buffer, or a RangeError naming `name` if it was freed since. */
  function handleAddress(state, name) {
    if (state.address === 0)
      throw badParam(name, 'a freed buffer', 'a buffer from allocFloat32(length) that has not been freed');
    return state.address;
  }

  /** A number or boolean: its value (the kinds tell C++ which it was); nothing else is read. */
  const number = {
    read: (value) => (typeof value === 'number' ? value : value === true ? 1 : 0),
    write(call, staged) {
      call.args.push(staged);
    },
  };

  /** A string argument: (address, byte length) of its UTF-8 copy; (0, 0) for another type. */
  function string(name) {
    return {
      read(value) {
        if (typeof value !== 'string') return null;
        checkLength(name, value.length, limits().max_table_elements, 'characters');
        return value;
      },
      write(call, staged) {
        if (staged === null) call.args.push(0, 0);
        else call.args.push(...heapText(call, staged, name));
      },
    };
  }

  const spec = {
    read: (value) => specText(value, 0),
    write(call, staged) {
      call.args.push(specId(staged, 0));
    },
  };

  /** The optional last argument `out`: an allocFloat32 buffer the result is written into. */
  const out = {
    read(value) {
      if (value === undefined || value === null) return null;
      const state = handles.get(value);
      if (state === undefined) throw badParam('out', typeof value, 'a buffer from allocFloat32(length)');
      return { value, state };
    },
    write(call, staged) {
      if (staged === null) {
        call.args.push(0, 0);
        return;
      }
      call.args.push(handleAddress(staged.state, 'out'), staged.state.length);
      call.out = staged.value;
    },
  };

  /**
   * An input array of float32 named `name`, at most `maxLength()` numbers:
   * (address, length) of a heap copy, or of an allocFloat32 buffer, read in place.
   */
  function floats(name, allowed, maxLength) {
    return {
      read(value) {
        const state = handles.get(value);
        if (state !== undefined) return { state };
        if (typedArrayType(value) === 'Float32Array') {
          const length = typedLength(value);
          checkLength(name, length, maxLength(), 'numbers');
          return { typed: value, length };
        }
        if (!Array.isArray(value)) throw badParam(name, quoted(value), allowed);
        const typed = stagedNumbers(value, Float32Array, name, 'a finite number', maxLength());
        return { typed, length: typed.length };
      },
      write(call, staged) {
        if (staged.state !== undefined) {
          call.args.push(handleAddress(staged.state, name), staged.state.length);
          return;
        }
        const address = allocate(call, staged.length * 4, name, staged.length);
        // A view on the heap is detached when the heap grows (here, or in a getter's call).
        if (typedLength(staged.typed) !== staged.length)
          throw badParam(name, 'a detached Float32Array', 'a live array (a view on the heap is detached when the heap grows: pass the allocFloat32 buffer itself)');
        HEAPF32.set(staged.typed, address >>> 2);
        call.args.push(address, staged.length);
      },
    };
  }

  const tableElements = () => limits().max_table_elements;

  /**
   * t5Bucket's positions, at most max_table_elements: (address, length, 1) of a
   * float64 copy, or (address, length, 0) of an allocFloat32 buffer, read in place.
   */
  const relativePositions = {
    read(value) {
      const state = handles.get(value);
      if (state !== undefined) return { state };
      if (typedArrayType(value) === 'Int32Array') {
        const length = typedLength(value);
        checkLength('relativePositions', length, tableElements(), 'numbers');
        return { typed: value, length };
      }
      if (!Array.isArray(value))
        throw badParam('relativePositions', quoted(value), 'an Int32Array or array of integers');
      const max = limits().max_position;  // the core's range of a relative position (posenc::args::relative_position)
      const typed = stagedNumbers(value, Float64Array, 'relativePositions', `an integer in [-${max}, ${max}]`, tableElements());
      return { typed, length: typed.length };
    },
    write(call, staged) {
      if (staged.state !== undefined) {
        call.args.push(handleAddress(staged.state, 'relativePositions'), staged.state.length, 0);
        return;
      }
      const address = allocate(call, staged.length * 8, 'relativePositions', staged.length);
      if (typedLength(staged.typed) !== staged.length)
        throw badParam('relativePositions', 'a detached Int32Array', 'a live array');
      HEAPF64.set(staged.typed, address >>> 3);
      call.args.push(address, staged.length, 1);
    },
  };

  /** The keys of `value` but `names`, in a plain copy (no object spread: the Emscripten 3.1.6 JS optimizer cannot walk it). */
  function without(value, names) {
    const rest = Object.assign({}, value);
    for (const name of names) delete rest[name];
    return rest;
  }

  const attentionX = floats('x', 'a Float32Array, array or allocFloat32 buffer of n * d_model numbers',
    () => limits().max_tokens * limits().max_model_dim);
  /** attention's request: its spec id, then its optional x (sent apart from the JSON), length -1 when absent. */
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
      return { text, x: x === undefined || x === null ? null : attentionX.read(x) };
    },
    write(call, staged) {
      call.args.push(specId(staged.text, 1));
      if (staged.x === null) call.args.push(0, -1);
      else attentionX.write(call, staged.x);
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
   * A request whose arrays travel apart from its JSON: the spec id of its other keys, then
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
        const staged = { text: specText(value, 1), arrays: {}, out: withOut ? out.read(target) : null };
        for (const name of names) staged.arrays[name] = arrays[name].read(given[name]);
        return staged;
      },
      write(call, staged) {
        call.args.push(specId(staged.text, 1));
        for (const name of names) arrays[name].write(call, staged.arrays[name]);
        if (withOut) out.write(call, staged.out);
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

  /** Module[name] = the JS function over export `exportName`, one converter per argument. */
  function define(name, exportName, converters) {
    const arity = converters.length;
    Module[name] = {
      [name](...values) {
        if (values.length > arity) throw new TypeError(`${name} takes ${arity} arguments, got ${values.length}`);
        // Nothing of the caller's runs once a call is inside the module, so this
        // is only reached if a built-in the API uses was replaced: refused, named.
        if (running !== null) throw new Error(`posenc: ${name} was called while ${running} was running; call it after ${running} returns`);
        let kinds = 0;
        const staged = new Array(arity);
        for (let i = 0; i < arity; i++) {
          const value = values[i];
          kinds |= typeCode(value) << (3 * i);
          staged[i] = converters[i].read(value);
        }
        const call = { args: [kinds], temps: null, out: undefined };
        running = name;
        try {
          for (let i = 0; i < arity; i++) converters[i].write(call, staged[i]);
          return takeReply(Module[exportName](...call.args), call.out);
        } catch (error) {
          throw withValues(error, values);
        } finally {
          if (call.temps !== null) for (const address of call.temps) _free(address);
          running = null;
        }
      },
    }[name];
  }

  define('positionTable', '_posenc_position_table', [spec, number, out]);
  define('positionFrequencies', '_posenc_position_frequencies', [spec]);
  define('ropeInvFreq', '_posenc_rope_inv_freq', [spec, number]);
  define('applyRope', '_posenc_apply_rope',
    [floats('x', 'a Float32Array, array or allocFloat32 buffer of n * d numbers', tableElements), number, number, spec, number, out]);
  define('decay', '_posenc_decay', [spec, number, number]);
  define('alibiSlopes', '_posenc_alibi_slopes', [number]);
  define('alibiBias', '_posenc_alibi_bias', [number, number, number, number]);
  define('t5Bucket', '_posenc_t5_bucket', [relativePositions, number, number, number]);
  define('attentionBias', '_posenc_attention_bias', [spec, number]);
  define('debertaRelativePosition', '_posenc_deberta_relative_position', [number, number, number, number]);
  define('positionSimilarity', '_posenc_position_similarity', [spec, number, string('metric')]);
  define('attention', '_posenc_attention', [request]);
  define('attentionForward', '_posenc_attention_forward', [forwardRequest]);
  define('cope', '_posenc_cope', [copeRequest]);
  define('embedTokens', '_posenc_embed_tokens', [string('text'), number, number]);
  define('train', '_posenc_train', [spec]);
  define('trainerStart', '_posenc_trainer_start', [spec]);
  define('trainerStep', '_posenc_trainer_step', [number, number]);
  define('trainerFinish', '_posenc_trainer_finish', [number]);

  /**
   * An experiment of train(request) run a chunk of steps at a time, so a worker can report
   * progress and stop between chunks: {total, done, step(count) -> done, finish() -> train()'s
   * result (and frees it), free()}. total = steps + recalibration_steps. The result is the same
   * as train(request)'s whatever the chunks. Call free() (or finish()) when done with it: the
   * model lives in the wasm heap until then. Throws as train() for a bad request; step and
   * finish throw an Error after free().
   */
  Module['trainer'] = function trainer(request) {
    const started = Module['trainerStart'](request);
    let handle = started.handle;
    const check = (what) => {
      if (handle === 0) throw new Error(`trainer: ${what} after finish() or free()`);
      return handle;
    };
    const state = {
      total: started.total,
      done: 0,
      step(count) {
        state.done = Module['trainerStep'](check('step'), count);
        return state.done;
      },
      finish() {
        const h = check('finish');
        handle = 0;
        const result = Module['trainerFinish'](h);
        state.done = state.total;
        return result;
      },
      free() {
        if (handle !== 0) Module['_posenc_trainer_free'](handle);
        handle = 0;
      },
    };
    return state;
  };
  define('describe', '_posenc_describe', []);
  define('version', '_posenc_version', []);

  /** Bytes of wasm heap allocated by malloc: a diagnostic for the leak tests. */
  Module['heapBytesInUse'] = function heapBytesInUse() {
    return Module['_posenc_heap_bytes_in_use']();
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
        if (state.address === 0) throw new Error('allocFloat32: this buffer was freed');
        return state.address;
      },
      length,
      get array() {
        const start = this.ptr;
        if (view === null || view.buffer !== HEAPF32.buffer) view = new Float32Array(HEAPF32.buffer, start, length);
        return view;
      },
      free() {
        if (state.address === 0) return;
        _free(state.address);
        state.address = 0;
        view = null;
      },
    });
    handles.set(buffer, state);
    return buffer;
  };
})();
