// <ap-training> (training): train a tiny transformer live, in the page. The class is
// lib/training-widget.js's (its header says what the view does and its attributes), shared with
// <ap-induction>, which extends it.
import { define } from '../lib/widget.js';
import { ApTraining } from '../lib/training-widget.js';

export { ApTraining, TRAINING_TASKS } from '../lib/training-widget.js';

define(ApTraining);
