// The language-model lab's test: how many held-out characters each evaluated length reads (request key
// eval_characters), in a module of its own so that the formulas and the views read it without the lab.

/**
 * The characters each evaluated length reads: ceil(65,536 / L) windows of L spread evenly over the held-out part's
 * ~119,000 characters, a standard error of about 0.6% of the perplexity at L_train, in half the time of every window.
 */
export const EVAL_CHARACTERS = 65536;
