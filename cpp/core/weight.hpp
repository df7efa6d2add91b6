// A weight matrix as a model holds it: float32 (the Mat itself), or the F16 / BF16 values its
// checkpoint stored, kept at 16 bits and widened tile by tile inside the kernels.
//
// The one rule (which tensors stay at 16 bits): the big matrices, i.e. every Weight of ModelWeights
// (the linear layers' W, the token embeddings, an untied head), when their file stores them as F16
// or BF16 and every value is finite; the loaders (io/model_io.cpp, io/hf_model.cpp) apply it through
// Weight::keeps_as_stored(). Vectors (biases, norms), positions and everything a model builds,
// trains or randomises stay float32. Generation reads every weight once per token, so half the bytes
// is up to half the time, and an opened checkpoint needs half the memory.
//
// A 16-bit Weight's Mat is empty (0 x 0); rows() and cols() still give its shape. The products
// read it through linear() and the tied head (core/layers, core/model); anything that needs its
// floats (a view of the weights, pooled K/V heads, saving, training) widens it: widened() gives a
// float copy, widen() turns it into float32 for good (what Model::named_tensor() and set_tensor(),
// and the trainer, do).
//
// Its values are row-major as the file stored them until Model::pack_weights(), after loading, lays
// them out for the kernel that reads them, so that a decoding step reads each matrix as one
// sequential stream: to_panels() for a linear layer's W (column panels of kernels::kPanel columns,
// kernels/gemm.hpp), to_key_blocks() for the token embeddings (blocks of kernels::kKeyBlock rows,
// the tied head's keys, kernels/attention.hpp). value(), row_into(), widened() and check_finite()
// read any layout and speak of row-major positions; the layout changes no number.
#pragma once
#include <cstdint>
#include <vector>

#include "base/half.hpp"
#include "base/tensor.hpp"
#include "kernels/attention.hpp"
#include "kernels/gemm.hpp"

namespace ap {

enum class Stored : uint8_t { F32, F16, BF16 };
// How a 16-bit Weight's values are laid out (see above).
enum class Layout : uint8_t { RowMajor, Panels, KeyBlocks };

class Weight : public Mat {
 public:
  Weight() = default;
  Weight(Eigen::Index rows, Eigen::Index cols) : Mat(rows, cols) {}
  template <typename Other>
  Weight(const Eigen::MatrixBase<Other>& other) : Mat(other) {}  // NOLINT: a Mat converts, as before
  template <typename Other>
  Weight& operator=(const Eigen::MatrixBase<Other>& other) {
    Mat::operator=(other);
    release_16bit();
    return *this;
  }
  // Float32 zeros of this shape, whatever it held.
  void set_zero(Eigen::Index rows, Eigen::Index cols) {
    Mat::setZero(rows, cols);
    release_16bit();
  }

  // Whether this build keeps 16-bit weights at all: not the first wasm module (AP_FIRST_MODULE),
  // whose size budget the 16-bit kernels would exceed (about 44 KB of its 450) and whose files are
  // the project's small models; the second module, which opens checkpoints, and native builds do.
#if defined(AP_FIRST_MODULE)
  static constexpr bool kKeeps16Bit = false;
#else
  static constexpr bool kKeeps16Bit = true;
#endif
  // The file's dtypes a Weight keeps as stored.
  static constexpr bool keeps_as_stored(Stored dtype) { return kKeeps16Bit && dtype != Stored::F32; }

  Stored stored() const { return kKeeps16Bit ? stored_ : Stored::F32; }
  bool is_16bit() const { return stored() != Stored::F32; }

  Eigen::Index rows() const { return is_16bit() ? rows_ : Mat::rows(); }
  Eigen::Index cols() const { return is_16bit() ? cols_ : Mat::cols(); }
  // Bytes of its values as held (2 or 4 a value).
  size_t bytes() const { return is_16bit() ? 2 * bits_.size() : sizeof(float) * static_cast<size_t>(Mat::size()); }

  // Becomes a 16-bit matrix of this shape, values to be written through bits(); frees the floats.
  void hold_16bit(Stored dtype, Eigen::Index rows, Eigen::Index cols) {
    Mat::resize(0, 0);
    stored_ = dtype;
    rows_ = rows;
    cols_ = cols;
    bits_.assign(static_cast<size_t>(rows * cols), 0);
    bits_.shrink_to_fit();
    layout_ = Layout::RowMajor;
  }
  // The row-major values, for a loader to fill (before to_panels()).
  uint16_t* bits() { return bits_.data(); }
  const uint16_t* bits() const { return bits_.data(); }
  const f16* f16_data() const { return reinterpret_cast<const f16*>(bits_.data()); }
  const bf16* bf16_data() const { return reinterpret_cast<const bf16*>(bits_.data()); }

  // 16-bit row-major values into column panels (kernels::gemm_panels_f16's B), or into key blocks
  // (kernels::qk_scores_blocks_f16's K); nothing to do for float32 or a laid-out Weight.
  void to_panels() { lay_out(Layout::Panels); }
  void to_key_blocks() { lay_out(Layout::KeyBlocks); }
  Layout layout() const { return is_16bit() ? layout_ : Layout::RowMajor; }

  // Value i (row-major) as a float, whatever the storage.
  float value(size_t i) const;
  // Row r, widened, into out (cols() floats).
  void row_into(Eigen::Index r, float* out) const;
  // A float32 copy (the Mat itself when already float32).
  Mat widened() const;
  // Float32 from now on (nothing to do when it is): the view, pooling, saving and training path.
  void widen();
  // Throws ap::Error("<what> contains NaN / Infinity (at element i)") for a value that is not finite.
  void check_finite(const std::string& what) const;

 private:
  void release_16bit() {
    if constexpr (kKeeps16Bit) {
      bits_.clear();
      bits_.shrink_to_fit();
      stored_ = Stored::F32;
      layout_ = Layout::RowMajor;
    }
  }
  void lay_out(Layout to);
  // Where value (r, c) is in bits_.
  size_t index_of(Eigen::Index r, Eigen::Index c) const;

  Stored stored_ = Stored::F32;
  Layout layout_ = Layout::RowMajor;
  Eigen::Index rows_ = 0, cols_ = 0;
  std::vector<uint16_t> bits_;
};

}  // namespace ap
