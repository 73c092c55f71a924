#include "support/cli.h"

#include <algorithm>
#include <utility>

#include <gtest/gtest.h>

namespace modelkit::test {

std::unique_ptr<ChildProcess> StartModelkit(std::vector<std::string> args,
                                            const std::map<std::string, std::string>& env) {
  args.insert(args.begin(), MODELKIT_BINARY);
  std::map<std::string, std::string> clean_env = {{"MODELKIT_EP_LIBRARIES", ""}, {"MODELKIT_EP_CATALOG", "none"}};
  for (const auto& [key, value] : env) clean_env[key] = value;
  return std::make_unique<ChildProcess>(args, clean_env);
}

ProcessResult RunModelkit(std::vector<std::string> args, const std::map<std::string, std::string>& env) {
  return StartModelkit(std::move(args), env)->Finish();
}

void ExpectErrorLine(const ProcessResult& result, int exit_code, const std::string& fragment) {
  EXPECT_EQ(result.exit_code, exit_code) << result.stderr_text;
  EXPECT_EQ(result.stderr_text.rfind("error: ", 0), 0u) << result.stderr_text;
  EXPECT_EQ(std::count(result.stderr_text.begin(), result.stderr_text.end(), '\n'), 1) << result.stderr_text;
  EXPECT_NE(result.stderr_text.find(fragment), std::string::npos) << result.stderr_text;
  EXPECT_EQ(result.stdout_text, "");
}

}  // namespace modelkit::test
