// Command-line options of the training tools (train, train_rnn): "--name value" pairs, each read
// once by get() / num(); finish() refuses whatever is left, so a misspelt option is an error
// rather than silently ignored.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "core/tensor.hpp"

namespace ap::tools {

class Options {
 public:
  // Reads argv. Returns -1 when the tool should go on, else the exit code to return
  // (0 after printing `usage` for -h / --help, 2 after a malformed argument).
  int parse(int argc, char** argv, const char* tool, const char* usage) {
    command_ = tool;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "-h" || a == "--help") {
        std::fputs(usage, stdout);
        return 0;
      }
      if (a.rfind("--", 0) != 0 || i + 1 >= argc) {
        std::fprintf(stderr, "bad argument \"%s\"\n%s", a.c_str(), usage);
        return 2;
      }
      command_ += " " + a + " " + argv[i + 1];
      opt_[a.substr(2)] = argv[++i];
    }
    return -1;
  }

  // The value of --key, or `fallback` when it was not given.
  std::string get(const char* key, const std::string& fallback) {
    const auto it = opt_.find(key);
    if (it == opt_.end()) return fallback;
    std::string v = it->second;
    opt_.erase(it);
    return v;
  }

  // --key as a number (an error names the option when it is not one).
  double num(const char* key, double fallback) {
    const std::string v = get(key, "");
    if (v.empty()) return fallback;
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (*end != '\0') fail(std::string("--") + key + " expects a number, got \"" + v + "\"");
    return x;
  }

  // Every option must have been read.
  void finish() const {
    if (!opt_.empty()) fail("unknown option --" + opt_.begin()->first);
  }

  // The command line as typed (kept in the model file's metadata).
  const std::string& command() const { return command_; }

 private:
  std::map<std::string, std::string> opt_;
  std::string command_;
};

}  // namespace ap::tools
