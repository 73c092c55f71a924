// ONNX Runtime's log, routed through modelkit instead of ORT's own console sink (which colours its lines and
// prints whether or not anyone asked). Warnings are kept for the run's report; what ORT says is echoed only when a
// front end asks for it (-v). Errors reach the user as modelkit errors carrying ORT's message, not as log lines.
#pragma once

#include <onnxruntime_c_api.h>

#include <functional>
#include <string>
#include <vector>

namespace modelkit::ort {

// The logging function SharedEnv() installs.
void LogFromOrt(void* param, OrtLoggingLevel severity, const char* category, const char* logid,
                const char* code_location, const char* message);

// Echoes every ORT log line of warning severity and above, as "ONNX Runtime warning: ..." with no colour, to
// `echo` (empty: none, the default). Not thread-safe against ORT logging: set it before sessions are made.
void SetOrtLogEcho(std::function<void(const std::string& line)> echo);

// The warnings ORT logged since the last call, oldest first, each once, at most 20; clears them. Warnings that a
// modelkit report states better are left out: node assignment (the report's placement says which nodes went where),
// and notes about settings modelkit itself makes.
std::vector<std::string> TakeOrtWarnings();

}  // namespace modelkit::ort
