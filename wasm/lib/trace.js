/** The record of one forward pass. Stages are copied out on get(); dispose() frees the C++ side. */
export class Trace {
  constructor(ap, handle, { defaultStack, tokens = null, unknown = [] }) {
    this._ap = ap;
    this._h = handle;
    this._defaultStack = defaultStack;
    this._stages = handle.stages().map((s, index) => ({
      name: s.name,
      stack: s.stack,
      layer: s.layer < 0 ? null : s.layer,
      shape: s.shape,
      // The trace's per-head layout (trace/trace.hpp): [h, rows, cols], one slice per head.
      perHead: s.shape.length === 3,
      role: s.role,
      index,
    }));
    /** Pieces of the input text, when the trace came from text. */
    this.tokens = tokens;
    /** Positions whose piece was not in the vocabulary (mapped to <unk>). */
    this.unknown = unknown;
  }

  _alive() {
    if (!this._h) throw new Error('this trace was disposed; run the computation again to get a new one');
  }

  _find(name, opts = {}) {
    this._alive();
    if (typeof name !== 'string') throw new Error('stage name must be a string');
    let found = this._stages.filter((s) => s.name === name);
    if (found.length === 0) {
      const names = [...new Set(this._stages.map((s) => s.name))];
      throw new Error(`no stage '${name}' in this trace (stages: ${names.join(', ')})`);
    }
    const stack =
      opts.stack ?? (found.some((s) => s.stack === this._defaultStack) ? this._defaultStack : found[0].stack);
    found = found.filter((s) => s.stack === stack);
    if (opts.layer != null) {
      const layer = found.some((s) => s.layer !== null) ? opts.layer : null;
      const hit = found.find((s) => s.layer === layer);
      if (!hit) {
        const layers = found.map((s) => s.layer).filter((l) => l !== null);
        throw new Error(
          `stage '${name}' has no layer ${opts.layer}${stack ? ` in the ${stack}` : ''} (layers: ${layers.join(', ')})`,
        );
      }
      found = [hit];
    }
    if (found.length === 0) throw new Error(`stage '${name}' is not in the '${stack}' stack`);
    return found[0];
  }

  _headRange(stage, head) {
    if (head == null) return [0, stage.shape.reduce((a, b) => a * b, 1), stage.shape];
    if (!stage.perHead) throw new Error(`stage '${stage.name}' has no heads (shape [${stage.shape}])`);
    const [h, rows, cols] = stage.shape;
    if (!Number.isInteger(head) || head < 0 || head >= h)
      throw new Error(`head ${head} is out of range: stage '${stage.name}' has ${h} heads`);
    return [head * rows * cols, rows * cols, [rows, cols]];
  }

  /**
   * The name of the stage layer `layer` hands to the next one, as the core marked it: norm2 after a
   * post-norm block, resid2 after a pre-norm one (the notes' post-norm X^(l+1) = LN(H + FFN(H))),
   * the attention sublayer's stage in an attention-only block; null when that layer was not kept.
   */
  blockOutput({ layer, stack } = {}) {
    this._alive();
    const want = stack ?? this._defaultStack;
    const hit = this._stages.find((s) => s.role === 'block_output' && s.layer === layer && (s.stack === want || !want));
    return hit ? hit.name : null;
  }

  /**
   * Where a stack's output is: { name: 'final_norm', layer: null } after a pre-norm stack (as the
   * core marks it), else its last block's output ({ name, layer }); null when not kept.
   */
  stackOutput({ stack } = {}) {
    this._alive();
    const want = stack ?? this._defaultStack;
    const fin = this._stages.find((s) => s.role === 'stack_output' && (s.stack === want || !want));
    if (fin) return { name: fin.name, layer: null };
    const outs = this._stages.filter((s) => s.role === 'block_output' && (s.stack === want || !want));
    const last = outs.at(-1);
    return last ? { name: last.name, layer: last.layer } : null;
  }

  /**
   * [{ name, stack, layer, head: null, shape, perHead, role }] in the order they were computed
   * (perHead: one slice per head, { head } slices it; role: see blockOutput).
   */
  stages() {
    this._alive();
    return this._stages.map(({ name, stack, layer, shape, perHead, role }) => ({
      name,
      stack,
      layer,
      head: null,
      shape: [...shape],
      perHead,
      role,
    }));
  }

  /** Shape of a stage, or of one head's slice when opts.head is given. */
  shape(name, opts = {}) {
    const s = this._find(name, opts);
    return [...this._headRange(s, opts.head)[2]];
  }

  /** A copy of the stage's data (row-major). 'tokens' comes back as an Int32Array. */
  get(name, opts = {}) {
    const s = this._find(name, opts);
    const [start, length] = this._headRange(s, opts.head);
    const view = this._h.view(s.index);
    const copy = view.slice(start, start + length);
    return name === 'tokens' ? Int32Array.from(copy) : copy;
  }

  /**
   * Zero-copy access: fn receives a Float32Array view over the wasm heap, valid only during
   * the call (any allocating call could grow memory and detach it). Returns fn's result.
   */
  withView(name, opts, fn) {
    const s = this._find(name, opts);
    const [start, length] = this._headRange(s, opts.head);
    const view = this._h.view(s.index);
    return fn(view.subarray(start, start + length));
  }

  /** Frees the C++ side. Further use throws. Safe to call twice. */
  dispose() {
    if (!this._h) return;
    this._ap._release(this, this._h);
    this._h = null;
  }
}
