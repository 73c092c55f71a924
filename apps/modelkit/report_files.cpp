#include "report_files.h"

#include "modelkit/base/error.h"
#include "modelkit/base/files.h"

namespace modelkit::app {

report::NamedReport ReadReportFile(const std::string& path) {
  constexpr size_t kMaxReportBytes = size_t{256} << 20;
  const std::string text = ReadTextFile(path, "report", kMaxReportBytes);
  nlohmann::ordered_json json = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) throw UsageError("report '" + path + "' is not valid JSON");
  return {path, std::move(json)};
}

}  // namespace modelkit::app
