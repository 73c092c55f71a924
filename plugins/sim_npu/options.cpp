#include "options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

namespace sim_npu {
namespace {

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

std::set<std::string> SplitList(const std::string& text) {
  std::set<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) items.insert(item);
    start = end + 1;
  }
  return items;
}

class OptionReader {
 public:
  OptionReader(const std::string& ep_name, Ort::ConstSessionOptions options)
      : lower_prefix_("ep." + Lower(ep_name) + "."), exact_prefix_("ep." + ep_name + "."), options_(options) {}

  std::optional<std::string> Get(const std::string& key) const {
    for (const std::string& full : {lower_prefix_ + key, exact_prefix_ + key}) {
      if (options_.HasConfigEntry(full.c_str())) return options_.GetConfigEntry(full.c_str());
    }
    return std::nullopt;
  }

  int GetInt(const std::string& key, int fallback) const {
    const std::optional<std::string> text = Get(key);
    if (!text) return fallback;
    int value = 0;
    const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (error != std::errc() || end != text->data() + text->size() || value < 0) {
      throw Ort::Exception(lower_prefix_ + key + " must be a non-negative integer, got '" + *text + "'",
                           ORT_INVALID_ARGUMENT);
    }
    return value;
  }

  bool GetFlag(const std::string& key) const {
    const std::optional<std::string> text = Get(key);
    if (!text || *text == "0" || *text == "false") return false;
    if (*text == "1" || *text == "true") return true;
    throw Ort::Exception(lower_prefix_ + key + " must be 0 or 1, got '" + *text + "'", ORT_INVALID_ARGUMENT);
  }

 private:
  std::string lower_prefix_;
  std::string exact_prefix_;
  Ort::ConstSessionOptions options_;
};

}  // namespace

SimNpuOptions ReadOptions(const std::string& ep_name, Ort::ConstSessionOptions session_options) {
  const OptionReader reader(ep_name, session_options);
  SimNpuOptions options;
  if (const auto device_type = reader.Get("device_type")) {
    if (Lower(*device_type) != "npu") {
      throw Ort::Exception(ep_name + ": device_type '" + *device_type + "' is not supported; this EP offers only NPU",
                           ORT_INVALID_ARGUMENT);
    }
    options.device_type = "NPU";
  }
  options.compile_delay_ms = reader.GetInt("compile_delay_ms", 0);
  options.run_delay_percent = reader.GetInt("run_delay_percent", 0);
  options.fail_compile = reader.GetFlag("fail_compile");
  options.crash_compile = reader.GetFlag("crash_compile");
  options.crash_at_exit = reader.GetFlag("crash_at_exit");
  if (const auto allow = reader.Get("op_allow")) options.op_allow = SplitList(*allow);
  if (const auto deny = reader.Get("op_deny")) options.op_deny = SplitList(*deny);
  options.static_shapes = reader.GetFlag("static_shapes");

  options.context_enable = session_options.GetConfigEntryOrDefault("ep.context_enable", "0") == "1";
  options.context_embed = session_options.GetConfigEntryOrDefault("ep.context_embed_mode", "0") == "1";
  options.context_file_path = session_options.GetConfigEntryOrDefault("ep.context_file_path", "");
  options.compile_only = session_options.GetConfigEntryOrDefault("session.compile_only", "0") == "1";
  return options;
}

}  // namespace sim_npu
