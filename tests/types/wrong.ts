// Programs the published types must refuse (tests/wasm/types.test.js counts one error per line
// marked "error"): the check that consumer.ts compiles would be worthless if nothing could fail it.
import { load } from '../../wasm/index.js';
import '../../web/attention-playground.js';

export async function wrong(): Promise<void> {
  const ap = await load();
  const m = ap.createModel({ arch: 'decoder', act: 'swish' }); // error: no such activation
  const g = m.generate('x', { maxTokens: '4' }); // error: a count is a number
  if (g.stop === 'done') return; // error: not a way to stop
  document.addEventListener('ap-quiz-answer', (e) => e.detail.score); // error: the detail has no score
  document.querySelector('ap-softmax')?.redraw(); // error: widgets have update(), not redraw()
}
