// <ap-controls>: the page's inputs. The text box is tokenised live (pieces not in the
// vocabulary are flagged, never dropped); the model picker offers the lecture presets (grouped
// by concept), random weights (seed and sizes) and the trained models whose files load; the
// switches (causal mask, scaling, heads, positions, norm) recompute every view at once.
// It owns no state: it shows its attributes and emits 'ap-state-change' { patch } on edits.
import { adoptOwnStyles, adoptStyles } from '../lib/styles.js';
import { el, errorText, fillSelect, fmt, keyboardScrollable, tokenText } from '../lib/dom.js';
import { MAX_TEXT_CHARS, modelKeyOf, optionsOf, parseState, STATE_KEYS } from '../lib/state.js';
import { availableTrainedModels, getModel, modelNow, pretrainedEntries, trainedFacts } from '../lib/models.js';
import { openFiles, openUrl } from '../lib/hf-open.js';
import { lengthOf } from '../lib/runs.js';
import { getPlayground, playgroundNow } from '../lib/module.js';
import { conceptById } from '../lib/concepts.js';
import CSS from '../styles/controls.css?inline';

// The state patch of a newly picked model: no preset, step, layer, head or switches carried over
// from the model before (they may not exist on this one).
const switchTo = (model) => ({
  preset: '',
  model,
  step: '',
  layer: 0,
  head: 0,
  heads: '',
  pos: '',
  norm: '',
  causal: '',
  scale: '',
});

export class ApControls extends HTMLElement {
  static get observedAttributes() {
    return [...STATE_KEYS, 'hide'];
  }

  constructor() {
    super();
    this.attachShadow({ mode: 'open' });
    adoptStyles(this.shadowRoot);
    this._trained = [];
    this._build();
  }

  connectedCallback() {
    this._update();
    getPlayground().then(
      () => {
        this._fillModels();
        this._update();
      },
      (err) => this._fail(err),
    );
    // The list comes from the build (no download), so it is there at once.
    availableTrainedModels().then((list) => {
      this._trained = list;
      this._fillModels();
      this._update();
    });
  }

  // Many attributes change at once (the page sets them all): update once, in a microtask.
  attributeChangedCallback(name, oldValue, newValue) {
    if (!this._built || oldValue === newValue || this._queued) return;
    this._queued = true;
    queueMicrotask(() => {
      this._queued = false;
      this._update();
    });
  }

  get state() {
    const raw = {};
    for (const k of STATE_KEYS) if (this.hasAttribute(k)) raw[k] = this.getAttribute(k);
    return parseState(raw);
  }

  hides(name) {
    return (this.getAttribute('hide') || '').split(/[\s,]+/).includes(name);
  }

  _emit(patch) {
    this.dispatchEvent(new CustomEvent('ap-state-change', { detail: { patch }, bubbles: true, composed: true }));
  }

  _build() {
    const field = (label, control, cls = 'field') =>
      el('label', { className: cls }, el('span', { text: label }), control);
    this._text = el('input', {
      id: 'text',
      type: 'text',
      maxLength: MAX_TEXT_CHARS,
      autocomplete: 'off',
      spellcheck: false,
      attrs: { 'aria-describedby': 'tokens unknown limit' },
      on: {
        input: () => {
          this._setTextNote(null); // the student's own new text: nothing was replaced any more
          this._emit({ text: this._text.value });
        },
      },
    });
    this._tokens = el('div', { id: 'tokens', className: 'tokens scroll-x', attrs: { 'aria-label': 'Tokens' } });
    // The row scrolls sideways for a long text: then it takes focus, so a keyboard can scroll it.
    new ResizeObserver(() => keyboardScrollable(this.shadowRoot)).observe(this._tokens);
    this._unknown = el('p', { id: 'unknown', className: 'warn', hidden: true, attrs: { role: 'status' } });
    this._limit = el('p', { id: 'limit', className: 'warn limit', hidden: true, attrs: { role: 'status' } });
    this._presetNote = el('p', { className: 'note', hidden: true });
    this._textNote = el('p', { className: 'warn text-note', hidden: true, attrs: { role: 'status' } });
    this._modelNote = el('p', { className: 'note model-note clamp', attrs: { role: 'status', id: 'model-note' } });
    // The model's description is kept to two lines (the chapter's first view comes up sooner);
    // this button shows the rest, and only appears when there is more.
    this._noteMore = el('button', {
      type: 'button',
      className: 'note-more',
      text: 'More about this model',
      attrs: { 'aria-controls': 'model-note', 'aria-expanded': 'false' },
      on: {
        click: () => {
          const open = this._modelNote.classList.toggle('clamp');
          this._noteMore.textContent = open ? 'More about this model' : 'Less';
          this._noteMore.setAttribute('aria-expanded', String(!open));
        },
      },
    });
    this._model = el('select', { id: 'model', on: { change: () => this._pickModel(this._model.value) } });
    this._arch = el('select', { id: 'arch', on: { change: () => this._emit({ arch: this._arch.value, step: '' }) } });
    fillSelect(this._arch, optionsOf('arch'));
    this._tokenizer = el('select', { on: { change: () => this._emit({ tokenizer: this._tokenizer.value }) } });
    fillSelect(this._tokenizer, optionsOf('tokenizer'));
    this._seed = el('input', {
      type: 'number',
      min: 0,
      step: 1,
      on: { change: () => this._emit({ seed: this._seed.value }) },
    });
    this._dmodel = el('select', { on: { change: () => this._emit({ dmodel: this._dmodel.value, heads: '' }) } });
    fillSelect(this._dmodel, optionsOf('dmodel'));
    this._layers = el('select', { on: { change: () => this._emit({ layers: this._layers.value, layer: 0 }) } });
    fillSelect(this._layers, optionsOf('layers'));
    this._random = el(
      'div',
      { className: 'controls random' },
      field('Architecture', this._arch),
      field('Tokens', this._tokenizer),
      field('Seed', this._seed),
      field('d_model', this._dmodel),
      field('Layers', this._layers),
    );

    this._causal = el('input', {
      type: 'checkbox',
      id: 'causal',
      on: { change: () => this._emit({ causal: this._causal.checked ? 'on' : 'off' }) },
    });
    this._scale = el('input', {
      type: 'checkbox',
      id: 'scale',
      on: { change: () => this._emit({ scale: this._scale.checked ? 'on' : 'off' }) },
    });
    this._heads = el('select', {
      id: 'heads',
      on: { change: () => this._emit({ heads: this._heads.value, head: 0 }) },
    });
    this._pos = el('select', { id: 'pos', on: { change: () => this._emit({ pos: this._pos.value }) } });
    this._norm = el('select', { id: 'norm', on: { change: () => this._emit({ norm: this._norm.value }) } });
    fillSelect(
      this._norm,
      optionsOf('norm').filter((o) => o.value),
    );
    this._causalField = el('label', { className: 'switch' }, this._causal, el('span', { text: 'causal mask' }));
    this._scaleField = el('label', { className: 'switch' }, this._scale, el('span', { text: 'divide by √d_k' }));
    this._headsField = field('Heads', this._heads);
    this._posField = field('Positions', this._pos);
    this._normField = field('Norm', this._norm);
    this._switches = el(
      'div',
      { className: 'controls switches', attrs: { role: 'group', 'aria-label': 'Switches' } },
      this._causalField,
      this._scaleField,
      this._headsField,
      this._posField,
      this._normField,
    );
    // Folded behind a line that says how each is set, on every screen: open, they made the
    // controls beside a chapter's heading taller than it, and pushed the chapter's first picture
    // below a laptop's first screen (issue 23).
    this._switchState = el('span', { className: 'switch-state' });
    this._switchSummary = el('summary', {}, el('span', { text: 'Switches' }), this._switchState);
    this._switchBox = el('details', { className: 'switch-box' }, this._switchSummary, this._switches);
    this._textField = el(
      'div',
      { className: 'textfield' },
      el('label', { htmlFor: 'text', text: 'Your text', className: 'field-label' }),
      this._text,
      this._tokens,
      this._unknown,
      this._limit,
      this._textNote,
      this._presetNote,
    );
    this._modelField = field('Model', this._model);
    this._buildOpen();
    this._status = el('p', { className: 'note', attrs: { role: 'status' } });
    // On a phone the model, its switches and its note fold behind one line that names the model
    // (the chapter's first picture comes up on the first screen); on a wider screen they are open.
    this._modelGroup = el(
      'div',
      { className: 'model-group', id: 'model-group' },
      el('div', { className: 'controls model-row' }, this._modelField, this._hfBox),
      this._switchBox,
      this._modelNote,
      this._noteMore,
      this._random,
    );
    this._modelToggleText = el('span', { className: 'model-toggle-text' });
    this._modelToggle = el(
      'button',
      {
        type: 'button',
        className: 'model-toggle',
        attrs: { 'aria-controls': 'model-group', 'aria-expanded': 'false' },
        on: {
          click: () => {
            const open = this._modelGroup.classList.toggle('open');
            this._modelToggle.setAttribute('aria-expanded', String(open));
            if (open) this._measureNote();
          },
        },
      },
      el('span', { className: 'caret', attrs: { 'aria-hidden': 'true' } }),
      this._modelToggleText,
    );
    this.shadowRoot.append(
      el(
        'div',
        { className: 'panel controls-panel', part: 'panel' },
        this._textField,
        this._modelToggle,
        this._modelGroup,
        this._status,
      ),
    );
    adoptOwnStyles(this.shadowRoot, CSS);
    this._built = true;
  }

  // "Open a Hugging Face model…": the three files or the folder (picker or drop), progress while
  // the weights stream, and the loader's message when the folder cannot be read.
  _buildOpen() {
    this._hfFiles = el('input', {
      type: 'file',
      id: 'hf-files',
      multiple: true,
      accept: '.json,.safetensors',
      on: { change: () => this._hfFiles.files.length && this.open(this._hfFiles.files) },
    });
    this._hfFolder = el('input', {
      type: 'file',
      id: 'hf-folder',
      on: { change: () => this._hfFolder.files.length && this.open(this._hfFolder.files) },
    });
    this._hfFolder.webkitdirectory = true;
    this._hfProgress = el('progress', { max: 1, value: 0, attrs: { 'aria-label': 'Weights read' } });
    this._hfProgressText = el('span', { className: 'note mono' });
    // A folder URL may be slow or stall, a large checkpoint takes a while: the reader can stop it.
    this._hfCancel = el('button', {
      type: 'button',
      className: 'small hf-cancel',
      text: 'Cancel',
      hidden: true,
      on: { click: () => this._hfAbort?.abort() },
    });
    this._hfProgressBox = el(
      'div',
      { className: 'row hf-progress', hidden: true },
      this._hfProgress,
      this._hfProgressText,
      this._hfCancel,
    );
    this._hfError = el('p', { className: 'warn hf-error', attrs: { role: 'alert' } });
    this._hfBox = el(
      'details',
      { className: 'hf-open', dataset: { control: 'open' } },
      el('summary', { text: 'Open a Hugging Face model…' }),
      el('p', {
        className: 'note',
        text: 'A GPT-2, BERT, Llama, Mistral or Qwen2 folder from the Hugging Face hub, downloaded by you: config.json, model.safetensors (or model.safetensors.index.json and its shards) and tokenizer.json. Pick the files or the folder, or drop them anywhere on the page. Nothing leaves your computer.',
      }),
      el(
        'div',
        { className: 'row' },
        el('label', { className: 'field' }, el('span', { text: 'The three files' }), this._hfFiles),
        el('label', { className: 'field' }, el('span', { text: 'or the folder' }), this._hfFolder),
      ),
      this._hfProgressBox,
      this._hfError,
    );
  }

  /**
   * Opens a Hugging Face folder: files (a FileList / array of File) or { url } (a folder URL).
   * The model becomes the page's model. Resolves to its entry, or null (the message is shown).
   */
  async open(source) {
    this._hfBox.open = true;
    this._hfError.textContent = '';
    this._hfProgress.value = 0;
    this._hfProgressText.textContent = 'Reading…';
    this._hfProgressBox.hidden = false;
    this.dataset.opening = 'true';
    const onProgress = ({ loaded, total }) => {
      this._hfProgress.max = total;
      this._hfProgress.value = loaded;
      this._hfProgressText.textContent = `${(loaded / 2 ** 20).toFixed(0)} of ${(total / 2 ** 20).toFixed(0)} MB`;
    };
    const byUrl = !!(source && source.url);
    this._hfAbort = new AbortController();
    this._hfCancel.hidden = false;
    try {
      const signal = this._hfAbort.signal;
      const entry = byUrl
        ? await openUrl(source.url, { onProgress, signal })
        : await openFiles(source, { onProgress, signal });
      this._hfProgressBox.hidden = true;
      this._fillModels();
      this._setTextNote(null);
      this._emit({ ...switchTo(entry.key), text: entry.example });
      this._text.value = entry.example;
      this.dataset.opened = entry.key;
      this._hfBox.open = false; // done: the model picker shows it
      return entry;
    } catch (err) {
      this._hfProgressBox.hidden = true;
      this._hfError.textContent = `${errorText(err)}${err?.cancelled ? ' The page keeps its model.' : ''}`;
      this.dataset.openError = this._hfError.textContent;
      return null;
    } finally {
      this._hfAbort = null;
      this._hfCancel.hidden = true;
      delete this.dataset.opening;
      this._hfFiles.value = '';
      this._hfFolder.value = '';
    }
  }

  /** A drag is over the page (true) or left it (false): the open box shows where it will go. */
  dragging(on) {
    this._hfBox.classList.toggle('dragging', !!on);
    if (on) this._hfBox.open = true;
  }

  _fail(err) {
    this._status.textContent = `The WebAssembly module failed to load: ${errorText(err)}`;
  }

  _fillModels() {
    const ap = playgroundNow();
    if (!ap) return;
    const models = [{ value: 'random', label: 'random weights (your text)' }];
    for (const t of this._trained)
      models.push({
        value: t.name,
        label: `trained: ${t.name} (${t.arch}${t.task && t.task !== t.name ? `, ${t.task}` : ''})`,
      });
    for (const e of pretrainedEntries()) models.push({ value: e.key, label: e.label });
    const groups = new Map();
    for (const p of ap.presets.list()) {
      const c = p.concepts[0];
      if (!groups.has(c)) groups.set(c, []);
      groups.get(c).push({ value: `preset:${p.id}`, label: `${p.title} (notes ${p.source})` });
    }
    const options = [{ group: 'Models (type your own text)', options: models }];
    for (const [c, opts] of groups)
      options.push({ group: `Lecture preset: ${conceptById(c)?.title || c}`, options: opts });
    fillSelect(this._model, options);
  }

  _pickModel(value) {
    if (value.startsWith('preset:')) {
      this._emit({ preset: value.slice(7), step: '' });
      return;
    }
    const s = this.state;
    const patch = switchTo(value);
    if (value === s.model || value === 'random') {
      this._setTextNote(null);
      this._emit(patch);
      return;
    }
    // A trained model knows only its own alphabet or words. The student's text stays when the
    // model knows every piece of it; otherwise the model's own example replaces it, and the
    // page says so, with a button to keep the student's text anyway.
    getModel(modelKeyOf({ ...s, ...patch })).then(
      (entry) => {
        const enc = entry.model.tokenizer.encode(s.text);
        const example = entry.kind === 'pretrained' ? entry.example : trainedFacts(value).example;
        if ((enc.ids.length > 0 && enc.unknown.length === 0) || !example || example === s.text) {
          this._setTextNote(null);
        } else {
          patch.text = example;
          this._text.value = example; // shown at once, even while the text box has focus
          this._setTextNote({ model: value, old: s.text, unknown: enc.unknown.map((i) => enc.pieces[i]) });
        }
        this._emit(patch);
      },
      (err) => {
        this._status.textContent = errorText(err);
      },
    );
  }

  // "Your text was replaced": what was replaced, why, and a way back.
  _setTextNote(info) {
    if (!info) {
      this._textNote.hidden = true;
      this._textNote.replaceChildren();
      return;
    }
    const shown =
      info.unknown
        .slice(0, 6)
        .map((u) => `"${u}"`)
        .join(', ') + (info.unknown.length > 6 ? '…' : '');
    this._textNote.replaceChildren(
      el('span', {
        text: `The ${info.model} model does not know ${shown}, so your text "${info.old.slice(0, 60)}" was replaced by an example it knows. `,
      }),
      el('button', {
        type: 'button',
        className: 'small',
        text: 'Use my text anyway',
        on: {
          click: () => {
            this._setTextNote(null);
            this._text.value = info.old;
            this._emit({ text: info.old });
          },
        },
      }),
    );
    this._textNote.hidden = false;
  }

  /** Shows the state: values of every control, the tokens, what can be switched. */
  _update() {
    this._updateNow();
    // The phone's folded line: which model, and how its switches are set.
    const label = this._model.selectedOptions[0]?.textContent || this.state.model;
    const switches = this._switchBox.hidden ? '' : this._switchState.textContent.replace(/^: /, '');
    this._modelToggleText.textContent = `Model: ${label}${switches ? ` · ${switches}` : ''}`;
    this._modelToggle.hidden = this._modelField.hidden && this._switchBox.hidden;
  }

  _updateNow() {
    const s = this.state;
    if (document.activeElement !== this || this.shadowRoot.activeElement !== this._text) {
      if (this._text.value !== s.text) this._text.value = s.text;
    }
    this._model.value = s.preset ? `preset:${s.preset}` : s.model;
    this._arch.value = s.arch;
    this._tokenizer.value = s.tokenizer;
    this._seed.value = String(s.seed);
    this._dmodel.value = String(s.dmodel);
    this._layers.value = String(s.layers);
    this._random.hidden = !!s.preset || s.model !== 'random' || this.hides('random');
    this._textField.hidden = this.hides('text');
    this._modelField.hidden = this.hides('model');
    this._switchBox.hidden = this.hides('switches');
    this._causalField.hidden = this.hides('causal');
    this._scaleField.hidden = this.hides('scale');
    this._headsField.hidden = this.hides('heads');
    this._posField.hidden = this.hides('pos');
    this._normField.hidden = this.hides('norm');
    const ap = playgroundNow();
    if (!ap) {
      if (!s.preset) this._setModelNote(modelNoteBefore(s, this._trained));
      return;
    }
    if (s.preset) {
      const p = ap.presets.list().find((x) => x.id === s.preset);
      if (!p) return;
      this._text.disabled = true;
      this._text.value = p.tokens.join(' ');
      this._showTokens(p.tokens, [], null);
      this._presetNote.hidden = false;
      this._limit.hidden = true;
      this._presetNote.textContent = `Preset from the notes (${p.source}): ${p.claim}. Its tokens and weights are fixed; the switches still apply.`;
      this._setModelNote('');
      this._setSwitches(
        {
          causal: p.causal,
          scale: p.scale,
          nHeads: p.nHeads,
          dModel: p.dModel,
          pos: p.pos,
          norm: 'post',
          arch: 'attention',
        },
        s,
        { nHeads: p.headChoices, pos: [p.pos] },
      );
      return;
    }
    this._text.disabled = false;
    this._presetNote.hidden = true;
    const key = modelKeyOf(s);
    const entry = modelNow(key);
    if (!entry) {
      // What the model is, from the state and the build's list of model headers, while its
      // weights load: the note takes its place now instead of pushing the views down later.
      this._setModelNote(modelNoteBefore(s, this._trained));
      getModel(key).then(
        () => this._update(),
        (err) => {
          this._status.textContent = errorText(err);
        },
      );
      return;
    }
    this._status.textContent = '';
    this._setModelNote(modelNoteOf(entry, s));
    const enc = entry.model.tokenizer.encode(s.text);
    // The core's pieces: a byte-level BPE token that is part of a character shows its bytes (<0xC3>).
    const shown = enc.pieces;
    // The model's prompt: a start token (<|endoftext|>, <bos>) before the text, when it has one.
    let prompt = null;
    try {
      if (enc.ids.length > 0) prompt = entry.model.prompt(s.text);
    } catch {
      prompt = null; // text the model cannot read: the limit line below says why
    }
    const startId = prompt && prompt.ids.length === enc.ids.length + 1 ? prompt.ids[0] : null;
    const start = startId === null ? null : { id: startId, piece: prompt.pieces[0] };
    this._showTokens(shown, enc.unknown, enc.ids, start);
    const { n, max } = lengthOf(entry, s.text);
    this._limit.hidden = n <= max;
    this._limit.textContent =
      n > max
        ? `The model reads this text as ${n} tokens; it can read at most ${max} (its context length). Shorten it: until then each view says so in place of its drawing.`
        : '';
    this._setSwitches(entry.base, s, entry.model.switchChoices);
  }

  _setModelNote(text) {
    if (this._modelNote.textContent === text) return;
    this._modelNote.textContent = text;
    // Whether two lines hold it is known once laid out.
    requestAnimationFrame(() => this._measureNote());
  }

  // "More about this model" shows when the clamped note has more than its lines hold. Not while
  // the note is folded away (a phone's closed model line lays out nothing): measured again on opening.
  _measureNote() {
    if (!this._modelNote.offsetParent) return;
    const clamped = this._modelNote.classList.contains('clamp');
    // Hidden but keeping its line: nothing below moves when the note's length changes.
    this._noteMore.style.visibility =
      clamped && this._modelNote.scrollHeight <= this._modelNote.clientHeight + 1 ? 'hidden' : '';
  }

  // start: { piece, id } of a token the model reads before the text (its start token), or null.
  _showTokens(pieces, unknown, ids, start = null) {
    const unk = new Set(unknown);
    this._tokens.replaceChildren(
      start
        ? el(
            'span',
            {
              className: 'tok special',
              title: `id ${start.id}: the start token, which the model reads before your text (the first row of every view)`,
            },
            tokenText(start.piece),
            el('small', { text: String(start.id) }),
          )
        : '',
      ...pieces.map((p, i) =>
        el(
          'span',
          {
            className: `tok${unk.has(i) ? ' unknown' : ''}`,
            title: unk.has(i) ? `"${p}" is not in the vocabulary: the model sees <unk>` : ids ? `id ${ids[i]}` : '',
          },
          tokenText(p) + (unk.has(i) ? '?' : ''),
          ids ? el('small', { text: String(ids[i]) }) : null,
        ),
      ),
    );
    if (unk.size) {
      this._unknown.hidden = false;
      this._unknown.textContent = `Not in the vocabulary (the model sees <unk> instead): ${[...unk].map((i) => pieces[i]).join(', ')}`;
    } else this._unknown.hidden = true;
  }

  /** choices: what the switches can be set to (the core's model.switchChoices, or a preset's). */
  _setSwitches(base, s, choices) {
    const encoderOnly = base.arch === 'encoder';
    this._causal.checked = s.causal ? s.causal === 'on' : !!base.causal && !encoderOnly;
    this._causal.disabled = encoderOnly;
    this._causalField.title = encoderOnly ? 'An encoder is bidirectional: it has no causal mask' : '';
    this._scale.checked = s.scale ? s.scale === 'on' : !!base.scale;
    const heads = choices.nHeads;
    fillSelect(
      this._heads,
      heads.map((h) => ({ value: h, label: `${h} (d_k = ${base.dModel / h})` })),
      s.heads || base.nHeads,
    );
    fillSelect(
      this._pos,
      optionsOf('pos')
        .filter((o) => o.value)
        .map((o) => ({ ...o, disabled: !choices.pos.includes(o.value) })),
      choices.pos.includes(s.pos) ? s.pos : base.pos,
    );
    this._pos.disabled = base.arch === 'attention';
    this._norm.value = s.norm || base.norm;
    this._norm.disabled = base.arch === 'attention';
    const attention = base.arch === 'attention';
    this._switchState.textContent = `: causal mask ${this._causal.checked ? 'on' : 'off'}, divide by √d_k ${this._scale.checked ? 'on' : 'off'}, ${this._heads.value} heads${attention ? '' : `, ${this._pos.value} positions, ${this._norm.value}-norm`}`;
  }
}

/** One line about the model the views run: what it was trained on, or that its weights are random; and the mask when switched off. */
function modelNoteOf(entry, s) {
  const lines = [];
  if (entry.kind === 'pretrained') {
    const b = entry.base;
    lines.push(
      `${entry.label}: ${b.nLayers} layers × ${b.nHeads} heads, d_model ${b.dModel}, vocabulary ${b.vocabSize.toLocaleString('en')}, at most ${b.maxLen} tokens; ${b.arch === 'encoder' ? 'encoder-only (bidirectional, no causal mask)' : 'decoder-only (causal mask on)'}. Its own tokenizer (${entry.model.specialTokens.kind}) splits your text.`,
    );
    return lines.join(' ');
  }
  if (entry.kind === 'random')
    lines.push(
      `Random weights (seed ${entry.spec.seed}): nothing here was learned, so the patterns mean nothing yet. Pick a trained model to see learned structure.`,
    );
  // A trained model switched away from how it was trained runs its learned weights in a way it
  // never learned: say so first (the note keeps two lines, one on a phone), then what the model is.
  const b = entry.base;
  if (entry.kind === 'trained') {
    const heads = Number(s.heads) || b.nHeads;
    if (heads !== b.nHeads)
      lines.push(
        `${heads} heads: this model was trained with ${b.nHeads} heads of d_k = ${b.dModel / b.nHeads}. Its learned W_Q, W_K and W_V are cut into ${heads} slices of ${b.dModel / heads} columns instead, heads it never had: their patterns were not learned as heads, and its predictions change.`,
      );
    if (s.norm && s.norm !== b.norm)
      lines.push(
        `${s.norm === 'pre' ? 'Pre' : 'Post'}-norm: this model was trained ${b.norm}-norm; the same weights in the other order were never trained, so its numbers are not what it learned.`,
      );
    if (
      s.normkind &&
      s.normkind !== (b.normKind || 'layernorm') &&
      entry.model?.switchChoices.normKind.includes(s.normkind)
    )
      lines.push(
        s.normkind === 'rmsnorm'
          ? 'RMSNorm: this model was trained with LayerNorm. RMSNorm keeps its learned gains γ but divides by the root mean square without subtracting the mean, and drops its biases β: never trained this way, so its numbers are not what it learned.'
          : 'LayerNorm: this model was trained with RMSNorm; LayerNorm with its gains and a zero bias was never trained, so its numbers are not what it learned.',
      );
    const kv = Number(s.kvheads);
    if (kv && kv !== b.nKvHeads && heads % kv === 0 && entry.model?.switchChoices.nKvHeads.includes(kv))
      lines.push(
        `${kv} K/V head${kv > 1 ? 's' : ''}: this model was trained with one K and V per head. Each group of ${heads / kv} heads now reads the mean of its heads' learned W_K and W_V, a pooling it was never trained with (real models are trained further after it), so its predictions change.`,
      );
    if (s.scale === 'off' && b.scale)
      lines.push(
        `Division by √d_k switched off: this model was trained dividing its scores by √${b.dModel / heads}; undivided, they are ${fmt(Math.sqrt(b.dModel / heads), 2)} times larger, its softmax is more peaked than anything it learned, and its predictions change.`,
      );
  }
  const decoder = entry.base.arch !== 'encoder';
  if (decoder && s.causal === 'off') {
    lines.push(
      'Causal mask off: every word also sees the words after it. A decoder that predicts the next word would see the answer, and generation (which has no future words) would not match training; switch it back on to see the model as it was trained.',
    );
  }
  if (entry.kind !== 'random' && entry.metadata.task) lines.push(aboutTrained(entry));
  return lines.join(' ');
}

// The note while the module or the model loads, from the state and the build's list of model
// headers: it takes its place at once instead of pushing the views down when the weights arrive.
function modelNoteBefore(s, trained) {
  const header = trained.find((t) => t.name === s.model);
  return modelNoteOf(
    s.model === 'random'
      ? { kind: 'random', spec: { seed: s.seed }, base: { arch: s.arch } }
      : {
          kind: 'trained',
          name: s.model,
          metadata: { task: header?.task || s.model },
          base: { arch: header?.arch || 'decoder', ...configBase(header?.config) },
        },
    s,
  );
}

// A model file's config (snake_case, from the build's header list) as the sizes a note quotes.
function configBase(c) {
  return c
    ? { nLayers: c.n_layers, nHeads: c.n_heads, dModel: c.d_model, vocabSize: c.vocab_size, maxLen: c.max_len }
    : {};
}

// What a shipped model learned, in one line for the student: its file's own description.
function aboutTrained(entry) {
  return trainedFacts(entry.name).description || `Trained by this project on the task "${entry.metadata.task}".`;
}

if (!customElements.get('ap-controls')) customElements.define('ap-controls', ApControls);
