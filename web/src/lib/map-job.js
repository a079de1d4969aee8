// A job (engine/cache.js memoizeJobStored: a generator that yields progress and returns a field's value) seen through a
// function: what the labs' fields hand the views.

/**
 * A job whose value is fn of job's value (the same progress on the way). A progress that carries a partial value (the
 * job's value so far, in its value's shape: engine/server.js createServer posts it for the page to draw) carries fn of
 * it, or none with {partial: false} or where fn cannot take it (a field that needs what is not there yet).
 * @param {Generator} job
 * @param {(value: any) => any} fn
 * @param {{partial?: boolean}} [options]
 */
export function* mapJob(job, fn, { partial = true } = {}) {
  const mapped = (progress) => {
    if (progress?.partial === undefined) return progress;
    const { partial: value, partialNote, ...rest } = progress;
    if (!partial) return rest;
    try {
      return { ...rest, partial: fn(value), partialNote };
    } catch {
      return rest;
    }
  };
  try {
    let input;
    for (;;) {
      const { value, done } = job.next(input);
      if (done) return fn(value);
      input = yield typeof value?.wait?.then === 'function' ? { ...value, progress: mapped(value.progress) } : mapped(value);
    }
  } finally {
    job.return();  // stopped early (the server's return()): the job's own finally frees what it holds
  }
}
