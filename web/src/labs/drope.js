// DroPE (Gelberg et al. 2025): after training, the encoding is dropped and the
// model recalibrated without it for a quarter of its training steps. A leaf: the
// experiment (experiment.js) and its formula (formulas.js) both read it.

/** DroPE's recalibration: steps / 4 more steps without the encoding (at least 1). */
export const dropeSteps = (steps) => Math.max(1, Math.round(steps / 4));
