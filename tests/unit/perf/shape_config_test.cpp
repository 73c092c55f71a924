#include "modelkit/perf/shape_config.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "modelkit/base/error.h"
#include "support/tensor_specs.h"

namespace modelkit::perf {
namespace {

using ::testing::HasSubstr;
using Shape = std::vector<int64_t>;

// The message of the UsageError ParseShapeConfig throws for `text` (fails the test when it throws nothing else).
std::string ParseError(const std::string& text) {
  try {
    ParseShapeConfig(nlohmann::json::parse(text), "shapes.json");
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::kUsage) << text;
    return error.what();
  }
  ADD_FAILURE() << "no error for " << text;
  return "";
}

using test::Dynamic;
using test::Fixed;
using test::Spec;

TEST(ShapeConfig, NonObjectIsUsageError) {
  for (const char* text : {"[1, 2]", "3", "\"x\"", "null", "true"}) {
    EXPECT_THAT(ParseError(text), HasSubstr("shapes.json")) << text;
  }
  EXPECT_THAT(ParseError("[1, 2]"), HasSubstr("expected a JSON object"));
}

TEST(ShapeConfig, ListWithBadElementNamesKeyAndIndex) {
  EXPECT_THAT(ParseError(R"({"pixels": [1, "3", 224]})"), HasSubstr("$.pixels[1]"));
  EXPECT_THAT(ParseError(R"({"pixels": [1, 3, 2.5]})"), HasSubstr("$.pixels[2]"));
  EXPECT_THAT(ParseError(R"({"pixels": [0, 3]})"), HasSubstr("$.pixels[0]"));
  EXPECT_THAT(ParseError(R"({"pixels": [1, -3]})"), HasSubstr("$.pixels[1]"));
  EXPECT_THAT(ParseError(R"({"pixels": [true]})"), HasSubstr("$.pixels[0]"));
  EXPECT_THAT(ParseError(R"({"pixels": [[1]]})"), HasSubstr("$.pixels[0]"));
  EXPECT_THAT(ParseError(R"({"pixels": [null]})"), HasSubstr("shapes.json"));
  EXPECT_THAT(ParseError(R"({"pixels": [1, -3]})"), HasSubstr("positive integer"));
}

TEST(ShapeConfig, BadScalarsNameTheKey) {
  for (const char* text : {R"({"batch": true})", R"({"batch": false})", R"({"batch": 1.5})", R"({"batch": 64.0})",
                           R"({"batch": "64"})", R"({"batch": 0})", R"({"batch": -4})", R"({"batch": null})",
                           R"({"batch": {"a": 1}})", R"({"batch": 18446744073709551615})"}) {
    const std::string message = ParseError(text);
    EXPECT_THAT(message, HasSubstr("$.batch")) << text;
    EXPECT_THAT(message, HasSubstr("shapes.json")) << text;
  }
}

TEST(ShapeConfig, ErrorNamesTheOffendingKeyAmongValidOnes) {
  const std::string message = ParseError(R"({"a": 1, "b": [1, 2], "seq": "x", "z": 3})");
  EXPECT_THAT(message, HasSubstr("$.seq"));
}

TEST(ShapeConfig, ValidMix) {
  const ShapeConfig config = ParseShapeConfig(
      nlohmann::json::parse(R"({"input_ids": [2, 64], "batch": 4, "sequence": 77, "scalar": []})"), "cfg");
  ASSERT_EQ(config.input_shapes.size(), 2u);
  EXPECT_EQ(config.input_shapes.at("input_ids"), (Shape{2, 64}));
  EXPECT_EQ(config.input_shapes.at("scalar"), Shape{});
  ASSERT_EQ(config.dim_values.size(), 2u);
  EXPECT_EQ(config.dim_values.at("batch"), 4);
  EXPECT_EQ(config.dim_values.at("sequence"), 77);
}

TEST(ShapeConfig, EmptyObjectIsEmptyConfig) {
  const ShapeConfig config = ParseShapeConfig(nlohmann::json::object(), "cfg");
  EXPECT_TRUE(config.input_shapes.empty());
  EXPECT_TRUE(config.dim_values.empty());
}

TEST(ShapeConfig, NamesThatMatchNoInputOrDimensionAreRefused) {
  const std::vector<TensorSpec> inputs = {Spec("x", {Dynamic("batch"), Fixed(3)}), Spec("y", {Dynamic("seq")})};
  const auto error_of = [&](const std::string& text) -> std::string {
    try {
      CheckShapeConfigNames(ParseShapeConfig(nlohmann::json::parse(text), "s.json"), inputs, "s.json");
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ExitCode::kUsage);
      return error.what();
    }
    return "";
  };
  EXPECT_EQ(error_of(R"({"x": [1, 3], "batch": 2, "seq": 5})"), "");
  EXPECT_EQ(error_of(R"({"z": [1, 3]})"), "s.json: $.z: the model has no input 'z' (its inputs: x, y)");
  EXPECT_THAT(error_of(R"({"bacth": 2})"), HasSubstr("no input of the model has a dimension named 'bacth'"));
  EXPECT_THAT(error_of(R"({"x": 2})"), HasSubstr("$.x: no input of the model has a dimension named 'x'"));
}

TEST(TensorSpecResolve, FullShapeOverrideWins) {
  ShapeConfig config;
  config.input_shapes["x"] = {5, 6, 7};
  config.dim_values["batch"] = 9;
  // Even against fixed dims and a different rank.
  EXPECT_EQ(ResolveShape(Spec("x", {Dynamic("batch"), Fixed(3)}), config, 2), (Shape{5, 6, 7}));
  TensorSpec unknown = Spec("x", {});
  unknown.shape_known = false;
  EXPECT_EQ(ResolveShape(unknown, config, 2), (Shape{5, 6, 7}));
  // Another input does not use it.
  EXPECT_EQ(ResolveShape(Spec("y", {Dynamic("batch"), Fixed(3)}), config, 2), (Shape{9, 3}));
}

TEST(TensorSpecResolve, UnknownShapeIsBatch) {
  TensorSpec spec = Spec("x", {});
  spec.shape_known = false;
  EXPECT_EQ(ResolveShape(spec, {}, 1), Shape{1});
  EXPECT_EQ(ResolveShape(spec, {}, 8), Shape{8});
}

TEST(TensorSpecResolve, ScalarInputStaysScalar) { EXPECT_EQ(ResolveShape(Spec("x", {}), {}, 4), Shape{}); }

TEST(TensorSpecResolve, DimParamOverride) {
  ShapeConfig config;
  config.dim_values["batch"] = 3;
  config.dim_values["seq"] = 77;
  const TensorSpec spec = Spec("ids", {Dynamic("batch"), Dynamic("seq"), Dynamic("other"), Dynamic()});
  EXPECT_EQ(ResolveShape(spec, config, 5), (Shape{3, 77, 224, 224}));
  // The same name repeated takes the same value; a fixed dim is never overridden by its name.
  const TensorSpec repeated = Spec("m", {Dynamic("seq"), Dynamic("seq"), Fixed(4)});
  EXPECT_EQ(ResolveShape(repeated, config, 5), (Shape{77, 77, 4}));
}

TEST(TensorSpecResolve, DimZeroIsBatchAndPositionalDefaults) {
  const TensorSpec spec =
      Spec("x", {Dynamic("N"), Dynamic("a"), Dynamic("b"), Dynamic("c"), Dynamic("d"), Dynamic(), Dim{-1, ""}});
  EXPECT_EQ(ResolveShape(spec, {}, 6), (Shape{6, 128, 224, 224, 128, 128, 128}));
  EXPECT_EQ(ResolveShape(Spec("x", {Dynamic()}), {}, 2), Shape{2});
  EXPECT_EQ(ResolveShape(Spec("x", {Dim{-1, ""}, Dim{-1, ""}}), {}, 3), (Shape{3, 128}));
}

TEST(TensorSpecResolve, FixedDimsKept) {
  const TensorSpec spec = Spec("x", {Fixed(1), Fixed(3), Dynamic("h"), Fixed(17), Dynamic()});
  EXPECT_EQ(ResolveShape(spec, {}, 8), (Shape{1, 3, 224, 17, 128}));
  EXPECT_EQ(ResolveShape(Spec("x", {Fixed(0), Dynamic()}), {}, 8), (Shape{0, 128}));  // 0 is a fixed size
  EXPECT_EQ(ResolveShape(Spec("x", {Dynamic(), Fixed(5)}), {}, 8), (Shape{8, 5}));
}

}  // namespace
}  // namespace modelkit::perf
