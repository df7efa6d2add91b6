// safetensors read/write: an 8-byte little-endian header length, a JSON header
// {"name": {"dtype":"F32","shape":[..],"data_offsets":[a,b]}, "__metadata__": {str: str}},
// then raw little-endian data. F32, F16 and BF16 tensors are read (converted to float); files are
// written in F32, or F16 where a tensor asks for it. Every malformation is an ap::Error.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ap {

struct TensorData {
  std::vector<int64_t> shape;
  std::vector<float> data;
  bool f16 = false;  // written as F16 (round to nearest even; finite values beyond 65504 are an error)
};

struct SafeTensors {
  std::map<std::string, TensorData> tensors;
  std::map<std::string, std::string> metadata;
};

SafeTensors read_safetensors(const uint8_t* bytes, size_t size);

// The parts, for a reader that streams the data (io/hf_model): the header's length from the
// file's first bytes (size: the file's size, or at least 8), then the header with every entry
// checked against a data section of data_size bytes, in the header's order.
struct TensorInfo {
  std::string dtype;  // "F32", "F16", "BF16"
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;  // byte offsets in the data section
};
struct SafeTensorsHeader {
  std::vector<std::pair<std::string, TensorInfo>> tensors;
  std::map<std::string, std::string> metadata;
};
uint64_t safetensors_header_length(const uint8_t* bytes, uint64_t size);
// A whole file's header, every tensor checked to be a float dtype and the floats it would take
// within the cap, with its data section still as bytes: a reader converts each tensor straight
// into its own memory (to_float) instead of into a float copy of the whole file first.
struct SafeTensorsView {
  SafeTensorsHeader header;
  const uint8_t* data = nullptr;  // the data section; TensorInfo's offsets count from here
};
SafeTensorsView read_safetensors_view(const uint8_t* bytes, size_t size);
SafeTensorsHeader read_safetensors_header(const uint8_t* header, size_t header_len, uint64_t data_size);
uint64_t dtype_size(const std::string& dtype);  // bytes per value of a safetensors dtype, 0 for an unknown one
bool float_dtype(const std::string& dtype);     // F32, F16, BF16: the ones converted to float
float half_to_float(uint16_t bits);             // IEEE binary16 (F16)
uint16_t float_to_half(float f);                // round to nearest even; inf / NaN kept
// count values of dtype from src (little-endian) to dst as float.
void to_float(const std::string& dtype, const uint8_t* src, size_t count, float* dst);
std::vector<uint8_t> write_safetensors(const SafeTensors& st);

}  // namespace ap
