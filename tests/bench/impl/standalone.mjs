// This project's kernels as the standalone module built by clang-16 / wasm-ld-16
// (cpp/kernels/relaxed_module.cpp): build/bench/kernels_relaxed.wasm (-mrelaxed-simd: fused
// multiply-add) or build/bench/kernels_simd128_clang16.wasm (the same recipe without it, to tell the
// FMA apart from the newer compiler). The module has no allocator, no data and no libc; it imports
// its memory, stack pointer and bases, so this host gives it its own WebAssembly.Memory:
//   [0, 1 KiB) unused | [1 KiB, 1 KiB + 1 MiB) stack, growing down | arrays, bump-allocated.
// Loading fails cleanly (WebAssembly.validate) where the engine lacks relaxed SIMD.
import { attentionInputs, checksum, timeReps } from '../cases.mjs';

const PAGE = 65536;
const MEMORY_BASE = 1024;
const STACK_BYTES = 1 << 20;

export async function create(env, { file }) {
  const bytes = await env.readBytes(`build/bench/${file}`);
  if (!WebAssembly.validate(bytes)) {
    throw new Error(`${file} does not validate here (relaxed SIMD not enabled in this engine?)`);
  }
  const memory = new WebAssembly.Memory({ initial: 32 });
  const global = (value, mutable = false) => new WebAssembly.Global({ value: 'i32', mutable }, value);
  const { instance } = await WebAssembly.instantiate(bytes, {
    env: {
      memory,
      __indirect_function_table: new WebAssembly.Table({ initial: 0, element: 'anyfunc' }),
      __stack_pointer: global(MEMORY_BASE + STACK_BYTES, true),
      __memory_base: global(MEMORY_BASE),
      __table_base: global(0),
    },
  });
  const x = instance.exports;
  if (x.__wasm_apply_data_relocs) x.__wasm_apply_data_relocs();

  const heapStart = MEMORY_BASE + STACK_BYTES;
  let top = heapStart;
  const alloc = (floats) => {
    const p = top;
    top += (floats * 4 + 15) & ~15;
    const need = Math.ceil(top / PAGE) - memory.buffer.byteLength / PAGE;
    if (need > 0) memory.grow(need);
    return p;
  };
  const put = (array) => {
    const p = alloc(array.length);
    new Float32Array(memory.buffer, p, array.length).set(array);
    return p;
  };

  let state = null;
  const call = () => {
    const { c, po, pq, pk, pv } = state;
    x.attention_forward(po, pq, pk, pv, c.n, c.n, c.dK, c.h, c.causal ? 1 : 0, 1);
  };
  const output = () => new Float32Array(memory.buffer, state.po, state.size).slice();
  return {
    info: { variant: file.includes('relaxed') ? 'relaxed (clang-16 module)' : 'simd128 (clang-16 module)' },
    supports(c) {
      return c.kind === 'attn' || c.kind === 'long' ? true : 'the standalone module has the kernels only';
    },
    prepare(c) {
      top = heapStart; // the previous case's arrays are dead
      const { q, k, v } = attentionInputs(c);
      const pq = put(q),
        pk = put(k),
        pv = put(v);
      const po = alloc(q.length);
      state = { c, pq, pk, pv, po, size: q.length };
      if (c.kind === 'long') return { checksum: null }; // one call is the measurement
      call();
      return { checksum: checksum(output()) };
    },
    run(reps) {
      const before = memory.buffer.byteLength;
      const seconds = timeReps(call, reps);
      const result = { seconds, memBefore: before, memAfter: memory.buffer.byteLength };
      if (state.c.kind === 'long') result.checksum = checksum(output());
      return result;
    },
    release() {
      state = null;
      top = heapStart;
    },
  };
}
