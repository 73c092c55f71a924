#include "modelkit/report/table_formats.h"

#include <csv.h>

#include <sstream>

#include "modelkit/report/stats.h"

namespace modelkit::report {
namespace {

using nlohmann::ordered_json;

const ordered_json& At(const ordered_json& object, const char* pointer) {
  static const ordered_json kNull;
  const ordered_json::json_pointer at(pointer);
  return object.contains(at) ? object.at(at) : kNull;
}

const std::vector<std::string> kOnnxColumns = {"model",   "ep",     "device", "batch",          "iterations",
                                               "mean_ns", "p50_ns", "p90_ns", "p95_ns",         "p99_ns",
                                               "min_ns",  "max_ns", "std_ns", "samples_per_sec"};

// A batch sweep: a row per batch size.
Table OnnxSweepTable(const ordered_json& report) {
  Table table{kOnnxColumns, {}};
  for (const ordered_json& cell : At(report, "/sweep")) {
    std::vector<ordered_json> row = {At(report, "/benchmark_info/running_model_path"), At(report, "/benchmark_info/ep"),
                                     At(report, "/benchmark_info/resolved_device"), At(cell, "/effective_batch_size"),
                                     At(report, "/benchmark_info/iterations")};
    for (const char* field :
         {"/latency_ns/mean", "/latency_ns/p50", "/latency_ns/p90", "/latency_ns/p95", "/latency_ns/p99",
          "/latency_ns/min", "/latency_ns/max", "/latency_ns/std", "/throughput/samples_per_sec"}) {
      row.push_back(At(cell, field));
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

Table OnnxTable(const ordered_json& report) {
  if (report.contains("sweep")) return OnnxSweepTable(report);
  Table table{kOnnxColumns, {}};
  const bool has_ns = report.contains("latency_ns");
  auto latency = [&](const char* field) -> ordered_json {
    if (has_ns) return report.at("latency_ns").at(field);
    const ordered_json& ms = At(report, (std::string("/latency_ms/") + field).c_str());
    return ms.is_number() ? ordered_json(RoundTo(ms.get<double>() * 1e6, 1)) : ordered_json(nullptr);
  };
  table.rows.push_back({At(report, "/benchmark_info/running_model_path"), At(report, "/benchmark_info/ep"),
                        At(report, "/benchmark_info/resolved_device"),
                        At(report, "/benchmark_info/effective_batch_size"), At(report, "/benchmark_info/iterations"),
                        latency("mean"), latency("p50"), latency("p90"), latency("p95"), latency("p99"), latency("min"),
                        latency("max"), latency("std"), At(report, "/throughput/samples_per_sec")});
  return table;
}

Table SweepTable(const ordered_json& report) {
  Table table;
  table.columns = {
      "bundle",  "ep",      "device", "prompt_tokens", "gen_tokens", "pp_tokens_per_second", "tg_tokens_per_second",
      "ttft_ms", "requests"};
  for (const ordered_json& cell : At(report, "/sweep")) {
    size_t timed = 0;
    for (const ordered_json& request : At(cell, "/requests")) timed += request.value("kind", "") == "timed";
    table.rows.push_back({At(report, "/benchmark_info/bundle_dir"), At(report, "/benchmark_info/ep"),
                          At(report, "/benchmark_info/effective_device"), At(cell, "/prompt_tokens"),
                          At(cell, "/gen_tokens"), At(cell, "/pp_tokens_per_second"), At(cell, "/tg_tokens_per_second"),
                          At(cell, "/ttft_ms"), timed});
  }
  return table;
}

Table GenaiTable(const ordered_json& report) {
  Table table;
  table.columns = {"bundle",
                   "ep",
                   "device",
                   "request",
                   "prompt_tokens",
                   "generated_tokens",
                   "ttft_ms",
                   "prefill_ms",
                   "prefill_tokens_per_second",
                   "decode_tokens_per_second",
                   "tpot_ms",
                   "request_ms"};
  for (const ordered_json& request : At(report, "/requests")) {
    if (request.value("kind", "") != "timed") continue;
    table.rows.push_back(
        {At(report, "/benchmark_info/bundle_dir"), At(report, "/benchmark_info/ep"),
         At(report, "/benchmark_info/effective_device"), At(request, "/index"), At(request, "/prompt_tokens"),
         At(request, "/generated_tokens"), At(request, "/model_ttft_duration_ms"), At(request, "/prefill_duration_ms"),
         At(request, "/prefill_tokens_per_second"), At(request, "/steady_state_decode_tokens_per_second"),
         At(request, "/steady_state_tpot_ms"), At(request, "/request_duration_ms")});
  }
  return table;
}

std::string CsvValue(const ordered_json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return CsvQuoted(value.get<std::string>());
  return value.dump();
}

std::string MarkdownCell(const ordered_json& value) {
  if (value.is_null()) return "-";
  std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  std::string escaped;
  for (char c : text) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
  return escaped;
}

}  // namespace

Table ReportTable(const ordered_json& report) {
  if (At(report, "/benchmark_info/runtime") != "genai") return OnnxTable(report);
  return report.contains("sweep") ? SweepTable(report) : GenaiTable(report);
}

std::string CsvQuoted(const std::string& text) {
  std::string out(text.size() * 2 + 2, '\0');
  out.resize(csv_write(out.data(), out.size(), text.data(), text.size()));
  return out;
}

std::string TableCsv(const Table& table) {
  std::ostringstream out;
  for (size_t c = 0; c < table.columns.size(); ++c) out << (c ? "," : "") << table.columns[c];
  out << "\n";
  for (const auto& row : table.rows) {
    for (size_t c = 0; c < row.size(); ++c) out << (c ? "," : "") << CsvValue(row[c]);
    out << "\n";
  }
  return out.str();
}

std::string TableJsonLines(const Table& table) {
  std::ostringstream out;
  for (const auto& row : table.rows) {
    ordered_json object = ordered_json::object();
    for (size_t c = 0; c < row.size(); ++c) object[table.columns[c]] = row[c];
    out << object.dump() << "\n";
  }
  return out.str();
}

std::string TableMarkdown(const Table& table) {
  std::ostringstream out;
  out << "|";
  for (const std::string& column : table.columns) out << " " << column << " |";
  out << "\n|";
  for (size_t c = 0; c < table.columns.size(); ++c) out << "---|";
  out << "\n";
  for (const auto& row : table.rows) {
    out << "|";
    for (const ordered_json& value : row) out << " " << MarkdownCell(value) << " |";
    out << "\n";
  }
  return out.str();
}

}  // namespace modelkit::report
