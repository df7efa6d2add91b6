// ap.presets: the core's worked examples, listed, read and run.
import { Trace } from './trace.js';

export class Presets {
  constructor(ap) {
    this._ap = ap;
    this._cached = null;
  }

  // Read from the core on first use, not at load: building the list's embind objects was a 150 ms
  // task of a phone's first load (4x slower CPU) before any view asked for a preset.
  get _list() {
    if (!this._cached) this._cached = this._ap._raw.presets();
    return this._cached;
  }

  /** [{ id, concepts, source, title, claim, tokens, dModel, nHeads, causal, scale, pos }] */
  list() {
    return this._list.map((p) => ({ ...p, concepts: [...p.concepts], tokens: [...p.tokens] }));
  }

  /** Presets that illustrate a docs/concepts.md concept id. */
  forConcept(concept) {
    return this.list().filter((p) => p.concepts.includes(concept));
  }

  _meta(id) {
    const p = this._list.find((q) => q.id === id);
    if (!p) throw new Error(`unknown preset '${id}' (known: ${this._list.map((q) => q.id).join(', ')})`);
    return p;
  }

  /** The preset's inputs, ready for ap.attention(): { ...meta, n, x, wq, wk, wv, wo }. */
  get(id) {
    const meta = this._meta(id);
    const out = { ...meta, n: meta.tokens.length };
    for (const k of ['x', 'wq', 'wk', 'wv', 'wo']) {
      const view = this._ap._raw.presetMatrix(id, k);
      if (view === null) this._ap._fail(`preset ${id}`);
      out[k] = view.slice();
    }
    return out;
  }

  /** Runs the preset: embed, pos (if any), x, then every attention stage. */
  run(id) {
    const meta = this._meta(id);
    const handle = this._ap._raw.runPreset(id);
    if (!handle) this._ap._fail(`preset ${id}`);
    return this._ap._own(handle, new Trace(this._ap, handle, { defaultStack: '', tokens: meta.tokens }));
  }
}
