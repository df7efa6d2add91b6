// The trained models the page ships (web/models/<name>.safetensors), read as bytes for the core in Node.
import { readFileSync } from 'node:fs';

export const shippedModel = (name) =>
  new Uint8Array(readFileSync(new URL(`../../../web/models/${name}.safetensors`, import.meta.url)));

// The notes' sentence pair for translation (the lecture's English sentence and its French reference).
export const NOTES_EN = 'The agreement on the European Economic Area was signed in August 1992.';
export const NOTES_FR = "L'accord sur la zone économique européenne a été signé en août 1992.";
