// What the page says of each shipped model, kept in the model file's metadata (the trainer's
// --description, --example and --prompt options write it; web/vite-model-headers.js reads it when
// the page is built), so that a new model needs no edit of the page's code.
//   description: one line for the student; {key} stands for the number of that name in the file's
//                config ({n_layers}, {n_heads}, {d_model}, {vocab_size}, {max_len}), filled in by the page.
//   example:     the text the page types into the model when the student's text has a piece it does not know.
//   prompt:      what the decoding views start from, when it is not the example.
export const MODEL_FACTS = {
  english: {
    description:
      'Trained by this project on the Brown corpus (about a million words of edited American English from 1961, 15 genres): a {n_layers}-layer decoder with {n_heads} heads per layer and d_model {d_model}, like a very small GPT-2. It reads any text as byte-level BPE pieces ({vocab_size} of them, none unknown), at most {max_len} tokens, and predicts the next piece; the causal mask is on.',
    example: 'My grandmother baked cookies for the whole neighborhood.',
  },
  sort: {
    description: 'Trained by this project: a decoder that writes the sorted characters after "=".',
    example: 'd3a91c7',
  },
  reverse: {
    description: 'Trained by this project: a decoder that writes the characters in reverse after "=".',
    example: 'hello42',
  },
  dates: {
    description:
      'Trained by this project: an encoder-decoder that rewrites a date such as "3 March 1999" as 1999-03-03.',
    example: '3 March 1999',
  },
  grammar: {
    description:
      'Trained by this project: a {n_layers}-layer decoder that predicts the next word of sentences from a small English grammar (agreement, "bank" of a river or of money). The causal mask is on, as in GPT.',
    example: 'the cat near the dogs sleeps .',
    // The grammar model writes a whole sentence from "the".
    prompt: 'the',
  },
};

// The metadata keys, in the order the trainer's options are given.
export const FACT_KEYS = ['description', 'example', 'prompt'];

/** The trainer's options that write a model's facts: ['--description', '...', '--example', '...']. */
export function factArgs(facts) {
  return FACT_KEYS.filter((k) => facts[k]).flatMap((k) => [`--${k}`, facts[k]]);
}

/**
 * An argument as the trainer records it in train_command (cpp/tools/options.hpp): as it is when
 * it has only letters, digits and _./:=,+-, else in single quotes (a shell gives back the same argument).
 */
export function shellQuoted(v) {
  return /^[A-Za-z0-9_./:=,+-]+$/.test(v) ? v : `'${v.replaceAll("'", "'\\''")}'`;
}

/** The command line the trainer records for these arguments (after the tool's name). */
export function recordedArgs(args) {
  const out = [];
  for (let i = 0; i < args.length; i += 2) out.push(args[i], shellQuoted(args[i + 1]));
  return out.join(' ');
}
