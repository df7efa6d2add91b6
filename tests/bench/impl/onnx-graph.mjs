// The attention graph as ONNX model bytes, written by hand in protobuf's wire format (no Python,
// no protobuf library): out = Softmax(Mul(q, 1/sqrt(d)) @ Transpose(k) [+ mask]) @ v, opset 13,
// static shapes. Field numbers are those of onnx.proto (ModelProto, GraphProto, NodeProto, ...).

const FLOAT = 1; // TensorProto.DataType.FLOAT
const ATTR_INTS = 7; // AttributeProto.AttributeType.INTS

function varint(value) {
  const out = [];
  let v = BigInt(value);
  if (v < 0n) v += 1n << 64n; // int64 as two's complement
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return out;
}

const concat = (parts) => {
  const bytes = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return bytes;
};
// One field: key = (number << 3) | wire type; 0 = varint, 2 = length-delimited.
const intField = (num, value) => Uint8Array.from([...varint(num << 3), ...varint(value)]);
const bytesField = (num, bytes) =>
  concat([Uint8Array.from([...varint((num << 3) | 2), ...varint(bytes.length)]), bytes]);
const strField = (num, s) => bytesField(num, new TextEncoder().encode(s));
const msg = (num, fields) => bytesField(num, concat(fields));

// ValueInfoProto { name = 1, type = 2 { tensor_type = 1 { elem_type = 1, shape = 2 { dim = 1 { dim_value = 1 } } } } }
const valueInfo = (num, name, dims) =>
  msg(num, [
    strField(1, name),
    msg(2, [
      msg(1, [
        intField(1, FLOAT),
        msg(
          2,
          dims.map((d) => msg(1, [intField(1, d)])),
        ),
      ]),
    ]),
  ]);

// NodeProto { input = 1, output = 2, name = 3, op_type = 4, attribute = 5 }
const node = (op, inputs, outputs, attributes = []) =>
  msg(1, [
    ...inputs.map((i) => strField(1, i)),
    ...outputs.map((o) => strField(2, o)),
    strField(3, `${op}_${outputs[0]}`),
    strField(4, op),
    ...attributes,
  ]);
// AttributeProto { name = 1, ints = 8, type = 20 }
const intsAttr = (name, values) =>
  msg(5, [strField(1, name), ...values.map((v) => intField(8, v)), intField(20, ATTR_INTS)]);

// TensorProto { dims = 1, data_type = 2, name = 8, raw_data = 9 }, a float scalar.
const scalarInitializer = (name, value) =>
  msg(5, [intField(2, FLOAT), strField(8, name), bytesField(9, new Uint8Array(Float32Array.of(value).buffer))]);

// q, k, v: (h, n, d) (or (n, d) when h == 1); mask (n, n) with 0 / -inf when causal.
export function attentionModel({ n, h, d, causal }) {
  const shape = h === 1 ? [n, d] : [h, n, d];
  const perm = h === 1 ? [1, 0] : [0, 2, 1];
  const nodes = [
    node('Mul', ['q', 'alpha'], ['q_scaled']),
    node('Transpose', ['k'], ['k_t'], [intsAttr('perm', perm)]),
    node('MatMul', ['q_scaled', 'k_t'], ['scores']),
    ...(causal ? [node('Add', ['scores', 'mask'], ['masked'])] : []),
    node('Softmax', [causal ? 'masked' : 'scores'], ['weights']), // opset 13: over the last axis
    node('MatMul', ['weights', 'v'], ['out']),
  ];
  const graph = msg(7, [
    ...nodes,
    strField(2, 'attention'),
    scalarInitializer('alpha', 1 / Math.sqrt(d)),
    valueInfo(11, 'q', shape),
    valueInfo(11, 'k', shape),
    valueInfo(11, 'v', shape),
    ...(causal ? [valueInfo(11, 'mask', [n, n])] : []),
    valueInfo(12, 'out', shape),
  ]);
  // ModelProto { ir_version = 1, producer_name = 2, graph = 7, opset_import = 8 { domain = 1, version = 2 } }
  return concat([
    intField(1, 8),
    strField(2, 'attention-playground-bench'),
    graph,
    msg(8, [strField(1, ''), intField(2, 13)]),
  ]);
}
