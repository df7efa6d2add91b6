// The page's settings are written once (web/lib/state.js SETTINGS): the URL, the widgets'
// attributes, the controls' option lists and the attribute reference all come from it, and the
// choices that are the core's (positional kinds, the random model's sizes) are ones the core takes.
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import {
  DEFAULTS,
  NUMBER_FIELDS,
  optionsOf,
  parseState,
  readUrl,
  SETTINGS,
  STATE_KEYS,
  switchesOf,
  valuesOf,
  writeUrl,
} from '../../web/lib/state.js';
import { COMMON_ATTRIBUTES } from '../../web/lib/catalog.js';
import { randomConfig, switchesFor } from '../../web/lib/models.js';

let ap;
beforeAll(async () => {
  ap = await load();
});

describe('one schema of settings', () => {
  test('every setting has a default, a doc line and values; the reference lists them in order', () => {
    for (const k of STATE_KEYS) {
      expect(SETTINGS[k].doc, k).toMatch(/\w/);
      expect(valuesOf(k), k).toMatch(/\S/);
      expect(DEFAULTS[k], k).toBe(SETTINGS[k].default);
    }
    expect(COMMON_ATTRIBUTES.slice(0, STATE_KEYS.length).map((a) => a.name)).toEqual(STATE_KEYS);
    expect(COMMON_ATTRIBUTES.find((a) => a.name === 'layers').values).toBe('1..6');
    expect(COMMON_ATTRIBUTES.find((a) => a.name === 'dmodel').values).toBe('4 | 8 | 16 | 32 | 64');
    expect(COMMON_ATTRIBUTES.find((a) => a.name === 'causal').values).toBe("'' | 'on' | 'off'");
    // The trained models come from the shipped files' metadata (web/models/), the default first.
    expect(COMMON_ATTRIBUTES.find((a) => a.name === 'model').values).toBe(
      "'english' (default) | 'dates' | 'grammar' | 'reverse' | 'sort' | 'random'",
    );
  });

  test('each value a list offers reads back as itself from a URL; a value it does not offer is not taken', () => {
    const listed = STATE_KEYS.filter(
      (x) => SETTINGS[x].choices || SETTINGS[x].number?.max - SETTINGS[x].number?.min <= 100,
    );
    expect(listed).toEqual([
      'dmodel',
      'layers',
      'arch',
      'tokenizer',
      'layer',
      'head',
      'causal',
      'scale',
      'heads',
      'pos',
      'norm',
      'normkind',
      'kvheads',
    ]);
    expect(() => optionsOf('seed')).toThrow(/seed is a number from 0 to 1000000000, not a list/);
    for (const k of listed) {
      const values = optionsOf(k).map((o) => o.value);
      if (SETTINGS[k].number) {
        // A number's picker offers exactly what its range (or its choices) allows.
        const { min, max } = NUMBER_FIELDS[k];
        expect(Math.min(...values), k).toBe(min);
        expect(Math.max(...values), k).toBe(max);
      }
      for (const v of values) {
        const state = parseState({ [k]: String(v) });
        expect(state[k], `${k}=${v}`).toBe(v);
        const back = readUrl(writeUrl('http://x/', state)).state;
        expect(back[k], `${k}=${v} through the URL`).toBe(v);
      }
    }
    const issues = new Map();
    expect(parseState({ layers: '9' }, issues).layers).toBe(6);
    expect(issues.get('layers').why).toBe('is out of range (1 to 6)');
    expect(parseState({ dmodel: '12' }).dmodel).toBe(8); // the nearest size the picker offers (8 and 16 tie: the first)
    expect(parseState({ dmodel: '2' }).dmodel).toBe(4);
    expect(parseState({ pos: 'alibi' }).pos).toBe(''); // not a kind: the model's own
    expect(parseState({ norm: 'middle' }).norm).toBe('');
    expect(parseState({ normkind: 'batchnorm' }).normkind).toBe('');
    expect(parseState({ window: '5000' }).window).toBe(4096);
    // The run's switches: today's parts by the core's names; '' and 0 leave the model's own.
    expect(switchesOf(parseState({ normkind: 'rmsnorm', kvheads: '2', window: '8' }))).toMatchObject({
      normKind: 'rmsnorm',
      nKvHeads: 2,
      window: 8,
    });
    expect(switchesOf(parseState({}))).toMatchObject({ normKind: undefined, nKvHeads: undefined, window: undefined });
    expect(parseState({ text: 'x'.repeat(5000) }).text.length).toBe(2000);
  });

  test("the positional kinds are the core's: a model of each kind is built and says it is that kind", () => {
    for (const pos of SETTINGS.pos.choices.filter(Boolean)) {
      const m = ap.createModel({
        ...randomConfig({ arch: 'decoder', tokenizer: 'word', seed: 1, dModel: 16, nLayers: 1 }),
        pos,
      });
      try {
        expect(m.config.pos).toBe(pos);
      } finally {
        m.delete?.();
      }
    }
    expect(() =>
      ap.createModel({
        ...randomConfig({ arch: 'decoder', tokenizer: 'word', seed: 1, dModel: 16, nLayers: 1 }),
        pos: 'alibi',
      }),
    ).toThrow(/pos/);
  });

  test("the random model's recipe: every architecture, tokenizer, size and depth the lists offer builds", () => {
    for (const arch of optionsOf('arch').map((o) => o.value))
      for (const tokenizer of optionsOf('tokenizer').map((o) => o.value))
        for (const dModel of optionsOf('dmodel').map((o) => o.value))
          for (const nLayers of [1, NUMBER_FIELDS.layers.max]) {
            const m = ap.createModel(randomConfig({ arch, tokenizer, seed: 1, dModel, nLayers }));
            try {
              expect(m.config.dModel, `${arch} ${tokenizer} ${dModel} ${nLayers}`).toBe(dModel);
              expect(m.config.nLayers).toBe(nLayers);
            } finally {
              m.delete?.();
            }
          }
  });
});

// Today's parts (issue 26): a run takes what the core's switchChoices offers, nothing else.
test("switchesFor keeps normKind and nKvHeads to the model's switchChoices, and nKvHeads to the call's heads", () => {
  const model = ap.createModel({ ...randomConfig({ dModel: 16, nHeads: 4 }) }, { seed: 1 });
  const entry = { model };
  expect(model.switchChoices.nKvHeads).toEqual([1, 2, 4]);
  expect(switchesFor(entry, { normKind: 'rmsnorm', nKvHeads: 2, window: 5 })).toEqual({
    normKind: 'rmsnorm',
    nKvHeads: 2,
    window: 5,
  });
  expect(switchesFor(entry, { nKvHeads: 3 })).toEqual({}); // not a divisor of 4: the model's own
  expect(switchesFor(entry, { nHeads: 1, nKvHeads: 2 })).toEqual({ nHeads: 1 }); // 2 does not divide 1
  expect(switchesFor(entry, { normKind: 'batchnorm', window: 0 })).toEqual({});
  model.dispose();
});
