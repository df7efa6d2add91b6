// The wrapper's marshalling checks: argument types, and array lengths against the sizes given,
// before anything is copied into the wasm heap. The rules themselves (limits, positive sizes,
// divisibility, value ranges) are the core's: its errors reach the caller through _fail.

// The one limit the core cannot check: a file is copied into wasm memory before the core sees
// it, and that memory never shrinks.
export const MAX_MODEL_BYTES = 256 * 2 ** 20;

export function asFloat32(value, name) {
  if (value instanceof Float32Array) return value;
  if (Array.isArray(value) || ArrayBuffer.isView(value)) return Float32Array.from(value);
  throw new Error(
    `${name} must be a Float32Array (or an array of numbers), got ${value === null ? 'null' : typeof value}`,
  );
}

export function checkLength(array, expected, name, formula) {
  if (array.length !== expected) {
    throw new Error(`${name} has ${array.length} values but ${formula} = ${expected}`);
  }
}

// A number the core takes as a C++ int (embind would truncate a fraction or turn a string into 0).
// min only where the wrapper needs it itself: a size it checks array lengths against (or sizes an
// output buffer with) is >= 0; whether it may be 0 is the core's rule.
export function checkInt(value, name, { min } = {}) {
  if (!Number.isInteger(value)) throw new Error(`${name} must be an integer, got ${value}`);
  if (min !== undefined && value < min) throw new Error(`${name} must be an integer >= ${min}, got ${value}`);
}

// checkInt for each value, named by its key: checkInts({ n, dK }, { min: 0 }).
export function checkInts(values, options) {
  for (const [name, value] of Object.entries(values)) checkInt(value, name, options);
}

// Inputs as [value, name, expected length, formula]: all converted to Float32Arrays, then each
// length checked against the sizes given.
export function float32Inputs(specs) {
  const arrays = specs.map(([value, name]) => asFloat32(value, name));
  specs.forEach(([, name, expected, formula], i) => checkLength(arrays[i], expected, name, formula));
  return arrays;
}

// kernels.*: a NaN or Infinity in an input names the array and the index. arrays: { name: array }.
export function checkFinite(arrays) {
  for (const [name, arr] of Object.entries(arrays)) {
    for (let i = 0; i < arr.length; i++) {
      if (!Number.isFinite(arr[i]))
        throw new Error(`${name} contains ${Number.isNaN(arr[i]) ? 'NaN' : 'Infinity'} (at index ${i})`);
    }
  }
}

// A .safetensors file (loadModel, loadRnnAttention) as a Uint8Array.
export function modelFileBytes(bytes, what) {
  if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
  if (!(bytes instanceof Uint8Array))
    throw new Error(`${what}() needs a Uint8Array or ArrayBuffer of a .safetensors file`);
  if (bytes.length > MAX_MODEL_BYTES) {
    throw new Error(`${what}: the file has ${bytes.length} bytes; the limit is ${MAX_MODEL_BYTES} (256 MiB)`);
  }
  return bytes;
}

// Whether a model file's config names a tokenizer.json tokenizer ("tokenizer": "hf"), read from
// its safetensors header without loading it; false for anything that does not parse (loadModel
// then reports the problem).
export function carriesTokenizerJson(bytes) {
  if (bytes.length < 8) return false;
  const view = new DataView(bytes.buffer, bytes.byteOffset, 8);
  const len = Number(view.getBigUint64(0, true));
  if (len > bytes.length - 8 || len > 64 * 1024 * 1024) return false;
  try {
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + len)));
    return JSON.parse(header.__metadata__?.config ?? '{}').tokenizer === 'hf';
  } catch {
    return false;
  }
}

/** The Error of a failed core call: "what: message", and the core's message alone as coreMessage. */
export function coreError(what, message) {
  const err = new Error(what ? `${what}: ${message}` : message);
  err.coreMessage = message;
  return err;
}
