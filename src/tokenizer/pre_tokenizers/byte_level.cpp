// ByteLevel: optional GPT-2 regex split and prefix space, then every byte mapped to its printable character.
#include "../byte_level_alphabet.h"
#include "../regex.h"
#include "pre_tokenizer.h"

namespace modelkit::tokenizer {
namespace {

// The GPT-2 split pattern Hugging Face's ByteLevel uses when use_regex is true.
constexpr const char* kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

class ByteLevelPreTokenizer : public PreTokenizer {
 public:
  explicit ByteLevelPreTokenizer(const JsonNode& config)
      : add_prefix_space_(config.BoolOr("add_prefix_space", true)), use_regex_(config.BoolOr("use_regex", true)) {
    if (use_regex_) regex_ = std::make_unique<Regex>(kGpt2Pattern, config);
  }

  void PreTokenize(PieceList& pieces, bool /*at_text_start*/) const override {
    const ByteLevelAlphabet& alphabet = ByteLevelAlphabet::Get();
    PieceList out;
    out.text.reserve(pieces.text.size() * 2 + pieces.size());
    out.spans.reserve(pieces.size());
    const auto emit = [&](std::string_view part) {
      if (part.empty()) return;
      const size_t begin = out.text.size();
      alphabet.Encode(part, out.text);
      out.spans.emplace_back(begin, out.text.size());
    };
    std::string prefixed;
    for (size_t i = 0; i < pieces.size(); ++i) {
      std::string_view piece = pieces[i];
      if (piece.empty()) continue;
      if (add_prefix_space_ && piece.front() != ' ') {
        prefixed.assign(1, ' ');
        prefixed.append(piece);
        piece = prefixed;
      }
      if (!use_regex_) {
        emit(piece);
        continue;
      }
      size_t last = 0;
      regex_->ForEachMatch(piece, [&](size_t begin, size_t end) {
        emit(piece.substr(last, begin - last));
        emit(piece.substr(begin, end - begin));
        last = end;
      });
      emit(piece.substr(last));
    }
    pieces = std::move(out);
  }

 private:
  bool add_prefix_space_;
  bool use_regex_;
  std::unique_ptr<Regex> regex_;
};

}  // namespace

std::unique_ptr<PreTokenizer> MakeByteLevelPreTokenizer(const JsonNode& config) {
  return std::make_unique<ByteLevelPreTokenizer>(config);
}

}  // namespace modelkit::tokenizer
