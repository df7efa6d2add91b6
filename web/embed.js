// The iframe embed page's script (embed.html loads it; no inline script, so the page works under
// a strict Content-Security-Policy): one widget configured by the URL, see lib/embed.js.
import { mountEmbed } from './attention-playground.js';

mountEmbed();
