// The deck: reveal.js set up to share the keyboard with the widgets, and to keep the widgets of
// slides that are not shown from computing.
/* global Reveal */

// Keys. A widget is a custom element with a shadow root: a key pressed in its text box or on its
// heatmap reaches the document with event.target retargeted to the <ap-*> element, and
// document.activeElement is that element too, so reveal.js's own check (is an input, textarea or
// contenteditable focused?) does not see the text box. keyboardCondition (below) gives reveal.js
// no key pressed inside a widget: arrows move the caret or the heatmap's cell, and the slide stays.
// Escape inside a widget leaves it (the focus goes back to the slide): the arrows change slides again.
function fromWidget(event) {
  return event.composedPath().some((node) => node instanceof Element && node.localName.startsWith('ap-'));
}

function deepActiveElement() {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a;
}

document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && fromWidget(event)) deepActiveElement()?.blur();
});

// Work. A widget computes when it comes into the window (an IntersectionObserver). The 'slide'
// transition keeps the slides before and after the current one out of the window, but a jump
// (the overview, a link, Home / End) sweeps the slides in between across it. So every slide but
// the current one (and, during its transition, the one just left) is marked data-asleep, and
// deck.css takes its widgets out of the layout (display: none): they draw when their slide is shown.
const TRANSITION_MS = 800; // reveal.js's default transitionSpeed
let asleepTimer = 0;

function sleepAllBut(...awake) {
  for (const slide of document.querySelectorAll('.reveal .slides section')) {
    const on = awake.some((a) => a && (a === slide || a.contains(slide) || slide.contains(a)));
    slide.toggleAttribute('data-asleep', !on);
  }
}

sleepAllBut(); // until reveal.js knows which slide is shown (a link may open any)
Reveal.on('ready', (event) => sleepAllBut(event.currentSlide));
Reveal.on('slidechanged', (event) => {
  sleepAllBut(event.currentSlide, event.previousSlide);
  clearTimeout(asleepTimer);
  asleepTimer = setTimeout(() => sleepAllBut(Reveal.getCurrentSlide()), TRANSITION_MS + 200);
});

Reveal.initialize({
  hash: true,
  // The slide size reveal.js scales to the window; the widgets are laid out at this size.
  width: 1280,
  height: 800,
  margin: 0.04,
  // Top-aligned slides: a widget that grows when it draws does not move the heading.
  center: false,
  transition: 'slide',
  keyboardCondition: (event) => !fromWidget(event),
});
