// Dense matrices on canvas: cells, numbers in the cells when they fit, masked cells (-Infinity
// after the causal mask) hatched grey with "−∞" so they never look like a weight of 0, the
// selected cell and the keyboard cursor. Labels live in HTML beside the canvas (ap-heatmap);
// the PNG export draws everything, labels included, onto one canvas.
import { el, fmt, fmtCell } from './dom.js';
import { scaleFor } from './colors.js';

/** A matrix ready to draw: values are row-major rows x cols. */
// masked: optional Uint8Array (rows x cols), 1 where the cell was masked before the softmax
// (its weight is exactly 0): drawn hatched like the -inf it came from, never like a plain 0.
export function matrix({
  name,
  title,
  values,
  rows,
  cols,
  rowLabels = null,
  colLabels = null,
  rowFlags = null,
  colFlags = null,
  kind = 'div',
  domain = null,
  rowAxis = '',
  colAxis = '',
  corner = '',
  masked = null,
}) {
  if (values.length !== rows * cols) throw new Error(`matrix ${name}: ${values.length} values for ${rows}×${cols}`);
  return {
    name,
    title: title || name,
    values,
    rows,
    cols,
    rowLabels,
    colLabels,
    rowFlags,
    colFlags,
    kind,
    domain,
    rowAxis,
    colAxis,
    corner,
    masked,
  };
}

// The one rule for thinning labels along an axis, used by every map of the page (ap-heatmap's
// rows and columns, the PNG export, reshape's token rows): labels `spacing` px apart, each `size` px
// across the axis (its line height), are drawn every k-th, the smallest k that keeps them apart.
// Labels rotated by 45 degrees are spacing / sqrt 2 apart across their lines. Index ticks (0, 5,
// 10, ...) step by round numbers.
const ROUND_STEPS = [1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 64, 100, 128, 200, 256, 500];

/** Every how many labels to draw so that labels `size` px across, `spacing` px apart, never overlap. */
export function labelStep(spacing, size, { round = false, slanted = false } = {}) {
  const across = slanted ? spacing / Math.SQRT2 : spacing;
  const every = Math.max(1, Math.ceil(size / Math.max(across, 1e-6) - 1e-9));
  return (round && ROUND_STEPS.find((k) => k >= every)) || every;
}

/**
 * A 0/1 mask (1 = blocked) over the query x key cells of m, with m's shape and labels. The blocked
 * cells are also hatched, as masked cells are in the weights maps: where the cells are too small for
 * their 0 / 1, the hatching still shows which keys are blocked.
 */
export function maskLike(m, name, title, values) {
  return matrix({
    name,
    title,
    values,
    masked: Uint8Array.from(values, (v) => (v ? 1 : 0)),
    rows: m.rows,
    cols: m.cols,
    rowLabels: m.rowLabels,
    colLabels: m.colLabels,
    kind: 'ids',
    corner: 'q \\ k',
  });
}

/** Row `i` of an (rows x cols) array as a 1 x cols matrix. */
export function rowOf(m, i, extra = {}) {
  return matrix({
    ...m,
    ...extra,
    rows: 1,
    values: m.values.slice(i * m.cols, (i + 1) * m.cols),
    masked: m.masked ? m.masked.slice(i * m.cols, (i + 1) * m.cols) : null,
    rowLabels: m.rowLabels ? [m.rowLabels[i]] : [String(i)],
    rowFlags: null,
  });
}

// A hatch pattern per canvas context and colours (createPattern copies its source: keep it).
const hatchSources = new Map();
const patterns = new WeakMap();
function hatch(ctx, base, line) {
  const key = `${base}|${line}`;
  const cached = patterns.get(ctx);
  if (cached && cached.key === key) return cached.pattern;
  if (!hatchSources.has(key)) {
    const c = document.createElement('canvas');
    c.width = c.height = 8;
    const g = c.getContext('2d');
    g.fillStyle = base;
    g.fillRect(0, 0, 8, 8);
    g.strokeStyle = line;
    g.lineWidth = 1.2;
    g.beginPath();
    g.moveTo(0, 8);
    g.lineTo(8, 0);
    g.moveTo(-2, 2);
    g.lineTo(2, -2);
    g.moveTo(6, 10);
    g.lineTo(10, 6);
    g.stroke();
    hatchSources.set(key, c);
  }
  const pattern = ctx.createPattern(hatchSources.get(key), 'repeat');
  patterns.set(ctx, { key, pattern });
  return pattern;
}

// Cells are painted as one pixel each into a small canvas, then scaled up in one drawImage
// (nearest neighbour): a 32 x 645 matrix costs one image copy, not 20,000 fillRects.
let pixelCanvas = null;
function pixels(cols, rows) {
  if (!pixelCanvas) pixelCanvas = document.createElement('canvas');
  if (pixelCanvas.width < cols || pixelCanvas.height < rows) {
    pixelCanvas.width = Math.max(cols, pixelCanvas.width);
    pixelCanvas.height = Math.max(rows, pixelCanvas.height);
  }
  return pixelCanvas;
}

// Theme colours are read from CSS once per element and theme (getComputedStyle forces a style
// pass), not once per draw; resetTheme() after any theme change (the page's toggle, the reader's
// colour scheme, a widget's theme attribute) makes every element read them again. Per element,
// because each widget can have its own theme or --ap-* colours.
let themeVersion = 0;
const themeCache = new WeakMap();
export function resetTheme() {
  themeVersion++;
}
if (typeof matchMedia === 'function')
  matchMedia('(prefers-color-scheme: dark)').addEventListener?.('change', resetTheme);

/** Theme colours for canvas drawing, read from CSS custom properties of `host`. */
export function themeOf(host) {
  const key = `${themeVersion}|${document.documentElement.dataset.theme || ''}`;
  const hit = themeCache.get(host);
  if (hit && hit.key === key) return hit.theme;
  const theme = readTheme(host);
  themeCache.set(host, { key, theme });
  return theme;
}

function readTheme(host) {
  const cs = getComputedStyle(host);
  const v = (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
  return {
    masked: v('--_masked', '#9a9a9a'),
    maskedLine: v('--_masked-line', '#6c6c6c'),
    maskedInk: v('--_masked-ink', '#111'),
    grid: v('--_grid', 'rgba(127,127,127,0.35)'),
    accent: v('--_accent', '#d6336c'),
    focus: v('--_focus', '#f59f00'),
    fg: v('--_fg', '#111'),
    bg: v('--_bg', '#fff'),
    muted: v('--_muted', '#666'),
    font: v('--_mono', 'ui-monospace, SFMono-Regular, Menlo, monospace'),
  };
}

/**
 * Draws `m` into `canvas` at cellW x cellH CSS pixels per cell.
 * opts: { scale, theme, numbers: bool, selected: {row,col}, cursor: {row,col}, highlightRow }
 */
export function drawMatrix(canvas, m, { cellW, cellH, scale, theme, numbers, selected, cursor, highlightRow = -1 }) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(m.cols * cellW));
  const h = Math.max(1, Math.round(m.rows * cellH));
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  canvas.style.width = `${w}px`;
  canvas.style.height = `${h}px`;
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  paintCells(ctx, m, { x0: 0, y0: 0, cellW, cellH, scale, theme, numbers });
  const box = (c, color, width, dash) => {
    if (!c || c.row < 0 || c.row >= m.rows || c.col < 0 || c.col >= m.cols) return;
    ctx.save();
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    if (dash) ctx.setLineDash(dash);
    ctx.strokeRect(c.col * cellW + width / 2, c.row * cellH + width / 2, cellW - width, cellH - width);
    ctx.restore();
  };
  if (highlightRow >= 0 && highlightRow < m.rows) {
    ctx.save();
    ctx.strokeStyle = theme.fg;
    ctx.lineWidth = 1.5;
    ctx.strokeRect(0.75, highlightRow * cellH + 0.75, w - 1.5, cellH - 1.5);
    ctx.restore();
  }
  box(selected, theme.accent, Math.min(3, Math.max(1.5, cellW / 8)));
  box(cursor, theme.focus, 2, [3, 2]);
}

function paintCells(ctx, m, { x0, y0, cellW, cellH, scale, theme, numbers }) {
  const { rows, cols, values } = m;
  const isMasked = (k) => values[k] === -Infinity || (m.masked && m.masked[k]);
  if (m.kind === 'ids') {
    ctx.fillStyle = theme.bg;
    ctx.fillRect(x0, y0, cols * cellW, rows * cellH);
  } else {
    const img = new ImageData(cols, rows);
    const d = img.data,
      rgb = scale.rgb;
    for (let k = 0; k < values.length; k++) {
      if (isMasked(k) || !(Math.abs(values[k]) < Infinity)) continue; // transparent: hatched below
      const c = 3 * scale.index(values[k]);
      d[4 * k] = rgb[c];
      d[4 * k + 1] = rgb[c + 1];
      d[4 * k + 2] = rgb[c + 2];
      d[4 * k + 3] = 255;
    }
    const px = pixels(cols, rows);
    const pctx = px.getContext('2d');
    pctx.putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(px, 0, 0, cols, rows, x0, y0, cols * cellW, rows * cellH);
  }
  const fontPx = Math.max(8, Math.min(13, Math.floor(Math.min(cellW / 3.6, cellH * 0.55))));
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.font = `${fontPx}px ${theme.font}`;
  let pattern = null;
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const k = i * cols + j;
      const v = values[k];
      const x = x0 + j * cellW,
        y = y0 + i * cellH;
      if (isMasked(k)) {
        ctx.fillStyle = pattern || (pattern = hatch(ctx, theme.masked, theme.maskedLine));
        ctx.fillRect(x, y, cellW, cellH);
        // Its "−∞", "0" (a masked weight) or, on a 0/1 mask, its id only where the other cells
        // show their numbers: on a map without numbers the hatching alone says masked.
        if (numbers && cellW >= (v === -Infinity ? 22 : 16) && cellH >= 12) {
          ctx.fillStyle = theme.maskedInk;
          ctx.fillText(m.kind === 'ids' ? String(v) : v === -Infinity ? '−∞' : '0', x + cellW / 2, y + cellH / 2);
        }
      } else if (!(Math.abs(v) < Infinity)) {
        // Undefined (NaN, +∞): hatched with a "?" (the heatmap also says so in words).
        ctx.fillStyle = pattern || (pattern = hatch(ctx, theme.masked, theme.maskedLine));
        ctx.fillRect(x, y, cellW, cellH);
        if (cellW >= 12 && cellH >= 12) {
          ctx.fillStyle = theme.maskedInk;
          ctx.fillText('?', x + cellW / 2, y + cellH / 2);
        }
      } else if (numbers) {
        ctx.fillStyle = m.kind === 'ids' ? theme.fg : scale.ink(v);
        ctx.fillText(
          m.kind === 'ids' ? String(v) : fmtCell(v, cellW >= 44 ? 3 : 2),
          x + cellW / 2,
          y + cellH / 2 + 0.5,
        );
      }
    }
  }
  if (cellW >= 6 && cellH >= 6) {
    ctx.strokeStyle = theme.grid;
    ctx.lineWidth = 0.5;
    ctx.beginPath();
    for (let i = 0; i <= rows; i++) {
      ctx.moveTo(x0, y0 + i * cellH);
      ctx.lineTo(x0 + cols * cellW, y0 + i * cellH);
    }
    for (let j = 0; j <= cols; j++) {
      ctx.moveTo(x0 + j * cellW, y0);
      ctx.lineTo(x0 + j * cellW, y0 + rows * cellH);
    }
    ctx.stroke();
  }
}

/** Does a number fit in a cell of this width? */
export function numbersFit(m, cellW, cellH) {
  return m.kind === 'ids' ? cellW >= 22 && cellH >= 14 : cellW >= 30 && cellH >= 16;
}

/**
 * A self-contained PNG of the matrix: title, labels, cells with numbers, colour legend.
 * Token labels are drawn with fillText (plain text, never markup).
 */
export function renderForExport(m, theme) {
  const scale = scaleFor(m.kind, m.values, m.domain ? { domain: m.domain } : {});
  const cell = m.cols > 40 ? 10 : m.cols > 20 ? 24 : 44;
  const cellH = m.cols > 40 ? 10 : Math.max(22, Math.min(cell, 32));
  const numbers = numbersFit(m, cell, cellH);
  const probe = document.createElement('canvas').getContext('2d');
  probe.font = `13px ${theme.font}`;
  const labelW = m.rowLabels ? Math.min(160, Math.max(...m.rowLabels.map((l) => probe.measureText(l).width)) + 12) : 36;
  const colLabelH =
    m.colLabels && m.cols <= 60
      ? Math.min(110, Math.max(...m.colLabels.map((l) => probe.measureText(l).width)) * 0.75 + 16)
      : 20;
  const titleH = 30,
    legendH = 36,
    pad = 12;
  const W = Math.ceil(pad * 2 + labelW + m.cols * cell);
  const H = Math.ceil(pad + titleH + colLabelH + m.rows * cellH + legendH + pad);
  const canvas = document.createElement('canvas');
  const k = 2; // export at twice the CSS size: crisp in slides
  canvas.width = W * k;
  canvas.height = H * k;
  const ctx = canvas.getContext('2d');
  ctx.scale(k, k);
  ctx.fillStyle = theme.bg;
  ctx.fillRect(0, 0, W, H);
  ctx.fillStyle = theme.fg;
  ctx.font = `bold 15px ${theme.font}`;
  ctx.textBaseline = 'middle';
  ctx.fillText(`${m.title} (${m.rows}×${m.cols})`, pad, pad + titleH / 2);
  const x0 = pad + labelW,
    y0 = pad + titleH + colLabelH;
  ctx.font = `13px ${theme.font}`;
  if (m.colLabels && m.cols <= 60) {
    for (let j = 0, step = labelStep(cell, 15, { slanted: true }); j < m.cols; j += step) {
      ctx.save();
      ctx.translate(x0 + j * cell + cell / 2, y0 - 6);
      ctx.rotate(-Math.PI / 4);
      ctx.textAlign = 'left';
      ctx.fillStyle = theme.fg;
      ctx.fillText(m.colLabels[j], 0, 0);
      ctx.restore();
    }
  }
  ctx.textAlign = 'right';
  for (let i = 0, step = labelStep(cellH, 15); i < m.rows; i += step) {
    ctx.fillStyle = theme.fg;
    ctx.fillText(m.rowLabels ? m.rowLabels[i] : String(i), x0 - 6, y0 + i * cellH + cellH / 2);
  }
  paintCells(ctx, m, { x0, y0, cellW: cell, cellH, scale, theme, numbers });
  // legend
  const ly = y0 + m.rows * cellH + 14,
    lw = Math.min(220, m.cols * cell);
  if (m.kind !== 'ids') {
    for (let x = 0; x < lw; x++) {
      ctx.fillStyle = scale.gradient(x / (lw - 1));
      ctx.fillRect(x0 + x, ly, 1, 10);
    }
    ctx.fillStyle = theme.fg;
    ctx.textAlign = 'left';
    ctx.font = `11px ${theme.font}`;
    ctx.fillText(fmt(scale.domain[0]), x0, ly + 20);
    ctx.textAlign = 'right';
    ctx.fillText(fmt(scale.domain[1]), x0 + lw, ly + 20);
  }
  return canvas;
}

/**
 * Reuses <ap-heatmap> elements by slot: a slot's element is made once (with `attrs`) and is given
 * each new matrix, since a new element per render would be laid out (and observed for resizing)
 * from scratch. The one pool of the widgets (ApWidget.hm) and the step panels (lib/view.js);
 * whoever draws with it loads lib/heatmap-element.js, which defines the element.
 */
export class HeatmapPool {
  constructor() {
    this.slots = new Map();
  }
  get(slot, m, attrs = {}) {
    let h = this.slots.get(slot);
    if (!h) {
      h = el('ap-heatmap', { attrs });
      this.slots.set(slot, h);
    } else {
      // Attributes that change with the matrix (min-cell for a long text): set before it is drawn.
      for (const [k, v] of Object.entries(attrs)) {
        if (v === null || v === undefined || v === false) h.removeAttribute(k);
        else if (h.getAttribute(k) !== String(v)) h.setAttribute(k, String(v));
      }
    }
    h.matrix = m;
    return h;
  }
}
