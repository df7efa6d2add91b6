// The playground page: a learning path through the lecture notes, one chapter at a time (or every
// view on one page, #chapter=all). One controller keeps the page's state (text, model or preset,
// switches, step, layer, head) in the URL and hands it to every widget as attributes; the
// widgets do the rest, and they are the same elements a course page can embed.
//
// The page loads the same widget bundle a course page does: everything it shares with the widgets
// comes through ./attention-playground.js (in the built page, dist/attention-playground.js itself;
// see vite.config.js), and only the path (this file and lib/lessons.js) is the page's own code.
import { CHAPTERS, CONCEPTS, conceptById, embedCode, playgroundKit } from './attention-playground.js';
import {
  GLOSSARY,
  GOALS,
  LESSONS,
  RECAP,
  goalMet,
  loadProgress,
  measuredPlace,
  pathOrder,
  questionsOf,
  saveProgress,
} from './lib/lessons.js';
import { onStorageRefused, storedItem, storeItem } from './lib/storage.js';

const {
  el,
  resetTheme,
  parseState,
  readUrl,
  STATE_KEYS,
  valueWarning,
  writeUrl,
  filesFromDataTransfer,
  measuredHeads,
  threadPlan,
} = playgroundKit;

// The page's one line on threads (its footer): the pretrained models and the trainer run on the
// threaded wasm module where the page is cross-origin isolated (README: Threads), else on one.
export function threadsLine(plan) {
  if (plan.threads > 1)
    return `Pretrained models and training run on ${plan.threads} threads (this page is cross-origin isolated).`;
  if (!plan.allowed) return 'Pretrained models and training run on one thread: this page is not cross-origin isolated.';
  return 'Pretrained models and training run on one thread: this device reports one core.';
}

const WIDGET_STATE_KEYS = STATE_KEYS.filter((k) => k !== 'step');

export function startPlayground({ root = document.getElementById('app') } = {}) {
  const initial = readUrl(location.href);
  // A number in the URL out of its range was clamped, one that is not a number ignored: say which.
  for (const [name, i] of initial.issues) console.warn(valueWarning('the page URL:', name, i.raw, i.why, i.used));
  let state = initial.state;
  const hide = initial.hide;
  let concept = initial.concept;
  const progress = loadProgress();
  const order = pathOrder(CHAPTERS);
  // 'all' is the one-page view of every chapter; otherwise one chapter of the path at a time.
  let chapter = initial.chapter || chapterOf(concept) || (order.includes(progress.last) ? progress.last : order[0]);

  // ---- build the page -------------------------------------------------------------------
  const controls = el('ap-controls', { id: 'controls' });
  const stepper = el('ap-stepper', { id: 'stepper' });
  const widgets = [];
  const byConcept = new Map();
  for (const c of CONCEPTS) {
    const w = document.createElement(`ap-${c.id}`);
    if (c.id === 'quiz') w.earlier = progress.answers; // each card says how it was answered before
    w.dataset.concept = c.id;
    w.id = `concept-${c.id}`;
    widgets.push(w);
    byConcept.set(c.id, w);
  }
  const sections = new Map(); // chapter id -> <section>, built when first shown
  const sectionOf = (id) => {
    if (!sections.has(id)) sections.set(id, buildChapter(id));
    return sections.get(id);
  };
  const nav = buildNav();
  const content = el('div', { className: 'path-content' });
  const layout = el('div', { className: 'layout' }, nav, el('main', { id: 'main' }, content));
  const foot = el('footer', {
    className: 'page-foot',
    id: 'threads',
    text: threadsLine(threadPlan({}, { trainer: true })),
  });
  root.replaceChildren(layout, foot);
  if (hide.includes('nav')) {
    nav.hidden = true;
    layout.classList.add('no-nav');
  } // the views take the whole width
  if (hide.includes('controls')) controls.hidden = true;
  if (hide.includes('stepper')) stepper.hidden = true;

  function chapterOf(id) {
    const c = id && conceptById(id);
    return c ? c.chapter : '';
  }

  function titleOf(id) {
    if (id === RECAP.id) return RECAP.title;
    const ch = CHAPTERS.find((c) => c.id === id);
    return ch ? `${ch.id}. ${ch.title}` : id;
  }

  // One chapter: its heading, goals, introduction, then each concept's view followed by its
  // "try this" prompts and questions; at the end, done + previous / next.
  function buildChapter(id) {
    const lesson = id === RECAP.id ? RECAP : LESSONS[id] || { goals: [], intro: [], extras: {} };
    const k = order.indexOf(id);
    const number = CHAPTERS.findIndex((c) => c.id === id) + 1;
    const head = el(
      'header',
      { className: 'chapter-head' },
      el('p', {
        className: 'kicker',
        text: id === RECAP.id ? `Recap after chapter ${RECAP.after}` : `Chapter ${number} of ${CHAPTERS.length}`,
      }),
      el('h2', { id: `chapter-${id}`, text: titleOf(id) }),
    );
    const goals = (lesson.goals || []).map((g) => GOALS.find((x) => x.id === g)).filter(Boolean);
    if (goals.length) {
      head.append(
        el(
          'div',
          { className: 'goals' },
          el('h3', { text: goals.length === 1 ? 'Goal:' : 'Goals:' }),
          el('ul', {}, ...goals.map((g) => el('li', { text: g.text }))),
          el('p', {
            className: 'goal-how',
            text: questionsOf(id).length
              ? `The goal is ticked in the contents once you answer this chapter's ${questionsOf(id).length === 1 ? 'question' : `${questionsOf(id).length} questions`} correctly.`
              : 'The goal is ticked in the contents when you tick "I have worked through this chapter" at its end.',
          }),
        ),
      );
    }
    // The first paragraph of the introduction, then the rest folded: with the controls beside the
    // heading on a wide screen (style.css), the chapter's first picture comes up on the first screen.
    // On a phone the whole introduction is folded behind one line (style.css), so a one-paragraph
    // introduction has the fold too, shown on phones only.
    const intro = lesson.intro || [];
    if (intro.length) head.append(el('p', { className: 'intro intro-first', text: intro[0] }));
    if (intro.length)
      head.append(
        el(
          'details',
          { className: `intro-more${intro.length === 1 ? ' phone-only' : ''}` },
          el(
            'summary',
            {},
            el('span', { className: 'on-phone', text: 'Read the introduction' }),
            el('span', { className: 'on-wide', text: 'Read more of the introduction' }),
          ),
          ...intro.slice(1).map((p) => el('p', { className: 'intro', text: p })),
        ),
      );
    const body = [];
    if (id === RECAP.id) body.push(stepper, embedBox(stepper));
    for (const c of CONCEPTS.filter((x) => x.chapter === id)) {
      body.push(byConcept.get(c.id), embedBox(byConcept.get(c.id)));
      const extras = lesson.extras?.[c.id] || [];
      const tries = extras.filter((x) => x.try);
      if (tries.length) body.push(tryBox(c.id, tries));
      for (const q of extras.filter((x) => x.question)) body.push(questionBox(q.question));
    }
    const done = el('input', {
      type: 'checkbox',
      checked: !!progress.done[id],
      on: { change: () => markDone(id, done.checked) },
    });
    const prev = order[k - 1],
      next = order[k + 1];
    const foot = el(
      'footer',
      { className: 'chapter-foot' },
      el('label', { className: 'done' }, done, el('span', { text: 'I have worked through this chapter' })),
      el(
        'nav',
        { className: 'prev-next', attrs: { 'aria-label': `Previous and next chapter (from ${titleOf(id)})` } },
        prev
          ? el('a', { href: `#chapter=${prev}`, className: 'prev', rel: 'prev', text: `◀ ${titleOf(prev)}` })
          : el('span'),
        next
          ? el('a', {
              href: `#chapter=${next}`,
              className: 'next',
              rel: 'next',
              text: `${titleOf(next)} ▶`,
            })
          : el('span'),
      ),
    );
    return el(
      'section',
      { className: 'chapter', dataset: { chapter: id }, attrs: { 'aria-labelledby': `chapter-${id}` } },
      // The heading and the text and model controls (showChapter puts them here), side by side on a
      // wide screen.
      el('div', { className: 'chapter-top' }, head),
      ...body,
      foot,
    );
  }

  // "Embed this view": for the view as it is now (text, model, layer, head, switches...), the
  // script-tag snippet for any page, the iframe embed for an LMS, and the MyST directive for a
  // Jupyter Book; each shows the same numbers where it is pasted. Written when opened, and again
  // after each redraw of the view while open.
  function embedBox(widget) {
    const title = conceptById(widget.dataset.concept)?.title || 'the step-by-step view';
    const codes = [
      ['html', 'Any web page (one script tag)'],
      ['iframe', 'A course platform that allows only iframes'],
      ['myst', 'MyST / Jupyter Book 2 ({anywidget} directive)'],
    ].map(([key, label]) => {
      const box = el('textarea', { readOnly: true, rows: 3, spellcheck: false, attrs: { 'aria-label': label } });
      const said = el('span', { className: 'copied', attrs: { role: 'status' } });
      const copy = el('button', {
        type: 'button',
        text: 'Copy',
        on: {
          click: async () => {
            box.select();
            try {
              await navigator.clipboard.writeText(box.value);
            } catch {
              document.execCommand?.('copy'); // a page without clipboard access: the selected text
            }
            said.textContent = 'Copied';
            setTimeout(() => (said.textContent = ''), 2000);
          },
        },
      });
      return {
        key,
        box,
        node: el(
          'div',
          { className: 'embed-row', dataset: { embed: key } },
          el('span', { className: 'embed-label', text: label }),
          box,
          el('div', {}, copy, said),
        ),
      };
    });
    const fill = () => {
      const code = embedCode(widget);
      for (const c of codes) {
        c.box.value = code[c.key];
        // Tall enough to show the whole snippet as it wraps (the box is open, so it is laid out).
        c.box.style.height = 'auto';
        c.box.style.height = `${c.box.scrollHeight + 2}px`;
      }
    };
    const box = el(
      'details',
      {
        className: 'embed-code',
        dataset: { for: widget.dataset.concept || 'stepper' },
        on: { toggle: () => box.open && fill() },
      },
      el('summary', { text: `Embed this view: ${title}` }),
      el('p', {
        className: 'note',
        text: 'Paste one of these into a course page, an LMS or a book: it shows these numbers, for the text and settings you have now. The files come from this site; to work offline, copy dist/ next to your page (README, "Embed in a course page").',
      }),
      ...codes.map((c) => c.node),
    );
    widget.addEventListener('ap-rendered', () => box.open && fill());
    return box;
  }

  function tryBox(conceptId, tries) {
    return el(
      'aside',
      {
        className: 'try',
        dataset: { for: conceptId },
        attrs: { 'aria-label': `Try this: ${conceptById(conceptId)?.title || conceptId}` },
      },
      el('h3', { text: 'Try this' }),
      el(
        'ul',
        {},
        ...tries.map((t) =>
          el(
            'li',
            {},
            el('button', {
              type: 'button',
              text: 'Try it',
              attrs: { 'aria-label': `Try it: ${t.try}` },
              on: { click: () => tryIt(conceptId, t) },
            }),
            el('span', { text: t.try }),
          ),
        ),
      ),
    );
  }

  // Attributes a prompt set together with its own text or example (the softmax prompt's row of
  // "sat"): they name a place in that text, so the student's next text or example takes them away.
  let exampleAttrs = [];
  function dropExampleAttrs() {
    for (const [w, name] of exampleAttrs) w.removeAttribute(name);
    exampleAttrs = [];
  }

  // A patch as the page applies it: an example of the notes opens on its own first layer and head
  // (the model's head 3, say, is no head of a one-head example) unless the patch names them.
  const withExample = (patch) => (patch.preset ? { layer: 0, head: 0, ...patch } : patch);

  function tryIt(conceptId, t) {
    const w = byConcept.get(conceptId);
    if (t.patch) {
      dropExampleAttrs();
      state = parseState({ ...state, ...withExample(t.patch) });
      apply();
      saveUrl();
    }
    for (const [name, value] of Object.entries(t.attrs || {})) {
      if (value === null) w?.removeAttribute(name);
      else w?.setAttribute(name, value);
      if (w && value !== null && t.patch) exampleAttrs.push([w, name]);
    }
    w?.scrollIntoView({ block: 'start' });
    // Where the prompt's question can be seen: the layer and head measured in that role, once the
    // model's roles are read (a model without them stays where it is), with the model's own heads:
    // the roles were measured on those, and a re-sliced head of the same number is another head.
    if (t.headRole && !state.preset)
      measuredHeads(state.model).then((roles) => {
        const place = measuredPlace(roles, t.headRole);
        if (!place) return;
        state = parseState({ ...state, ...place, heads: '', kvheads: '' });
        apply();
        saveUrl();
      });
  }

  // A question of the notes beside its concept: the quiz element with just that question.
  function questionBox(qid) {
    const q = document.createElement('ap-quiz');
    q.earlier = progress.answers;
    q.setAttribute('questions', qid);
    q.dataset.question = qid;
    q.id = `question-${qid}`;
    widgets.push(q);
    return q;
  }

  function markDone(id, value) {
    if (value) progress.done[id] = true;
    else delete progress.done[id];
    saveProgress(progress);
    const box = sections.get(id)?.querySelector('.done input');
    if (box) box.checked = !!value;
    updateNav();
  }

  // Show one chapter (or all of them). The widgets of hidden chapters leave the page, so they
  // neither draw nor hold memory; they keep their state attributes and draw again when shown.
  function showChapter(id) {
    chapter = order.includes(id) || id === 'all' ? id : order[0];
    const ids = chapter === 'all' ? order : [chapter];
    content.replaceChildren(...(chapter === 'all' ? [allIntro()] : []), ...ids.map(sectionOf));
    // The text and model controls sit under the chapter's introduction (on top of everything in
    // the one-page view), so a chapter opens with what it teaches.
    if (chapter === 'all') content.prepend(controls);
    else {
      sectionOf(chapter).querySelector('.chapter-top').append(controls);
    }
    document.body.dataset.chapter = chapter;
    if (chapter !== 'all') {
      progress.last = chapter;
      saveProgress(progress);
    }
    apply();
    // The chapter's first view builds its own DOM now (title, lead, controls), once it has its
    // attributes, so that it paints with the chapter's introduction instead of a frame or two
    // later; the others build as they come near the viewport or in idle time (lib/widget.js).
    if (chapter !== 'all') sectionOf(chapter).querySelector('[data-concept]:not(ap-controls)')?._buildNow?.();
    updateNav();
  }

  function allIntro() {
    return el(
      'p',
      { className: 'all-note' },
      el('span', { text: 'Every view of the course on one page. ' }),
      el('a', {
        href: `#chapter=${order.includes(progress.last) ? progress.last : order[0]}`,
        text: 'Back to the learning path',
      }),
    );
  }

  function updateNav() {
    for (const a of nav.querySelectorAll('a[data-chapter]')) {
      const id = a.dataset.chapter;
      a.classList.toggle('done', !!progress.done[id]);
      if (id === chapter) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
      const mark = a.querySelector('.mark');
      if (mark) mark.textContent = progress.done[id] ? '✓ ' : '';
    }
    for (const li of nav.querySelectorAll('li[data-goal]')) {
      const met = goalMet(
        GOALS.find((g) => g.id === li.dataset.goal),
        progress,
      );
      li.classList.toggle('met', met);
      li.querySelector('.mark').textContent = met ? '✓' : '○';
    }
  }

  // ---- state -> widgets ----------------------------------------------------------------
  // Only attributes whose value changes are set: each set wakes the element up.
  const set = (node, name, value) => {
    if (node.getAttribute(name) !== value) node.setAttribute(name, value);
  };
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
    const write = () =>
      history.replaceState(
        null,
        '',
        writeUrl(location.href, state, { hide, concept, chapter: concept ? '' : chapter }),
      );
    if (delay) urlTimer = setTimeout(write, delay);
    else write();
  }

  document.addEventListener('ap-state-change', (e) => {
    e.preventDefault(); // handled: a widget asking for a change does not apply it to itself
    const patch = e.detail.patch;
    if ('text' in patch || 'preset' in patch) dropExampleAttrs();
    state = parseState({ ...state, ...withExample(patch) });
    apply();
    saveUrl('text' in patch ? 300 : 0);
  });

  document.addEventListener('ap-quiz-answer', (e) => {
    progress.answers[e.detail.question] = !!e.detail.correct;
    saveProgress(progress);
    updateNav(); // a goal may be met now
  });

  // The stepper moved: its step, head and layer become the page's (the other views follow).
  stepper.addEventListener('ap-step-change', (e) => {
    const { step, head, layer } = e.detail;
    state = parseState({ ...state, step, head, layer: layer ?? state.layer });
    for (const w of widgets) {
      set(w, 'head', String(state.head));
      set(w, 'layer', String(state.layer));
    }
    set(stepper, 'layer', String(state.layer));
    set(stepper, 'head', String(state.head));
    saveUrl();
  });

  // A view asks to open a step in the stepper (the block view's stages): the recap chapter.
  document.addEventListener('ap-goto-step', (e) => {
    state = parseState({ ...state, step: e.detail.step });
    if (!stepper.isConnected) {
      concept = '';
      showChapter(RECAP.id);
    }
    set(stepper, 'step', state.step);
    stepper.scrollIntoView({ block: 'start' });
    saveUrl();
  });

  // Arrow keys anywhere outside a form control step the stepper (when it is on the page).
  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || !stepper.isConnected) return;
    const t = e.composedPath()[0];
    if (t !== document.body && t !== document.documentElement) return;
    if (e.key === 'ArrowRight') {
      stepper.go(Number(stepper.dataset.index || 0) + 1);
      e.preventDefault();
    }
    if (e.key === 'ArrowLeft') {
      stepper.go(Number(stepper.dataset.index || 0) - 1);
      e.preventDefault();
    }
  });

  // ---- #concept=<id>, #chapter=<id> -------------------------------------------------------
  function showConcept(id) {
    const target = id && byConcept.get(id);
    if (!target) return;
    if (!target.isConnected) showChapter(chapterOf(id));
    // Views above it render as they come near the viewport and grow: scroll again once the
    // target has drawn itself, so the link still lands on it.
    const again = () => target.scrollIntoView({ block: 'start' });
    again();
    queueMicrotask(again); // after the views of a chapter just shown have reserved their heights
    target.addEventListener('ap-rendered', () => requestAnimationFrame(again), { once: true });
    for (const a of nav.querySelectorAll('a[data-target]')) {
      if (a.dataset.target === id) a.setAttribute('aria-current', 'location');
      else a.removeAttribute('aria-current');
    }
  }
  window.addEventListener('hashchange', () => {
    const h = readUrl(location.href);
    concept = h.concept;
    if (concept) showConcept(concept);
    else if (h.chapter) {
      showChapter(h.chapter);
      window.scrollTo(0, 0);
    }
    saveUrl();
  });

  showChapter(chapter);
  if (concept) requestAnimationFrame(() => showConcept(concept));
  setupOpen(controls);
  setupTheme();
  setupCopyLink();
  return {
    get state() {
      return state;
    },
    get chapter() {
      return chapter;
    },
    showChapter,
    stepper,
    controls,
    widgets,
  };

  function buildNav() {
    const chapterLink = (id) =>
      el(
        'a',
        { href: `#chapter=${id}`, className: 'toc-chapter', dataset: { chapter: id } },
        el('span', { className: 'mark', attrs: { 'aria-hidden': 'true' } }),
        el('span', { text: titleOf(id) }),
      );
    const list = el(
      'ol',
      { className: 'toc-list' },
      ...order.map((id) =>
        el(
          'li',
          {},
          chapterLink(id),
          id === RECAP.id
            ? null
            : el(
                'ol',
                {},
                ...CONCEPTS.filter((c) => c.chapter === id).map((c) =>
                  el('li', {}, el('a', { href: `#concept=${c.id}`, dataset: { target: c.id }, text: c.title })),
                ),
              ),
        ),
      ),
      el(
        'li',
        { className: 'all-link' },
        el('a', {
          href: '#chapter=all',
          className: 'toc-chapter',
          dataset: { chapter: 'all' },
          text: 'Every view on one page',
        }),
      ),
    );
    const goals = el(
      'div',
      { className: 'toc-goals' },
      el('p', { className: 'toc-title', text: 'Course goals' }),
      el(
        'ul',
        {},
        ...GOALS.map((g) =>
          el(
            'li',
            { dataset: { goal: g.id } },
            el('span', { className: 'mark', attrs: { 'aria-hidden': 'true' } }),
            el('span', { text: ` ${g.text}` }),
          ),
        ),
      ),
    );
    const details = el(
      'details',
      { className: 'toc-details', open: window.matchMedia('(min-width: 900px)').matches },
      el('summary', { text: 'Contents' }),
      goals,
      list,
    );
    // The notes' glossary (004): each term, its definition, a link to the view that shows it.
    const glossary = el(
      'details',
      { className: 'glossary', attrs: { id: 'glossary' } },
      el('summary', { text: 'Glossary (notes 004)' }),
      el(
        'dl',
        {},
        ...GLOSSARY.flatMap((g) => [
          el('dt', {}, el('a', { href: `#concept=${g.concept}`, text: g.term })),
          el('dd', { text: g.text }),
        ]),
      ),
    );
    // Storage blocked or full (lib/storage.js): one line says that nothing is kept after this visit.
    const storageNote = el('p', {
      className: 'storage-note',
      hidden: true,
      attrs: { role: 'status' },
      text: 'Your progress and the theme last for this visit only: this browser does not let the page store them.',
    });
    onStorageRefused(() => (storageNote.hidden = false));
    return el('nav', { className: 'toc', attrs: { 'aria-label': 'Chapters' } }, details, storageNote, glossary);
  }
}

// ---- a Hugging Face folder: dropped on the page, or ?hf=<folder URL> ------------------------------

function setupOpen(controls) {
  const hasFiles = (e) => Array.from(e.dataTransfer?.types || []).includes('Files');
  let depth = 0;
  document.addEventListener('dragenter', (e) => {
    if (!hasFiles(e)) return;
    depth++;
    controls.dragging(true);
  });
  document.addEventListener('dragleave', (e) => {
    if (!hasFiles(e)) return;
    depth = Math.max(0, depth - 1);
    if (!depth) controls.dragging(false);
  });
  document.addEventListener('dragover', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault(); // a drop target
    e.dataTransfer.dropEffect = 'copy';
  });
  document.addEventListener('drop', async (e) => {
    if (!e.dataTransfer || !(e.dataTransfer.files?.length || e.dataTransfer.items?.length)) return;
    e.preventDefault(); // not the browser's "open this file"
    depth = 0;
    controls.dragging(false);
    let files;
    try {
      files = await filesFromDataTransfer(e.dataTransfer);
    } catch (err) {
      files = [];
    }
    controls.scrollIntoView({ block: 'nearest' });
    controls.open(files);
  });
  const hf = new URL(location.href).searchParams.get('hf');
  if (hf) controls.open({ url: hf });
}

// ---- light / dark ---------------------------------------------------------------------------

function setupTheme() {
  const button = document.getElementById('theme-toggle');
  // Storage may be blocked (a sandboxed frame, strict privacy settings: access throws) or full
  // (setItem throws): the theme then lasts for this visit only (lib/storage.js).
  const saved = storedItem('ap-theme');
  if (saved === 'light' || saved === 'dark') document.documentElement.dataset.theme = saved;
  const current = () =>
    document.documentElement.dataset.theme || (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
  const label = () => {
    if (!button) return;
    const dark = current() === 'dark';
    // Both labels are in the button (index.html), one shown: its width does not change (style.css).
    // The word beside the sign folds away on a phone: the header keeps one row.
    for (const option of button.querySelectorAll('[data-offers]'))
      option.dataset.shown = String(option.dataset.offers === (dark ? 'light' : 'dark'));
    button.setAttribute('aria-label', dark ? 'Switch to the light theme' : 'Switch to the dark theme');
  };
  label();
  button?.addEventListener('click', () => {
    const next = current() === 'dark' ? 'light' : 'dark';
    document.documentElement.dataset.theme = next;
    storeItem('ap-theme', next);
    label();
    redrawAll();
  });
}

// Canvas colours come from CSS custom properties: redraw every heatmap after a theme change.
function redrawAll() {
  resetTheme();
  const visit = (root) => {
    for (const node of root.querySelectorAll('*')) {
      // eslint-disable-next-line no-self-assign -- the setter lays out and redraws: the same matrix in the new colours
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
