// `modelkit report RUN.json... [-o report.html]`: saved perf reports rendered as one self-contained HTML page
// (report/html_report.h); several reports give one page that compares them.
#include <iostream>
#include <memory>

#include "commands.h"
#include "flag_checks.h"
#include "modelkit/base/atomic_file.h"
#include "modelkit/base/error.h"
#include "modelkit/report/html_report.h"
#include "report_files.h"

namespace modelkit::app {
namespace {

struct ReportFlags {
  std::vector<std::string> reports;
  std::string output;  // empty: stdout
  bool overwrite = false;
};

int RunReport(const ReportFlags& flags) {
  std::vector<report::NamedReport> reports;
  for (const std::string& path : flags.reports) reports.push_back(ReadReportFile(path));
  const std::string html = report::HtmlReport(reports);
  if (flags.output.empty()) {
    std::cout << html;
    return 0;
  }
  CheckOutputFile(flags.output, flags.overwrite);
  WriteFileAtomically(flags.output, html, flags.overwrite);
  std::cerr << "Report written to: " << flags.output << "\n";
  return 0;
}

}  // namespace

void RegisterReportCommand(CLI::App& app, CommandRunner& run) {
  auto flags = std::make_shared<ReportFlags>();
  CLI::App* command = app.add_subcommand(
      "report", "Render saved perf reports as one self-contained HTML page (several: compared on one page)");
  command->add_option("reports", flags->reports, "Report JSON files (modelkit perf -f json or -o)")
      ->required()
      ->expected(1, 64);
  command->add_option("-o,--output", flags->output, "HTML file to write (default: stdout)")->check(NonEmpty());
  command->add_flag("--overwrite", flags->overwrite, "Replace an existing file");
  command->callback([flags, &run] { run = [flags] { return RunReport(*flags); }; });
}

}  // namespace modelkit::app
