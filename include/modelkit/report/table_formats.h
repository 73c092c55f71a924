// Tables in the formats other tools read: CSV (RFC 4180 quoting, by libcsv), JSON Lines and GitHub markdown, and a
// perf report as such a table (`perf -f csv|jsonl|md`): an ONNX run as one row, a genai run as one row per timed
// request, a sweep as one row per cell.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace modelkit::report {

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<nlohmann::ordered_json>> rows;  // one value per column; null for unknown
};

// A perf report (ONNX or genai) as rows; the columns are documented in docs/cli.md.
Table ReportTable(const nlohmann::ordered_json& report);

// Header line and one line per row. Strings are quoted (quotes doubled), numbers are written as JSON writes them,
// null is an empty field.
std::string TableCsv(const Table& table);
// One JSON object per row, keys in column order.
std::string TableJsonLines(const Table& table);
// A GitHub markdown table; null is "-".
std::string TableMarkdown(const Table& table);

// One CSV field: `text` quoted, quotes doubled.
std::string CsvQuoted(const std::string& text);

}  // namespace modelkit::report
