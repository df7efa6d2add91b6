// The forward pass as a list of steps, built from a trace's stages(): one step per operation
// (embed, positions, Q, K, V, scores, scale, mask, softmax, weighted sum, heads, concat, W_O,
// residual, norm, FFN..., logits, probabilities), each with its formula (shapes filled in),
// the matrices that go in, the one that comes out, a line on what changed, and an explanation
// of any output cell. Post-norm and pre-norm blocks, encoder-decoder stacks and presets
// (a single attention layer) all come out of the same stage names. Each stage's maker, its
// short label and its explanation are in the file named after the core's that computes it.
import { Ctx } from './ctx.js';
import { showHeads } from '../heads-shown.js';
import { EMBED_STEPS } from './embed.js';
import { ATTENTION_STEPS } from './attention.js';
import { BLOCK_STEPS } from './block.js';
import { OUTPUT_STEPS } from './output.js';

export { activationOf } from './block.js';
export { topK } from './output.js';

// One maker per stage name; cross_* stages share the self-attention ones.
const STEPS = { ...EMBED_STEPS, ...ATTENTION_STEPS, ...BLOCK_STEPS, ...OUTPUT_STEPS };

/** The maker and short label of stage `name` (a cross_ stage: its self-attention one's), or null. */
function stepOf(name) {
  const cross = name.startsWith('cross_');
  const entry = STEPS[cross ? name.slice('cross_'.length) : name];
  if (!entry) return null;
  return { make: entry.make, short: cross ? `${entry.short} (cross)` : entry.short, cross };
}

/** Step id used in URLs: "<stack>:<layer>:<name>". */
export function stepId(stack, layer, name) {
  return `${stack || '-'}:${layer ?? '-'}:${name}`;
}

/**
 * Steps of a run: [{ id, name, stack, layer, short, perHead (the stage's, from the trace), build(head) -> view }].
 * view = { title, tex, inputs: [matrix], output: matrix | null, outputs: [matrix] (heads),
 *          changed: string, explain(row, col) -> { title, formula, lines, result } }
 */
export function buildSteps(run) {
  if (run._steps) return run._steps;
  const ctx = new Ctx(run);
  const steps = [];
  const seen = new Set();
  for (const s of run.stages()) {
    if (s.name.endsWith('_stats')) continue;
    const id = stepId(s.stack, s.layer, s.name);
    if (seen.has(id)) continue;
    seen.add(id);
    const step = stepOf(s.name);
    if (!step) continue;
    const { make, short, cross } = step;
    steps.push({
      id,
      name: s.name,
      stack: s.stack,
      layer: s.layer,
      short,
      perHead: s.perHead,
      build: (head) => {
        if (s.perHead) showHeads(run);
        return make(ctx, { stack: s.stack, layer: s.layer, head, cross, name: s.name, shape: s.shape });
      },
    });
    if (s.name === 'head_out' || s.name === 'cross_head_out') {
      const name = cross ? 'cross_heads' : 'heads';
      const heads = stepOf(name);
      steps.push({
        id: stepId(s.stack, s.layer, name),
        name,
        stack: s.stack,
        layer: s.layer,
        short: heads.short,
        perHead: false,
        build: () => {
          showHeads(run); // every head side by side
          return heads.make(ctx, { stack: s.stack, layer: s.layer, cross });
        },
      });
    }
  }
  run._steps = steps;
  return steps;
}

/** The view of one step: stage `name` of `layer` (main stack unless given), head `head`. */
export function stepView(run, name, { layer = null, stack, head = 0 } = {}) {
  const steps = buildSteps(run);
  const st = stack ?? (run.kind === 'model' ? run.mainStack : '');
  const step = steps.find(
    (s) =>
      s.name === name &&
      (s.layer === layer || s.layer === null || layer === null) &&
      (s.stack === st || s.stack === ''),
  );
  if (!step) throw new Error(`this model has no step '${name}'${layer !== null ? ` in layer ${layer}` : ''}`);
  return { step, view: step.build(head) };
}
