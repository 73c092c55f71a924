// NFC, NFD, NFKC, NFKD through utf8proc.
#include <utf8proc.h>

#include <cstdlib>

#include "modelkit/base/error.h"
#include "normalizer.h"

namespace modelkit::tokenizer {
namespace {

class UnicodeNormalizer : public Normalizer {
 public:
  explicit UnicodeNormalizer(utf8proc_option_t options) : options_(options) {}
  std::string Normalize(std::string_view text) const override {
    // ASCII is invariant under every normalization form.
    bool ascii = true;
    for (const char c : text) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
    if (ascii) return std::string(text);
    utf8proc_uint8_t* result = nullptr;
    const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                            static_cast<utf8proc_ssize_t>(text.size()), &result, options_);
    if (n < 0) throw RuntimeError(std::string("Unicode normalization failed: ") + utf8proc_errmsg(n));
    std::string out(reinterpret_cast<const char*>(result), static_cast<size_t>(n));
    std::free(result);
    return out;
  }

 private:
  utf8proc_option_t options_;
};

}  // namespace

std::unique_ptr<Normalizer> MakeUnicodeNormalizer(const JsonNode& /*config*/, std::string_view form) {
  int options = UTF8PROC_STABLE;
  if (form == "NFC") options |= UTF8PROC_COMPOSE;
  if (form == "NFD") options |= UTF8PROC_DECOMPOSE;
  if (form == "NFKC") options |= UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
  if (form == "NFKD") options |= UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT;
  return std::make_unique<UnicodeNormalizer>(static_cast<utf8proc_option_t>(options));
}

}  // namespace modelkit::tokenizer
