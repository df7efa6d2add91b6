// libFuzzer target: a Hugging Face folder as the core reads it (io/hf_model): config.json, a line
// "--", then model.safetensors, fed in 12-byte chunks so values are cut by chunk ends. What loads
// must run a forward pass; everything else must be an ap::Error. Seeds: tests/corpus/hf_model
// (tests/reference/make_hf_fuzz_seeds.py).
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/tensor.hpp"
#include "core/layout.hpp"
#include "hf_micro_tokenizer.hpp"
#include "io/hf_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t cut = input.find("\n--\n");
  if (cut == std::string::npos) return 0;
  const std::string config = input.substr(0, cut);
  const std::string file = input.substr(cut + 4);
  try {
    // Keep the fuzzer's memory small: configs the core accepts can ask for 1.5 GB.
    size_t params = 0;
    ap::for_each_tensor(ap::hf_config(config), [&](const std::string&, const std::vector<int>& shape, ap::TensorKind,
                                                   auto) { params += ap::element_count(shape); });
    if (params > (1u << 20)) return 0;
    ap::HfLoader loader(config, aptest::kMicroTokenizer);
    const auto* bytes = reinterpret_cast<const uint8_t*>(file.data());
    const uint64_t header = loader.header_length(bytes, file.size());
    const uint64_t body = loader.read_header(bytes + 8, static_cast<size_t>(header));
    for (uint64_t at = 0; at < body; at += 12)
      loader.feed(bytes + 8 + header + at, static_cast<size_t>(body - at < 12 ? body - at : 12));
    const auto model = loader.finish();
    ap::Trace trace;
    model->forward(trace, model->prompt("the cats").ids);
  } catch (const ap::Error&) {
  }
  return 0;
}
