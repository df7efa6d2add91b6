// max |ours - want| / max |want| over an array: the error relative to the values' own scale, how the
// tests that compare whole stages (PyTorch goldens, or one model against another) measure agreement.
export function relativeError(ours, want) {
  let diff = 0,
    scale = 0;
  for (let i = 0; i < want.length; i++) {
    diff = Math.max(diff, Math.abs(ours[i] - want[i]));
    scale = Math.max(scale, Math.abs(want[i]));
  }
  return diff / Math.max(scale, 1e-30);
}
