#define PCRE2_CODE_UNIT_WIDTH 8
#include "regex.h"

#include <pcre2.h>

#include "json_node.h"
#include "utf8.h"

namespace modelkit::tokenizer {

struct Regex::Compiled {
  pcre2_code* code = nullptr;
  bool jit = false;
};

Regex::Regex(const std::string& pattern, const JsonNode& where) : compiled_(std::make_unique<Compiled>()) {
  int error_code = 0;
  PCRE2_SIZE error_offset = 0;
  compiled_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP,
                                  &error_code, &error_offset, nullptr);
  if (compiled_->code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error_code, message, sizeof message);
    where.Fail("regular expression does not compile at offset " + std::to_string(error_offset) + ": " +
               reinterpret_cast<const char*>(message));
  }
  compiled_->jit = pcre2_jit_compile(compiled_->code, PCRE2_JIT_COMPLETE) == 0;
}

Regex::~Regex() {
  if (compiled_ && compiled_->code) pcre2_code_free(compiled_->code);
}

void Regex::ForEachMatch(std::string_view text, const std::function<void(size_t, size_t)>& on_match) const {
  pcre2_match_data* match_data = pcre2_match_data_create_from_pattern(compiled_->code, nullptr);
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t start = 0;
  while (start <= text.size()) {
    const int rc =
        compiled_->jit
            ? pcre2_jit_match(compiled_->code, subject, text.size(), start, PCRE2_NO_UTF_CHECK, match_data, nullptr)
            : pcre2_match(compiled_->code, subject, text.size(), start, PCRE2_NO_UTF_CHECK, match_data, nullptr);
    if (rc < 0) break;  // PCRE2_ERROR_NOMATCH, or a resource limit: no further matches
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match_data);
    const size_t begin = ovector[0], end = ovector[1];
    if (end > begin) {
      on_match(begin, end);
      start = end;
    } else {  // empty match: step over one character, as the Rust regex and JS matchAll iterators do
      if (begin >= text.size()) break;
      start = begin + Utf8CharLength(static_cast<unsigned char>(text[begin]));
    }
  }
  pcre2_match_data_free(match_data);
}

}  // namespace modelkit::tokenizer
