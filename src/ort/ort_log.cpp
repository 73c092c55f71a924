#include "modelkit/ort/ort_log.h"

#include <algorithm>
#include <array>
#include <mutex>
#include <string_view>
#include <utility>

namespace modelkit::ort {
namespace {

constexpr size_t kMaxKeptWarnings = 20;

// Warnings modelkit reports in its own words, by the code location ORT logs them from.
constexpr std::array<std::string_view, 1> kRestatedLocations = {"VerifyEachNodeIsAssignedToAnEp"};
// Warnings about modelkit's own session settings, which tell a user nothing: ORT re-applies the placement switch
// modelkit sets when it restores EPContext nodes and says it overwrote it.
constexpr std::array<std::string_view, 1> kOwnSettings = {"session.record_ep_graph_assignment_info"};

struct LogState {
  std::mutex mutex;
  std::function<void(const std::string&)> echo;
  std::vector<std::string> warnings;
};

LogState& State() {
  static LogState state;
  return state;
}

const char* SeverityName(OrtLoggingLevel severity) {
  switch (severity) {
    case ORT_LOGGING_LEVEL_VERBOSE:
      return "verbose";
    case ORT_LOGGING_LEVEL_INFO:
      return "info";
    case ORT_LOGGING_LEVEL_WARNING:
      return "warning";
    case ORT_LOGGING_LEVEL_ERROR:
      return "error";
    case ORT_LOGGING_LEVEL_FATAL:
      return "fatal";
  }
  return "log";
}

bool Restated(std::string_view code_location, std::string_view message) {
  auto in = [](std::string_view text) {
    return [text](std::string_view needle) { return text.find(needle) != std::string_view::npos; };
  };
  return std::any_of(kRestatedLocations.begin(), kRestatedLocations.end(), in(code_location)) ||
         std::any_of(kOwnSettings.begin(), kOwnSettings.end(), in(message));
}

}  // namespace

void LogFromOrt(void* /*param*/, OrtLoggingLevel severity, const char* /*category*/, const char* /*logid*/,
                const char* code_location, const char* message) {
  if (severity < ORT_LOGGING_LEVEL_WARNING || message == nullptr) return;
  const std::string text = message;
  LogState& state = State();
  const std::lock_guard lock(state.mutex);
  if (state.echo) state.echo(std::string("ONNX Runtime ") + SeverityName(severity) + ": " + text);
  if (severity != ORT_LOGGING_LEVEL_WARNING || Restated(code_location == nullptr ? "" : code_location, text)) return;
  if (state.warnings.size() < kMaxKeptWarnings &&
      std::find(state.warnings.begin(), state.warnings.end(), text) == state.warnings.end()) {
    state.warnings.push_back(text);
  }
}

void SetOrtLogEcho(std::function<void(const std::string& line)> echo) {
  LogState& state = State();
  const std::lock_guard lock(state.mutex);
  state.echo = std::move(echo);
}

std::vector<std::string> TakeOrtWarnings() {
  LogState& state = State();
  const std::lock_guard lock(state.mutex);
  return std::exchange(state.warnings, {});
}

}  // namespace modelkit::ort
