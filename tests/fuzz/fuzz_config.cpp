// libFuzzer target: the model-config JSON parser; what it accepts must validate and round-trip.
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/tensor.hpp"
#include "io/model_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string json(reinterpret_cast<const char*>(data), size);
  try {
    const ap::ModelConfig cfg = ap::config_from_json(json);
    cfg.validate();
    const ap::ModelConfig again = ap::config_from_json(ap::config_to_json(cfg));
    if (again.d_model != cfg.d_model || again.n_heads != cfg.n_heads || again.arch != cfg.arch) __builtin_trap();
  } catch (const ap::Error&) {
  }
  return 0;
}
