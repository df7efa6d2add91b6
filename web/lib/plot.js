// Small SVG plots (lines and bars) with labels as SVG text (textContent, never markup), and
// their PNG (SVG drawn onto a canvas) and CSV export.
import { el, fmt } from './dom.js';
import { canvasToPng, download, downloadCsv, fileName, tableToCsv } from './export.js';

const NS = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

// The series colours are the palette's (web/styles/palette.css), light or dark with the widget.
const COLORS = [1, 2, 3, 4, 5].map((i) => `var(--_series-${i})`);
const DASHES = ['', '6 3', '2 3', '8 3 2 3', ''];

/**
 * A line plot. series: [{ name, points: [[x, y]], color?, reference? }]; x may be drawn on a log2 axis.
 * A reference series (a level to compare with, such as chance) is drawn dashed, without dots.
 * Returns a figure element with the SVG, a legend, and PNG / CSV buttons.
 */
export function linePlot({
  title,
  series,
  xLabel,
  yLabel,
  logX = false,
  width = 420,
  height = 240,
  yMin = null,
  yMax = null,
  xTickFormat = (x) => String(x),
}) {
  const m = { l: 48, r: 12, t: 10, b: 38 };
  const xs = series.flatMap((se) => se.points.map((p) => p[0]));
  const ys = series.flatMap((se) => se.points.map((p) => p[1])).filter(Number.isFinite);
  const tx = (x) => (logX ? Math.log2(x) : x);
  const x0 = Math.min(...xs.map(tx)),
    x1 = Math.max(...xs.map(tx));
  const y0 = yMin ?? Math.min(0, ...ys),
    y1 = yMax ?? (Math.max(...ys) * 1.05 || 1);
  const X = (x) => m.l + ((tx(x) - x0) / (x1 - x0 || 1)) * (width - m.l - m.r);
  const Y = (y) => height - m.b - ((y - y0) / (y1 - y0 || 1)) * (height - m.t - m.b);
  const svg = s('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width: '100%',
    role: 'img',
    'aria-label': title,
    class: 'plot',
  });
  svg.style.maxWidth = `${width}px`;
  svg.append(s('rect', { x: 0, y: 0, width, height, fill: 'var(--_bg)' }));
  const axis = s('g', { stroke: 'currentColor', 'stroke-opacity': 0.5, fill: 'none' });
  axis.append(
    s('line', { x1: m.l, y1: height - m.b, x2: width - m.r, y2: height - m.b }),
    s('line', { x1: m.l, y1: m.t, x2: m.l, y2: height - m.b }),
  );
  svg.append(axis);
  const ticks = s('g', { 'font-size': 10, fill: 'currentColor' });
  for (const x of [...new Set(xs)])
    ticks.append(s('text', { x: X(x), y: height - m.b + 13, 'text-anchor': 'middle' }, xTickFormat(x)));
  for (let k = 0; k <= 4; k++) {
    const y = y0 + ((y1 - y0) * k) / 4;
    ticks.append(s('text', { x: m.l - 5, y: Y(y) + 3, 'text-anchor': 'end' }, fmt(y, 2)));
    ticks.append(
      s('line', { x1: m.l, x2: width - m.r, y1: Y(y), y2: Y(y), stroke: 'currentColor', 'stroke-opacity': 0.12 }),
    );
  }
  ticks.append(s('text', { x: (m.l + width - m.r) / 2, y: height - 4, 'text-anchor': 'middle' }, xLabel));
  const yl = s(
    'text',
    {
      x: 12,
      y: (m.t + height - m.b) / 2,
      'text-anchor': 'middle',
      transform: `rotate(-90 12 ${(m.t + height - m.b) / 2})`,
    },
    yLabel,
  );
  ticks.append(yl);
  svg.append(ticks);
  series.forEach((se, i) => {
    const pts = se.points.filter((p) => Number.isFinite(p[1]));
    svg.append(
      s('polyline', {
        points: pts.map((p) => `${X(p[0])},${Y(p[1])}`).join(' '),
        fill: 'none',
        style: `stroke: ${se.color || COLORS[i]}`,
        'stroke-width': 2,
        'stroke-dasharray': se.reference ? '5 4' : DASHES[i],
      }),
    );
    if (!se.reference)
      for (const p of pts)
        svg.append(s('circle', { cx: X(p[0]), cy: Y(p[1]), r: 2.8, style: `fill: ${se.color || COLORS[i]}` }));
  });
  const legend = el(
    'div',
    { className: 'legend-row' },
    ...series.map((se, i) =>
      el('span', { className: 'legend-item' }, el('i', { style: { background: se.color || COLORS[i] } }), se.name),
    ),
  );
  const csv = () =>
    tableToCsv({
      header: ['x', ...series.map((se) => se.name)],
      rows: [...new Set(xs)].map((x) => [x, ...series.map((se) => se.points.find((p) => p[0] === x)?.[1] ?? '')]),
    });
  return figure(title, svg, legend, csv, width, height);
}

/** Horizontal bars: items [{ label, value, raw?, chosen? }] with values in [0, max]. */
export function barList({ title, items, max = null, rawName = '', valueName = 'value', digits = 3 }) {
  const top = max ?? Math.max(...items.map((it) => Math.max(it.value, it.raw ?? 0)), 1e-9);
  // A table a screen reader can walk (row: token, value), laid out as one grid whose rows are
  // subgrids so every bar starts at the same x. The bar itself is decoration (aria-hidden).
  const grid = el(
    'div',
    { className: 'bars', attrs: { role: 'table', 'aria-label': title } },
    el(
      'div',
      { className: 'sr-only', attrs: { role: 'row' } },
      el('span', { text: 'token', attrs: { role: 'columnheader' } }),
      el('span', { text: valueName, attrs: { role: 'columnheader' } }),
    ),
  );
  for (const it of items) {
    const bar = el('div', { className: `bar${it.chosen ? ' chosen' : ''}`, attrs: { 'aria-hidden': 'true' } });
    if (it.raw !== undefined) bar.append(el('i', { className: 'raw', style: { width: `${(100 * it.raw) / top}%` } }));
    bar.append(
      el('i', {
        style: { width: `${(100 * Math.max(0, it.value)) / top}%`, opacity: it.raw !== undefined ? 0.85 : 1 },
      }),
    );
    grid.append(
      el(
        'div',
        { className: 'bars-row', attrs: { role: 'row' } },
        el('span', { className: `lbl${it.chosen ? ' chosen' : ''}`, text: it.label, attrs: { role: 'cell' } }),
        bar,
        el('span', {
          className: `val${it.chosen ? ' chosen' : ''}`,
          text: fmt(it.value, digits),
          attrs: { role: 'cell', 'data-value': String(it.value) },
        }),
      ),
    );
  }
  const header = ['token', valueName];
  if (rawName) header.push(rawName);
  const csv = () =>
    tableToCsv({
      header,
      rows: items.map((it) => (rawName ? [it.label, it.value, it.raw ?? ''] : [it.label, it.value])),
    });
  return figure(title, grid, null, csv);
}

function figure(title, content, legend, csv, width, height) {
  const name = el('span', { className: 'hm-title', text: title });
  const png = el('button', {
    type: 'button',
    className: 'small',
    text: 'PNG',
    title: 'Save as PNG image',
    on: { click: () => savePng(content, title, width, height) },
  });
  const csvB = el('button', {
    type: 'button',
    className: 'small',
    text: 'CSV',
    title: 'Save the numbers as CSV',
    on: { click: () => downloadCsv(csv(), fileName(title, 'csv')) },
  });
  return el(
    'figure',
    { className: 'plotfig' },
    el('div', { className: 'hm-head' }, name, el('span', { className: 'hm-tools' }, png, csvB)),
    content,
    legend,
  );
}

async function savePng(content, title, width, height) {
  const cs = getComputedStyle(content);
  const bg = cs.getPropertyValue('--_bg').trim() || '#fff';
  const fg = cs.color || '#111';
  const canvas = document.createElement('canvas');
  if (content instanceof SVGElement) {
    const clone = content.cloneNode(true);
    // The palette's colours are custom properties, which the picture file does not have: each
    // styled stroke and fill is written out as the colour it is drawn in.
    const from = content.querySelectorAll('[style]');
    clone.querySelectorAll('[style]').forEach((node, i) => {
      const drawn = getComputedStyle(from[i]);
      node.setAttribute('style', `stroke: ${drawn.stroke}; fill: ${drawn.fill}`);
    });
    clone.setAttribute('xmlns', NS);
    clone.setAttribute('width', width);
    clone.setAttribute('height', height);
    clone.setAttribute('color', fg);
    clone.querySelector('rect')?.setAttribute('fill', bg);
    const text = new XMLSerializer().serializeToString(clone);
    const img = new Image();
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`;
    await img.decode();
    canvas.width = width * 2;
    canvas.height = height * 2;
    const ctx = canvas.getContext('2d');
    ctx.scale(2, 2);
    ctx.drawImage(img, 0, 0, width, height);
  } else {
    // Bars: redraw the rows on a canvas.
    const rows = [...content.querySelectorAll('.lbl')].map((l, i) => ({
      label: l.textContent,
      value: Number(content.querySelectorAll('.val')[i].dataset.value),
    }));
    const max = Math.max(...rows.map((r) => r.value), 1e-9);
    canvas.width = 2 * 460;
    canvas.height = 2 * (30 + rows.length * 20);
    const ctx = canvas.getContext('2d');
    ctx.scale(2, 2);
    ctx.fillStyle = bg;
    ctx.fillRect(0, 0, 460, 30 + rows.length * 20);
    ctx.fillStyle = fg;
    ctx.font = 'bold 13px sans-serif';
    ctx.fillText(title, 8, 18);
    ctx.font = '12px monospace';
    rows.forEach((r, i) => {
      const y = 30 + i * 20;
      ctx.fillStyle = fg;
      ctx.textAlign = 'right';
      ctx.fillText(r.label, 110, y + 13);
      ctx.fillStyle = cs.getPropertyValue('--_series-1').trim() || '#1c5fb8';
      ctx.fillRect(118, y + 3, (260 * r.value) / max, 13);
      ctx.fillStyle = fg;
      ctx.textAlign = 'left';
      ctx.fillText(fmt(r.value), 390, y + 13);
    });
  }
  download(await canvasToPng(canvas), fileName(title, 'png'));
}
