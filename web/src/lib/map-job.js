// A job (engine/calls.js memoizeJob: a generator that yields progress and returns a field's value) seen through a
// function: what the labs' fields hand the views.

/** A job whose value is fn of job's value (the same progress on the way). */
export function* mapJob(job, fn) {
  return fn(yield* job);
}
