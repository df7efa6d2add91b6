// The one exception type every error uses. Every user-facing failure (bad shape, bad file, unknown
// token...) is an ap::Error; the bindings catch it and the JS wrapper rethrows it as a JS Error with
// the same message.
#pragma once
#include <stdexcept>
#include <string>

namespace ap {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] inline void fail(const std::string& msg) { throw Error(msg); }

}  // namespace ap
