// libFuzzer target: Hugging Face tokenizer.json files and texts. The input is a tokenizer.json, a NUL
// byte and a text: the file must parse or be refused with an ap::Error, and a parsed tokenizer must
// encode the text (with and without special tokens) to ids inside its vocabulary, one piece per id,
// unknown positions holding the unk id, and decode any ids. Without a NUL byte the whole input is a
// text for four fixed small tokenizers (byte-level BPE as GPT-2's and behind Llama 3's split,
// SentencePiece-style BPE with byte fallback as Llama 2's, WordPiece), and the byte-level ones must
// round-trip it: their pieces re-join to the text and decode(encode(text)) is the text (invalid UTF-8
// replaced by U+FFFD), unless the text spells the special token; the SentencePiece one must give back
// any valid UTF-8 text without "▁" or a special token.
// Each file is also read with small size limits (64 pieces, 64 merges, 8 bytes a piece: what the
// real limits need megabytes to reach): it must then be refused, or have no piece past 8 bytes, and
// be accepted with the real limits too. Every refusal is at most 400 bytes (it quotes prefixes only).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/tensor.hpp"
#include "io/hf_tokenizer.hpp"

namespace {

using ap::HfTokenizer;

// A byte-level BPE as GPT-2's: the 256 byte symbols (bytes_to_unicode; id = byte value), a few merges.
std::string small_bpe() {
  std::string vocab;
  int n = 0, extra = 0;
  const auto add = [&](const std::string& tok) {
    vocab += (n ? "," : "") + std::string("\"") + tok + "\":" + std::to_string(n);
    ++n;
  };
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
    const uint32_t cp = printable ? b : 256 + extra++;
    std::string s;
    if (cp == '"' || cp == '\\') {
      s = std::string("\\") + static_cast<char>(cp);
    } else if (cp < 0x80) {
      s = std::string(1, static_cast<char>(cp));
    } else {
      s += static_cast<char>(0xC0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    }
    add(s);
  }
  for (const char* t : {"th", "the", "\xC4\xA0the", "at", "en", "ti", "on", "tion",
                        "\xC4\xA0"
                        "a"})
    add(t);
  add("<|endoftext|>");
  return R"({"added_tokens":[{"id":)" + std::to_string(n - 1) +
         R"(,"content":"<|endoftext|>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}],
    "normalizer":null,"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true},
    "post_processor":{"type":"ByteLevel"},"decoder":{"type":"ByteLevel"},
    "model":{"type":"BPE","vocab":{)" +
         vocab +
         R"(},"merges":[["t","h"],["th","e"],["\u0120","the"],["a","t"],["e","n"],["t","i"],["o","n"],["ti","on"],["\u0120","a"]]}})";
}

// small_bpe() behind Llama 3's Split pre-tokenizer (the pattern as its tokenizer.json writes it),
// ignore_merges.
std::string small_llama3() {
  std::string j = small_bpe();
  const std::string from =
      R"("pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true})";
  const std::string to =
      R"("pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},"behavior":"Isolated","invert":false},{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":false}]})";
  j.replace(j.find(from), from.size(), to);
  const std::string model = R"("model":{"type":"BPE",)";
  j.replace(j.find(model), model.size(), model + R"("ignore_merges":true,)");
  return j;
}

// A SentencePiece-style BPE as Llama 2's: <unk> <s> </s>, the 256 byte pieces, a few pieces and merges;
// normalizer Prepend + Replace, no pre-tokenizer, decoder Replace, ByteFallback, Fuse, Strip.
std::string small_sentencepiece() {
  std::string vocab = R"("<unk>":0,"<s>":1,"</s>":2)";
  static const char* hex = "0123456789ABCDEF";
  for (int b = 0; b < 256; ++b)
    vocab += std::string(",\"<0x") + hex[b >> 4] + hex[b & 15] + ">\":" + std::to_string(3 + b);
  int n = 259;
  for (const char* t : {"\u2581", "t", "h", "e", "a", "\u2581t", "he", "\u2581th", "\u2581the", "\u2581a"})
    vocab += std::string(",\"") + t + "\":" + std::to_string(n++);
  return R"({"added_tokens":[{"id":0,"content":"<unk>","special":true},{"id":1,"content":"<s>","special":true},
    {"id":2,"content":"</s>","special":true}],
    "normalizer":{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"\u2581"},
      {"type":"Replace","pattern":{"String":" "},"content":"\u2581"}]},
    "pre_tokenizer":null,
    "post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},
      {"Sequence":{"id":"A","type_id":0}}],"special_tokens":{"<s>":{"id":"<s>","ids":[1],"tokens":["<s>"]}}},
    "decoder":{"type":"Sequence","decoders":[{"type":"Replace","pattern":{"String":"\u2581"},"content":" "},
      {"type":"ByteFallback"},{"type":"Fuse"},{"type":"Strip","content":" ","start":1,"stop":0}]},
    "model":{"type":"BPE","unk_token":"<unk>","fuse_unk":true,"byte_fallback":true,"vocab":{)" +
         vocab + R"(},"merges":["\u2581 t","h e","\u2581t h","\u2581th e","\u2581 a"]}})";
}

const char* kSmallWordPiece = R"({"added_tokens":[
  {"id":0,"content":"[PAD]","special":true},{"id":1,"content":"[UNK]","special":true},
  {"id":2,"content":"[CLS]","special":true},{"id":3,"content":"[SEP]","special":true},
  {"id":4,"content":"[MASK]","special":true}],
  "normalizer":{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":null,"lowercase":true},
  "pre_tokenizer":{"type":"BertPreTokenizer"},
  "post_processor":{"type":"BertProcessing","sep":["[SEP]",3],"cls":["[CLS]",2]},
  "decoder":{"type":"WordPiece","prefix":"##","cleanup":true},
  "model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##","max_input_chars_per_word":100,
    "vocab":{"[PAD]":0,"[UNK]":1,"[CLS]":2,"[SEP]":3,"[MASK]":4,"a":5,"e":6,"t":7,"##t":8,"##e":9,"##n":10,
      "##tion":11,"the":12,"at":13,"##a":14,"c":15,"##h":16,".":17,"!":18,"'":19,"s":20,"中":21}}})";

void check(const HfTokenizer& t, const std::string& text) {
  for (bool special : {true, false}) {
    const HfTokenizer::Encoded e = t.encode(text, special);
    if (e.pieces.size() != e.ids.size()) __builtin_trap();
    for (int id : e.ids)
      if (id < 0 || id >= t.size()) __builtin_trap();
    for (int pos : e.unknown)
      if (pos < 0 || pos >= static_cast<int>(e.ids.size()) || e.ids[pos] != t.unk()) __builtin_trap();
    (void)t.decode(e.ids);
  }
  // Arbitrary ids, in range or not, decode without failing.
  std::vector<int> ids;
  for (unsigned char c : text.substr(0, 64)) ids.push_back(static_cast<int>(c) * 7 - 100);
  (void)t.decode(ids);
  for (int i = 0; i < t.size() && i < 64; ++i) (void)t.id_of(t.vocab()[i]);
}

// U+FFFD for each invalid sequence, as HF's decoder (String::from_utf8_lossy): the byte-level decode
// of the bytes' own symbols, whose ids in small_bpe() are the byte values.
std::string lossy(const std::string& s, const HfTokenizer& bpe) {
  std::vector<int> ids;
  for (unsigned char c : s) ids.push_back(c);
  return bpe.decode(ids);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto bpe = HfTokenizer::parse(small_bpe());
  static const auto wordpiece = HfTokenizer::parse(kSmallWordPiece);
  static const auto llama3 = HfTokenizer::parse(small_llama3());
  static const auto sentencepiece = HfTokenizer::parse(small_sentencepiece());
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  if (nul != std::string::npos) {
    const std::string file = input.substr(0, nul);
    // "tokenizer.json: <field> ...", or the depth check's "tokenizer.json nests more than 64 levels
    // deep" (io/json_limited.hpp, worded as for config.json and the safetensors header)
    const auto refusal_ok = [](const ap::Error& e) {
      const std::string msg = e.what();
      return (msg.rfind("tokenizer.json: ", 0) == 0 || msg == "tokenizer.json nests more than 64 levels deep") &&
             msg.size() <= 400;
    };
    std::shared_ptr<const HfTokenizer> t;
    try {
      t = HfTokenizer::parse(file);
    } catch (const ap::Error& e) {
      if (!refusal_ok(e)) __builtin_trap();
    }
    ap::limits::TokenizerLimits small;
    small.vocab = 64;
    small.merges = 64;
    small.piece_bytes = 8;
    try {
      const auto s = HfTokenizer::parse(file, small);
      if (!t) __builtin_trap();  // smaller limits refuse more, never less
      for (const std::string& piece : s->vocab())
        if (piece.size() > small.piece_bytes) __builtin_trap();
    } catch (const ap::Error& e) {
      if (!refusal_ok(e)) __builtin_trap();
    }
    if (t) check(*t, input.substr(nul + 1));
    return 0;
  }
  check(*bpe, input);
  check(*wordpiece, input);
  check(*llama3, input);
  check(*sentencepiece, input);
  const bool valid_utf8 = lossy(input, *bpe) == input;
  if (valid_utf8 && input.find("\xE2\x96\x81") == std::string::npos && input.find("<s>") == std::string::npos &&
      input.find("</s>") == std::string::npos && input.find("<unk>") == std::string::npos &&
      sentencepiece->decode(sentencepiece->encode(input, true).ids) != input)
    __builtin_trap();
  if (input.find("<|endoftext|>") != std::string::npos) return 0;
  for (const HfTokenizer* t : {bpe.get(), llama3.get()}) {
    const HfTokenizer::Encoded e = t->encode(input, false);
    // A piece holding part of a character is its bytes written <0xHH> (one per byte): read back as
    // bytes, the pieces joined are the text (unless the text itself holds "<0x", which then reads
    // the same as such a piece).
    const std::string want = lossy(input, *bpe);
    if (t->decode(e.ids) != want) __builtin_trap();
    if (input.find("<0x") == std::string::npos) {
      std::string joined;
      for (const auto& p : e.pieces) {
        if (p.rfind("<0x", 0) != 0) {
          joined += p;
          continue;
        }
        for (size_t k = 0; k + 6 <= p.size(); k += 6)
          joined += static_cast<char>(std::stoi(p.substr(k + 3, 2), nullptr, 16));
      }
      if (joined != input) __builtin_trap();
    }
  }
  return 0;
}
