// Model files: safetensors with the config (JSON), the tokenizer kind and the vocabulary
// (JSON array) in the header metadata, so one file is the whole model.
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <set>
#include <string>
#include <vector>
#include "core/config.hpp"
#include "core/model.hpp"
#include "io/safetensors.hpp"

namespace ap {

std::string config_to_json(const ModelConfig& cfg);
// Parses and validates; unknown keys are ignored, wrong types / values are ap::Errors.
ModelConfig config_from_json(const std::string& json);

// f16: weights written as F16 (half the bytes; the big matrices read back as F16, core/weight.hpp). A model whose
// tokenizer came from a tokenizer.json carries that file in the metadata key "tokenizer.json" instead of "vocab".
std::vector<uint8_t> save_model(Model& model, bool f16 = false);
// Throws ap::Error naming the problem: truncated file, bad header JSON, wrong dtype,
// missing tensor, wrong shape, offsets out of range, bad metadata, NaN/Inf weights.
Model load_model(const uint8_t* bytes, size_t size);

// A model file as read: its header, its tensors by name, their data still the file's bytes (each
// tensor is converted straight into the model's own memory by read_tensor: no float copy of the
// whole file first, which doubled a load's memory and most of its time).
struct ModelFile {
  std::map<std::string, std::string> metadata;
  std::map<std::string, TensorInfo> tensors;
  const uint8_t* data = nullptr;  // the data section: TensorInfo's offsets count from here
};

// The pieces every model file shares (the transformer's and the RNN's, io/rnn_attention_io):
// a metadata value that must be there, and the vocabulary as a JSON array of strings.
std::string meta_or_fail(const ModelFile& file, const char* key);
// Parses a config: an ap::Error "config is not valid JSON: ..." or "config must be a JSON
// object, got ..." unless the text is a JSON object.
nlohmann::json config_object_from_json(const std::string& text);
std::vector<std::string> vocab_from_json(const std::string& text);
// A new file: the free-form metadata (task, separator, ...), the format tag, config and vocabulary.
SafeTensors model_file(const std::map<std::string, std::string>& metadata, const std::string& config_json,
                       const std::vector<std::string>& vocab);
// Adds one tensor (its values copied from data); throws for a name used twice.
void add_tensor(SafeTensors& st, const std::string& name, const std::vector<int>& shape, const float* data);
// Reads the container's header and checks the format tag (bytes must outlive the ModelFile).
ModelFile read_model_file(const uint8_t* bytes, size_t size);
// Runs make(), naming the model file in an ap::Error it throws ("model file: ...").
template <typename Make>
auto in_model_file(Make&& make) -> decltype(make()) {
  try {
    return make();
  } catch (const Error& e) {
    fail(std::string("model file: ") + e.what());
  }
}
// Fails before anything is allocated if the file holds fewer than `needed` floats.
void check_weight_count(const ModelFile& file, uint64_t needed);
// Converts tensor `name` of the file into data after checking it is there and shaped; then
// checks that every value is finite.
void read_tensor(const ModelFile& file, const std::string& name, const std::vector<int>& shape, float* data);
// The same into a model's Weight (core/weight.hpp), sized here: kept at 16 bits when the file stores
// F16 or BF16 (every value finite, else the same error), else float32.
void read_weight(const ModelFile& file, const std::string& name, const std::vector<int>& shape, Weight& w);
// Fails for a tensor of the file not in `expected` (`what` ends the message), then copies the
// free-form metadata into `metadata`.
void finish_reading(const ModelFile& file, const std::set<std::string>& expected, const std::string& what,
                    std::map<std::string, std::string>& metadata);

}  // namespace ap
