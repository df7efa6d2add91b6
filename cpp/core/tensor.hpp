// Basic types shared by the whole core: row-major float matrices (so a buffer maps
// to a JS Float32Array without transposes) and the one exception type every error uses.
#pragma once
#include <Eigen/Dense>
#include <stdexcept>
#include <string>

namespace ap {

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vec = Eigen::Matrix<float, 1, Eigen::Dynamic, Eigen::RowMajor>;  // a row vector
using MatMap = Eigen::Map<Mat>;
using CMatMap = Eigen::Map<const Mat>;

// Every user-facing failure (bad shape, bad file, unknown token...) is an ap::Error.
// The bindings catch it and the JS wrapper rethrows it as a JS Error with the same message.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] inline void fail(const std::string& msg) { throw Error(msg); }

}  // namespace ap
