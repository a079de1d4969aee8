// A minimal ONNX model writer: just enough protobuf (ModelProto, GraphProto,
// NodeProto, AttributeProto, ValueInfoProto, TensorProto, OpsetIdProto) to
// build the benchmark's small graphs in memory, so no python and no model file
// is needed. Field numbers are those of onnx/onnx.proto (ONNX 1.18, IR 11).
//
//   const bytes = model({
//     opset: 23,
//     inputs: [tensorInfo('x', [1, 8])], outputs: [tensorInfo('y', [1, 8])],
//     initializers: [floatTensor('w', [8, 8], w)],
//     nodes: [node('MatMul', ['x', 'w'], ['y'])],
//   });   // Uint8Array for ort.InferenceSession.create(bytes)

export const DataType = Object.freeze({ FLOAT: 1, INT32: 6, INT64: 7 });
const AttributeType = Object.freeze({ FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, FLOATS: 6, INTS: 7 });

/** Protobuf wire encoding into a growable byte list. */
class Writer {
  constructor() { this.bytes = []; }

  varint(value) {
    let v = BigInt.asUintN(64, BigInt(value));  // negative int64 as 10-byte two's complement
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) byte |= 0x80;
      this.bytes.push(byte);
    } while (v !== 0n);
    return this;
  }

  key(field, wireType) { return this.varint((field << 3) | wireType); }

  /** An int32/int64/enum field (wire type 0). */
  int(field, value) { return this.key(field, 0).varint(value); }

  /** A length-delimited field (wire type 2): bytes, a string or an embedded message. */
  bytesField(field, bytes) {
    this.key(field, 2).varint(bytes.length);
    for (const b of bytes) this.bytes.push(b);
    return this;
  }

  string(field, text) { return this.bytesField(field, new TextEncoder().encode(text)); }

  message(field, writer) { return this.bytesField(field, writer.bytes); }

  /** A 32-bit float field (wire type 5). */
  float(field, value) {
    const b = new Uint8Array(new Float32Array([value]).buffer);
    this.key(field, 5);
    for (const x of b) this.bytes.push(x);
    return this;
  }

  /** A packed repeated varint field. */
  packedInts(field, values) {
    const inner = new Writer();
    for (const v of values) inner.varint(v);
    return this.bytesField(field, inner.bytes);
  }

  /** A packed repeated float field. */
  packedFloats(field, values) {
    return this.bytesField(field, new Uint8Array(Float32Array.from(values).buffer));
  }
}

/** TensorProto with raw little-endian data (dims 1, data_type 2, name 8, raw_data 9). */
function tensorProto(name, dims, dataType, raw) {
  const w = new Writer();
  w.packedInts(1, dims).int(2, dataType).string(8, name).bytesField(9, raw);
  return w;
}

export function floatTensor(name, dims, values) {
  return { kind: 'tensor', proto: tensorProto(name, dims, DataType.FLOAT, new Uint8Array(Float32Array.from(values).buffer)) };
}

export function int64Tensor(name, dims, values) {
  return { kind: 'tensor', proto: tensorProto(name, dims, DataType.INT64, new Uint8Array(BigInt64Array.from(values, BigInt).buffer)) };
}

/**
 * ValueInfoProto (name 1, type 2) with TypeProto.tensor_type (1) {elem_type 1,
 * shape 2 {dim 1 {dim_value 1 | dim_param 2}}}; a string dim is symbolic.
 */
export function tensorInfo(name, dims, dataType = DataType.FLOAT) {
  const shape = new Writer();
  for (const d of dims) {
    const dim = new Writer();
    if (typeof d === 'string') dim.string(2, d); else dim.int(1, d);
    shape.message(1, dim);
  }
  const tensorType = new Writer().int(1, dataType).message(2, shape);
  const type = new Writer().message(1, tensorType);
  return new Writer().string(1, name).message(2, type);
}

/** AttributeProto (name 1, f 2, i 3, s 4, t 5, floats 7, ints 8, type 20) from a JS value. */
function attribute(name, value) {
  const w = new Writer().string(1, name);
  if (Array.isArray(value)) {
    if (value.every(Number.isInteger)) w.packedInts(8, value).int(20, AttributeType.INTS);
    else w.packedFloats(7, value).int(20, AttributeType.FLOATS);
  } else if (typeof value === 'number' && Number.isInteger(value)) {
    w.int(3, value).int(20, AttributeType.INT);
  } else if (typeof value === 'object' && value && value.kind === 'float') {
    w.float(2, value.value).int(20, AttributeType.FLOAT);   // float({value}) forces a float for integral values
  } else if (typeof value === 'number') {
    w.float(2, value).int(20, AttributeType.FLOAT);
  } else if (typeof value === 'string') {
    w.string(4, value).int(20, AttributeType.STRING);
  } else if (value && value.kind === 'tensor') {
    w.message(5, value.proto).int(20, AttributeType.TENSOR);
  } else {
    throw new TypeError(`attribute ${name}: unsupported value ${value}`);
  }
  return w;
}

/** A float attribute value even when it is integral (e.g. scale = 1). */
export const floatAttr = (value) => ({ kind: 'float', value });

/** NodeProto (input 1, output 2, name 3, op_type 4, attribute 5, domain 7). */
export function node(opType, inputs, outputs, attributes = {}, domain = '') {
  return { opType, inputs, outputs, attributes, domain };
}

function nodeProto({ opType, inputs, outputs, attributes, domain }, index) {
  const w = new Writer();
  for (const i of inputs) w.string(1, i);
  for (const o of outputs) w.string(2, o);
  w.string(3, `${opType}_${index}`).string(4, opType);
  for (const [name, value] of Object.entries(attributes)) w.message(5, attribute(name, value));
  if (domain) w.string(7, domain);
  return w;
}

/**
 * ModelProto bytes: ir_version 1, producer_name 2, graph 7, opset_import 8
 * ({domain 1, version 2}); GraphProto: node 1, name 2, initializer 5, input 11, output 12.
 */
export function model({ nodes, inputs, outputs, initializers = [], opset = 23, irVersion = 11, name = 'bench' }) {
  const graph = new Writer();
  nodes.forEach((n, i) => graph.message(1, nodeProto(n, i)));
  graph.string(2, name);
  for (const t of initializers) graph.message(5, t.proto);
  for (const i of inputs) graph.message(11, i);
  for (const o of outputs) graph.message(12, o);
  const opsetId = new Writer().string(1, '').int(2, opset);
  const m = new Writer().int(1, irVersion).string(2, 'posenc-bench').message(7, graph).message(8, opsetId);
  return Uint8Array.from(m.bytes);
}
