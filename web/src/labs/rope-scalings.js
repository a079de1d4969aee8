// RoPE's context-extension scalings applied at test time, by 8 (the longest test
// length over L_train), as both labs test a RoPE model trained without them. A leaf.

/** The scaling arms' names, in order. */
export const SCALING_ARMS = ['rope + PI', 'rope + NTK', 'rope + YaRN', 'rope + llama3'];

/**
 * Each scaling arm's rope_scaling for a model trained at L (tokens): PI (linear), NTK, YaRN and llama3, factor 8, the
 * original context L where the type reads one.
 * @returns {Record<string, object>}
 */
export function ropeScalings(L) {
  return {
    'rope + PI': { rope_type: 'linear', factor: 8 },
    'rope + NTK': { rope_type: 'ntk', factor: 8 },
    'rope + YaRN': { rope_type: 'yarn', factor: 8, original_max_position_embeddings: L },
    'rope + llama3': { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: L },
  };
}
