// The relaxed-SIMD side module (build/kernels_relaxed.wasm): linked by hand into the main
// module's memory, its kernels swapped in where the runtime validates them.

const RELAXED_URL = new URL('../build/kernels_relaxed.wasm', import.meta.url);

async function relaxedBytes() {
  if (typeof process === 'object' && process.versions?.node && RELAXED_URL.protocol === 'file:') {
    const { readFile } = await import('node:fs/promises');
    return readFile(RELAXED_URL);
  }
  const response = await fetch(RELAXED_URL);
  if (!response.ok) throw new Error(`kernels_relaxed.wasm: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// The side module's data size from its dylink.0 section (subsection 1: memory size, alignment).
function dylinkMemory(module) {
  const [section] = WebAssembly.Module.customSections(module, 'dylink.0');
  if (!section) return { size: 0, align: 0 };
  const bytes = new Uint8Array(section);
  let at = 0;
  const leb = () => {
    let v = 0,
      shift = 0,
      b;
    do {
      b = bytes[at++];
      v |= (b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    return v >>> 0;
  };
  while (at < bytes.length) {
    const type = bytes[at++],
      length = leb(),
      end = at + length;
    if (type === 1) {
      const size = leb(),
        align = leb();
      return { size, align };
    }
    at = end;
  }
  return { size: 0, align: 0 };
}

// One fetch and one compile per page or process, whichever wasm module asks first: the second
// module (the trainer and the tokenizer.json models) links the same side module into its memory.
let compiled = null;
function relaxedModule() {
  compiled ??= relaxedBytes().then((bytes) => (WebAssembly.validate(bytes) ? WebAssembly.compile(bytes) : null));
  compiled.catch(() => (compiled = null)); // a failed fetch may be tried again
  return compiled;
}

export async function useRelaxedKernels(raw, memory) {
  try {
    const module = await relaxedModule();
    if (!module) return false; // no relaxed SIMD here: keep SIMD128
    const { size, align } = dylinkMemory(module);
    const stack = 256 * 1024; // the side module's own stack (its tiles live there)
    const block = raw._malloc(stack + size + (1 << align) + 16);
    if (!block) return false;
    const dataBase = (block + stack + (1 << align) - 1) & ~((1 << align) - 1);
    const global = (value, mutable = false) => new WebAssembly.Global({ value: 'i32', mutable }, value);
    const instance = await WebAssembly.instantiate(module, {
      env: {
        memory,
        __indirect_function_table: new WebAssembly.Table({ initial: 0, element: 'anyfunc' }),
        __stack_pointer: global((block + stack) & ~15, true),
        __memory_base: global(dataBase),
        __table_base: global(0),
      },
    });
    const e = instance.exports;
    if (e.__wasm_apply_data_relocs) e.__wasm_apply_data_relocs();
    const fns = [e.gemm_tiled, e.qk_scores, e.softmax_rows, e.exp_vec, e.attention_forward];
    if (fns.some((f) => typeof f !== 'function')) return false;
    raw._ap_kernels_use_relaxed(...fns.map((f) => raw.addFunction(f)));
    return true;
  } catch {
    return false; // loading must never fail because a feature is missing
  }
}
