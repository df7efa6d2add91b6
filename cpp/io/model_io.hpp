// Model files: safetensors with the config (JSON), the tokenizer kind and the vocabulary
// (JSON array) in the header metadata, so one file is the whole model.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "core/config.hpp"
#include "core/model.hpp"
#include "io/safetensors.hpp"

namespace ap {

std::string config_to_json(const ModelConfig& cfg);
// Parses and validates; unknown keys are ignored, wrong types / values are ap::Errors.
ModelConfig config_from_json(const std::string& json);

std::vector<uint8_t> save_model(Model& model);
// Throws ap::Error naming the problem: truncated file, bad header JSON, wrong dtype,
// missing tensor, wrong shape, offsets out of range, bad metadata, NaN/Inf weights.
Model load_model(const uint8_t* bytes, size_t size);

// The pieces every model file shares (the transformer's and the RNN's, io/rnn_attention_io):
// a metadata value that must be there, and the vocabulary as a JSON array of strings.
std::string meta_or_fail(const SafeTensors& st, const char* key);
std::vector<std::string> vocab_from_json(const std::string& text);

}  // namespace ap
