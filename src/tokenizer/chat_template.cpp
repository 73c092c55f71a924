// The one translation unit that includes minja (a heavy header).
#include "modelkit/tokenizer/chat_template.h"

#include <minja/minja.hpp>
#include <regex>

#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "modelkit/base/isolated_call.h"

namespace modelkit::tokenizer {

struct ChatTemplate::Impl {
  std::shared_ptr<minja::TemplateNode> root;
  std::string bos_token;
  std::string eos_token;
  std::string where;
};

namespace {

std::string TokenText(const nlohmann::ordered_json& config, const char* key) {
  if (!config.contains(key)) return "";
  const auto& value = config[key];
  if (value.is_string()) return value.get<std::string>();
  if (value.is_object() && value.contains("content") && value["content"].is_string()) {
    return value["content"].get<std::string>();
  }
  return "";
}

// minja's error is "what at row R, column C:" followed by lines quoting the template with a caret under the spot
// (repeated for each enclosing node); the first line says it all. Errors of the C++ library a template provokes
// are put in the template's terms.
std::string TemplateErrorText(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == ':')) line.pop_back();
  static const std::regex kRangeCheck(
      R"(vector::_M_range_check: __n \(which is (\d+)\) >= this->size\(\) \(which is (\d+)\))");
  line = std::regex_replace(line, kRangeCheck, "index $1 is out of range (the list has $2 items)");
  return line;
}

// Bounds on rendering one chat template (see Render); documented in docs/tokenizers.md.
const IsolationLimits kRenderLimits{
    .time = std::chrono::seconds(5), .extra_memory = size_t{1} << 30, .output_bytes = size_t{16} << 20};

}  // namespace

ChatTemplate ChatTemplate::Load(const std::filesystem::path& directory) {
  std::error_code error;
  if (!std::filesystem::is_directory(directory, error)) {
    throw UsageError("tokenizer directory '" + directory.string() + "' does not exist or is not a directory");
  }
  const std::filesystem::path config_path = directory / "tokenizer_config.json";
  nlohmann::ordered_json config = nlohmann::ordered_json::object();
  if (std::filesystem::exists(config_path, error)) {
    try {
      config = nlohmann::ordered_json::parse(ReadTextFile(config_path, "tokenizer config file"));
    } catch (const nlohmann::json::parse_error& e) {
      throw Error(ExitCode::kInvalidModel, "invalid tokenizer file " + config_path.string() + ": malformed JSON (" +
                                               std::string(e.what()) + ")");
    }
  }
  const std::filesystem::path jinja_path = directory / "chat_template.jinja";
  std::string source, where;
  if (std::filesystem::exists(jinja_path, error)) {
    source = ReadTextFile(jinja_path, "chat template");
    where = jinja_path.string();
  } else if (config.contains("chat_template") && config["chat_template"].is_string()) {
    source = config["chat_template"].get<std::string>();
    where = config_path.string() + " at $.chat_template";
  } else if (config.contains("chat_template") && config["chat_template"].is_array()) {
    for (const auto& entry : config["chat_template"]) {
      if (entry.value("name", "") == "default") source = entry.value("template", "");
    }
    where = config_path.string() + " at $.chat_template (default)";
  }
  if (source.empty()) {
    throw UsageError("no chat template in '" + directory.string() +
                     "' (expected chat_template.jinja or chat_template in tokenizer_config.json)");
  }
  return ChatTemplate(source, TokenText(config, "bos_token"), TokenText(config, "eos_token"), where);
}

ChatTemplate::ChatTemplate(const std::string& source, const std::string& bos_token, const std::string& eos_token,
                           const std::string& where) {
  auto impl = std::make_shared<Impl>();
  impl->where = where;
  impl->bos_token = bos_token;
  impl->eos_token = eos_token;
  // Hugging Face renders with trim_blocks and lstrip_blocks. minja's own chat_template wrapper is not used: it
  // probes the template with tool-call examples (printing to stderr) and rewrites messages (polyfills).
  const minja::Options options{.trim_blocks = true, .lstrip_blocks = true, .keep_trailing_newline = false};
  // Parsing is work whose cost the template chooses too (deep nesting parses in quadratic time and recurses): it is
  // tried in a child within kRenderLimits first, and done here only once it is known to end well.
  const IsolatedResult tried = RunIsolated(
      [&] {
        minja::Parser::parse(source, options);
        return std::string();
      },
      kRenderLimits);
  if (tried.outcome == IsolatedOutcome::kThrew) {
    throw Error(ExitCode::kInvalidModel,
                "chat template in " + where + " does not parse: " + TemplateErrorText(tried.value));
  }
  if (tried.outcome != IsolatedOutcome::kReturned) {
    throw Error(ExitCode::kInvalidModel, "chat template in " + where + " cannot be parsed within the limits: " +
                                             TemplateErrorText(DescribeIsolatedFailure(tried, kRenderLimits)));
  }
  impl->root = minja::Parser::parse(source, options);
  impl_ = std::move(impl);
}

std::string ChatTemplate::Render(const nlohmann::ordered_json& messages, bool add_generation_prompt,
                                 const nlohmann::ordered_json& extra_context) const {
  if (!messages.is_array()) throw UsageError("chat messages must be a JSON array of {\"role\", \"content\"} objects");
  // Templates read messages[0]; Jinja2 makes that undefined for an empty list, minja fails with a range error.
  if (messages.empty()) throw UsageError("chat messages are empty: give at least one {\"role\", \"content\"} message");
  // A template is a program: its author chooses how deep it recurses, how long it loops and how much it builds. It
  // runs in a child process within kRenderLimits, so a hostile or broken one ends in an error, never in a crash, a
  // hang or an exhausted machine. Real templates render in milliseconds with output in kilobytes.
  const IsolatedResult result = RunIsolated(
      [&] {
        const auto context = minja::Context::make(minja::Value(
            nlohmann::ordered_json{{"messages", messages}, {"add_generation_prompt", add_generation_prompt}}));
        context->set("bos_token", impl_->bos_token);
        context->set("eos_token", impl_->eos_token);
        if (extra_context.is_object()) {
          for (const auto& [key, value] : extra_context.items()) context->set(key, minja::Value(value));
        }
        return impl_->root->render(context);
      },
      kRenderLimits);
  if (result.outcome != IsolatedOutcome::kReturned) {
    std::string reason = TemplateErrorText(DescribeIsolatedFailure(result, kRenderLimits));
    // minja reports an allocation failure as "std::bad_alloc at row R, column C: ..."; say what it means.
    if (reason.rfind("std::bad_alloc", 0) == 0) {
      reason.replace(0, std::string("std::bad_alloc").size(),
                     "ran out of memory (more than " + std::to_string(kRenderLimits.extra_memory >> 20) + " MiB)");
    }
    throw Error(ExitCode::kInvalidModel, "chat template in " + impl_->where + " failed: " + reason);
  }
  return result.value;
}

}  // namespace modelkit::tokenizer
