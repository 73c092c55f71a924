// `modelkit compare BASELINE.json CANDIDATE.json...`: saved perf reports side by side (report/compare.h), as an
// aligned table, markdown, CSV or JSON. Reports whose settings differ are compared anyway, with a warning naming
// each difference.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "flag_checks.h"
#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "modelkit/report/compare.h"

namespace modelkit::app {
namespace {

// Raw samples of a million-iteration run take some tens of MB; this bounds what is not a report at all.
constexpr size_t kMaxReportBytes = size_t{256} << 20;

struct CompareFlags {
  std::vector<std::string> reports;
  std::string format = "text";
};

report::NamedReport ReadReport(const std::string& path) {
  const std::string text = ReadTextFile(path, "report", kMaxReportBytes);
  nlohmann::ordered_json json = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) throw UsageError("report '" + path + "' is not valid JSON");
  return {path, std::move(json)};
}

int RunCompare(const CompareFlags& flags) {
  std::vector<report::NamedReport> reports;
  for (const std::string& path : flags.reports) reports.push_back(ReadReport(path));
  const report::CompareResult result = report::CompareReports(reports);
  for (const std::string& warning : result.warnings) std::cerr << "warning: " << warning << "\n";
  if (flags.format == "json") {
    std::cout << report::CompareJson(result).dump(2) << "\n";
  } else if (flags.format == "md") {
    std::cout << report::CompareMarkdown(result);
  } else if (flags.format == "csv") {
    std::cout << report::CompareCsv(result);
  } else {
    std::cout << report::CompareText(result);
  }
  return 0;
}

}  // namespace

void RegisterCompareCommand(CLI::App& app, CommandRunner& run) {
  auto flags = std::make_shared<CompareFlags>();
  CLI::App* command = app.add_subcommand(
      "compare", "Compare saved perf reports: the first is the baseline, each other one a candidate against it");
  command->add_option("reports", flags->reports, "Report JSON files (modelkit perf -f json or -o)")
      ->required()
      ->expected(2, 64);
  command->add_option("-f,--format", flags->format, "text, md, csv or json")
      ->transform(CLI::IsMember({"text", "md", "csv", "json"}, CLI::ignore_case))
      ->capture_default_str();
  command->callback([flags, &run] { run = [flags] { return RunCompare(*flags); }; });
}

}  // namespace modelkit::app
