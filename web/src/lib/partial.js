// A view drawing a job's partial result (engine/calls.js: a lab's arms so far, session.js draws them while they train).

/**
 * The error a view's render throws for a partial result that holds nothing it draws yet (no arm's test has ended): the
 * session then keeps the figure the view had, and draws the next partial result, or the whole one.
 * @returns {Error}
 */
export const nothingYet = () => new Error('nothing to draw yet: no arm has finished');
