// Loads the PyTorch golden values of tests/fixtures/torch/ (made by tests/reference/make_fixtures.py)
// and compares a stage to them: max |ours - torch| / max(1, |torch|) <= tol, reporting the worst.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "base/tensor.hpp"

namespace fixture {

using json = nlohmann::json;

inline json load(const std::string& name) {
  std::ifstream f(std::string(AP_FIXTURES_DIR) + "/" + name);
  if (!f) throw std::runtime_error("cannot open fixture " + name);
  return json::parse(f);
}

struct Tensor {
  std::vector<int> shape;
  std::vector<float> data;  // null in the file (-inf in "masked") becomes -infinity
};

inline Tensor tensor(const json& t) {
  Tensor out;
  out.shape = t.at("shape").get<std::vector<int>>();
  for (const auto& v : t.at("data"))
    out.data.push_back(v.is_null() ? -std::numeric_limits<float>::infinity() : v.get<float>());
  return out;
}

inline ap::Mat mat(const json& t) {
  Tensor x = tensor(t);
  const int rows = x.shape.size() == 1 ? 1 : x.shape[0];
  const int cols = x.shape.size() == 1 ? x.shape[0] : x.shape[1];
  return ap::CMatMap(x.data.data(), rows, cols);
}

inline ap::Vec vec(const json& t) {
  Tensor x = tensor(t);
  return Eigen::Map<const ap::Vec>(x.data.data(), static_cast<Eigen::Index>(x.data.size()));
}

// Largest relative difference seen by any comparison, reported at the end of the run.
inline double& worst() {
  static double w = 0.0;
  return w;
}

inline ::testing::AssertionResult close(const float* ours, size_t n, const Tensor& want, const std::string& what,
                                        double tol = 1e-5) {
  if (n != want.data.size())
    return ::testing::AssertionFailure() << what << ": size " << n << " vs fixture " << want.data.size();
  double max_rel = 0.0;
  size_t at = 0;
  for (size_t i = 0; i < n; ++i) {
    const double a = ours[i], b = want.data[i];
    if (std::isinf(b) || std::isinf(a)) {
      if (a != b) return ::testing::AssertionFailure() << what << "[" << i << "] = " << a << ", fixture " << b;
      continue;
    }
    const double rel = std::abs(a - b) / std::max(1.0, std::abs(b));
    if (!(rel <= max_rel)) {
      max_rel = rel;
      at = i;
    }
  }
  worst() = std::max(worst(), max_rel);
  if (max_rel > tol || std::isnan(max_rel))
    return ::testing::AssertionFailure() << what << ": max relative difference " << max_rel << " at index " << at
                                         << " (ours " << ours[at] << ", torch " << want.data[at] << ")";
  return ::testing::AssertionSuccess() << what << ": max relative difference " << max_rel;
}

}  // namespace fixture
