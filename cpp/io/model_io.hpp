// Model files: safetensors with the config (JSON), the tokenizer kind and the vocabulary
// (JSON array) in the header metadata, so one file is the whole model.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "core/config.hpp"
#include "core/model.hpp"

namespace ap {

std::string config_to_json(const ModelConfig& cfg);
// Parses and validates; unknown keys are ignored, wrong types / values are ap::Errors.
ModelConfig config_from_json(const std::string& json);

std::vector<uint8_t> save_model(Model& model);
// Throws ap::Error naming the problem: truncated file, bad header JSON, wrong dtype,
// missing tensor, wrong shape, offsets out of range, bad metadata, NaN/Inf weights.
Model load_model(const uint8_t* bytes, size_t size);

}  // namespace ap
