// safetensors read/write: an 8-byte little-endian header length, a JSON header
// {"name": {"dtype":"F32","shape":[..],"data_offsets":[a,b]}, "__metadata__": {str: str}},
// then raw little-endian data. Only F32 tensors are accepted. Every malformation is an ap::Error.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ap {

struct TensorData {
  std::vector<int64_t> shape;
  std::vector<float> data;
};

struct SafeTensors {
  std::map<std::string, TensorData> tensors;
  std::map<std::string, std::string> metadata;
};

SafeTensors read_safetensors(const uint8_t* bytes, size_t size);
std::vector<uint8_t> write_safetensors(const SafeTensors& st);

}  // namespace ap
