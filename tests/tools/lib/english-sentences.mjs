// Sentences a new student might type, for the English model's trial (tests/tools/english-trial.mjs)
// and the page's own-text test (tests/web/own-text.test.js).

/** About 100 words: a paragraph must fit the model's context of 256 tokens. */
export const PARAGRAPH =
  'The library opened at nine, and by ten every table was taken. Students leaned over laptops and ' +
  'old books, whispering about exams, deadlines and the weather. A woman in a green coat read ' +
  'the same page again and again, as if the words might change. Near the window, two friends ' +
  'argued quietly about a film they had both disliked for different reasons. The librarian, who ' +
  'had worked there for thirty years, walked between the shelves and put back the books that ' +
  'readers had left on the floor. Outside, the rain started, stopped, and started again, and ' +
  'nobody seemed to notice it at all.';

/** Twenty of them: questions, names, numbers, accents, emoji, other languages and scripts, code, the paragraph. */
export const SENTENCES = [
  'My grandmother baked cookies for the whole neighborhood.',
  'Transformers changed natural language processing.',
  'Why is the sky blue?',
  'Marie Curie won the Nobel Prize in 1903 and again in 1911.',
  'The café on Rue de Rivoli serves crêpes, say naïve tourists.',
  'I love pizza 🍕 and my dog 🐶!',
  'Der Hund schläft unter dem Tisch.',
  '東京は日本の首都です。',
  'Can you pass me the salt, please?',
  'The stock fell 3.5% to $42.17 on Tuesday.',
  'She said, "I\'ll be there at 7:30."',
  'The keys to the cabinet are on the table.',
  'Alice gave Bob the book because he asked for it.',
  'def attention(q, k, v): return softmax(q @ k.T) @ v',
  'Once upon a time, in a land far away, there lived a',
  'The bank of the river was muddy after the storm.',
  'I deposited my paycheck at the bank this morning.',
  '¿Dónde está la biblioteca?',
  'The President of the United',
  PARAGRAPH,
];
