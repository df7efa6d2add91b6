// Sizes each Attention Playground iframe to its content: embed.html posts
// { type: 'attention-playground:resize', height } whenever its height changes.
window.addEventListener('message', (e) => {
  if (!e.data || e.data.type !== 'attention-playground:resize') return;
  for (const frame of document.querySelectorAll('iframe')) {
    if (frame.contentWindow === e.source) frame.style.height = `${Math.min(Math.max(e.data.height, 120), 4000)}px`;
  }
});
