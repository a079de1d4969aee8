// Real models' positional configs, as their published Hugging Face config.json
// files write them (only the keys that shape the position encoding). Each is
// read by hf-config.js exactly as a pasted config would be.

// Phi-3-mini-128k-instruct, current config.json (rope_scaling type "longrope",
// the lists of the June 2024 update, HF commit 10d25dfa; the April 2024 release
// called the type "su" and had other lists). 48 = head_dim 96 / 2 numbers each.
const PHI3_LONG_FACTOR = [
  1.0700000524520874, 1.1200000047683716, 1.149999976158142, 1.4199999570846558, 1.5699999332427979,
  1.7999999523162842, 2.129999876022339, 2.129999876022339, 3.009999990463257, 5.910000324249268,
  6.950000286102295, 9.070000648498535, 9.930000305175781, 10.710000038146973, 11.130000114440918,
  14.609999656677246, 15.409998893737793, 19.809999465942383, 37.279998779296875, 38.279998779296875,
  38.599998474121094, 40.12000274658203, 46.20000457763672, 50.940006256103516, 53.66000747680664,
  54.9373893737793, 56.89738845825195, 57.28738784790039, 59.98738479614258, 60.86738586425781,
  60.887386322021484, 61.71739196777344, 62.91739273071289, 62.957393646240234, 63.41739273071289,
  63.8173942565918, 63.83739471435547, 63.897396087646484, 63.93739700317383, 64.06739807128906,
  64.11434936523438, 64.12435150146484, 64.15435028076172, 64.19435119628906, 64.24435424804688,
  64.57435607910156, 64.69000244140625, 64.76000213623047,
];
const PHI3_SHORT_FACTOR = [
  1.1, 1.1, 1.1, 1.3000000000000003, 1.3500000000000003, 1.3500000000000003, 1.4000000000000004,
  1.5500000000000005, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
  2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
  2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
  2.000000000000001, 2.000000000000001, 2.000000000000001, 2.0500000000000007, 2.0500000000000007,
  2.0500000000000007, 2.0500000000000007, 2.0500000000000007, 2.0500000000000007, 2.1000000000000005,
  2.1000000000000005, 2.1500000000000004, 2.25, 2.25, 2.25, 2.25, 2.25, 2.3999999999999995,
  2.4499999999999993, 2.499999999999999, 2.6999999999999984, 2.6999999999999984, 2.7499999999999982,
  2.799999999999998, 2.8999999999999977, 3.049999999999997,
];

/** @type {{id: string, label: string, config: object}[]} */
export const PRESETS = [
  {
    // EleutherAI/gpt-neox-20b config.json (transformers' GPTNeoXConfig defaults
    // reproduce it): head_dim 6144 / 64 = 96, rotary_pct 0.25 -> 24 rotated dims.
    id: 'gpt-neox-20b',
    label: 'GPT-NeoX-20B (partial rotary 0.25)',
    config: { model_type: 'gpt_neox', hidden_size: 6144, num_attention_heads: 64, rotary_pct: 0.25,
      rotary_emb_base: 10000, max_position_embeddings: 2048 },
  },
  {
    // EleutherAI/gpt-j-6b config.json: head_dim 4096 / 16 = 256, rotary_dim 64;
    // the base 10000 is fixed in modeling_gptj (not a config key); interleaved pairs.
    id: 'gpt-j-6b',
    label: 'GPT-J-6B (interleaved, rotary_dim 64)',
    config: { model_type: 'gptj', n_embd: 4096, n_head: 16, rotary_dim: 64, n_positions: 2048 },
  },
  {
    // meta-llama/Llama-2-7b-hf config.json (max_position_embeddings corrected
    // from 2048 to 4096 in July 2023; no rope_theta key, so the default 10000).
    id: 'llama-2-7b',
    label: 'Llama-2-7B',
    config: { model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, max_position_embeddings: 4096,
      rope_scaling: null },
  },
  {
    // meta-llama/Llama-3.1-8B config.json.
    id: 'llama-3.1-8b',
    label: 'Llama-3.1-8B (llama3 ×8)',
    config: { model_type: 'llama', hidden_size: 4096, num_attention_heads: 32, head_dim: 128,
      rope_theta: 500000.0, max_position_embeddings: 131072,
      rope_scaling: { factor: 8.0, low_freq_factor: 1.0, high_freq_factor: 4.0,
        original_max_position_embeddings: 8192, rope_type: 'llama3' } },
  },
  {
    // mistralai/Mistral-7B-Instruct-v0.2 config.json and model card ("Rope-theta
    // = 1e6"); head_dim not a key: 4096 / 32 = 128. Confirmed from a partial
    // copy of the config (rope_theta, max_position_embeddings), not the raw file.
    id: 'mistral-7b-v0.2',
    label: 'Mistral-7B-v0.2 (theta 1e6)',
    config: { model_type: 'mistral', hidden_size: 4096, num_attention_heads: 32, rope_theta: 1000000.0,
      max_position_embeddings: 32768 },
  },
  {
    // Qwen/Qwen2.5-7B-Instruct config.json plus the YaRN block its model card
    // says to add for long texts (quoted in the verl docs; the card's own text
    // could not be read here). 4 x 32768 = 131072 tokens.
    id: 'qwen2.5-7b-yarn',
    label: 'Qwen2.5-7B-Instruct + YaRN ×4',
    config: { model_type: 'qwen2', hidden_size: 3584, num_attention_heads: 28, rope_theta: 1000000.0,
      max_position_embeddings: 131072,
      rope_scaling: { factor: 4.0, original_max_position_embeddings: 32768, type: 'yarn' } },
  },
  {
    // microsoft/Phi-3-mini-128k-instruct config.json (current "longrope" version).
    id: 'phi-3-mini-128k',
    label: 'Phi-3-mini-128k (longrope)',
    config: { model_type: 'phi3', hidden_size: 3072, num_attention_heads: 32, rope_theta: 10000.0,
      max_position_embeddings: 131072, original_max_position_embeddings: 4096,
      rope_scaling: { long_factor: PHI3_LONG_FACTOR, short_factor: PHI3_SHORT_FACTOR, type: 'longrope' } },
  },
  {
    // deepseek-ai/DeepSeek-V3 config.json (from copies and a printed
    // DeepseekV3Config; the official file could not be read here). Only the
    // 64-dim qk_rope_head_dim slice rotates, on interleaved pairs as in
    // DeepSeek's inference/model.py.
    id: 'deepseek-v3',
    label: 'DeepSeek-V3 (YaRN ×40, mscale)',
    config: { model_type: 'deepseek_v3', hidden_size: 7168, num_attention_heads: 128, qk_rope_head_dim: 64,
      qk_nope_head_dim: 128, rope_theta: 10000, max_position_embeddings: 163840,
      rope_scaling: { beta_fast: 32, beta_slow: 1, factor: 40, mscale: 1.0, mscale_all_dim: 1.0,
        original_max_position_embeddings: 4096, type: 'yarn' } },
  },
];
