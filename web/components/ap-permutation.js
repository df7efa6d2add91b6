// <ap-permutation> (permutation): without positions, attention is permutation-equivariant.
// The core runs the model (positions off, no mask) on the text and on a permutation of it;
// the output rows are the same rows, permuted (a bag of identical vectors). With positions on,
// the rows differ. The notes' example: "The cat sat on the mat" vs "mat the on sat cat The".
import { ApWidget, define } from '../lib/widget.js';
import { el, fmt, tokenText } from '../lib/dom.js';
import { numsTable, textFor, tokensWithin, withModelFor } from '../lib/view.js';
import { runIds } from '../lib/runs.js';
import { matrix } from '../lib/heatmap.js';
import { permutation } from '../lib/random.js';

export class ApPermutation extends ApWidget {
  static concept = 'permutation';

  build() {
    this.seed = 0; // 0 = reverse, as in the notes
    this.reverse = el('button', {
      type: 'button',
      text: 'reverse the order',
      on: {
        click: () => {
          this.seed = 0;
          this.update();
        },
      },
    });
    this.shuffle = el('button', {
      type: 'button',
      text: 'shuffle',
      on: {
        click: () => {
          this.seed += 1;
          this.update();
        },
      },
    });
    this.orders = el('div', { className: 'panel mono' });
    this.verdict = el('p', { className: 'changed' });
    this.maps = el('div', { className: 'col2' });
    this.table = el('div');
    this.withPos = el('p', { className: 'note' });
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'Attention is a weighted sum over a set: nothing in it knows where a token sits. Feed the same tokens in another order and, without positional encodings, every token gets exactly the same output vector as before, just in another row.',
      }),
      // The two outputs' maps first, the buttons that reorder the tokens, the orders and the
      // verdict under them: the maps are on chapter D's first screen (issue 23).
      this.maps,
      el('div', { className: 'controls' }, this.reverse, this.shuffle),
      (this.cutNote = el('p', { className: 'note cut', hidden: true })),
      this.orders,
      this.verdict,
      this.table,
      this.withPos,
    );
  }

  compute(state) {
    // Positions must switch off: a model with learned positions cannot, so random weights stand in.
    return withModelFor(
      state,
      (b, entry) => b.arch !== 'encoder-decoder' && entry.model.switchChoices.pos.includes('none'),
      (entry) => {
        const enc = tokensWithin(entry, textFor(state));
        this._cut = enc.cut;
        const ids = Array.from(enc.ids);
        const n = ids.length;
        const perm = this.seed === 0 ? ids.map((_, i) => n - 1 - i) : permutation(n, this.seed);
        const pIds = perm.map((p) => ids[p]);
        const labels = enc.pieces.map(tokenText);
        const pLabels = perm.map((p) => labels[p]);
        const off = { pos: 'none', causal: false };
        const on = { pos: entry.base.pos === 'none' ? 'sinusoidal' : entry.base.pos, causal: false };
        const out = { n, perm, labels, pLabels, entry, unknown: enc.unknown };
        if (!n) return out;
        out.a = runIds(entry, Int32Array.from(ids), off, labels);
        out.b = runIds(entry, Int32Array.from(pIds), off, pLabels);
        out.pa = runIds(entry, Int32Array.from(ids), on, labels);
        out.pb = runIds(entry, Int32Array.from(pIds), on, pLabels);
        return out;
      },
    );
  }

  render(r) {
    this.cutNote.textContent = this._cut;
    this.cutNote.hidden = !this._cut;
    if (!r.n) {
      this.verdict.textContent = 'Type some text.';
      return;
    }
    const { a, b, perm, labels, pLabels, unknown } = r;
    if (a.error || b.error) throw a.error || b.error;
    const stack = a.mainStack;
    const out = a.stackOutput(stack); // the stack's output, as the trace marks it
    const opts = out.layer === null ? { stack } : { layer: out.layer, stack };
    const Z = a.get(out.name, opts),
      Zp = b.get(out.name, opts);
    const d = a.config.dModel,
      n = r.n;
    this.orders.replaceChildren(
      el('div', { text: `original: ${labels.join(' ')}` }),
      el('div', { text: `permuted: ${pLabels.join(' ')}` }),
    );
    // Row k of the permuted run is token perm[k] of the original: compare those rows.
    let worst = 0;
    const rows = [];
    for (let k = 0; k < n; k++) {
      let diff = 0;
      for (let c = 0; c < d; c++) diff = Math.max(diff, Math.abs(Zp[k * d + c] - Z[perm[k] * d + c]));
      worst = Math.max(worst, diff);
      rows.push([pLabels[k], String(k), String(perm[k]), fmt(diff, 7)]);
    }
    // Float32 rounding differs with the order of the sums; anything larger would be a real difference.
    this.verdict.textContent =
      worst < 1e-4
        ? `Positions off, no mask: the largest difference between a token's output in the two orders is ${worst.toExponential(1)} (float rounding): the same vectors, permuted.`
        : `Positions off, no mask: the largest difference is ${worst.toExponential(1)}, more than float rounding: something still sees the order.`;
    this.dataset.maxDiff = String(worst);
    const title = `output of the last layer (${out.name})`;
    this.place(
      this.maps,
      this.hm(
        'z',
        matrix({
          name: 'z',
          title: `${title}, original order`,
          values: Z,
          rows: n,
          cols: d,
          rowLabels: labels,
          rowFlags: unknown,
          kind: 'div',
        }),
      ),
      this.hm(
        'zp',
        matrix({
          name: 'zp',
          title: `${title}, permuted order`,
          values: Zp,
          rows: n,
          cols: d,
          rowLabels: pLabels,
          rowFlags: new Set(perm.flatMap((p, k) => (unknown.has(p) ? [k] : []))),
          kind: 'div',
        }),
      ),
    );
    this.table.replaceChildren(
      numsTable({
        caption: 'Row k of the permuted output against row perm(k) of the original',
        header: ['token', 'row in permuted', 'row in original', 'max |difference|'],
        rows,
      }),
    );
    if (r.pa && !r.pa.error) {
      const P = r.pa.get(out.name, opts),
        Pp = r.pb.get(out.name, opts);
      let worstPos = 0;
      for (let k = 0; k < n; k++)
        for (let c = 0; c < d; c++) worstPos = Math.max(worstPos, Math.abs(Pp[k * d + c] - P[perm[k] * d + c]));
      this.withPos.textContent = `With ${r.pa.config.pos} positions the same comparison gives a largest difference of ${fmt(worstPos, 3)}: now the order changes the vectors.`;
      this.dataset.maxDiffWithPositions = String(worstPos);
    }
  }
}

define(ApPermutation);
