// The only module that talks to the wasm module. It turns params into core
// calls and keeps the last result of each call, so that a change recomputes
// only what it affects (moving the wave dimensions does not rebuild the table).
import createPosenc from '../generated/posenc.mjs';

/** Loads and instantiates the wasm module; resolves to an engine. */
export async function loadEngine() {
  return createEngine(await createPosenc());
}

function memoizeLast(fn) {
  let lastKey;
  let lastValue;
  return (...args) => {
    const key = JSON.stringify(args);
    if (key !== lastKey) {
      lastValue = fn(...args);  // a throw leaves the cache as it was
      lastKey = key;
    }
    return lastValue;
  };
}

export function createEngine(pe) {
  return {
    /** The build's version string, e.g. "posenc 0.1.0 (wasm, SIMD on)". */
    version: () => pe.version(),

    /**
     * An absolute encoding's table and frequencies.
     * @param {object} spec  e.g. {type: 'sinusoidal', d_model, base, layout, timescales}
     * @param {number} n     positions 0..n-1
     * @returns {{spec, table: {data: Float32Array, rows, cols}, inv_freq: Float32Array,
     *   wavelength: Float32Array, sin_column: Int32Array, cos_column: Int32Array}}
     *   frequencies in radians per token, wavelengths in tokens, [d_model/2] each;
     *   sin_column[i] / cos_column[i] is the table column of pair i's sine / cosine
     * @throws {Error} the core's message naming the parameter, value and allowed range
     */
    absolute: memoizeLast((spec, n) => ({ spec, table: pe.positionTable(spec, n), ...pe.positionFrequencies(spec) })),
  };
}
