// The trained models the page ships (web/models/<name>.safetensors), read as bytes for the core in Node.
import { readFileSync } from 'node:fs';

export const shippedModel = (name) => new Uint8Array(readFileSync(new URL(`../../../web/models/${name}.safetensors`, import.meta.url)));
