// The playground page: one controller that keeps the page's state (text, model or preset,
// switches, step, layer, head) in the URL and hands it to every widget as attributes. The
// widgets do the rest; the page is made of the same elements a course page can embed.
import './components/index.js';
import { CHAPTERS, CONCEPTS } from './lib/concepts.js';
import { el } from './lib/dom.js';
import { resetTheme } from './lib/heatmap.js';
import { parseState, readUrl, STATE_KEYS, writeUrl } from './lib/state.js';

const WIDGET_STATE_KEYS = STATE_KEYS.filter((k) => k !== 'step');

export function startPlayground({ root = document.getElementById('app') } = {}) {
  const initial = readUrl(location.href);
  let state = initial.state;
  const hide = initial.hide;
  let concept = initial.concept;

  // ---- build the page -------------------------------------------------------------------
  const controls = el('ap-controls', { id: 'controls' });
  const stepper = el('ap-stepper', { id: 'stepper' });
  const widgets = [];
  const sections = CHAPTERS.map((ch) => {
    const items = CONCEPTS.filter((c) => c.chapter === ch.id).map((c) => {
      const w = document.createElement(`ap-${c.id}`);
      w.dataset.concept = c.id;
      w.id = `concept-${c.id}`;
      widgets.push(w);
      return w;
    });
    return el('section', { className: 'chapter', dataset: { chapter: ch.id }, attrs: { 'aria-labelledby': `chapter-${ch.id}` } },
      el('h2', { id: `chapter-${ch.id}`, text: `${ch.id}. ${ch.title}` }), ...items);
  });
  const nav = buildNav();
  root.replaceChildren(
    el('div', { className: 'layout' },
      nav,
      el('main', { id: 'main' },
        controls,
        el('section', { className: 'chapter', id: 'stepper-section', attrs: { 'aria-label': 'Stepper' } }, stepper),
        ...sections)));
  if (hide.includes('nav')) nav.hidden = true;
  if (hide.includes('controls')) controls.hidden = true;
  if (hide.includes('stepper')) stepper.hidden = true;

  // ---- state -> widgets ----------------------------------------------------------------
  // Only attributes whose value changes are set: each set wakes the element up.
  const set = (node, name, value) => { if (node.getAttribute(name) !== value) node.setAttribute(name, value); };
  function apply() {
    for (const k of STATE_KEYS) set(controls, k, String(state[k]));
    set(controls, 'hide', hide.join(','));
    // The page's controls bar sets every widget's text: the widgets' own text boxes are hidden.
    for (const w of widgets) {
      for (const k of WIDGET_STATE_KEYS) set(w, k, String(state[k]));
      set(w, 'hide', ['text', ...hide].join(','));
    }
    for (const k of STATE_KEYS) set(stepper, k, String(state[k]));
    set(stepper, 'hide', ['text', ...hide].join(','));
  }

  let urlTimer = null;
  function saveUrl(delay = 0) {
    clearTimeout(urlTimer);
    const write = () => history.replaceState(null, '', writeUrl(location.href, state, { hide, concept }));
    if (delay) urlTimer = setTimeout(write, delay); else write();
  }

  document.addEventListener('ap-state-change', (e) => {
    e.preventDefault(); // handled: a widget asking for a change does not apply it to itself
    const patch = e.detail.patch;
    state = parseState({ ...state, ...patch });
    apply();
    saveUrl('text' in patch ? 300 : 0);
  });

  // The stepper moved: its step, head and layer become the page's (the other views follow).
  stepper.addEventListener('ap-step-change', (e) => {
    const { step, head, layer } = e.detail;
    state = parseState({ ...state, step, head, layer: layer ?? state.layer });
    for (const w of widgets) { set(w, 'head', String(state.head)); set(w, 'layer', String(state.layer)); }
    set(stepper, 'layer', String(state.layer));
    set(stepper, 'head', String(state.head));
    saveUrl();
  });

  // A view asks to open a step in the stepper (the block view's stages).
  document.addEventListener('ap-goto-step', (e) => {
    state = parseState({ ...state, step: e.detail.step });
    set(stepper, 'step', state.step);
    stepper.scrollIntoView({ block: 'start' });
    saveUrl();
  });

  // Arrow keys anywhere outside a form control step the stepper.
  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    const t = e.composedPath()[0];
    if (t !== document.body && t !== document.documentElement) return;
    if (e.key === 'ArrowRight') { stepper.go(Number(stepper.dataset.index || 0) + 1); e.preventDefault(); }
    if (e.key === 'ArrowLeft') { stepper.go(Number(stepper.dataset.index || 0) - 1); e.preventDefault(); }
  });

  // ---- #concept=<id> ---------------------------------------------------------------------
  function showConcept(id) {
    const target = id && document.getElementById(`concept-${id}`);
    if (!target) return;
    target.scrollIntoView({ block: 'start' });
    // Views above it render as they come near the viewport and grow: scroll again once the
    // target has drawn itself, so the link still lands on it.
    const again = () => target.scrollIntoView({ block: 'start' });
    target.addEventListener('ap-rendered', () => requestAnimationFrame(again), { once: true });
    for (const a of nav.querySelectorAll('a[data-target]')) {
      if (a.dataset.target === id) a.setAttribute('aria-current', 'location'); else a.removeAttribute('aria-current');
    }
  }
  window.addEventListener('hashchange', () => {
    concept = new URLSearchParams(location.hash.slice(1)).get('concept') || '';
    showConcept(concept);
    saveUrl();
  });

  apply();
  if (concept) requestAnimationFrame(() => showConcept(concept));
  setupTheme();
  setupCopyLink();
  return { get state() { return state; }, stepper, controls, widgets };
}

function buildNav() {
  const list = el('ol', { className: 'toc-list' },
    el('li', {}, el('a', { href: '#main', text: 'Stepper', on: { click: (e) => { e.preventDefault(); document.getElementById('stepper-section').scrollIntoView(); history.replaceState(null, '', location.href.replace(/#.*$/, '')); } } })),
    ...CHAPTERS.map((ch) => el('li', {},
      el('span', { className: 'toc-chapter', text: `${ch.id}. ${ch.title}` }),
      el('ol', {}, ...CONCEPTS.filter((c) => c.chapter === ch.id).map((c) => el('li', {},
        el('a', { href: `#concept=${c.id}`, dataset: { target: c.id }, text: c.title })))))));
  const details = el('details', { className: 'toc-details', open: window.matchMedia('(min-width: 900px)').matches },
    el('summary', { text: 'Contents' }), list);
  return el('nav', { className: 'toc', attrs: { 'aria-label': 'Concepts' } }, details);
}

// ---- light / dark ---------------------------------------------------------------------------

function setupTheme() {
  const button = document.getElementById('theme-toggle');
  const saved = localStorage.getItem('ap-theme');
  if (saved === 'light' || saved === 'dark') document.documentElement.dataset.theme = saved;
  const current = () => document.documentElement.dataset.theme || (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
  const label = () => {
    if (!button) return;
    const dark = current() === 'dark';
    button.textContent = dark ? '☀ Light' : '☾ Dark';
    button.setAttribute('aria-label', dark ? 'Switch to the light theme' : 'Switch to the dark theme');
  };
  label();
  button?.addEventListener('click', () => {
    const next = current() === 'dark' ? 'light' : 'dark';
    document.documentElement.dataset.theme = next;
    localStorage.setItem('ap-theme', next);
    label();
    redrawAll();
  });
}

// Canvas colours come from CSS custom properties: redraw every heatmap after a theme change.
function redrawAll() {
  resetTheme();
  const visit = (root) => {
    for (const node of root.querySelectorAll('*')) {
      if (node.tagName === 'AP-HEATMAP' && node.matrix) node.matrix = node.matrix;
      if (node.shadowRoot) visit(node.shadowRoot);
    }
  };
  visit(document);
}

function setupCopyLink() {
  const button = document.getElementById('copy-link');
  const note = document.getElementById('copy-note');
  button?.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(location.href);
      if (note) note.textContent = 'Link copied: it opens this exact view.';
    } catch {
      if (note) note.textContent = `Copy this link: ${location.href}`;
    }
  });
}
