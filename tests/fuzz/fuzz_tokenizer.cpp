// libFuzzer target: arbitrary bytes (invalid UTF-8, markup, control characters) through both
// tokenizers' split, encode and decode, and through building a vocabulary from them.
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/tensor.hpp"
#include "core/tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (auto kind : {ap::Tokenizer::Kind::Char, ap::Tokenizer::Kind::Word}) {
    try {
      const ap::Tokenizer fixed = ap::Tokenizer::build(kind, {"the cat sat on the mat.", "café <b>"});
      const ap::Tokenizer::Encoded e = fixed.encode(text);
      if (e.ids.size() != e.pieces.size()) __builtin_trap();
      (void)fixed.decode(e.ids);
      const ap::Tokenizer own = ap::Tokenizer::build(kind, {text});
      const ap::Tokenizer::Encoded e2 = own.encode(text);
      for (int id : e2.ids)
        if (id < 0 || id >= own.size()) __builtin_trap();
      (void)own.decode(e2.ids);
    } catch (const ap::Error&) {
    }
  }
  return 0;
}
