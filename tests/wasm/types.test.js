// The published types (wasm/index.d.ts, web/attention-playground.d.ts) hold what the code does:
// tests/types/consumer.ts, a program that uses the API and the widgets as a course page would,
// compiles with `tsc --noEmit` (strict); tests/types/wrong.ts, five misuses, gives exactly five
// errors on the lines marked; and the lists the types spell out (every element the bundle
// registers, every event a widget dispatches) are the ones found in web/'s source.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { CONCEPTS } from '../../web/lib/concepts.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const read = (p) => readFileSync(join(ROOT, p), 'utf8');
const tsc = (...args) => spawnSync(process.execPath, [TSC, ...args], { cwd: ROOT, encoding: 'utf8' });

// Every .js file under web/ but the build's own output.
function sources(dir = join(ROOT, 'web')) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory()
      ? d.name === 'models'
        ? []
        : sources(join(dir, d.name))
      : d.name.endsWith('.js')
        ? [join(dir, d.name)]
        : [],
  );
}

describe('the published types', () => {
  test('a program using the API and the widgets compiles (tsc --noEmit, strict)', () => {
    const r = tsc('-p', 'tests/types/tsconfig.json');
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 60_000);

  test('five misuses give five errors, one on each marked line', () => {
    const r = tsc('-p', 'tests/types/tsconfig.wrong.json');
    const lines = read('tests/types/wrong.ts').split('\n');
    const marked = lines.flatMap((l, i) => (l.includes('// error:') ? [i + 1] : []));
    const errors = [...r.stdout.matchAll(/wrong\.ts\((\d+),\d+\): error/g)].map((m) => Number(m[1]));
    expect(marked).toHaveLength(5);
    expect(errors).toEqual(marked);
  }, 60_000);

  test('the element and event lists of the types are those of the code', () => {
    const dts = read('web/attention-playground.d.ts');
    // An interface's body: from its name to its closing brace (`end`: the brace with its indent).
    const block = (name, end) => {
      const at = dts.indexOf(`interface ${name} {`);
      return dts.slice(at, dts.indexOf(end, at));
    };
    const typedTags = [...block('HTMLElementTagNameMap', '\n  }').matchAll(/'(ap-[a-z-]+)'/g)].map((m) => m[1]).sort();
    const typedEvents = [...block('ApEventMap', '\n}').matchAll(/'(ap-[a-z-]+)'/g)].map((m) => m[1]).sort();
    const code = sources()
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const defined = [
      ...[...code.matchAll(/customElements\.define\('(ap-[a-z-]+)'/g)].map((m) => m[1]),
      ...[...code.matchAll(/define\(\w+, '(ap-[a-z-]+)'\)/g)].map((m) => m[1]),
      ...CONCEPTS.map((c) => `ap-${c.id}`), // define(cls) registers ap-<concept> (lib/widget.js)
    ];
    expect(typedTags).toEqual([...new Set(defined)].sort());
    const emitted = [
      ...code.matchAll(/emit\([\w.]+, '(ap-[a-z-]+)'/g),
      ...code.matchAll(/new CustomEvent\('(ap-[a-z-]+)'/g),
    ].map((m) => m[1]);
    expect(typedEvents).toEqual([...new Set(emitted)].sort());
    const catalog = read('web/lib/catalog.js');
    const documented = [...catalog.slice(catalog.indexOf('export const EVENTS')).matchAll(/name: '(ap-[a-z-]+)'/g)].map(
      (m) => m[1],
    );
    expect(documented.sort()).toEqual(typedEvents);
  });
});
