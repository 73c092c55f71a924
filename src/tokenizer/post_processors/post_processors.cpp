// TemplateProcessing (special tokens around sequence A), ByteLevel (offsets only: ids unchanged) and Sequence.
#include <map>
#include <string>

#include "post_processor.h"

namespace modelkit::tokenizer {
namespace {

class TemplateProcessing : public PostProcessor {
 public:
  explicit TemplateProcessing(const JsonNode& config) {
    std::map<std::string, std::vector<int32_t>> special_ids;
    if (const auto special_tokens = config.Optional("special_tokens")) {
      special_tokens->ForEachMember([&](std::string_view name, const JsonNode& entry) {
        std::vector<int32_t>& ids = special_ids[std::string(name)];
        for (const JsonNode& id : entry.Child("ids").Elements()) ids.push_back(static_cast<int32_t>(id.AsInt()));
      });
    }
    for (const JsonNode& item : config.Child("single").Elements()) {
      if (item.Has("Sequence")) {
        items_.push_back({true, {}});
      } else if (item.Has("SpecialToken")) {
        const JsonNode token = item.Child("SpecialToken").Child("id");
        const auto it = special_ids.find(token.AsString());
        if (it == special_ids.end()) token.Fail("special token '" + token.AsString() + "' is not in special_tokens");
        items_.push_back({false, it->second});
      } else {
        item.Fail("expected {\"Sequence\": ...} or {\"SpecialToken\": ...}");
      }
    }
  }

  void Process(std::vector<int32_t>& ids, bool add_special_tokens) const override {
    if (!add_special_tokens) return;
    std::vector<int32_t> out;
    out.reserve(ids.size() + 4);
    for (const Item& item : items_) {
      if (item.is_sequence) {
        out.insert(out.end(), ids.begin(), ids.end());
      } else {
        out.insert(out.end(), item.special_ids.begin(), item.special_ids.end());
      }
    }
    ids = std::move(out);
  }

 private:
  struct Item {
    bool is_sequence;
    std::vector<int32_t> special_ids;
  };
  std::vector<Item> items_;
};

class IdentityPostProcessor : public PostProcessor {
 public:
  void Process(std::vector<int32_t>& /*ids*/, bool /*add_special_tokens*/) const override {}
};

class SequencePostProcessor : public PostProcessor {
 public:
  explicit SequencePostProcessor(std::vector<std::unique_ptr<PostProcessor>> steps) : steps_(std::move(steps)) {}
  void Process(std::vector<int32_t>& ids, bool add_special_tokens) const override {
    for (const auto& step : steps_) step->Process(ids, add_special_tokens);
  }

 private:
  std::vector<std::unique_ptr<PostProcessor>> steps_;
};

}  // namespace

std::unique_ptr<PostProcessor> MakePostProcessor(const JsonNode& config) {
  if (config.IsNull()) return nullptr;
  const std::string type = config.Type();
  if (type == "TemplateProcessing") return std::make_unique<TemplateProcessing>(config);
  if (type == "ByteLevel") return std::make_unique<IdentityPostProcessor>();
  if (type == "Sequence") {
    std::vector<std::unique_ptr<PostProcessor>> steps;
    for (const JsonNode& step : config.Child("processors").Elements()) {
      if (auto processor = MakePostProcessor(step)) steps.push_back(std::move(processor));
    }
    return std::make_unique<SequencePostProcessor>(std::move(steps));
  }
  config.Child("type").Fail("unsupported post-processor type '" + type +
                            "' (supported: TemplateProcessing, ByteLevel, Sequence)");
}

}  // namespace modelkit::tokenizer
