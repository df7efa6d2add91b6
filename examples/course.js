// The course page reacts to the widgets: a selected score cell is repeated in the text.
// (A separate file, not an inline script, so the page also works under a strict CSP.)
document.getElementById('scores').addEventListener('ap-cell-select', (e) => {
  const { row, col, value } = e.detail;
  document.getElementById('picked').textContent =
    `You picked the score of query ${row} for key ${col}: ${value.toFixed(3)}.`;
});
