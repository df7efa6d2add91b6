// safetensors reader and writer (F32 only). The reader trusts nothing in the file: every
// length, offset and shape is checked before a byte is copied, and each failure names the
// tensor and the field. Floats are copied with memcpy, so unaligned data is fine.
#include "io/safetensors.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "base/tensor.hpp"
#include "io/json_limited.hpp"
#include "kernels/convert.hpp"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "safetensors.cpp copies raw little-endian floats: a big-endian target needs byte swaps"
#endif

namespace ap {

namespace {

using json = nlohmann::json;

constexpr uint64_t kMaxHeaderBytes = 100u * 1000u * 1000u;  // the HF reader's limit
// Tensors may share bytes (overlap is legal), so a small file could otherwise ask for many
// copies of its data; 1 GiB is far above any model the playground can run in wasm32.
constexpr uint64_t kMaxTotalTensorBytes = uint64_t{1} << 30;
const char* const kMetadataKey = "__metadata__";

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// A name from the file, cut short so a hostile header cannot make a megabyte-long message.
std::string quoted(const std::string& name) {
  constexpr size_t kMax = 120;
  return "'" + (name.size() <= kMax ? name : name.substr(0, kMax) + "...") + "'";
}

// The JSON type's name for messages ("string", "number", ...).
std::string type_of(const json& j) { return j.type_name(); }

// A non-negative JSON integer, or an ap::Error naming `what`.
uint64_t read_count(const json& j, const std::string& what) {
  if (j.is_number_unsigned()) return j.get<uint64_t>();
  if (j.is_number_integer()) {
    const int64_t v = j.get<int64_t>();
    if (v < 0) fail(what + " is negative (" + std::to_string(v) + ")");
    return static_cast<uint64_t>(v);
  }
  if (j.is_number_float()) fail(what + " is not an integer (" + j.dump() + ")");
  fail(what + " must be a non-negative integer, got " + type_of(j));
}

using Entry = TensorInfo;

Entry check_entry(const std::string& name, const json& entry, uint64_t data_size) {
  const std::string where = "tensor " + quoted(name);
  if (!entry.is_object()) fail(where + ": header entry must be an object, got " + type_of(entry));
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!entry.contains(key)) fail(where + " has no \"" + key + "\"");

  const json& dtype = entry["dtype"];
  if (!dtype.is_string()) fail(where + ": \"dtype\" must be a string, got " + type_of(dtype));
  Entry t;
  t.dtype = dtype.get<std::string>();
  const uint64_t elem = dtype_size(t.dtype);
  if (elem == 0) fail(where + " has an unknown dtype " + t.dtype.substr(0, 40));

  const json& shape_json = entry["shape"];
  if (!shape_json.is_array()) fail(where + ": \"shape\" must be an array, got " + type_of(shape_json));
  // numel stays below 2^61 so that numel * 4 fits in 64 bits; a real tensor is far smaller.
  const uint64_t max_numel = std::numeric_limits<uint64_t>::max() / 8;
  uint64_t numel = 1;
  for (size_t i = 0; i < shape_json.size(); ++i) {
    const uint64_t dim = read_count(shape_json[i], where + ": shape[" + std::to_string(i) + "]");
    if (dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) || (dim != 0 && numel > max_numel / dim))
      fail(where + ": shape overflows (too many elements) at dimension " + std::to_string(i));
    numel *= dim;
    t.shape.push_back(static_cast<int64_t>(dim));
  }

  const json& offsets = entry["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2)
    fail(where + ": \"data_offsets\" must be an array [begin, end], got " +
         (offsets.is_array() ? "an array of " + std::to_string(offsets.size()) : type_of(offsets)));
  const uint64_t begin = t.begin = read_count(offsets[0], where + ": data_offsets begin");
  const uint64_t end = t.end = read_count(offsets[1], where + ": data_offsets end");
  if (begin > end)
    fail(where + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "] end before begin");
  if (end > data_size)
    fail(where + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
         "] out of range (the data section has " + std::to_string(data_size) + " bytes)");
  if (end - begin != numel * elem)
    fail(where + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "] hold " +
         std::to_string(end - begin) + " bytes but shape " + shape_string(t.shape) + " in " + t.dtype + " needs " +
         std::to_string(numel * elem));
  return t;
}

}  // namespace

uint64_t dtype_size(const std::string& dtype) {
  static const std::pair<const char*, uint64_t> kSizes[] = {
      {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"F64", 8}, {"I64", 8},  {"U64", 8},     {"I32", 4},    {"U32", 4},
      {"I16", 2}, {"U16", 2}, {"I8", 1},   {"U8", 1},  {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}};
  for (const auto& [name, size] : kSizes)
    if (dtype == name) return size;
  return 0;
}

bool float_dtype(const std::string& dtype) { return dtype == "F32" || dtype == "F16" || dtype == "BF16"; }

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504: inf
  if (abs < 0x38800000u) {               // below F16's smallest normal: a subnormal (or zero), rounded to nearest even
    if (abs < 0x33000000u) return sign;  // under half the smallest subnormal
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const int shift = 126 - static_cast<int>(abs >> 23);  // 14 + (113 - exp) .. puts the value in units of 2^-24
    uint32_t h = mant >> shift;
    const uint32_t rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = ((abs >> 23) - 112u) << 10 | ((abs >> 13) & 0x3ffu);
  const uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // a carry into the exponent is right too
  return static_cast<uint16_t>(sign | h);
}

float half_to_float(uint16_t h) { return kernels::half_to_float(h); }

void to_float(const std::string& dtype, const uint8_t* src, size_t count, float* dst) {
  if (dtype == "F32") {
    if (count) std::memcpy(dst, src, count * 4);
  } else if (dtype == "F16") {
    kernels::halves_to_floats(dst, src, count);
  } else if (dtype == "BF16") {
    for (size_t i = 0; i < count; ++i) {
      const uint32_t bits = static_cast<uint32_t>(src[2 * i] | src[2 * i + 1] << 8) << 16;
      std::memcpy(dst + i, &bits, 4);
    }
  } else {
    fail("safetensors: dtype " + dtype.substr(0, 40) + " is not read (only F32, F16 and BF16)");
  }
}

uint64_t safetensors_header_length(const uint8_t* bytes, uint64_t size) {
  if (bytes == nullptr && size != 0) fail("safetensors: no data");
  if (size < 8)
    fail("safetensors file is too short (" + std::to_string(size) + " bytes; the header length alone takes 8)");
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | bytes[i];  // little-endian
  if (header_len > kMaxHeaderBytes)
    fail("safetensors header length " + std::to_string(header_len) + " is absurd (limit " +
         std::to_string(kMaxHeaderBytes) + " bytes)");
  if (header_len > size - 8)
    fail("safetensors header length " + std::to_string(header_len) + " is larger than the file (" +
         std::to_string(size - 8) + " bytes after the length)");
  return header_len;
}

SafeTensorsHeader read_safetensors_header(const uint8_t* text, size_t header_len, uint64_t data_size) {
  const char* header_begin = reinterpret_cast<const char*>(text);
  json header;
  try {
    header = parse_json_limited(header_begin, header_begin + header_len, "safetensors header");
  } catch (const json::exception& e) {
    fail(std::string("safetensors header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) fail("safetensors header must be a JSON object, got " + type_of(header));
  SafeTensorsHeader h;
  for (const auto& [name, entry] : header.items()) {
    if (name == kMetadataKey) {
      if (!entry.is_object()) fail("safetensors __metadata__ must be an object, got " + type_of(entry));
      for (const auto& [key, value] : entry.items()) {
        if (!value.is_string())
          fail("safetensors __metadata__ value " + quoted(key) + " must be a string, got " + type_of(value));
        h.metadata.emplace(key, value.get<std::string>());
      }
      continue;
    }
    h.tensors.emplace_back(name, check_entry(name, entry, data_size));
  }
  return h;
}

SafeTensorsView read_safetensors_view(const uint8_t* bytes, size_t size) {
  const uint64_t header_len = safetensors_header_length(bytes, size);
  SafeTensorsView view;
  view.data = bytes + 8 + header_len;
  view.header = read_safetensors_header(bytes + 8, static_cast<size_t>(header_len), size - 8 - header_len);
  uint64_t total_bytes = 0;
  for (const auto& [name, e] : view.header.tensors) {
    if (!float_dtype(e.dtype))
      fail("tensor " + quoted(name) + " has dtype " + e.dtype + "; only F32, F16 and BF16 are read");
    total_bytes += (e.end - e.begin) / dtype_size(e.dtype) * sizeof(float);
    // Checked before any copy, so a file cannot make us allocate what it then gets refused for.
    if (total_bytes > kMaxTotalTensorBytes)
      fail("safetensors file describes more than " + std::to_string(kMaxTotalTensorBytes) +
           " bytes of tensors (at tensor " + quoted(name) + ")");
  }
  return view;
}

SafeTensors read_safetensors(const uint8_t* bytes, size_t size) {
  SafeTensorsView view = read_safetensors_view(bytes, size);
  SafeTensors st;
  st.metadata = std::move(view.header.metadata);
  for (auto& [name, e] : view.header.tensors) {
    TensorData t;
    t.shape = e.shape;
    t.data.resize(static_cast<size_t>((e.end - e.begin) / dtype_size(e.dtype)));
    to_float(e.dtype, view.data + e.begin, t.data.size(), t.data.data());
    st.tensors.emplace(name, std::move(t));
  }
  return st;
}

std::vector<uint8_t> write_safetensors(const SafeTensors& st) {
  // ordered_json keeps __metadata__ first and the tensors in name order (std::map order),
  // which is also the order of their bytes.
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!st.metadata.empty()) {
    nlohmann::ordered_json meta = nlohmann::ordered_json::object();
    for (const auto& [key, value] : st.metadata) meta[key] = value;
    header[kMetadataKey] = std::move(meta);
  }
  uint64_t offset = 0;
  for (const auto& [name, t] : st.tensors) {
    if (name == kMetadataKey) fail("safetensors: a tensor cannot be named __metadata__");
    uint64_t numel = 1;
    for (const int64_t dim : t.shape) {
      if (dim < 0) fail("tensor " + quoted(name) + " has a negative dimension in shape " + shape_string(t.shape));
      if (dim != 0 && numel > std::numeric_limits<uint64_t>::max() / 8 / static_cast<uint64_t>(dim))
        fail("tensor " + quoted(name) + ": shape " + shape_string(t.shape) + " overflows");
      numel *= static_cast<uint64_t>(dim);
    }
    if (numel != t.data.size())
      fail("tensor " + quoted(name) + " has shape " + shape_string(t.shape) + " (" + std::to_string(numel) +
           " values) but " + std::to_string(t.data.size()) + " values");
    const uint64_t end = offset + numel * (t.f16 ? 2 : sizeof(float));
    header[name] = {{"dtype", t.f16 ? "F16" : "F32"}, {"shape", t.shape}, {"data_offsets", {offset, end}}};
    offset = end;
  }

  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::json::exception&) {  // only invalid UTF-8 in a name or value can throw
    fail("safetensors: a tensor name or metadata string is not valid UTF-8");
  }
  // Pad with spaces so the data starts 8-byte aligned, as the Hugging Face writer does.
  text.append((8 - text.size() % 8) % 8, ' ');

  std::vector<uint8_t> out(8 + text.size() + offset);
  const uint64_t header_len = text.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(header_len >> (8 * i));
  std::memcpy(out.data() + 8, text.data(), text.size());
  uint8_t* data = out.data() + 8 + text.size();
  for (const auto& [name, t] : st.tensors) {
    if (t.data.empty()) continue;  // memcpy from an empty vector's null pointer is UB
    if (t.f16) {
      for (const float v : t.data) {
        const uint16_t h = float_to_half(v);
        if (std::isfinite(v) && !std::isfinite(half_to_float(h)))
          fail("tensor " + quoted(name) + " has a value beyond F16's range (" + std::to_string(v) + ")");
        *data++ = static_cast<uint8_t>(h & 0xff);
        *data++ = static_cast<uint8_t>(h >> 8);
      }
      continue;
    }
    std::memcpy(data, t.data.data(), t.data.size() * sizeof(float));
    data += t.data.size() * sizeof(float);
  }
  return out;
}

}  // namespace ap
