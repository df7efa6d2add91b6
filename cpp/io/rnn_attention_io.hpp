// Model files of the RNN encoder-decoder with additive attention (core/rnn_attention.hpp):
// the project's safetensors format (io/model_io.hpp) with "format": "attention-playground/1",
// "config" (JSON, "arch": "rnn-attention" and the sizes) and "vocab" (JSON array) in the
// header metadata, plus free-form keys (task, train_command, ...). The transformer loader
// rejects such a file by its arch, and this one rejects a transformer file the same way.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "core/rnn_attention.hpp"

namespace ap {

std::string rnn_attention_config_to_json(const RnnAttnConfig& cfg);
RnnAttnConfig rnn_attention_config_from_json(const std::string& json);

std::vector<uint8_t> save_rnn_attention(RnnAttnModel& model);
// Throws ap::Error naming the problem: not a model file, another arch, bad config or vocabulary,
// missing / extra / wrongly shaped tensors, NaN or Inf weights.
RnnAttnModel load_rnn_attention(const uint8_t* bytes, size_t size);

}  // namespace ap
