#include "pattern.h"

#include <utf8proc.h>

namespace modelkit::tokenizer {

Pattern::Pattern(const JsonNode& config) {
  if (config.Has("String")) {
    literal_ = config.String("String");
  } else if (config.Has("Regex")) {
    regex_ = std::make_unique<Regex>(config.String("Regex"), config.Child("Regex"));
  } else {
    config.Fail("expected {\"String\": ...} or {\"Regex\": ...}");
  }
}

void Pattern::ForEachMatch(std::string_view text, const std::function<void(size_t, size_t)>& on_match) const {
  if (regex_) {
    regex_->ForEachMatch(text, on_match);
    return;
  }
  if (literal_.empty()) return;
  size_t pos = 0;
  while ((pos = text.find(literal_, pos)) != std::string_view::npos) {
    on_match(pos, pos + literal_.size());
    pos += literal_.size();
  }
}

std::string Pattern::ReplaceAll(std::string_view text, std::string_view content) const {
  std::string out;
  out.reserve(text.size());
  size_t last = 0;
  ForEachMatch(text, [&](size_t begin, size_t end) {
    out.append(text.substr(last, begin - last));
    out.append(content);
    last = end;
  });
  out.append(text.substr(last));
  return out;
}

bool IsUnicodeWhitespace(char32_t c) {
  if ((c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85) return true;
  if (c < 0xA0) return false;
  const utf8proc_category_t category = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return category == UTF8PROC_CATEGORY_ZS || category == UTF8PROC_CATEGORY_ZL || category == UTF8PROC_CATEGORY_ZP;
}

}  // namespace modelkit::tokenizer
