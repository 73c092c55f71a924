#include "modelkit/report/table_formats.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace modelkit::report {
namespace {

using nlohmann::ordered_json;

TEST(TableFormats, CsvQuotesStringsAndLeavesNullEmpty) {
  Table table{{"name", "value", "missing"}, {{"a, \"b\"", 1.5, nullptr}, {"plain", 2, nullptr}}};
  EXPECT_EQ(TableCsv(table), "name,value,missing\n\"a, \"\"b\"\"\",1.5,\n\"plain\",2,\n");
}

TEST(TableFormats, JsonLinesKeepColumnOrder) {
  Table table{{"z", "a"}, {{1, "x"}, {2, nullptr}}};
  EXPECT_EQ(TableJsonLines(table), "{\"z\":1,\"a\":\"x\"}\n{\"z\":2,\"a\":null}\n");
}

TEST(TableFormats, MarkdownEscapesPipesAndShowsNullAsDash) {
  Table table{{"name", "value"}, {{"a|b", nullptr}}};
  EXPECT_EQ(TableMarkdown(table), "| name | value |\n|---|---|\n| a\\|b | - |\n");
}

TEST(TableFormats, AnOnnxReportIsOneRowInNanoseconds) {
  const ordered_json report = {{"benchmark_info",
                                {{"runtime", "onnx"},
                                 {"running_model_path", "/m.onnx"},
                                 {"ep", "CPUExecutionProvider"},
                                 {"resolved_device", "cpu"},
                                 {"effective_batch_size", 4},
                                 {"iterations", 10}}},
                               {"latency_ms", {{"mean", 0.004}, {"p50", 0.004}}},
                               {"throughput", {{"samples_per_sec", 1000.5}}},
                               {"latency_ns",
                                {{"mean", 3923.2},
                                 {"p50", 3805.0},
                                 {"p90", 4410.0},
                                 {"p95", 4410.0},
                                 {"p99", 4410.0},
                                 {"min", 3790.0},
                                 {"max", 4410.0},
                                 {"std", 243.5}}}};
  const Table table = ReportTable(report);
  ASSERT_EQ(table.rows.size(), 1u);
  EXPECT_EQ(TableJsonLines(table),
            "{\"model\":\"/m.onnx\",\"ep\":\"CPUExecutionProvider\",\"device\":\"cpu\",\"batch\":4,\"iterations\":10,"
            "\"mean_ns\":3923.2,\"p50_ns\":3805.0,\"p90_ns\":4410.0,\"p95_ns\":4410.0,\"p99_ns\":4410.0,"
            "\"min_ns\":3790.0,\"max_ns\":4410.0,\"std_ns\":243.5,\"samples_per_sec\":1000.5}\n");
  // A report from before latency_ns: the ms figures in ns.
  ordered_json older = report;
  older.erase("latency_ns");
  EXPECT_EQ(ReportTable(older).rows[0][6], 4000.0);
}

TEST(TableFormats, AGenaiReportIsOneRowPerTimedRequest) {
  ordered_json requests = ordered_json::array();
  requests.push_back({{"kind", "warmup"}, {"index", 0}});
  for (int i = 0; i < 3; ++i) {
    requests.push_back({{"kind", "timed"},
                        {"index", i},
                        {"prompt_tokens", 10},
                        {"generated_tokens", 5},
                        {"model_ttft_duration_ms", 20.0 + i}});
  }
  const ordered_json report = {
      {"benchmark_info", {{"runtime", "genai"}, {"bundle_dir", "/b"}, {"ep", "config"}, {"effective_device", "npu"}}},
      {"requests", requests}};
  const Table table = ReportTable(report);
  ASSERT_EQ(table.rows.size(), 3u);
  EXPECT_EQ(table.columns[6], "ttft_ms");
  EXPECT_EQ(table.rows[2][3], 2);     // request index
  EXPECT_EQ(table.rows[2][6], 22.0);  // its TTFT
  EXPECT_TRUE(table.rows[2][7].is_null()) << "absent fields are null";
}

TEST(TableFormats, ASweepIsOneRowPerCell) {
  const ordered_json report = {
      {"benchmark_info", {{"runtime", "genai"}, {"bundle_dir", "/b"}, {"ep", "cpu"}, {"effective_device", "cpu"}}},
      {"sweep",
       {{{"prompt_tokens", 128},
         {"gen_tokens", 32},
         {"pp_tokens_per_second", 900.5},
         {"tg_tokens_per_second", 50.25},
         {"ttft_ms", 140.0},
         {"requests", {{{"kind", "warmup"}}, {{"kind", "timed"}}, {{"kind", "timed"}}}}}}}};
  EXPECT_EQ(TableCsv(ReportTable(report)),
            "bundle,ep,device,prompt_tokens,gen_tokens,pp_tokens_per_second,tg_tokens_per_second,ttft_ms,requests\n"
            "\"/b\",\"cpu\",\"cpu\",128,32,900.5,50.25,140.0,2\n");
}

}  // namespace
}  // namespace modelkit::report
