// The anywidget front-end module: any Attention Playground widget in a host that speaks
// anywidget's contract (Jupyter / JupyterLab / Colab / VS Code / marimo through the `anywidget`
// Python package, MyST's {anywidget} directive, Jupyter Book 2). The default export is
// `{ render({ model, el }) }`; the model's traits are the widget's attributes, both ways:
//   - trait `widget`: which widget, an id as in embed.html?widget=<id> ('softmax', 'scores',
//     'heads', 'stepper'...), shown as <ap-<id>>;
//   - every other trait that the element observes (the state keys of lib/state.js: text, preset,
//     model, layer, head, causal, scale, heads, pos, norm, seed...; `hide`, `theme`, `height`;
//     and the widget's own extra attributes, e.g. softmax's `row`) is set as that attribute, and
//     a later change of the trait (`change:<name>`) sets it again, so the widget recomputes;
//   - what the student changes inside the widget (its text box, a preset button: the element's
//     `ap-state-change` event) is set on the model, then `save_changes()`;
//   - a cell the student selects (`ap-cell-select`) becomes the trait `selected`:
//     { name, row, col, value, rowLabel, colLabel }, then `save_changes()`.
// Trait values: strings as they are, numbers as decimal text, true / false as 'on' / 'off' (the
// switches' values), arrays (hide) joined with commas, null removes the attribute.
//
// The widget bundle (attention-playground.js, which loads the wasm module, the trained models and
// the fonts relative to itself) is imported when the first widget renders, from:
//   - the trait `bundle`, if the model has one: the URL of attention-playground.js (absolute, or
//     relative to the page). A host that runs this module from somewhere else than dist/ needs it:
//     MyST's {anywidget} directive copies the module (a path) or downloads it (a URL) into the
//     site's build/ folder alone, and the anywidget Python package runs a `_esm` that is not an
//     http(s) URL (a string, a pathlib.Path) from a blob: URL;
//   - otherwise ./attention-playground.js next to this file (dist/anywidget.js beside
//     dist/attention-playground.js and dist/attention-playground/), for a host that imports this
//     module by its URL where dist/ is served.
// "Embed this view" on the playground page writes the `bundle` trait into its MyST directive.
const bundles = new Map(); // URL -> the bundle's module (a promise), imported once per page

// A host model may be unusual: get() that throws, no on(), a trait that is a circular object, a
// BigInt or an object whose toString throws. Such a trait is skipped (and said on the console);
// a model whose `widget` or `bundle` cannot be read gets a message in the element, never an
// empty element and a rejected render.
function traitOf(model, name) {
  try {
    return model.get(name);
  } catch (err) {
    console.warn(`Attention Playground: the host model's trait "${name}" could not be read (${short(err)})`);
    return undefined;
  }
}

/** An error's message, at most 200 characters (a host's error may quote a whole value). */
function short(err) {
  let text;
  try {
    text = String(err?.message ?? err);
  } catch {
    text = 'an error that cannot be printed';
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function bundleFor(model) {
  const given = traitOf(model, 'bundle');
  const url = given
    ? new URL(String(given), document.baseURI).href
    : new URL('./attention-playground.js', import.meta.url).href;
  if (!bundles.has(url)) bundles.set(url, import(url));
  return { url, module: bundles.get(url) };
}

// The model each element was rendered with, for the page that embeds it (and the tests, which
// check the two-way sync through the host's own model object): modelOf(element).
const models = new WeakMap();

/** The anywidget model an <ap-*> element rendered by this module is bound to (or undefined). */
export function modelOf(element) {
  return models.get(element);
}

/** A trait value as attribute text, or null for "no attribute". */
export function attributeText(value) {
  if (value === null || value === undefined) return null;
  if (value === true) return 'on';
  if (value === false) return 'off';
  if (Array.isArray(value)) return value.join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

// A value from the widget in the type the trait already has (a Python Int trait stays a number).
function asTraitType(value, current) {
  if (typeof current === 'number' && value !== '' && Number.isFinite(Number(value))) return Number(value);
  if (typeof current === 'boolean' && (value === 'on' || value === 'off')) return value === 'on';
  return value;
}

// The host may not implement everything (MyST's static pages have no kernel: its model's
// save_changes() and off() throw "not implemented"); nothing is lost by going on.
function quietly(fn) {
  try {
    fn();
  } catch {
    /* the host has nothing to sync to */
  }
}

function showError(el, message) {
  const box = document.createElement('div');
  box.className = 'ap-anywidget-error';
  box.setAttribute('role', 'alert');
  box.style.cssText =
    'border:1px solid #b00020;border-radius:4px;padding:0.5em 0.75em;color:#b00020;font:14px sans-serif';
  box.textContent = message;
  el.replaceChildren(box);
}

async function render({ model, el }) {
  try {
    return await renderWidget(model, el);
  } catch (err) {
    showError(el, `Attention Playground: this widget could not start with the host's model (${short(err)}).`);
    return () => {};
  }
}

async function renderWidget(model, el) {
  const { url, module } = bundleFor(model);
  let lib;
  try {
    lib = await module;
  } catch (err) {
    showError(
      el,
      `Attention Playground: the widget bundle did not load from ${url} (${err?.message || err}). ` +
        'Give the model a "bundle" trait: the URL of attention-playground.js (the folder attention-playground/ must be next to it).',
    );
    return () => {};
  }
  const rawId = traitOf(model, 'widget');
  const id = typeof rawId === 'string' ? rawId.trim() : '';
  // Widget ids: every concept view and the stepper (as the iframe embed).
  const known = lib.widgetList().map((w) => w.id);
  if (!known.includes(id)) {
    const why = id ? `There is no widget "${id}".` : 'The model has no "widget" trait naming a widget.';
    showError(el, `Attention Playground: ${why} Known widgets: ${known.join(', ')}.`);
    return () => {};
  }
  const tag = `ap-${id}`;
  const node = document.createElement(tag);
  const traits = (customElements.get(tag)?.observedAttributes || []).filter((name) => name !== 'widget');

  let disposed = false;
  let fromWidget = false; // the widget itself is setting traits: no need to set its attributes back

  const apply = (name) => {
    let text;
    try {
      text = attributeText(traitOf(model, name));
    } catch (err) {
      console.warn(`Attention Playground: the trait "${name}" is not a value an attribute can take (${short(err)})`);
      return;
    }
    if (text === null) node.removeAttribute(name);
    else if (node.getAttribute(name) !== text) node.setAttribute(name, text);
  };
  for (const name of traits) if (traitOf(model, name) !== undefined) apply(name);

  // Trait -> attribute (a host model without on() gets no live updates, the widget still draws).
  const handlers = [];
  for (const name of traits) {
    const handler = () => {
      if (!disposed && !fromWidget) apply(name);
    };
    quietly(() => {
      model.on(`change:${name}`, handler);
      handlers.push([`change:${name}`, handler]);
    });
  }

  const save = () => quietly(() => model.save_changes());

  // Widget -> traits: the student typed, pressed a preset, moved a control.
  const onState = (e) => {
    const patch = e.detail?.patch || {};
    const names = Object.keys(patch).filter((k) => traits.includes(k));
    if (!names.length) return;
    fromWidget = true;
    try {
      for (const k of names) quietly(() => model.set(k, asTraitType(patch[k], traitOf(model, k))));
    } finally {
      fromWidget = false;
    }
    save();
  };
  // A selected cell: which matrix, row and column, the value and the tokens of the row and column.
  const onCell = (e) => {
    const d = e.detail || {};
    const map = e.composedPath?.()[0];
    const m = map && map.matrix;
    const selected = { name: d.name ?? '', row: d.row, col: d.col, value: Number.isFinite(d.value) ? d.value : null };
    if (m?.rowLabels?.[d.row] !== undefined) selected.rowLabel = String(m.rowLabels[d.row]);
    if (m?.colLabels?.[d.col] !== undefined) selected.colLabel = String(m.colLabels[d.col]);
    quietly(() => model.set('selected', selected));
    save();
  };
  node.addEventListener('ap-state-change', onState);
  node.addEventListener('ap-cell-select', onCell);

  models.set(node, model);
  el.replaceChildren(node);

  return () => {
    disposed = true;
    node.removeEventListener('ap-state-change', onState);
    node.removeEventListener('ap-cell-select', onCell);
    for (const [event, handler] of handlers) quietly(() => model.off(event, handler));
    models.delete(node);
    node.remove();
  };
}

export default { render };
