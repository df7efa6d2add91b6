// An RNN encoder-decoder with additive attention (birnn, bahdanau, translation): the model that
// ap.loadRnnAttention() opens (cpp/core/rnn_attention.hpp is the C++ side).
import { Tokenizer } from './model.js';
import { Trace } from './trace.js';

export class RnnAttentionModel {
  constructor(ap, handle) {
    this._ap = ap;
    this._h = handle;
    /** { arch: 'rnn-attention', vocabSize, dEmb, dEnc (one direction), dDec, dAtt, maxLen, tokenizer } */
    this.config = Object.fromEntries(
      Object.entries(JSON.parse(handle.configJson())).map(([k, v]) => [
        k.replace(/_([a-z])/g, (_, c) => c.toUpperCase()),
        v,
      ]),
    );
    /** The vocabulary, specials included (their ids: specialTokens). */
    this.vocab = handle.vocab();
    /** The tokenizer's kind and special ids, from the core: { kind, size, pad, unk, bos, eos, mask (-1: none) }. */
    this.specialTokens = handle.tokenizerInfo();
    /** The model's own tokenizer (the same class as a Model's). */
    this.tokenizer = new Tokenizer(this);
  }

  /** Each id's token as encode() shows it in `pieces` (for this word-level tokenizer, vocab). */
  get pieces() {
    this._pieces ??= this._alive().pieces();
    return this._pieces;
  }

  _alive() {
    if (!this._h) throw new Error('this model was disposed; load it again');
    return this._h;
  }

  /** Free-form metadata saved with the model ("task", "train_command", ...). */
  get metadata() {
    return this._alive().metadata();
  }

  /**
   * The bidirectional encoder alone on `text`. Stages (stack 'encoder'): tokens (S), enc_embed (S, E),
   * enc_fwd (S, H) forward states, enc_bwd (S, H) backward states, enc_h (S, 2H) = [enc_fwd | enc_bwd].
   * trace.tokens: the source pieces; trace.unknown: positions read as <unk>.
   */
  encode(text) {
    const src = this.tokenizer.encode(text);
    const handle = this._alive().encoder(text);
    if (!handle) this._ap._fail('encode');
    return this._ap._own(
      handle,
      new Trace(this._ap, handle, { defaultStack: 'encoder', tokens: src.pieces, unknown: src.unknown }),
    );
  }

  /**
   * Translates `text`: greedy decoding until <eos> (or maxLen steps), or, with opts.target, the
   * decoder reading <bos> + target (teacher forcing). Every stage of the encoder (see encode) and
   * of the decoder (stack 'decoder'): dec_tokens (T), dec_embed (T, E), dec_s (T+1, Ds) s_0..s_T,
   * add_ws (Ds, A), add_wh (2H, A), add_v (1, A), add_s (T, A) = W_s s_{t-1}, add_h (S, A) = W_h h_j,
   * add_tanh (T, S, A), add_scores (1, T, S) = e_tj, add_weights (1, T, S) = alpha_tj,
   * add_context (T, 2H) = C_t, logits (T, V), probs (T, V), out_tokens (T) each step's argmax.
   * The trace also carries tokens (source pieces), unknown, output (the argmax words, '<eos>'
   * included) and text (the translation, without <eos>).
   */
  translate(text, { target = null } = {}) {
    if (typeof text !== 'string') throw new Error(`translate() needs a string, got ${typeof text}`);
    if (target != null && typeof target !== 'string') throw new Error('translate(): target must be a string');
    const src = this.tokenizer.encode(text);
    const handle = this._alive().translate(text, target ?? '', target != null);
    if (!handle) this._ap._fail('translate');
    const trace = this._ap._own(
      handle,
      new Trace(this._ap, handle, { defaultStack: 'decoder', tokens: src.pieces, unknown: src.unknown }),
    );
    const ids = Array.from(trace.get('out_tokens'), (x) => Math.round(x));
    trace.outputIds = ids;
    trace.output = ids.map((id) => this.vocab[id]);
    const end = ids.indexOf(this.specialTokens.eos);
    trace.text = this.tokenizer.decode(end < 0 ? ids : ids.slice(0, end));
    return trace;
  }

  /** Frees the C++ side. Further use throws. Safe to call twice. */
  dispose() {
    if (!this._h) return;
    this._ap._release(this, this._h);
    this._h = null;
  }
}
