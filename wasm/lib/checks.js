// The wrapper's marshalling checks: argument types and sizes, before anything is copied into the
// wasm heap. The rules themselves (limits, shapes, values) are the core's.

// Limits (README "Limits"): every stage of a traced call is kept, and wasm memory never shrinks.
export const MAX_TOKENS = 4096;
export const MAX_SCORES = 4194304; // nHeads * n * m per traced attention call
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

export function checkCount(value, name, { min = 1 } = {}) {
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be an integer >= ${min}, got ${value}`);
  }
}

// Sizes named by their keys: checkCounts({ n, dK }).
export function checkCounts(counts, options) {
  for (const [name, value] of Object.entries(counts)) checkCount(value, name, options);
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
  if (bytes.length === 0) throw new Error(`${what}: the file is empty`);
  if (bytes.length > MAX_MODEL_BYTES) {
    throw new Error(`${what}: the file has ${bytes.length} bytes; the limit is ${MAX_MODEL_BYTES} (256 MiB)`);
  }
  return bytes;
}
