#include "support/cli.h"

#include <algorithm>
#include <sstream>
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

namespace {
bool AboutTheMachine(const std::string& warning) {
  return warning.rfind("the machine looks busy", 0) == 0 || warning.rfind("the CPU frequency governor", 0) == 0;
}
}  // namespace

std::vector<std::string> RunWarnings(const std::vector<std::string>& warnings) {
  std::vector<std::string> kept;
  for (const std::string& warning : warnings) {
    if (!AboutTheMachine(warning)) kept.push_back(warning);
  }
  return kept;
}

std::string WithoutMachineWarnings(const std::string& stderr_text) {
  const std::string prefix = "warning: ";
  std::istringstream lines(stderr_text);
  std::string kept;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) == 0 && AboutTheMachine(line.substr(prefix.size()))) continue;
    kept += line + "\n";
  }
  return kept;
}

}  // namespace modelkit::test
