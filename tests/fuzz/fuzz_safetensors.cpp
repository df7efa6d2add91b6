// libFuzzer target: any bytes given to the safetensors reader and to the model loader must
// either load or throw ap::Error; never crash, read out of bounds or leak (ASan + LSan).
#include <cstddef>
#include <cstdint>

#include "base/tensor.hpp"
#include "io/model_io.hpp"
#include "io/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    ap::SafeTensors st = ap::read_safetensors(data, size);
    (void)ap::write_safetensors(st);  // anything we accept we can write back
  } catch (const ap::Error&) {
  }
  try {
    ap::Model m = ap::load_model(data, size);
    (void)ap::save_model(m);
  } catch (const ap::Error&) {
  }
  return 0;
}
