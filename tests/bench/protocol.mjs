// The runner protocol's answers, shared by node-runner.mjs (a Node process, one JSON line per
// request) and page.mjs (a Chromium page, window.benchHandle): init | supports | prepare | run |
// release, each answered { ok: true, result } or { ok: false, error }.
import { createImpl } from './impl/index.mjs';

export const failure = (err) => ({ ok: false, error: String(err && err.stack ? err.stack : err) });

// name: the implementation; env: how it reaches files and peers; engine(): the runtime it reports;
// run(impl, reps): times the calls (the default just runs them); extra: createImpl's ({ threads }).
export function createHandler({ name, env, engine, run = (impl, reps) => impl.run(reps), extra = {} }) {
  let impl = null;
  return async (msg) => {
    try {
      let result = null;
      switch (msg.op) {
        case 'init':
          impl = await createImpl(name, env, extra);
          result = { ...impl.info, engine: engine() };
          break;
        case 'supports':
          result = impl.supports(msg.case);
          break;
        case 'prepare':
          result = await impl.prepare(msg.case);
          break;
        case 'run':
          result = await run(impl, msg.reps);
          break;
        case 'release':
          await impl.release();
          break;
        default:
          throw new Error(`unknown op ${msg.op}`);
      }
      return { ok: true, result };
    } catch (err) {
      return failure(err);
    }
  };
}
