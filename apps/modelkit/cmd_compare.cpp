// `modelkit compare BASELINE.json CANDIDATE.json...`: saved perf reports side by side (report/compare.h), as an
// aligned table, markdown, CSV or JSON. Reports whose settings differ are compared anyway, with a warning naming
// each difference.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "flag_checks.h"
#include "modelkit/base/error.h"
#include "modelkit/report/compare.h"
#include "report_files.h"

namespace modelkit::app {
namespace {

struct CompareFlags {
  std::vector<std::string> reports;
  std::string format = "text";
};

int RunCompare(const CompareFlags& flags) {
  std::vector<report::NamedReport> reports;
  for (const std::string& path : flags.reports) reports.push_back(ReadReportFile(path));
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
