// The wasm module and the shipped English decoder (the page's default model), for the Node tests
// of views that run on it: `const { ap, english } = await loadEnglish();` at the top of a test
// file loads them once when the file is collected and disposes of the model after its tests.
import { afterAll } from 'vitest';
import { load } from '../../../wasm/index.js';
import { shippedModel } from '../../web/lib/models.js';

export async function loadEnglish() {
  const ap = await load();
  const english = await ap.openModel(shippedModel('english'));
  afterAll(() => english.dispose());
  return { ap, english };
}
