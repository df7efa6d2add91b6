// The training tools' command line as they record it in a model file (train_command): an argument
// with a space or a quote is written in shell single quotes, so that a shell running the recorded
// command passes the tool the same arguments (the page's --description and --example have spaces).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tools/options.hpp"

namespace {

std::string recorded(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  ap::tools::Options opt;
  EXPECT_EQ(opt.parse(static_cast<int>(argv.size()), argv.data(), "train", ""), -1);
  return opt.command();
}

}  // namespace

TEST(TrainOptions, PlainValuesAreRecordedAsTyped) {
  EXPECT_EQ(recorded({"train", "--task", "sort", "--lr", "2e-3", "--out", "web/models/sort.safetensors"}),
            "train --task sort --lr 2e-3 --out web/models/sort.safetensors");
}

TEST(TrainOptions, AValueWithASpaceOrAQuoteIsSingleQuoted) {
  // Written out by hand as bash reads it back: 'it'\''s' is the three pieces it, \' and s.
  EXPECT_EQ(
      recorded({"train", "--example", "3 March 1999", "--description", "it's \"=\" {n_layers}", "--prompt", "the"}),
      "train --example '3 March 1999' --description 'it'\\''s \"=\" {n_layers}' --prompt the");
}

TEST(TrainOptions, AnEmptyValueIsRecordedAsTwoQuotes) {
  EXPECT_EQ(recorded({"train", "--init", ""}), "train --init ''");
}
