// posenc's two kernel paths side by side, for the Node bench and the Chromium
// bench alike: the 'posenc' engine is what a user gets (the relaxed-SIMD path
// where the module and the engine have it), 'posenc (simd128)' a second
// instance kept on the SIMD128 path (only when the first one is on relaxed SIMD),
// and 'posenc (baseline)' an earlier build (--baseline-build DIR) on its SIMD128
// path, timed in the same rounds (not in kernelPaths: it is not this module).
// A section is {workloads, peak, peakRelaxed, kernelPaths: {engine name: path},
// baselineBuild?: {dir, version, kernelPath} | {dir, error}}: the Node results
// themselves, or results.chromium.

export const POSENC = 'posenc';
export const POSENC_SIMD128 = 'posenc (simd128)';
export const POSENC_BASELINE = 'posenc (baseline)';
export const LIBRARIES = ['tfjs-wasm', 'ORT-web'];

/** The kernel path of an engine of the section ('relaxed-simd' | 'simd128'), or null for the peers. */
export const pathOf = (section, name) => section?.kernelPaths?.[name] ?? null;

/** The name of the section's engine on `path`, or undefined. */
export const engineOnPath = (section, path) => Object.entries(section?.kernelPaths ?? {}).find(([, p]) => p === path)?.[0];

/**
 * The peak an engine's GFLOP/s are a share of: the FMA peak (f32x4.relaxed_madd) for an engine on the
 * relaxed-SIMD path, the wasm SIMD peak (f32x4.mul + add) for the others (the peers' SIMD builds included).
 * @returns {number | undefined} GFLOP/s
 */
export function peakFor(section, name) {
  const path = name === POSENC_BASELINE ? section?.baselineBuild?.kernelPath : pathOf(section, name);
  return path === 'relaxed-simd' ? section.peakRelaxed?.gflops : section.peak?.gflops;
}

/** The short label of a posenc engine in the paths table's headers. */
const shortName = (name) => (name === POSENC ? 'posenc' : name === POSENC_BASELINE ? 'baseline' : 'simd128');

const okMedian = (w, name) => (w?.engines?.[name]?.status === 'ok' ? w.engines[name].medianMs : undefined);

/** {ms, name} of the fastest of tfjs-wasm and ORT-web on workload w, or undefined. */
export function bestLibrary(w) {
  let best;
  for (const name of LIBRARIES) {
    const ms = okMedian(w, name);
    if (ms !== undefined && (!best || ms < best.ms)) best = { ms, name };
  }
  return best;
}

/**
 * The rows of the paths table: per attention workload, each path's median, the best library / it, and % of its peak;
 * the baseline build too when the section timed one.
 */
export function pathRows(section) {
  const paths = [POSENC, POSENC_SIMD128].filter((name) => pathOf(section, name));
  if (section.baselineBuild?.version) paths.push(POSENC_BASELINE);
  return Object.values(section.workloads ?? {}).filter((w) => w.id?.startsWith('attention-')).map((w) => {
    const best = bestLibrary(w);
    return {
      id: w.id, title: w.title, best,
      paths: paths.map((name) => {
        const e = w.engines[name];
        const ms = okMedian(w, name);
        const peak = peakFor(section, name);
        return {
          name, path: name === POSENC_BASELINE ? section.baselineBuild.kernelPath : pathOf(section, name), status: e?.status ?? 'absent', ms, maxError: e?.maxError,
          speedup: best && ms ? best.ms / ms : undefined,
          percentOfPeak: e?.gflops && peak ? (100 * e.gflops) / peak : undefined,
        };
      }),
      libraries: Object.fromEntries(LIBRARIES.map((n) => [n, { status: w.engines[n]?.status ?? 'absent', ms: okMedian(w, n), maxError: w.engines[n]?.maxError }])),
    };
  });
}

const fmtMs = (ms) => (ms === undefined ? '-' : ms < 0.1 ? `${(ms * 1000).toPrecision(3)} us` : `${ms < 1000 ? ms.toPrecision(3) : ms.toFixed(0)} ms`);
const pad = (s, w) => (s.length >= w ? s : s + ' '.repeat(w - s.length));

/** One line naming the section's kernel paths (and why relaxed SIMD is missing, when it is). */
export function describePaths(section) {
  const names = Object.entries(section.kernelPaths ?? {}).map(([n, p]) => `${n} = ${p}`).join(', ');
  return `kernel paths: ${names || 'none timed'}${section.relaxed && section.relaxed !== 'available' ? `; relaxed path: ${section.relaxed}` : ''}`;
}

/** The paths table as text: median per engine, best library / posenc for each path, % of that path's peak. */
export function formatPathsTable(section) {
  const rows = pathRows(section);
  if (rows.length === 0) return '  (no attention workload timed)';
  const paths = rows[0].paths.map((p) => p.name);
  const head = [pad('workload', 26), ...paths.map((n) => pad(n, 18)), ...LIBRARIES.map((n) => pad(n, 11)),
    ...paths.map((n) => pad(`best lib/${shortName(n)}`, 20)), ...paths.map((n) => pad(`% peak ${shortName(n)}`, 16))];
  const lines = ['  ' + head.join(' ')];
  for (const r of rows) {
    const cellOf = (p) => (p.status === 'ok' ? fmtMs(p.ms) : p.status === 'wrong' ? `WRONG ${p.maxError?.toExponential(0)}` : p.status === 'absent' ? '-' : p.status);
    lines.push('  ' + [pad(r.title, 26), ...r.paths.map((p) => pad(cellOf(p), 18)), ...LIBRARIES.map((n) => pad(cellOf(r.libraries[n]), 11)),
      ...r.paths.map((p) => pad(p.speedup ? `${p.speedup.toFixed(2)}x (${r.best.name})` : '-', 20)),
      ...r.paths.map((p) => pad(p.percentOfPeak ? `${p.percentOfPeak.toFixed(0)}%` : '-', 16))].join(' '));
  }
  return lines.join('\n');
}

/** The same as a Markdown table. */
export function markdownPathsTable(section) {
  const rows = pathRows(section);
  if (rows.length === 0) return '';
  const paths = rows[0].paths;
  const short = (n) => (n === POSENC ? `posenc (${pathOf(section, n)})` : n);
  const lines = [`| workload | ${paths.map((p) => short(p.name)).join(' | ')} | ${LIBRARIES.join(' | ')} | ${paths.map((p) => `best library / ${short(p.name)}`).join(' | ')} | ${paths.map((p) => `% of peak, ${short(p.name)}`).join(' | ')} |`];
  lines.push(`|---|${Array(paths.length * 3 + LIBRARIES.length).fill('---').join('|')}|`);
  const ms = (v) => (v === undefined ? '–' : v < 0.1 ? `${(v * 1000).toPrecision(3)} µs` : `${v < 1000 ? v.toPrecision(3) : v.toFixed(0)} ms`);
  for (const r of rows) {
    const cellOf = (p) => (p.status === 'ok' ? ms(p.ms) : p.status === 'absent' ? '–' : p.status);
    lines.push(`| ${r.title} | ${r.paths.map(cellOf).join(' | ')} | ${LIBRARIES.map((n) => cellOf(r.libraries[n])).join(' | ')} | `
      + `${r.paths.map((p) => (p.speedup ? `×${p.speedup.toFixed(2)}` : '–')).join(' | ')} | ${r.paths.map((p) => (p.percentOfPeak ? `${p.percentOfPeak.toFixed(0)}%` : '–')).join(' | ')} |`);
  }
  return lines.join('\n');
}
