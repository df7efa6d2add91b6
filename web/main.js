// A first, minimal page: a random-weights word-level model computes attention for the
// typed text, and layer 0 head 0's weights are shown as a table. The full stepper page
// replaces this later. All text reaches the DOM through textContent, never innerHTML.
import { interpolateBlues } from 'd3-scale-chromatic';
import { load } from '../wasm/index.js';

const VOCAB = [
  'the', 'a', 'cat', 'cats', 'dog', 'dogs', 'sat', 'sit', 'ran', 'run', 'on', 'in', 'under',
  'mat', 'rug', 'sofa', 'and', 'saw', 'it', 'was', 'tired', '.', ',',
];
// An encoder (no causal mask), so every row spreads its weight over the whole sentence.
const CONFIG = {
  arch: 'encoder', dModel: 16, nHeads: 2, nLayers: 1, dFf: 64, maxLen: 64,
  pos: 'sinusoidal', tokenizer: 'word', vocab: VOCAB,
};
const SEED = 1;
const LAYER = 0;
const HEAD = 0;

const input = document.getElementById('text');
const status = document.getElementById('status');
const unknownNote = document.getElementById('unknown');
const holder = document.getElementById('table-holder');
// The model's recipe is on the page, so a test can rebuild the same model through the API.
document.getElementById('attention').dataset.model = JSON.stringify({ config: CONFIG, seed: SEED });

function el(tag, props = {}, text) {
  const node = Object.assign(document.createElement(tag), props);
  if (text !== undefined) node.textContent = text;
  return node;
}

function tokenLabel(tag, piece, isUnknown, scope) {
  const cell = el(tag, { scope }, isUnknown ? `${piece}?` : piece);
  if (isUnknown) {
    cell.classList.add('unknown');
    cell.title = `"${piece}" is not in the vocabulary: the model sees <unk>`;
  }
  return cell;
}

function weightsTable(pieces, unknown, weights, n) {
  const table = el('table', { className: 'weights' });
  const head = table.createTHead().insertRow();
  head.append(el('td', { className: 'corner' }, 'query \\ key'));
  pieces.forEach((p, j) => head.append(tokenLabel('th', p, unknown.has(j), 'col')));
  const body = table.createTBody();
  for (let i = 0; i < n; i++) {
    const row = body.insertRow();
    row.append(tokenLabel('th', pieces[i], unknown.has(i), 'row'));
    for (let j = 0; j < n; j++) {
      const w = weights[i * n + j];
      const cell = el('td', {}, w.toFixed(3));
      cell.dataset.row = i;
      cell.dataset.col = j;
      cell.dataset.value = String(w);
      cell.style.background = interpolateBlues(w);
      if (w > 0.5) cell.classList.add('dark');
      row.append(cell);
    }
  }
  return table;
}

function render(model) {
  const text = input.value;
  holder.replaceChildren();
  unknownNote.hidden = true;
  const enc = model.tokenizer.encode(text);
  const ids = Array.from(enc.ids);
  if (ids.length === 0) {
    status.textContent = 'Type some text to see its attention weights.';
    return;
  }
  const unknown = new Set(Array.from(enc.unknown));
  if (unknown.size) {
    const words = [...unknown].map((i) => enc.pieces[i]);
    unknownNote.textContent = `Not in the vocabulary (the model sees <unk> instead): ${words.join(', ')}`;
    unknownNote.hidden = false;
  }
  let trace;
  try {
    trace = model.forward(ids);
    const [, n] = trace.shape('weights', { layer: LAYER });  // [nHeads, n, n]: self-attention
    const weights = Float32Array.from(trace.get('weights', { layer: LAYER, head: HEAD }));
    const table = weightsTable(enc.pieces, unknown, weights, n);
    table.dataset.text = text;  // tells a reader (or a test) which text this table is for
    holder.append(table);
    status.textContent = `${n} tokens, layer ${LAYER}, head ${HEAD} of ${CONFIG.nHeads}.`;
  } catch (err) {
    status.textContent = `Cannot compute attention: ${err.message}`;
  } finally {
    trace?.dispose();
  }
}

async function start() {
  try {
    const ap = await load();
    const model = ap.createModel(CONFIG, { seed: SEED });
    input.addEventListener('input', () => render(model));
    render(model);
  } catch (err) {
    status.textContent = `The WebAssembly module failed to load: ${err.message}`;
    console.error(err);
  }
}

start();
