// Saving what is on screen: a heatmap or plot as PNG (canvas.toBlob) and its numbers as CSV,
// for reports and slides. Downloads go through a temporary object URL; nothing leaves the page.

/** Starts a download of `blob` named `filename`. */
export function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** canvas -> PNG Blob. */
export function canvasToPng(canvas) {
  return new Promise((resolve, reject) => {
    canvas.toBlob(
      (blob) => (blob ? resolve(blob) : reject(new Error('the browser could not encode the PNG'))),
      'image/png',
    );
  });
}

// A spreadsheet must not run a cell that starts with = + - @ (CSV injection): such text
// labels get a leading apostrophe. Numbers are written plainly.
function csvText(s) {
  let t = String(s);
  if (/^[=+\-@\t\r]/.test(t)) t = `'${t}`;
  return /[",\n\r]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
}

function csvNumber(v) {
  if (v === -Infinity) return '-inf';
  if (v === Infinity) return 'inf';
  return String(v);
}

/**
 * CSV of a matrix: header row of column labels, then one row per matrix row starting with
 * its label. values is row-major rows x cols.
 */
export function matrixToCsv({ values, rows, cols, rowLabels, colLabels, corner = '' }) {
  const lines = [];
  const header = [csvText(corner)];
  for (let j = 0; j < cols; j++) header.push(csvText(colLabels ? colLabels[j] : j));
  lines.push(header.join(','));
  for (let i = 0; i < rows; i++) {
    const line = [csvText(rowLabels ? rowLabels[i] : i)];
    for (let j = 0; j < cols; j++) line.push(csvNumber(values[i * cols + j]));
    lines.push(line.join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** CSV of named columns: { header: [...], rows: [[...], ...] } (numbers or text). */
export function tableToCsv({ header, rows }) {
  const cell = (v) => (typeof v === 'number' ? csvNumber(v) : csvText(v));
  return `${[header.map(cell).join(','), ...rows.map((r) => r.map(cell).join(','))].join('\n')}\n`;
}

export function downloadCsv(text, filename) {
  download(new Blob([text], { type: 'text/csv;charset=utf-8' }), filename);
}

/** A file name from free text: letters, digits, dashes. */
export function fileName(base, ext) {
  const clean = String(base || 'attention')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return `${clean || 'attention'}.${ext}`;
}
