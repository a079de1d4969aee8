// The experiment's training budget and optimiser schedule. A leaf: the experiment
// (experiment.js) and its formula (formulas.js) both read it.

/** The Adam updates of an experiment: its budget of sequences over the sequences per step, rounded up. */
export const stepsOf = (params) => Math.ceil(params.sequences / params.batch_size);

/**
 * The optimiser's schedule for `steps` updates (the core's train request keys): a linear warm-up over the first
 * tenth of the steps (at most 20), a half-cosine decay to lr / 10, the gradient clipped to global norm 1.
 */
export const scheduleOf = (steps) => ({ warmup_steps: Math.min(20, Math.floor(steps / 10)), lr_decay: 'cosine', grad_clip: 1 });
