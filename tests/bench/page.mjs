// The benchmark in Chromium: the same implementations as node-runner.mjs, one per page (each page
// in its own browser context, so its own renderer process). The driver calls
// window.benchHandle(request) with the runner protocol's requests and reads the same answers.
// Files are served from the repository root by the driver (a local HTTP server that sends COOP /
// COEP, so that the page is cross-origin isolated), so paths are root-relative.
import { createHandler } from './protocol.mjs';

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = src;
    s.onload = resolve;
    s.onerror = () => reject(new Error(`could not load ${src}`));
    document.head.append(s);
  });
}

const env = {
  where: 'chromium',
  // Shared memory and workers need a cross-origin-isolated page (the driver's server sends
  // COOP / COEP); the threaded runners fail with this reason where it is not.
  threadsAllowed: globalThis.crossOriginIsolated === true,
  // No honest per-page figure for the whole renderer: implementations report their own wasm memory.
  residentBytes: () => null,
  async readBytes(rel) {
    const response = await fetch(`/${rel}`);
    if (!response.ok) throw new Error(`${rel}: HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  },
  importModule: (rel) => import(`/${rel}`),
  async loadTfjs() {
    // The UMD bundles: tfjs-core defines the global tf, the wasm backend adds tf.wasm.
    await loadScript('/node_modules/@tensorflow/tfjs-core/dist/tf-core.min.js');
    await loadScript('/node_modules/@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.min.js');
    const tf = globalThis.tf;
    tf.wasm.setWasmPaths('/node_modules/@tensorflow/tfjs-backend-wasm/dist/');
    return tf;
  },
  async loadOrt() {
    const ort = await import('/node_modules/onnxruntime-web/dist/ort.wasm.min.mjs');
    ort.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';
    return ort;
  },
};

const params = new URL(location.href).searchParams;
window.benchHandle = createHandler({
  name: params.get('impl'),
  extra: { threads: Number(params.get('threads') ?? 1) },
  env,
  engine() {
    const brand = navigator.userAgentData?.brands?.find((b) => /Chrom/.test(b.brand));
    return `Chromium ${brand ? brand.version : navigator.userAgent}`;
  },
});
window.benchReady = true;
