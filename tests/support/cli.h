// Running the built modelkit binary in CLI contract tests.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "support/process.h"

namespace modelkit::test {

// Runs modelkit with `args`, without the caller's plugin EP variables and with catalogs off (MODELKIT_EP_CATALOG=none,
// so the machine is exactly what ORT offers), plus `env`.
ProcessResult RunModelkit(std::vector<std::string> args, const std::map<std::string, std::string>& env = {});

// Starts modelkit as RunModelkit does, without waiting for it (tests that act while it runs).
std::unique_ptr<ChildProcess> StartModelkit(std::vector<std::string> args,
                                            const std::map<std::string, std::string>& env = {});

// The contract for every failure: exit code `exit_code`, exactly one stderr line starting "error: " that contains
// `fragment`, and nothing on stdout.
void ExpectErrorLine(const ProcessResult& result, int exit_code, const std::string& fragment);

// `warnings` without the ones about the machine rather than the run (a busy machine, the CPU frequency governor):
// those depend on whatever else runs while the tests do.
std::vector<std::string> RunWarnings(const std::vector<std::string>& warnings);
// `stderr_text` without the "warning: " lines about the machine (as RunWarnings).
std::string WithoutMachineWarnings(const std::string& stderr_text);

}  // namespace modelkit::test
