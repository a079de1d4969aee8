// A GGUF header writer for the tests (unit and e2e), in the published GGUF layout (llama.cpp docs/gguf.md,
// gguf-py/gguf/gguf_writer.py): magic "GGUF", u32 version, u64 tensor count, u64 key-value count, then each pair as
// a u64-length UTF-8 key, a u32 value type and the value, then each tensor's info. A header may lie (counts, lengths)
// so that the reader's refusals can be tested.

/** GGUF value types. */
export const T = { u8: 0, i8: 1, u16: 2, i16: 3, u32: 4, i32: 5, f32: 6, bool: 7, str: 8, arr: 9, u64: 10, i64: 11, f64: 12 };

/** Little-endian bytes of one value of GGUF type `type` (arrays: `[elementType, items]`). */
function valueBytes(type, value) {
  const fixed = (n, set) => { const b = new DataView(new ArrayBuffer(n)); set(b); return [new Uint8Array(b.buffer)]; };
  switch (type) {
    case T.u8: return fixed(1, (v) => v.setUint8(0, value));
    case T.i8: return fixed(1, (v) => v.setInt8(0, value));
    case T.u16: return fixed(2, (v) => v.setUint16(0, value, true));
    case T.i16: return fixed(2, (v) => v.setInt16(0, value, true));
    case T.u32: return fixed(4, (v) => v.setUint32(0, value, true));
    case T.i32: return fixed(4, (v) => v.setInt32(0, value, true));
    case T.f32: return fixed(4, (v) => v.setFloat32(0, value, true));
    case T.bool: return fixed(1, (v) => v.setUint8(0, value ? 1 : 0));
    case T.u64: return fixed(8, (v) => v.setBigUint64(0, BigInt(value), true));
    case T.i64: return fixed(8, (v) => v.setBigInt64(0, BigInt(value), true));
    case T.f64: return fixed(8, (v) => v.setFloat64(0, value, true));
    case T.str: {
      const text = new TextEncoder().encode(value);
      return [...valueBytes(T.u64, text.length), text];
    }
    case T.arr: {
      const [elementType, items, declared = items.length] = value;
      const out = [...valueBytes(T.u32, elementType), ...valueBytes(T.u64, declared)];
      for (const item of items) for (const part of valueBytes(elementType, item)) out.push(part);
      return out;
    }
    default: throw new Error(`type ${type}`);
  }
}

/**
 * A GGUF header: kv is [[key, type, value], ...]; tensors [[name, shape, ggmlType, offset], ...].
 * `counts` overrides the declared counts (a header that lies).
 */
export function writeGguf(kv, { tensors = [], version = 3, counts = {} } = {}) {
  const parts = [new TextEncoder().encode('GGUF'), ...valueBytes(T.u32, version),
    ...valueBytes(T.u64, counts.tensors ?? tensors.length), ...valueBytes(T.u64, counts.kv ?? kv.length)];
  for (const [key, type, value] of kv) {
    for (const part of [...valueBytes(T.str, key), ...valueBytes(T.u32, type)]) parts.push(part);
    for (const part of valueBytes(type, value)) parts.push(part);
  }
  for (const [name, shape, ggmlType, offset] of tensors) {
    parts.push(...valueBytes(T.str, name), ...valueBytes(T.u32, shape.length), ...shape.flatMap((d) => valueBytes(T.u64, d)),
      ...valueBytes(T.u32, ggmlType), ...valueBytes(T.u64, offset));
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}
