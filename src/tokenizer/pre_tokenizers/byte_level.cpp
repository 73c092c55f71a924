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

  void PreTokenize(std::vector<std::string>& pieces, bool /*at_text_start*/) const override {
    const ByteLevelAlphabet& alphabet = ByteLevelAlphabet::Get();
    std::vector<std::string> out;
    out.reserve(pieces.size());
    for (std::string& piece : pieces) {
      if (piece.empty()) continue;
      if (add_prefix_space_ && piece.front() != ' ') piece.insert(piece.begin(), ' ');
      if (!use_regex_) {
        std::string mapped;
        alphabet.Encode(piece, mapped);
        out.push_back(std::move(mapped));
        continue;
      }
      size_t last = 0;
      const auto emit = [&](size_t begin, size_t end) {
        if (end <= begin) return;
        std::string mapped;
        alphabet.Encode(std::string_view(piece).substr(begin, end - begin), mapped);
        out.push_back(std::move(mapped));
      };
      regex_->ForEachMatch(piece, [&](size_t begin, size_t end) {
        emit(last, begin);
        emit(begin, end);
        last = end;
      });
      emit(last, piece.size());
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
