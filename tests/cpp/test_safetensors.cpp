// safetensors: files written byte by byte in the test are read correctly, the writer produces
// the layout the format specifies, and every malformation is an ap::Error naming the problem.
#include <gtest/gtest.h>
#include <limits>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "base/tensor.hpp"
#include "helpers.hpp"
#include "io/safetensors.hpp"

namespace {

using ap::SafeTensors;
using ap::TensorData;
using Bytes = std::vector<uint8_t>;

// 8-byte little-endian header length, the header text, then the data bytes.
Bytes make_file(const std::string& header, const Bytes& data = {}, uint64_t header_len = UINT64_MAX) {
  if (header_len == UINT64_MAX) header_len = header.size();
  Bytes out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(header_len >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

SafeTensors read(const Bytes& b) { return ap::read_safetensors(b.data(), b.size()); }

// The message of the ap::Error that reading `file` throws ("" and a test failure if none).
std::string read_error(const Bytes& file) {
  return aptest::error_of([&] { read(file); });
}

// 1.5f = 0x3FC00000, -2.0f = 0xC0000000, 0.25f = 0x3E800000, written little-endian.
const Bytes kThreeFloats = {0x00, 0x00, 0xC0, 0x3F, 0x00, 0x00, 0x00, 0xC0, 0x00, 0x00, 0x80, 0x3E};

// ---- reading files built by hand ------------------------------------------------------

TEST(SafeTensorsRead, HandBuiltFileGivesItsFloatsShapesAndMetadata) {
  const std::string header = R"({"__metadata__":{"note":"hand made"},)"
                             R"("v":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},)"
                             R"("m":{"dtype":"F32","shape":[1,2],"data_offsets":[4,12]}})";
  const SafeTensors st = read(make_file(header, kThreeFloats));
  ASSERT_EQ(st.tensors.size(), 2u);
  EXPECT_EQ(st.tensors.at("v").shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(st.tensors.at("v").data, (std::vector<float>{1.5f, -2.0f, 0.25f}));
  // "m" overlaps "v" (allowed): it starts at byte 4, the second float.
  EXPECT_EQ(st.tensors.at("m").shape, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(st.tensors.at("m").data, (std::vector<float>{-2.0f, 0.25f}));
  EXPECT_EQ(st.metadata.at("note"), "hand made");
}

TEST(SafeTensorsRead, UnalignedDataAndTrailingHeaderSpacesAreFine) {
  // A 61-byte header puts the data at file offset 69, not a multiple of 4.
  std::string header = R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  header.append(61 - header.size(), ' ');
  ASSERT_EQ(header.size(), 61u);
  const SafeTensors st = read(make_file(header, Bytes(kThreeFloats.begin(), kThreeFloats.begin() + 8)));
  EXPECT_EQ(st.tensors.at("x").data, (std::vector<float>{1.5f, -2.0f}));
}

TEST(SafeTensorsRead, ScalarsEmptyTensorsAndAnEmptyHeader) {
  const std::string header = R"({"s":{"dtype":"F32","shape":[],"data_offsets":[8,12]},)"
                             R"("e":{"dtype":"F32","shape":[0,5],"data_offsets":[12,12]}})";
  const SafeTensors st = read(make_file(header, kThreeFloats));
  EXPECT_TRUE(st.tensors.at("s").shape.empty());
  EXPECT_EQ(st.tensors.at("s").data, (std::vector<float>{0.25f}));
  EXPECT_EQ(st.tensors.at("e").shape, (std::vector<int64_t>{0, 5}));
  EXPECT_TRUE(st.tensors.at("e").data.empty());

  const SafeTensors none = read(make_file("{}"));
  EXPECT_TRUE(none.tensors.empty());
  EXPECT_TRUE(none.metadata.empty());
}

// ---- writing --------------------------------------------------------------------------

TEST(SafeTensorsWrite, LayoutIsLengthThenSpacePaddedHeaderThenDataInNameOrder) {
  SafeTensors st;
  st.metadata["k"] = "v";
  st.tensors["b"] = TensorData{{1}, {0.25f}};
  st.tensors["a"] = TensorData{{2}, {1.5f, -2.0f}};
  const Bytes file = ap::write_safetensors(st);

  const std::string expected_json = R"({"__metadata__":{"k":"v"},)"
                                    R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                    R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})";
  const size_t padded = (expected_json.size() + 7) / 8 * 8;
  ASSERT_EQ(file.size(), 8 + padded + 12);
  uint64_t header_len = 0;
  for (int i = 0; i < 8; ++i) header_len |= static_cast<uint64_t>(file[i]) << (8 * i);
  EXPECT_EQ(header_len, padded);
  const std::string header(file.begin() + 8, file.begin() + 8 + padded);
  EXPECT_EQ(header, expected_json + std::string(padded - expected_json.size(), ' '));
  // "a" (1.5, -2.0) comes before "b" (0.25): exactly the hand-written bytes.
  EXPECT_EQ(Bytes(file.begin() + 8 + padded, file.end()), kThreeFloats);
}

TEST(SafeTensorsWrite, RoundTripKeepsEverythingAndRewritesTheSameBytes) {
  SafeTensors st;
  st.metadata["format"] = "test/1";
  st.metadata["unicode"] = "caf\xC3\xA9 \xE7\x8C\xAB";
  st.tensors["w"] = TensorData{{2, 3}, {1, -2, 3.5f, 1e-30f, -0.0f, 65504}};
  st.tensors["s"] = TensorData{{}, {7}};
  st.tensors["z"] = TensorData{{0}, {}};
  st.tensors["nan"] = TensorData{{2}, {std::nanf(""), INFINITY}};  // the format stores any bits
  const Bytes first = ap::write_safetensors(st);
  const SafeTensors back = read(first);
  EXPECT_EQ(back.metadata, st.metadata);
  ASSERT_EQ(back.tensors.size(), st.tensors.size());
  for (const auto& [name, t] : st.tensors) {
    const TensorData& u = back.tensors.at(name);
    EXPECT_EQ(u.shape, t.shape) << name;
    ASSERT_EQ(u.data.size(), t.data.size()) << name;
    // Compared as bits, so NaN and -0.0 count as kept.
    if (!t.data.empty()) EXPECT_EQ(0, std::memcmp(u.data.data(), t.data.data(), t.data.size() * sizeof(float))) << name;
  }
  EXPECT_EQ(ap::write_safetensors(back), first);
}

TEST(SafeTensorsWrite, RejectsInconsistentTensors) {
  const auto write_error = [](const SafeTensors& st) -> std::string {
    try {
      ap::write_safetensors(st);
    } catch (const ap::Error& e) {
      return e.what();
    }
    ADD_FAILURE() << "expected an ap::Error";
    return "";
  };
  SafeTensors wrong_count;
  wrong_count.tensors["w"] = TensorData{{2, 2}, {1, 2, 3}};
  EXPECT_MENTIONS(write_error(wrong_count), "tensor 'w' has shape [2, 2] (4 values) but 3 values");
  SafeTensors negative;
  negative.tensors["w"] = TensorData{{-1}, {}};
  EXPECT_MENTIONS(write_error(negative), "negative dimension");
  SafeTensors reserved;
  reserved.tensors["__metadata__"] = TensorData{{1}, {1}};
  EXPECT_MENTIONS(write_error(reserved), "cannot be named __metadata__");
  SafeTensors bad_utf8;
  bad_utf8.metadata["k"] = "\xFF";
  EXPECT_MENTIONS(write_error(bad_utf8), "not valid UTF-8");
}

// ---- malformed files: one test per problem --------------------------------------------

TEST(SafeTensorsBad, FileShorterThanEightBytes) {
  EXPECT_MENTIONS(read_error(Bytes{1, 0, 0, 0, 0}), "too short (5 bytes");
  EXPECT_MENTIONS(read_error(Bytes{}), "too short (0 bytes");
}

TEST(SafeTensorsBad, HeaderLengthLargerThanTheFile) {
  EXPECT_MENTIONS(read_error(make_file("{}", {}, 3)), "header length 3 is larger than the file (2 bytes");
}

TEST(SafeTensorsBad, AbsurdHeaderLength) {
  EXPECT_MENTIONS(read_error(make_file("{}", {}, 200'000'000)), "header length 200000000 is absurd");
  EXPECT_MENTIONS(read_error(make_file("{}", {}, UINT64_MAX - 1)), "is absurd");
}

TEST(SafeTensorsBad, HeaderNotJson) {
  EXPECT_MENTIONS(read_error(make_file(R"({"x": {"dtype": "F32", )")), "header is not valid JSON");
  EXPECT_MENTIONS(read_error(make_file("")), "header is not valid JSON");
  EXPECT_MENTIONS(read_error(make_file("{\"\xFF\":1}")), "header is not valid JSON");  // bad UTF-8
}

TEST(SafeTensorsBad, HeaderNotAnObject) {
  EXPECT_MENTIONS(read_error(make_file("[1, 2]")), "header must be a JSON object, got array");
  EXPECT_MENTIONS(read_error(make_file(R"({"x": 3})")), "tensor 'x': header entry must be an object");
}

TEST(SafeTensorsBad, EntryMissingAField) {
  EXPECT_MENTIONS(read_error(make_file(R"({"x":{"shape":[1],"data_offsets":[0,4]}})", Bytes(4))),
                  "tensor 'x' has no \"dtype\"");
  EXPECT_MENTIONS(read_error(make_file(R"({"x":{"dtype":"F32","data_offsets":[0,4]}})", Bytes(4))),
                  "tensor 'x' has no \"shape\"");
  EXPECT_MENTIONS(read_error(make_file(R"({"x":{"dtype":"F32","shape":[1]}})", Bytes(4))),
                  "tensor 'x' has no \"data_offsets\"");
}

// Hugging Face checkpoints come in F16 and BF16: each value is converted to float as read. The
// expected floats are worked out by hand from the bit patterns (sign | exponent | mantissa).
TEST(SafeTensorsRead, HalfAndBfloat16AreConvertedByHand) {
  // F16 (1 | 5 | 10 bits, bias 15), little-endian pairs:
  //   0x3C00 = 1.0; 0xC000 = -2.0; 0x3555 = 2^-2 * (1 + 341/1024) = 0.333251953125;
  //   0x0001 = 2^-24 (smallest subnormal); 0x7BFF = 65504 (largest); 0x8000 = -0.0; 0x7C00 = +inf.
  const Bytes f16 = {0x00, 0x3C, 0x00, 0xC0, 0x55, 0x35, 0x01, 0x00, 0xFF, 0x7B, 0x00, 0x80, 0x00, 0x7C};
  const SafeTensors a = read(make_file(R"({"h":{"dtype":"F16","shape":[7],"data_offsets":[0,14]}})", f16));
  const std::vector<float> want = {
      1.0f, -2.0f, 0.333251953125f, 5.9604644775390625e-08f, 65504.0f, -0.0f, std::numeric_limits<float>::infinity()};
  EXPECT_EQ(a.tensors.at("h").data, want);
  EXPECT_TRUE(std::signbit(a.tensors.at("h").data[5]));
  // BF16 (1 | 8 | 7 bits): the top half of a float32. 0x3F80 = 1.0, 0x4049 = 3.140625, 0xBF00 = -0.5.
  const Bytes bf16 = {0x80, 0x3F, 0x49, 0x40, 0x00, 0xBF};
  const SafeTensors b = read(make_file(R"({"b":{"dtype":"BF16","shape":[3],"data_offsets":[0,6]}})", bf16));
  EXPECT_EQ(b.tensors.at("b").data, (std::vector<float>{1.0f, 3.140625f, -0.5f}));
}

TEST(SafeTensorsBad, DtypeNotRead) {
  EXPECT_MENTIONS(read_error(make_file(R"({"x":{"dtype":"I64","shape":[2],"data_offsets":[0,16]}})", Bytes(16))),
                  "tensor 'x' has dtype I64; only F32, F16 and BF16 are read");
  EXPECT_MENTIONS(read_error(make_file(R"({"x":{"dtype":"Q4","shape":[2],"data_offsets":[0,2]}})", Bytes(2))),
                  "tensor 'x' has an unknown dtype Q4");
  EXPECT_MENTIONS(read_error(make_file(R"({"x":{"dtype":"F16","shape":[2],"data_offsets":[0,8]}})", Bytes(8))),
                  "hold 8 bytes but shape [2] in F16 needs 4");
  EXPECT_MENTIONS(read_error(make_file(R"({"x":{"dtype":32,"shape":[1],"data_offsets":[0,4]}})", Bytes(4))),
                  "\"dtype\" must be a string");
}

TEST(SafeTensorsBad, NegativeOrNonIntegerShape) {
  EXPECT_MENTIONS(read_error(make_file(R"({"x":{"dtype":"F32","shape":[2,-1],"data_offsets":[0,0]}})")),
                  "tensor 'x': shape[1] is negative (-1)");
  EXPECT_MENTIONS(read_error(make_file(R"({"x":{"dtype":"F32","shape":[2.5],"data_offsets":[0,0]}})")),
                  "shape[0] is not an integer");
  EXPECT_MENTIONS(read_error(make_file(R"({"x":{"dtype":"F32","shape":["2"],"data_offsets":[0,8]}})", Bytes(8))),
                  "shape[0] must be a non-negative integer, got string");
  EXPECT_MENTIONS(read_error(make_file(R"({"x":{"dtype":"F32","shape":2,"data_offsets":[0,8]}})", Bytes(8))),
                  "\"shape\" must be an array");
}

TEST(SafeTensorsBad, OverflowingShape) {
  // 2^32 * 2^32 elements wrap a 64-bit count to 0, which would "match" offsets [0, 0].
  EXPECT_MENTIONS(
      read_error(make_file(R"({"x":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}})")),
      "overflows");
  EXPECT_MENTIONS(read_error(make_file(R"({"x":{"dtype":"F32","shape":[18446744073709551615],"data_offsets":[0,0]}})")),
                  "overflows");
}

// The error of reading one F32 tensor 'x' of this shape at these data_offsets, over kThreeFloats.
std::string x_error(const char* shape, const char* offsets) {
  return read_error(make_file(
      std::string(R"({"x":{"dtype":"F32","shape":)") + shape + R"(,"data_offsets":)" + offsets + "}}", kThreeFloats));
}

TEST(SafeTensorsBad, OffsetsOutOfRange) {
  EXPECT_MENTIONS(x_error("[3]", "[4,16]"),
                  "tensor 'x': data_offsets [4, 16] out of range (the data section has 12 bytes)");
  EXPECT_MENTIONS(x_error("[0]", "[8,4]"), "end before begin");
  EXPECT_MENTIONS(x_error("[1]", "[-4,0]"), "data_offsets begin is negative");
}

TEST(SafeTensorsBad, OffsetsNotMatchingTheShape) {
  EXPECT_MENTIONS(x_error("[2,2]", "[0,12]"), "hold 12 bytes but shape [2, 2] in F32 needs 16");
  EXPECT_MENTIONS(x_error("[1]", "[0]"), "must be an array [begin, end], got an array of 1");
}

TEST(SafeTensorsBad, MetadataValuesMustBeStrings) {
  EXPECT_MENTIONS(read_error(make_file(R"({"__metadata__":{"epochs":3}})")),
                  "__metadata__ value 'epochs' must be a string, got number");
  EXPECT_MENTIONS(read_error(make_file(R"({"__metadata__":["a"]})")), "__metadata__ must be an object");
}

TEST(SafeTensorsBad, TotalTensorSizeIsCapped) {
  // 300 tensors all aliasing the same 4 MiB would decode to 1.2 GiB from a 4 MiB file.
  std::string header = "{";
  for (int i = 0; i < 300; ++i)
    header += (i ? "," : "") + std::string("\"t") + std::to_string(i) +
              R"(":{"dtype":"F32","shape":[1048576],"data_offsets":[0,4194304]})";
  header += "}";
  EXPECT_MENTIONS(read_error(make_file(header, Bytes(4194304))), "more than 1073741824 bytes of tensors");
}

TEST(SafeTensorsBad, LongNamesAreCutShortInMessages) {
  const std::string name(5000, 'n');
  const std::string msg =
      read_error(make_file("{\"" + name + R"(":{"dtype":"I8","shape":[1],"data_offsets":[0,1]}})", Bytes(1)));
  EXPECT_MENTIONS(msg, "has dtype I8");
  EXPECT_LT(msg.size(), 300u);
}

// ---- seed corpus for fuzzing ----------------------------------------------------------

TEST(SafeTensorsCorpus, ValidSeedsReadAndBrokenSeedsFailCleanly) {
  const auto [valid, broken] =
      aptest::check_corpus("safetensors", [](const std::string& text) { read(Bytes(text.begin(), text.end())); });
  EXPECT_GE(valid, 3);
  EXPECT_GE(broken, 6);
}

}  // namespace

// F16 writing: IEEE binary16 bit patterns worked out by hand (sign | exponent+15 | 10-bit
// mantissa), round to nearest even, and a write / read round trip.
TEST(SafeTensorsWrite, F16RoundsToNearestEvenAndReadsBack) {
  const std::pair<float, uint16_t> cases[] = {
      {1.0f, 0x3C00},                // 2^0: exponent 15
      {-2.5f, 0xC100},               // -1.25 * 2^1: exponent 16, mantissa 0.25 * 1024 = 256
      {0.1f, 0x2E66},                // 1.6 * 2^-4: mantissa 0.6 * 1024 = 614.4 -> 614 (0x266)
      {65504.0f, 0x7BFF},            // the largest finite F16
      {65520.0f, 0x7C00},            // halfway to 2^16 rounds (to even) up: inf
      {6.0e-8f, 0x0001},             // the smallest subnormal is 2^-24 = 5.96e-8
      {1.0e-8f, 0x0000},             // under half of it: zero
      {1.0f + 1.0f / 2048, 0x3C00},  // exactly halfway between 1 and 1 + 2^-10: to even (1)
      {1.0f + 3.0f / 2048, 0x3C02},  // halfway between 1 + 2^-10 and 1 + 2^-9: to even (the latter)
  };
  for (const auto& [f, h] : cases) EXPECT_EQ(ap::float_to_half(f), h) << f;
  ap::SafeTensors st;
  st.tensors["w"] = {{2, 2}, {1.0f, -2.5f, 0.1f, 3.0e-5f}, true};
  const std::vector<uint8_t> bytes = ap::write_safetensors(st);
  const ap::SafeTensors back = ap::read_safetensors(bytes.data(), bytes.size());
  const auto& w = back.tensors.at("w").data;
  EXPECT_EQ(w[0], 1.0f);
  EXPECT_EQ(w[1], -2.5f);
  EXPECT_EQ(w[2], ap::half_to_float(0x2E66));
  EXPECT_NEAR(w[3], 3.0e-5f, 3.0e-5f * 1e-3);
  ap::SafeTensors big;
  big.tensors["w"] = {{1}, {1.0e6f}, true};
  EXPECT_THROW(ap::write_safetensors(big), ap::Error);  // beyond F16's range: refused, not inf
}

// Every one of the 65,536 F16 bit patterns widens to the float the format defines, written out
// the long way here: (-1)^s 2^(e-15) (1 + m/1024) for a normal, (-1)^s 2^-14 (m/1024) for a
// subnormal, +-inf, and NaN with its payload in the top mantissa bits.
TEST(SafeTensors, EveryHalfWidensExactly) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    const uint32_t s = h >> 15, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    const float sign = s ? -1.0f : 1.0f;
    const float got = ap::half_to_float(static_cast<uint16_t>(h));
    if (e == 0x1f && m != 0) {
      uint32_t bits;
      std::memcpy(&bits, &got, 4);
      ASSERT_TRUE(std::isnan(got)) << std::hex << h;
      ASSERT_EQ(bits, (s << 31) | 0x7f800000u | (m << 13)) << std::hex << h;
      continue;
    }
    float want;
    if (e == 0x1f)
      want = sign * std::numeric_limits<float>::infinity();
    else if (e == 0)
      want = sign * std::ldexp(static_cast<float>(m) / 1024.0f, -14);
    else
      want = sign * std::ldexp(1.0f + static_cast<float>(m) / 1024.0f, static_cast<int>(e) - 15);
    ASSERT_EQ(got, want) << std::hex << h;
    ASSERT_EQ(std::signbit(got), s == 1) << std::hex << h << ": the sign of zero too";
  }
}
