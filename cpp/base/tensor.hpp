// Basic types shared by the whole core: row-major float matrices (so a buffer maps to a JS
// Float32Array without transposes), and the error helper (base/error.hpp) beside them.
#pragma once
#include <Eigen/Dense>

#include "base/error.hpp"

namespace ap {

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vec = Eigen::Matrix<float, 1, Eigen::Dynamic, Eigen::RowMajor>;  // a row vector
using MatMap = Eigen::Map<Mat>;
using CMatMap = Eigen::Map<const Mat>;

}  // namespace ap
