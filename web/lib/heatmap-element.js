// <ap-heatmap>: one matrix on canvas with HTML token labels, a hover / focus readout of any
// cell, click (or Enter) to select a cell, PNG and CSV export, a colour legend and a table of
// the numbers for screen readers. Every view of the playground draws its matrices with it.
// Set `.matrix` (see lib/heatmap.js matrix()); events: 'ap-cell-select' { name, row, col, value }.
// Attributes: max-cell (px, default 40), min-cell (px: cells never narrower; a wider plot scrolls
// sideways and says so), compact (no toolbar, legend or table), dense (cells as small as compact's,
// down to 4 px high with thinned labels, but with the title, toolbar, legend and table: a long
// matrix such as a 256-row position table in little height), no-numbers.
import { adoptStyles } from './styles.js';
import { clamp, el, emit, fmt, num } from './dom.js';
import { scaleFor } from './colors.js';
import { drawMatrix, labelStep, numbersFit, renderForExport, themeOf } from './heatmap.js';
import { canvasToPng, download, downloadCsv, fileName, matrixToCsv } from './export.js';
import { readNumber, valueWarning } from './state.js';

// max-cell: the largest cell in px (the width available makes cells smaller still).
const MAX_CELL = { min: 4, max: 200 };
// Labels are 12 px text at line-height 1 (styles/widget.css .hm-label): 12 px across their line.
const LABEL_PX = 12;
const LABEL_FONT = '12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
let measureCtx = null;
function textWidth(text) {
  if (!measureCtx) {
    measureCtx = document.createElement('canvas').getContext('2d');
    measureCtx.font = LABEL_FONT;
  }
  return measureCtx.measureText(text).width;
}

export class ApHeatmap extends HTMLElement {
  static get observedAttributes() {
    return ['max-cell', 'min-cell', 'compact', 'dense', 'no-numbers'];
  }

  constructor() {
    super();
    this._m = null;
    this._selected = null;
    this._cursor = null;
    this._highlightRow = -1;
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root);
    this._title = el('span', { className: 'hm-title' });
    this._shape = el('span', { className: 'hm-shape' });
    this._png = el('button', {
      className: 'small',
      type: 'button',
      text: 'PNG',
      title: 'Save as PNG image',
      on: { click: () => this.savePng() },
    });
    this._csv = el('button', {
      className: 'small',
      type: 'button',
      text: 'CSV',
      title: 'Save the numbers as CSV',
      on: { click: () => this.saveCsv() },
    });
    this._corner = el('div', { className: 'hm-corner' });
    this._cols = el('div', { className: 'hm-cols', attrs: { 'aria-hidden': 'true' } });
    this._rows = el('div', { className: 'hm-rows', attrs: { 'aria-hidden': 'true' } });
    this._canvas = el('canvas', { attrs: { 'aria-hidden': 'true' } });
    this._tip = el('div', { className: 'hm-tip', hidden: true });
    this._plot = el(
      'div',
      {
        className: 'hm-plot',
        attrs: { tabindex: '0', role: 'img' },
        on: {
          pointermove: (e) => this._hover(e),
          pointerleave: () => {
            this._tip.hidden = true;
          },
          click: (e) => {
            const c = this._cellAt(e);
            if (c) this._select(c);
          },
          keydown: (e) => this._key(e),
          focus: () => {
            if (!this._cursor && this._m) {
              this._cursor = { row: 0, col: 0 };
              this._announce();
            }
          },
          blur: () => {
            this._tip.hidden = true;
            if (this._keyboard) {
              this._keyboard = false;
              this._redraw();
            }
          },
        },
      },
      this._canvas,
      this._tip,
    );
    this._legendCanvas = el('canvas', { width: 110, height: 8 });
    this._legendLo = el('span');
    this._legendHi = el('span');
    this._maskKey = el('span', { className: 'masked-key', hidden: true }, el('i'), '−∞ masked');
    // Where a value is undefined (a row whose keys are all masked: 0/0; NaN or +∞ from a
    // computation) the heatmap says so in words, not just with a strange number.
    this._undefined = el('p', { className: 'warn hm-undefined', hidden: true, attrs: { role: 'note' } });
    this._scrollNote = el('p', { className: 'note hm-scroll', hidden: true });
    this._tableHolder = el('div', { className: 'scroll-x' });
    this._details = el(
      'details',
      { on: { toggle: () => this._renderTable() } },
      el('summary', { text: 'Numbers as a table' }),
      this._tableHolder,
    );
    this._live = el('div', { className: 'sr-only', attrs: { 'aria-live': 'polite' } });
    root.append(
      el(
        'div',
        { className: 'hm', part: 'heatmap' },
        el(
          'div',
          { className: 'hm-head' },
          this._title,
          this._shape,
          el('span', { className: 'hm-tools' }, this._png, this._csv),
        ),
        el(
          'div',
          { className: 'hm-body' },
          el('div', { className: 'hm-side' }, this._corner, this._rows),
          el('div', { className: 'hm-plotwrap' }, this._cols, this._plot),
        ),
        this._scrollNote,
        el(
          'div',
          { className: 'hm-legend' },
          this._legendCanvas,
          this._legendLo,
          el('span', { text: '…' }),
          this._legendHi,
          this._maskKey,
        ),
        this._undefined,
        this._details,
        this._live,
      ),
    );
    // The width comes from the ResizeObserver and is cached: reading clientWidth on every
    // update would force a layout of the whole page each time.
    this._width = 0;
    this._resize = new ResizeObserver((entries) => {
      const w = Math.round(entries[entries.length - 1].contentRect.width);
      if (w === this._width) return;
      this._width = w;
      if (this._m) this._layout();
    });
  }

  connectedCallback() {
    this._resize.observe(this);
    if (this._m && this._laidFor !== this._m) this._layout(); // sized now that it has a width
  }

  _hostWidth() {
    if (!this._width) this._width = this.clientWidth; // once, before the first observation
    return this._width || 320;
  }
  disconnectedCallback() {
    this._resize.disconnect();
  }
  attributeChangedCallback() {
    if (this._m) this._layout();
  }

  /** The matrix shown (lib/heatmap.js matrix()). Setting it redraws at once. */
  get matrix() {
    return this._m;
  }
  set matrix(m) {
    const sameShape = this._m && m && this._m.rows === m.rows && this._m.cols === m.cols;
    this._m = m;
    if (!sameShape) {
      this._selected = null;
      this._cursor = null;
    }
    this._layout();
  }

  /** Selected cell { row, col } or null (drawn with the accent outline). */
  get selected() {
    return this._selected;
  }
  set selected(c) {
    this._selected = c;
    this._redraw();
  }

  /** A row to outline (e.g. the query row being explained), or -1. */
  set highlightRow(i) {
    this._highlightRow = i;
    this._redraw();
  }

  /** The value at (row, col), as the core computed it. */
  valueAt(row, col) {
    return this._m.values[row * this._m.cols + col];
  }

  // ---- layout and drawing -------------------------------------------------------------

  _layout() {
    const m = this._m;
    if (!m || !this.isConnected) return; // laid out in connectedCallback
    this._laidFor = m;
    this._title.textContent = m.title;
    this._shape.textContent = `${m.rows}×${m.cols}`;
    this.dataset.name = m.name;
    this.dataset.rows = m.rows;
    this.dataset.cols = m.cols;
    const compact = this.hasAttribute('compact');
    const small = compact || this.hasAttribute('dense'); // cells down to 4 px high
    const raw = this.getAttribute('max-cell');
    const { value: maxCell, why } = readNumber(raw, MAX_CELL, compact ? 18 : 40);
    if (why && this._warned !== raw) {
      this._warned = raw;
      console.warn(valueWarning('<ap-heatmap>', 'max-cell', raw, why, `${maxCell} px`));
    }
    // Row label column: as wide as the longest label (capped), so the plot gets the rest.
    const rowText = (i) => (m.rowLabels ? m.rowLabels[i] : String(i));
    let labelW = 0;
    for (let i = 0; i < m.rows; i++) labelW = Math.max(labelW, textWidth(rowText(i)) + (m.rowFlags?.has(i) ? 8 : 0));
    labelW = compact ? 0 : Math.min(120, Math.ceil(labelW) + 10);
    const avail = Math.max(60, this._hostWidth() - labelW - 4);
    // Wide matrices (logits over a vocabulary) get fractional cells so they fit the width.
    let cellW = avail / m.cols >= 8 ? clamp(Math.floor(avail / m.cols), 2, maxCell) : Math.max(0.5, avail / m.cols);
    if (m.cols === 1) cellW = Math.min(maxCell, 48);
    // min-cell: a long text keeps readable cells and a label per column; the plot scrolls sideways.
    const minCell = this.hasAttribute('min-cell') ? readNumber(this.getAttribute('min-cell'), MAX_CELL, 0).value : 0;
    if (cellW < minCell) cellW = Math.min(minCell, maxCell);
    let cellH =
      m.rows * cellW > 520 && cellW > 10
        ? Math.max(10, Math.floor(520 / m.rows))
        : clamp(cellW, small ? 4 : 12, maxCell);
    if (cellW < 10 && !small) cellH = clamp(Math.floor(360 / m.rows), 12, 24);
    if (minCell && !compact) cellH = Math.max(cellH, Math.min(minCell, 12)); // a label on every row too
    this._cellW = cellW;
    this._cellH = cellH;
    const fit = Math.floor(avail / cellW);
    this._scrollNote.hidden = m.cols <= fit;
    this._scrollNote.textContent = `${fit} of the ${m.cols} columns fit across: scroll the map sideways for the rest.`;
    this.dataset.scrolls = String(m.cols > fit);
    this._numbers = !compact && !this.hasAttribute('no-numbers') && numbersFit(m, cellW, cellH);
    this._scale = scaleFor(m.kind, m.values, m.domain ? { domain: m.domain } : {});
    this._theme = themeOf(this);
    const labelKey = [
      m.rows,
      m.cols,
      cellW,
      cellH,
      labelW,
      m.rowLabels?.join('\u0001'),
      m.colLabels?.join('\u0001'),
      [...(m.rowFlags || [])].join(),
      [...(m.colFlags || [])].join(),
    ].join('|');
    const sameLabels = labelKey === this._labelKey;
    this._labelKey = labelKey;

    if (!sameLabels) this._buildLabels(m, { labelW, cellW, cellH, rowText });
    this._corner.textContent = m.corner || '';

    // Legend (the gradient depends only on the kind of scale)
    if (this._legendKind !== m.kind) {
      this._legendKind = m.kind;
      const lg = this._legendCanvas.getContext('2d');
      for (let x = 0; x < 110; x++) {
        lg.fillStyle = this._scale.gradient(x / 109);
        lg.fillRect(x, 0, 1, 8);
      }
    }
    this._legendLo.textContent = fmt(this._scale.domain[0]);
    this._legendHi.textContent = fmt(this._scale.domain[1]);
    let masked = 0;
    for (let i = 0; i < m.values.length; i++) if (m.values[i] === -Infinity || (m.masked && m.masked[i])) masked++;
    this._maskKey.hidden = masked === 0;
    this._showUndefined(m);
    this._legendCanvas.parentElement.hidden = m.kind === 'ids';

    const what = `${m.title}: ${m.rows} by ${m.cols}${masked ? `, ${masked} masked cells` : ''}.`;
    this._plot.setAttribute(
      'aria-label',
      `${what} Arrow keys move between cells, Enter explains a cell; the table below lists every number.`,
    );
    this._redraw();
    if (this._details.open) this._renderTable();
  }

  /** The message for undefined values: fully masked rows (weights 0/0) and NaN / +∞ cells. */
  _showUndefined(m) {
    const isMasked = (k) => m.values[k] === -Infinity || (m.masked && m.masked[k]);
    const deadRows = [];
    let bad = 0;
    for (let i = 0; i < m.rows; i++) {
      let all = m.cols > 0;
      for (let j = 0; j < m.cols; j++) {
        const k = i * m.cols + j;
        if (!isMasked(k)) all = false;
        if (Number.isNaN(m.values[k]) || m.values[k] === Infinity) bad++;
      }
      if (all) deadRows.push(m.rowLabels?.[i] ?? String(i));
    }
    const parts = [];
    if (deadRows.length) {
      const names =
        deadRows
          .slice(0, 4)
          .map((r) => `"${r}"`)
          .join(', ') + (deadRows.length > 4 ? ` and ${deadRows.length - 4} more` : '');
      parts.push(
        `${deadRows.length === 1 ? 'Row' : 'Rows'} ${names}: every key is masked, so the softmax has nothing to spread over and the weights are undefined (0 / 0). The core returns 0 for each of them by definition, so the output of that row is 0.`,
      );
    }
    if (bad)
      parts.push(
        `${bad} ${bad === 1 ? 'value is' : 'values are'} undefined (not a number or +∞), drawn hatched with "?": check the inputs of this step.`,
      );
    this._undefined.textContent = parts.join(' ');
    this._undefined.hidden = parts.length === 0;
    this.dataset.undefined = String(deadRows.length + bad);
  }

  _buildLabels(m, { labelW, cellW, cellH, rowText }) {
    this._rows.style.width = `${labelW}px`;
    const rowNodes = [];
    const rowStep = labelStep(cellH, LABEL_PX);
    for (let i = 0; i < m.rows; i += rowStep) {
      const flagged = m.rowFlags?.has(i);
      const node = el('span', {
        className: `hm-label${flagged ? ' unknown' : ''}${m.rowLabels ? '' : ' tick'}`,
        text: flagged ? `${rowText(i)}?` : rowText(i),
      });
      node.style.top = `${i * cellH + cellH / 2}px`;
      node.dataset.index = String(i);
      if (flagged) node.title = 'not in the vocabulary: the model sees <unk>';
      rowNodes.push(node);
    }
    this._rows.replaceChildren(...rowNodes);
    this._rows.style.height = `${m.rows * cellH}px`;

    // Column labels: rotated tokens when they fit, sparse indices otherwise.
    const colNodes = [];
    let colH = 16;
    if (m.colLabels && cellW >= 11) {
      const longest = Math.max(...m.colLabels.map((l, j) => textWidth(l) + (m.colFlags?.has(j) ? 8 : 0)));
      const rotate = longest > cellW - 6;
      colH = rotate ? Math.min(80, Math.ceil(longest * 0.72) + 10) : 18;
      // Rotated labels closer than their line height would pile into each other: every k-th.
      const step = rotate ? labelStep(cellW, LABEL_PX, { slanted: true }) : 1;
      m.colLabels.forEach((label, j) => {
        if (j % step) return;
        const flagged = m.colFlags?.has(j);
        const node = el('span', {
          className: `hm-label${flagged ? ' unknown' : ''}`,
          text: flagged ? `${label}?` : label,
        });
        node.dataset.index = String(j);
        if (rotate) {
          node.style.left = `${j * cellW + cellW / 2 - 2}px`;
          node.style.transform = 'rotate(-45deg)';
        } else {
          node.style.left = `${j * cellW + cellW / 2}px`;
          node.style.transform = 'translateX(-50%)';
        }
        colNodes.push(node);
      });
    } else {
      // Too narrow for every label: every k-th one (indices, or rotated tokens).
      // (indices stand upright, up to 3 digits of 10 px and a gap: 24 px a label)
      const nice = m.colLabels ? labelStep(cellW, LABEL_PX, { slanted: true }) : labelStep(cellW, 24, { round: true });
      if (m.colLabels) colH = 60;
      for (let j = 0; j < m.cols; j += nice) {
        const node = el('span', {
          className: `hm-label tick${m.colFlags?.has(j) ? ' unknown' : ''}`,
          text: m.colLabels ? m.colLabels[j].slice(0, 8) : String(j),
        });
        node.dataset.index = String(j);
        // An upright index is centred on its column, but kept inside the map: at a narrow map's left
        // edge the "0" would otherwise be cut in half.
        const half = m.colLabels ? 0 : textWidth(String(j)) / 2;
        const centre = Math.min(Math.max(j * cellW + cellW / 2, half), m.cols * cellW - half);
        node.style.left = `${m.colLabels ? j * cellW + cellW / 2 - 2 : centre}px`;
        node.style.transform = m.colLabels ? 'rotate(-45deg)' : 'translateX(-50%)';
        colNodes.push(node);
      }
    }
    this._cols.replaceChildren(...colNodes);
    this._cols.style.height = `${colH}px`;
    this._cols.style.width = `${m.cols * cellW}px`;
    this._corner.style.width = `${labelW}px`;
    this._corner.style.height = `${colH}px`;
  }

  _redraw() {
    if (!this._m || !this._scale) return; // not laid out yet
    drawMatrix(this._canvas, this._m, {
      cellW: this._cellW,
      cellH: this._cellH,
      scale: this._scale,
      theme: this._theme,
      numbers: this._numbers,
      selected: this._selected,
      cursor: this._keyboard ? this._cursor : null,
      highlightRow: this._highlightRow,
    });
  }

  _renderTable() {
    if (!this._details.open || !this._m) return;
    const m = this._m;
    const table = el('table', { className: 'nums' });
    table.append(
      el('caption', {
        text: `${m.title} (${m.rows}×${m.cols})${m.rowAxis ? `: rows are ${m.rowAxis}` : ''}${m.colAxis ? `, columns are ${m.colAxis}` : ''}`,
      }),
    );
    const head = table.createTHead().insertRow();
    head.append(m.corner ? el('th', { text: m.corner }) : el('td')); // no empty header cell
    for (let j = 0; j < m.cols; j++) {
      const flagged = m.colFlags?.has(j);
      head.append(
        el('th', {
          attrs: { scope: 'col' },
          className: flagged ? 'unknown' : '',
          text: `${m.colLabels ? m.colLabels[j] : String(j)}${flagged ? '?' : ''}`,
        }),
      );
    }
    const body = table.createTBody();
    for (let i = 0; i < m.rows; i++) {
      const tr = body.insertRow();
      const flagged = m.rowFlags?.has(i);
      tr.append(
        el('th', {
          attrs: { scope: 'row' },
          className: flagged ? 'unknown' : '',
          text: `${m.rowLabels ? m.rowLabels[i] : String(i)}${flagged ? '?' : ''}`,
        }),
      );
      for (let j = 0; j < m.cols; j++) {
        const v = m.values[i * m.cols + j];
        const wasMasked = v === -Infinity || (m.masked && m.masked[i * m.cols + j]);
        const td = el('td', {
          text: m.kind === 'ids' ? String(v) : fmt(v),
          className: wasMasked ? 'masked' : '',
          title: wasMasked ? 'masked: a future key' : '',
        });
        td.dataset.row = i;
        td.dataset.col = j;
        td.dataset.value = num(v);
        tr.append(td);
      }
    }
    this._tableHolder.replaceChildren(table);
  }

  // ---- interaction ----------------------------------------------------------------------

  _cellAt(e) {
    const r = this._canvas.getBoundingClientRect();
    // The screen box is scaled when a host transforms the page (a reveal.js slide, a zoomed
    // frame): back to the canvas's own CSS pixels, in which the cells were laid out.
    const sx = r.width / this._canvas.offsetWidth || 1;
    const sy = r.height / this._canvas.offsetHeight || 1;
    const col = Math.floor((e.clientX - r.left) / sx / this._cellW);
    const row = Math.floor((e.clientY - r.top) / sy / this._cellH);
    if (row < 0 || col < 0 || row >= this._m.rows || col >= this._m.cols) return null;
    return { row, col };
  }

  _describe({ row, col }) {
    const m = this._m;
    const v = m.values[row * m.cols + col];
    const rl = m.rowLabels ? m.rowLabels[row] : `row ${row}`;
    const cl = m.colLabels ? m.colLabels[col] : `col ${col}`;
    const masked = v === -Infinity || (m.masked && m.masked[row * m.cols + col]);
    return `${rl} → ${cl} [${row},${col}]: ${v === -Infinity ? '−∞' : fmt(v, 4)}${masked ? ' (masked)' : ''}`;
  }

  _hover(e) {
    const c = this._cellAt(e);
    if (!c) {
      this._tip.hidden = true;
      return;
    }
    this._tip.textContent = this._describe(c);
    this._tip.style.left = `${c.col * this._cellW + this._cellW / 2}px`;
    this._tip.style.top = `${c.row * this._cellH}px`;
    this._tip.hidden = false;
  }

  _announce() {
    if (!this._cursor) return;
    const text = this._describe(this._cursor);
    this._live.textContent = text;
    this._tip.textContent = text;
    this._tip.style.left = `${this._cursor.col * this._cellW + this._cellW / 2}px`;
    this._tip.style.top = `${this._cursor.row * this._cellH}px`;
    this._tip.hidden = false;
  }

  _key(e) {
    if (!this._m) return;
    this._keyboard = true; // the cursor is drawn only while the keyboard drives the grid
    const c = this._cursor || { row: 0, col: 0 };
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[e.key]) {
      const [dr, dc] = moves[e.key];
      this._cursor = { row: clamp(c.row + dr, 0, this._m.rows - 1), col: clamp(c.col + dc, 0, this._m.cols - 1) };
    } else if (e.key === 'Home') this._cursor = { row: c.row, col: 0 };
    else if (e.key === 'End') this._cursor = { row: c.row, col: this._m.cols - 1 };
    else if (e.key === 'Enter' || e.key === ' ') {
      this._select(c);
    } else if (e.key === 'Escape') {
      this._tip.hidden = true;
      return;
    } else return;
    e.preventDefault();
    e.stopPropagation(); // arrows here move the cell, not the stepper
    this._redraw();
    this._announce();
  }

  _select(c) {
    this._selected = c;
    this._cursor = c;
    this._redraw();
    emit(this, 'ap-cell-select', { name: this._m.name, row: c.row, col: c.col, value: this.valueAt(c.row, c.col) });
  }

  // ---- export -------------------------------------------------------------------------

  async savePng() {
    const canvas = renderForExport(this._m, this._theme || themeOf(this));
    download(await canvasToPng(canvas), fileName(this._m.title, 'png'));
  }

  saveCsv() {
    downloadCsv(matrixToCsv(this._m), fileName(this._m.title, 'csv'));
  }
}

if (!customElements.get('ap-heatmap')) customElements.define('ap-heatmap', ApHeatmap);
