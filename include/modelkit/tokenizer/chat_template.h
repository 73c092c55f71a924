// A model's chat template (Jinja2, as Hugging Face renders it with trim_blocks and lstrip_blocks), rendered with
// minja: messages -> the prompt text.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <string>

namespace modelkit::tokenizer {

class ChatTemplate {
 public:
  // The template of a tokenizer directory or bundle: chat_template.jinja when present, else tokenizer_config.json's
  // chat_template; bos_token/eos_token from tokenizer_config.json. Throws UsageError for a missing directory or no
  // template, Error(kInvalidModel) for a template that does not parse.
  static ChatTemplate Load(const std::filesystem::path& directory);

  // `where` names the template's file in error messages.
  ChatTemplate(const std::string& source, const std::string& bos_token, const std::string& eos_token,
               const std::string& where);

  // Renders `messages` (an array of {"role", "content", ...}) with add_generation_prompt, bos_token, eos_token and
  // `extra_context`'s members as variables; no tools, no polyfills. A template error or raise_exception() throws
  // Error(kInvalidModel) with the template's message; an empty or non-array `messages` throws UsageError. Renders in
  // a child process bounded in time, memory and output (docs/tokenizer.md): a template that overflows the stack,
  // loops for ever or builds too much throws Error(kInvalidModel) saying which bound it hit.
  std::string Render(const nlohmann::ordered_json& messages, bool add_generation_prompt,
                     const nlohmann::ordered_json& extra_context = nlohmann::ordered_json::object()) const;

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;
};

}  // namespace modelkit::tokenizer
