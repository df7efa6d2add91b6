// Clocks and fits for the cost views: time a call of the wasm core in small chunks (the page
// keeps answering between calls), and fit power laws to what was measured. Nothing here computes
// a lesson number: it times the core and fits straight lines to the measurements.

/** Resolves once the browser has had a turn (input, painting) between two chunks of work. */
export function yieldToBrowser() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Milliseconds per call of fn(). Browsers round performance.now() (to 100 µs in a page that is
 * not cross-origin isolated), so a sample is a batch of calls lasting at least `sampleMs`: one
 * warm-up call, a batch size found by doubling, then samples until `budgetMs` have passed (at least
 * minReps, at most maxReps), yielding to the browser between samples. Returns the median sample
 * divided by the batch size: one sample slowed by a garbage collection does not move it.
 * `cancelled()` is polled between samples; when it turns true the promise rejects with an Error
 * whose `cancelled` is true.
 */
export async function timeCall(
  fn,
  { budgetMs = 80, minReps = 3, maxReps = 40, sampleMs = 4, cancelled = () => false } = {},
) {
  const check = async () => {
    await yieldToBrowser();
    if (cancelled()) throw Object.assign(new Error('measurement stopped'), { cancelled: true });
  };
  const run = (batch) => {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) fn();
    return performance.now() - t0;
  };
  fn();
  let batch = 1;
  for (;;) {
    await check();
    const dt = run(batch);
    if (dt >= sampleMs || batch >= 1 << 16) break;
    batch *= dt > 0 ? Math.min(16, Math.max(2, Math.ceil((1.2 * sampleMs) / dt))) : 16;
  }
  const times = [];
  let spent = 0;
  while (times.length < minReps || (spent < budgetMs && times.length < maxReps)) {
    await check();
    const dt = run(batch);
    times.push(dt / batch);
    spent += dt;
  }
  times.sort((a, b) => a - b);
  const mid = times.length >> 1;
  return times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
}

/**
 * Least squares line through (log x, log y): y ≈ c x^p. Returns { p, c, points } or null with
 * fewer than two usable points (y must be > 0).
 */
export function fitPowerLaw(points) {
  const pts = points.filter(([x, y]) => x > 0 && y > 0);
  if (pts.length < 2) return null;
  const lx = pts.map(([x]) => Math.log(x)),
    ly = pts.map(([, y]) => Math.log(y));
  const mx = mean(lx),
    my = mean(ly);
  let sxy = 0,
    sxx = 0;
  for (let i = 0; i < pts.length; i++) {
    sxy += (lx[i] - mx) * (ly[i] - my);
    sxx += (lx[i] - mx) ** 2;
  }
  if (sxx === 0) return null;
  const p = sxy / sxx;
  return { p, c: Math.exp(my - p * mx), points: pts.length };
}

/**
 * Least squares y ≈ c x^p for a fixed exponent p (minimising the squared error in y itself,
 * so the largest, slowest sizes weigh most): c = Σ y x^p / Σ x^2p.
 */
export function fitFixedPower(points, p) {
  let num = 0,
    den = 0;
  for (const [x, y] of points) {
    const xp = x ** p;
    num += y * xp;
    den += xp * xp;
  }
  return den > 0 ? num / den : 0;
}

function mean(a) {
  return a.reduce((s, v) => s + v, 0) / a.length;
}

/** Bytes as people say them, in powers of 1000 as the notes do (10 GB): "4.19 MB". */
export function fmtBytes(b) {
  if (!Number.isFinite(b)) return String(b);
  const units = [
    [1e12, 'TB'],
    [1e9, 'GB'],
    [1e6, 'MB'],
    [1e3, 'KB'],
  ];
  for (const [size, unit] of units) {
    if (Math.abs(b) >= size) {
      const v = b / size;
      return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1).replace(/\.0$/, '') : v.toFixed(2).replace(/\.?0+$/, '')} ${unit}`;
    }
  }
  return `${b} B`;
}

/** An integer with thousands separators: 2,500,000,000. */
export function fmtInt(v) {
  return Math.round(v).toLocaleString('en-US');
}
