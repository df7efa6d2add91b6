// Debian's headless Chromium as every browser tool and test launches it (tests/web/harness.js,
// tests/tools/audit.mjs, bench.mjs, reserve.mjs). Root needs --no-sandbox; without the networking
// flags Chromium keeps calling hosts it cannot reach from here.
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
