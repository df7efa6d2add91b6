// Colour scales for heatmaps, all colour-blind safe: viridis for non-negative values
// (weights, probabilities, ReLU outputs), a blue-white-red diverging scale (ColorBrewer RdBu,
// safe for the common colour-vision deficiencies) for signed values centred on 0.
// Scales are 256-entry lookup tables so drawing a cell is an array index, not an interpolation.
import { interpolateRdBu, interpolateViridis } from 'd3-scale-chromatic';

const LUT_SIZE = 256;

function lut(interpolate) {
  const fills = new Array(LUT_SIZE);
  const inks = new Array(LUT_SIZE);
  const rgb = new Uint8ClampedArray(LUT_SIZE * 3);
  for (let i = 0; i < LUT_SIZE; i++) {
    const c = parseRgb(interpolate(i / (LUT_SIZE - 1)));
    fills[i] = `rgb(${Math.round(c.r)},${Math.round(c.g)},${Math.round(c.b)})`;
    rgb[3 * i] = c.r;
    rgb[3 * i + 1] = c.g;
    rgb[3 * i + 2] = c.b;
    // Relative luminance decides black or white numbers on the cell.
    const lum = 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
    inks[i] = lum > 0.36 ? '#111' : '#fff';
  }
  return { fills, inks, rgb, interpolate };
}

// d3-scale-chromatic gives "#rrggbb" or "rgb(r, g, b)".
function parseRgb(text) {
  if (text[0] === '#') {
    const n = parseInt(text.slice(1, 7), 16);
    return { r: (n >> 16) & 255, g: (n >> 8) & 255, b: n & 255 };
  }
  const [r, g, b] = text.match(/[\d.]+/g).map(Number);
  return { r, g, b };
}

function lin(c) {
  const s = c / 255;
  return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
}

const SEQUENTIAL = lut(interpolateViridis);
const DIVERGING = lut((t) => interpolateRdBu(1 - t)); // negative blue, positive red

/**
 * A scale for `values`: kind 'seq' (0..max), 'prob' (0..max of the weights, 0 darkest),
 * 'div' (symmetric around 0). Returns { fill(v), ink(v), domain, kind, gradient(t) }.
 * Infinite values (masked scores) are ignored for the domain.
 */
export function scaleFor(kind, values, { domain } = {}) {
  let lo = Infinity,
    hi = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Number.isFinite(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (lo === Infinity) {
    lo = 0;
    hi = 1;
  }
  let d;
  if (domain) d = domain;
  else if (kind === 'div') {
    const a = Math.max(Math.abs(lo), Math.abs(hi)) || 1;
    d = [-a, a];
  } else if (kind === 'prob')
    d = [0, hi > 0 ? hi : 1]; // 0 is always the darkest
  else d = [Math.min(0, lo), hi > Math.min(0, lo) ? hi : Math.min(0, lo) + 1];
  const table = kind === 'div' ? DIVERGING : SEQUENTIAL;
  const span = d[1] - d[0] || 1;
  const index = (v) => {
    const t = (v - d[0]) / span;
    return Math.max(0, Math.min(LUT_SIZE - 1, Math.round(t * (LUT_SIZE - 1))));
  };
  return {
    kind,
    domain: d,
    fill: (v) => table.fills[index(v)],
    index,
    rgb: table.rgb,
    ink: (v) => table.inks[index(v)],
    gradient: (t) => table.fills[Math.max(0, Math.min(LUT_SIZE - 1, Math.round(t * (LUT_SIZE - 1))))],
  };
}
