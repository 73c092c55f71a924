// `modelkit tokenize`: encode text to token ids (or decode ids to text) with a tokenizer directory or a bundle.
#include <nlohmann/json.hpp>

#include <iostream>
#include <iterator>

#include "commands.h"
#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "modelkit/base/strings.h"
#include "modelkit/tokenizer/chat_template.h"
#include "modelkit/tokenizer/tokenizer.h"
#include "token_id_list.h"

namespace modelkit::app {
namespace {

struct TokenizeOptions {
  std::string tokenizer_dir;
  std::string bundle_dir;
  std::string text;
  std::string file;
  std::string decode;
  std::string chat;
  bool add_generation_prompt = false;
  bool add_special_tokens = false;
  bool skip_special_tokens = false;
  std::string format = "text";
};

std::string InputText(const TokenizeOptions& options) {
  if (!options.file.empty()) return ReadTextFile(options.file, "input text file", kMaxPromptFileBytes);
  if (!options.text.empty()) return options.text;
  return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
}

// Renders the chat template for the messages array in `path`; prints the prompt (json: prompt and its ids).
int RunChat(const TokenizeOptions& options, const std::string& directory) {
  const tokenizer::ChatTemplate chat = tokenizer::ChatTemplate::Load(directory);
  nlohmann::ordered_json messages;
  try {
    messages = nlohmann::ordered_json::parse(ReadTextFile(options.chat, "chat messages file", kMaxPromptFileBytes));
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError("--chat file '" + options.chat + "' is not valid JSON (byte " + std::to_string(e.byte) + ")");
  }
  if (messages.is_object() && messages.contains("messages")) messages = messages["messages"];
  if (!messages.is_array() || messages.empty()) {
    throw UsageError("--chat file '" + options.chat + "' must hold a non-empty JSON array of {\"role\", \"content\"} " +
                     "messages");
  }
  const std::string prompt = chat.Render(messages, options.add_generation_prompt);
  if (options.format == "json") {
    const tokenizer::Tokenizer tokenizer = tokenizer::Tokenizer::Load(directory);
    std::cout << nlohmann::json{{"text", prompt}, {"ids", tokenizer.Encode(prompt, options.add_special_tokens)}}.dump(2)
              << "\n";
  } else {
    std::cout << prompt;
  }
  return 0;
}

int RunTokenize(const TokenizeOptions& options) {
  const std::string directory = options.tokenizer_dir.empty() ? options.bundle_dir : options.tokenizer_dir;
  if (!options.chat.empty()) return RunChat(options, directory);
  const tokenizer::Tokenizer tokenizer = tokenizer::Tokenizer::Load(directory);
  const bool json = options.format == "json";
  if (!options.decode.empty()) {
    const std::vector<int32_t> ids = ParseTokenIdList(options.decode, "--decode");
    const std::string text = tokenizer.Decode(
        ids, {.skip_special_tokens = options.skip_special_tokens, .clean_up_tokenization_spaces = std::nullopt});
    if (json) {
      std::cout << nlohmann::json{{"ids", ids}, {"text", text}}.dump(2) << "\n";
    } else {
      std::cout << text << "\n";
    }
    return 0;
  }
  const std::string input = InputText(options);
  if (json) {
    const tokenizer::Encoding encoding = tokenizer.EncodeWithOffsets(input, options.add_special_tokens);
    nlohmann::json tokens = nlohmann::json::array();
    for (const int32_t id : encoding.ids) tokens.push_back(std::string(tokenizer.IdToToken(id).value_or("")));
    // [begin, end) byte offsets into the UTF-8 input (not character offsets); {0, 0} for post-processor tokens.
    nlohmann::json offsets = nlohmann::json::array();
    for (const tokenizer::TokenOffset& offset : encoding.offsets) offsets.push_back({offset.begin, offset.end});
    // Token strings may hold bytes of a partial character only in byte-fallback vocabularies; replace, never fail.
    std::cout << nlohmann::json{{"ids", encoding.ids}, {"tokens", tokens}, {"byte_offsets", offsets}}.dump(
                     2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
    return 0;
  }
  const std::vector<int32_t> ids = tokenizer.Encode(input, options.add_special_tokens);
  {
    std::vector<std::string> parts;
    parts.reserve(ids.size());
    for (const int32_t id : ids) parts.push_back(std::to_string(id));
    std::cout << Join(parts, " ") << "\n";
  }
  return 0;
}

}  // namespace

void RegisterTokenizeCommand(CLI::App& app, CommandRunner& run) {
  auto options = std::make_shared<TokenizeOptions>();
  CLI::App* command =
      app.add_subcommand("tokenize", "Encode text to token ids, or decode ids, with a model's tokenizer");
  CLI::Option* tokenizer_option = command->add_option("--tokenizer", options->tokenizer_dir,
                                                      "Directory with tokenizer.json (+ tokenizer_config.json)");
  CLI::Option* bundle_option = command->add_option("-m,--model", options->bundle_dir, "Genai bundle directory");
  tokenizer_option->excludes(bundle_option);
  CLI::Option* text_option = command->add_option("--text", options->text, "Text to encode (default: read stdin)");
  CLI::Option* file_option = command->add_option("--file", options->file, "File whose UTF-8 text to encode");
  text_option->excludes(file_option);
  CLI::Option* decode_option =
      command->add_option("--decode", options->decode, "Decode comma-separated token ids instead, e.g. 1,2,3");
  decode_option->excludes(text_option)->excludes(file_option);
  CLI::Option* chat_option = command->add_option(
      "--chat", options->chat, "Render the chat template for a JSON array of {role, content} messages instead");
  chat_option->excludes(text_option)->excludes(file_option)->excludes(decode_option);
  command->add_flag("--add-generation-prompt", options->add_generation_prompt,
                    "With --chat: end with the assistant turn's opening");
  command->add_flag("--add-special-tokens", options->add_special_tokens,
                    "Add the tokenizer's special tokens (e.g. BOS) as its post-processor says");
  command->add_flag("--skip-special-tokens", options->skip_special_tokens, "With --decode: leave out special tokens");
  command->add_option("-f,--format", options->format, "Output format: text (ids) or json (ids, tokens, byte offsets)")
      ->transform(CLI::IsMember({"text", "json"}, CLI::ignore_case))
      ->capture_default_str();
  command->callback([options, &run] {
    if (options->tokenizer_dir.empty() && options->bundle_dir.empty()) {
      throw UsageError("modelkit tokenize needs --tokenizer DIR or -m BUNDLE");
    }
    run = [options] { return RunTokenize(*options); };
  });
}

}  // namespace modelkit::app
