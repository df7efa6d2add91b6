// Small computations the tests do by hand, independent of the core's own (tests/wasm and tests/web).

/** Mean of cos(x_i, x_j) over the pairs i < j of the n rows of x (n x d, row-major). */
export function meanCosine(x, n, d) {
  let sum = 0,
    pairs = 0;
  const norm = (i) => Math.hypot(...x.subarray(i * d, (i + 1) * d));
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      let dot = 0;
      for (let c = 0; c < d; c++) dot += x[i * d + c] * x[j * d + c];
      sum += dot / (norm(i) * norm(j));
      pairs++;
    }
  }
  return sum / pairs;
}
