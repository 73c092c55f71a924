#include "modelkit/tokenizer/tokenizer.h"

#include <algorithm>

#include "byte_level_alphabet.h"
#include "modelkit/base/error.h"
#include "modelkit/base/files.h"
#include "tokenizer_impl.h"
#include "utf8.h"

namespace modelkit::tokenizer {
namespace {

void LoadAddedTokens(const JsonNode& root, Tokenizer::Impl& impl) {
  const auto list = root.Optional("added_tokens");
  if (!list) return;
  for (const JsonNode& entry : list->Elements()) {
    AddedToken token;
    token.content = entry.String("content");
    const int64_t id = entry.Int("id");
    if (id < 0 || id > INT32_MAX) entry.Child("id").Fail("id out of range");
    const int64_t listed = static_cast<int64_t>(impl.model->Vocabulary().size() + list->Size());
    if (id >= listed + kMaxTokenIdGap) {
      entry.Child("id").Fail("id " + std::to_string(id) + " is far past the " + std::to_string(listed) +
                             " tokens the vocabulary and the added tokens list (ids must number the tokens from 0)");
    }
    token.id = static_cast<int32_t>(id);
    token.special = entry.BoolOr("special", false);
    token.single_word = entry.BoolOr("single_word", false);
    token.lstrip = entry.BoolOr("lstrip", false);
    token.rstrip = entry.BoolOr("rstrip", false);
    token.normalized = entry.BoolOr("normalized", !token.special);
    impl.added_tokens.push_back(std::move(token));
  }
  for (const AddedToken& token : impl.added_tokens) {
    if (token.normalized) {
      impl.normalized_matcher.Add(impl.normalizer ? impl.normalizer->Normalize(token.content) : token.content, &token);
    } else {
      impl.raw_matcher.Add(token.content, &token);
    }
    const auto id = static_cast<size_t>(token.id);
    if (id >= impl.added_by_id.size()) impl.added_by_id.resize(id + 1, nullptr);
    impl.added_by_id[id] = &token;
  }
}

// How many bytes at the start of `rest` (input text) the vocabulary entry `token` stands for, or npos when they
// differ. "<0xNN>" is byte NN; in byte-fallback (SentencePiece-style) vocabularies U+2581 stands for a space or for
// itself (the Replace normalizer's output); otherwise each character is a byte of GPT-2's byte-level alphabet.
size_t MatchToken(std::string_view token, std::string_view rest, bool metaspace) {
  static constexpr std::string_view kMetaspace = "\u2581";
  if (token.size() == 6 && token.starts_with("<0x") && token.back() == '>') {
    const auto byte = static_cast<char>(std::stoi(std::string(token.substr(3, 2)), nullptr, 16));
    return !rest.empty() && rest[0] == byte ? 1 : std::string_view::npos;
  }
  size_t used = 0;
  if (metaspace) {
    for (size_t pos = 0; pos < token.size();) {
      const std::string_view input = rest.substr(used);
      if (token.substr(pos, 3) == kMetaspace && (input.starts_with(' ') || input.starts_with(kMetaspace))) {
        used += input.starts_with(' ') ? 1 : 3;
        pos += 3;
      } else if (!input.empty() && input[0] == token[pos]) {
        ++used;
        ++pos;
      } else {
        return std::string_view::npos;
      }
    }
    return used;
  }
  const ByteLevelAlphabet& alphabet = ByteLevelAlphabet::Get();
  for (size_t pos = 0; pos < token.size(); pos += Utf8CharLength(static_cast<unsigned char>(token[pos]))) {
    const auto byte = alphabet.ByteFor(DecodeCodepoint(token, pos));
    if (!byte) return rest.starts_with(token) ? token.size() : std::string_view::npos;  // e.g. an added token
    if (used >= rest.size() || rest[used] != static_cast<char>(*byte)) return std::string_view::npos;
    ++used;
  }
  return used;
}

}  // namespace

void Tokenizer::Impl::EncodeSection(std::string_view section, bool at_text_start, std::vector<int32_t>& ids) const {
  const std::string normalized = normalizer ? normalizer->Normalize(section) : std::string(section);
  std::vector<TextSegment> segments;
  if (normalized_matcher.empty()) {
    if (!normalized.empty()) segments.push_back({0, normalized.size(), nullptr});
  } else {
    normalized_matcher.Split(normalized, segments);
  }
  PieceList pieces;
  for (const TextSegment& segment : segments) {
    if (segment.token) {
      ids.push_back(segment.token->id);
      continue;
    }
    pieces.Reset(std::string_view(normalized).substr(segment.begin, segment.end - segment.begin));
    if (pre_tokenizer) pre_tokenizer->PreTokenize(pieces, at_text_start && segment.begin == 0);
    for (size_t i = 0; i < pieces.size(); ++i) {
      if (const std::string_view piece = pieces[i]; !piece.empty()) model->Tokenize(piece, ids);
    }
  }
}

Tokenizer Tokenizer::Load(const std::filesystem::path& directory) {
  std::error_code error;
  if (!std::filesystem::is_directory(directory, error)) {
    throw UsageError("tokenizer directory '" + directory.string() +
                     "' does not exist or is not a directory (expected a folder with tokenizer.json)");
  }
  const std::filesystem::path json_path = directory / "tokenizer.json";
  const std::string json = ReadTextFile(json_path, "tokenizer file");
  const auto optional_file = [&](const char* name) {
    const std::filesystem::path path = directory / name;
    return std::filesystem::exists(path, error) ? ReadTextFile(path, name) : std::string();
  };
  return FromJson(json, optional_file("tokenizer_config.json"), json_path.string(),
                  (directory / "tokenizer_config.json").string(), optional_file("special_tokens_map.json"),
                  optional_file("generation_config.json"));
}

Tokenizer Tokenizer::FromJson(std::string_view tokenizer_json, std::string_view config_json, const std::string& source,
                              const std::string& config_source, std::string_view special_tokens_map_json,
                              std::string_view generation_config_json) {
  const JsonDocument document(tokenizer_json, source);
  const JsonNode root = document.Root();
  if (!root.IsObject()) root.Fail("expected an object");
  auto impl = std::make_shared<Impl>();
  const JsonDocument null_document("null", source);
  const auto component = [&](std::string_view key) { return root.Has(key) ? root.Child(key) : null_document.Root(); };
  impl->normalizer = MakeNormalizer(component("normalizer"));
  impl->pre_tokenizer = MakePreTokenizer(component("pre_tokenizer"));
  impl->model = MakeModel(root.Child("model"));
  impl->post_processor = MakePostProcessor(component("post_processor"));
  impl->decoder = MakeDecoder(component("decoder"));
  LoadAddedTokens(root, *impl);

  const size_t vocab_size = std::max(impl->model->Vocabulary().size(), impl->added_by_id.size());
  impl->added_by_id.resize(vocab_size, nullptr);
  impl->special_by_id.assign(vocab_size, false);
  for (const AddedToken& token : impl->added_tokens) {
    if (token.special) impl->special_by_id[static_cast<size_t>(token.id)] = true;
  }
  Tokenizer tokenizer(impl);
  impl->config = ParseTokenizerConfig(config_json, config_source, tokenizer);
  const std::filesystem::path config_dir = std::filesystem::path(config_source).parent_path();
  ApplyCompanionFiles(special_tokens_map_json, (config_dir / "special_tokens_map.json").string(),
                      generation_config_json, (config_dir / "generation_config.json").string(), tokenizer,
                      impl->config);
  for (const std::string& token : impl->config.additional_special_tokens) {
    if (const auto id = tokenizer.TokenToId(token)) impl->special_by_id[static_cast<size_t>(*id)] = true;
  }
  return tokenizer;
}

std::vector<int32_t> Tokenizer::Encode(std::string_view text, bool add_special_tokens) const {
  if (const auto bad = FindInvalidUtf8(text)) {
    throw UsageError("input text is not valid UTF-8 (invalid byte sequence at byte offset " + std::to_string(*bad) +
                     ")");
  }
  std::vector<int32_t> ids;
  ids.reserve(text.size() / 3 + 4);
  std::vector<TextSegment> segments;
  if (impl_->raw_matcher.empty()) {
    if (!text.empty()) segments.push_back({0, text.size(), nullptr});
  } else {
    impl_->raw_matcher.Split(text, segments);
  }
  for (const TextSegment& segment : segments) {
    if (segment.token) {
      ids.push_back(segment.token->id);
    } else {
      impl_->EncodeSection(text.substr(segment.begin, segment.end - segment.begin), segment.begin == 0, ids);
    }
  }
  if (impl_->post_processor) impl_->post_processor->Process(ids, add_special_tokens);
  return ids;
}

Encoding Tokenizer::EncodeWithOffsets(std::string_view text, bool add_special_tokens) const {
  if (const auto bad = FindInvalidUtf8(text)) {
    throw UsageError("input text is not valid UTF-8 (invalid byte sequence at byte offset " + std::to_string(*bad) +
                     ")");
  }
  const bool metaspace = impl_->model->TokenToId("<0x00>").has_value();
  Encoding encoding;
  std::vector<TextSegment> segments;
  if (impl_->raw_matcher.empty()) {
    if (!text.empty()) segments.push_back({0, text.size(), nullptr});
  } else {
    impl_->raw_matcher.Split(text, segments);
  }
  for (const TextSegment& segment : segments) {
    if (segment.token) {
      encoding.ids.push_back(segment.token->id);
      encoding.offsets.push_back({segment.begin, segment.end});
      continue;
    }
    const size_t first = encoding.ids.size();
    impl_->EncodeSection(text.substr(segment.begin, segment.end - segment.begin), segment.begin == 0, encoding.ids);
    // Walk the section: each token's bytes are the next input bytes unless normalization changed them.
    size_t cursor = segment.begin;
    bool lost = false;
    for (size_t i = first; i < encoding.ids.size(); ++i) {
      const std::string_view token = IdToToken(encoding.ids[i]).value_or("");
      const std::string_view rest = text.substr(cursor, segment.end - cursor);
      size_t used = lost ? std::string_view::npos : MatchToken(token, rest, metaspace);
      if (used == std::string_view::npos && !lost && metaspace && token.starts_with("\u2581")) {
        // A U+2581 the normalizer or pre-tokenizer prepended (Metaspace, Prepend): it covers no input byte.
        used = token.size() == 3 ? 0 : MatchToken(token.substr(3), rest, metaspace);
      }
      if (used != std::string_view::npos) {
        encoding.offsets.push_back({cursor, cursor + used});
        cursor += used;
      } else {
        // Normalization changed the text here (e.g. NFC composed a sequence): the rest of the section's tokens all
        // cover the rest of the section, the smallest range of the original text known to hold them.
        lost = true;
        encoding.offsets.push_back({cursor, segment.end});
      }
    }
  }
  if (impl_->post_processor) {
    const std::vector<int32_t> content = encoding.ids;
    impl_->post_processor->Process(encoding.ids, add_special_tokens);
    if (encoding.ids != content) {
      // The post-processor only adds tokens around the content: find it; the added tokens get {0, 0}.
      std::vector<TokenOffset> offsets(encoding.ids.size());
      const auto found = std::search(encoding.ids.begin(), encoding.ids.end(), content.begin(), content.end());
      const auto at = static_cast<size_t>(found - encoding.ids.begin());
      for (size_t i = 0; found != encoding.ids.end() && i < content.size(); ++i) offsets[at + i] = encoding.offsets[i];
      encoding.offsets = std::move(offsets);
    }
  }
  return encoding;
}

std::string Tokenizer::Decode(std::span<const int32_t> ids, const DecodeOptions& options) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (const int32_t id : ids) {
    const auto token = IdToToken(id);
    if (!token) {
      throw UsageError("token id " + std::to_string(id) + " is not in the vocabulary (ids go from 0 to " +
                       std::to_string(VocabSize() - 1) + ")");
    }
    if (options.skip_special_tokens && IsSpecial(id)) continue;
    tokens.emplace_back(*token);
  }
  std::string text;
  if (impl_->decoder) {
    impl_->decoder->DecodeChain(tokens);
    for (const std::string& part : tokens) text += part;
  } else {
    for (size_t i = 0; i < tokens.size(); ++i) text += (i ? " " : "") + tokens[i];
  }
  if (options.clean_up_tokenization_spaces.value_or(impl_->config.clean_up_tokenization_spaces)) {
    text = CleanUpTokenizationSpaces(std::move(text));
  }
  return text;
}

std::optional<std::string_view> Tokenizer::IdToToken(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= VocabSize()) return std::nullopt;
  if (const AddedToken* added = impl_->added_by_id[static_cast<size_t>(id)]) return std::string_view(added->content);
  const auto& vocabulary = impl_->model->Vocabulary();
  if (static_cast<size_t>(id) >= vocabulary.size() || vocabulary[static_cast<size_t>(id)].empty()) return std::nullopt;
  return std::string_view(vocabulary[static_cast<size_t>(id)]);
}

std::optional<int32_t> Tokenizer::TokenToId(std::string_view token) const {
  for (const AddedToken& added : impl_->added_tokens) {
    if (added.content == token) return added.id;
  }
  return impl_->model->TokenToId(token);
}

bool Tokenizer::IsSpecial(int32_t id) const {
  return id >= 0 && static_cast<size_t>(id) < impl_->special_by_id.size() &&
         impl_->special_by_id[static_cast<size_t>(id)];
}

size_t Tokenizer::VocabSize() const { return impl_->added_by_id.size(); }

const TokenizerConfig& Tokenizer::config() const { return impl_->config; }

}  // namespace modelkit::tokenizer
