// Running a program as a child process and capturing what it prints, for CLI contract tests.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace modelkit::test {

struct ProcessResult {
  int exit_code = -1;  // 128 + signal number when killed by a signal
  std::string stdout_text;
  std::string stderr_text;
};

// Runs `argv` (argv[0] is the program path) with extra environment variables set (an empty value unsets one),
// waiting for it to finish. Aborts the test on failure to start.
ProcessResult RunProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {});

// Path of a file under tests/fixtures.
std::string FixturePath(const std::string& relative);

}  // namespace modelkit::test
