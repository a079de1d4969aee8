// A node:test reporter (scripts/test.mjs passes it with --test-reporter): per test file, its top-level tests, their
// own time, and its wall time: from the last event of the file that finished before it to its own last event. That is
// the file's whole cost (its process, its browser and server set-up) where files run one after another
// (--test-concurrency=1: the browser tier); where a few run at once (the others), it is what the file added to the
// tier's time. Writes one JSON array, [{file, tests, testMs, wallMs}], when the run ends.
export default async function* fileTimes(source) {
  const start = Date.now();
  const files = new Map();
  for await (const event of source) {
    const { file, nesting, details } = event.data ?? {};
    if (!file || event.type === 'test:enqueue') continue;
    const entry = files.get(file) ?? { file, tests: 0, testMs: 0, lastAt: 0 };
    files.set(file, entry);
    if ((event.type === 'test:pass' || event.type === 'test:fail') && nesting === 0) {
      entry.tests += 1;
      entry.testMs += details?.duration_ms ?? 0;
    }
    entry.lastAt = Date.now();
  }
  let previous = start;
  const rows = [...files.values()].sort((a, b) => a.lastAt - b.lastAt).map(({ lastAt, ...rest }) => {
    const row = { ...rest, wallMs: lastAt - previous };
    previous = lastAt;
    return row;
  });
  yield `${JSON.stringify(rows, null, 1)}\n`;
}
