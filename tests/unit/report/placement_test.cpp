#include "modelkit/report/placement.h"

#include <gtest/gtest.h>

namespace modelkit::report {
namespace {

const std::string kNpu = "SimNpuExecutionProvider";
const std::string kCpu = "CPUExecutionProvider";

// Two fused NPU partitions and three CPU nodes, listed as ORT lists them (CPU: one subgraph per node).
std::vector<AssignedSubgraph> MixedSubgraphs() {
  return {{kNpu, {"MatMul", "Add", "Relu"}},
          {kCpu, {"Shape"}},
          {kCpu, {"Gather"}},
          {kNpu, {"MatMul", "Softmax"}},
          {kCpu, {"Shape"}}};
}

TEST(SummarisePlacement, CountsNodesPartitionsAndOpTypesPerEp) {
  const SessionPlacement placement = SummarisePlacement("ctx", kNpu, MixedSubgraphs());
  EXPECT_EQ(placement.session, "ctx");
  EXPECT_EQ(placement.total_nodes, 8);
  ASSERT_EQ(placement.eps.size(), 2u);
  EXPECT_EQ(placement.eps[0].ep, kNpu);  // most nodes first
  EXPECT_EQ(placement.eps[0].nodes, 5);
  EXPECT_EQ(placement.eps[0].partitions, 2);
  EXPECT_EQ(placement.eps[0].op_types.at("MatMul"), 2);
  EXPECT_EQ(placement.eps[1].ep, kCpu);
  EXPECT_EQ(placement.eps[1].nodes, 3);
  EXPECT_EQ(placement.eps[1].partitions, 3);
  EXPECT_EQ(placement.eps[1].op_types.at("Shape"), 2);
  EXPECT_EQ(NodesOn(placement, kNpu), 5);
  EXPECT_EQ(NodesOn(placement, "WebGpuExecutionProvider"), 0);
}

TEST(PlacementShortfall, NamesWhatFellBackAndWhere) {
  const SessionPlacement placement = SummarisePlacement("ctx", kNpu, MixedSubgraphs());
  EXPECT_EQ(PlacementShortfall(placement),
            "SimNpuExecutionProvider ran 5 of 8 nodes of ctx; 3 fell back to CPUExecutionProvider (Shape, Gather)");
  EXPECT_EQ(PlacementShortfall(SummarisePlacement("ctx", kCpu, MixedSubgraphs())), std::nullopt)
      << "CPU is the fallback, never short";
  EXPECT_EQ(PlacementShortfall(SummarisePlacement("ctx", "WebGpuExecutionProvider", MixedSubgraphs())),
            "WebGpuExecutionProvider ran 0 of 8 nodes of ctx; 5 fell back to SimNpuExecutionProvider (MatMul, Add, "
            "Relu, Softmax), 3 fell back to CPUExecutionProvider (Shape, Gather)");
  const SessionPlacement full = SummarisePlacement("decoder", kNpu, {{kNpu, {"MatMul", "Add"}}});
  EXPECT_EQ(PlacementShortfall(full), std::nullopt);
}

TEST(PlacementJson, ListsEverySharesCountsAndOpTypes) {
  const nlohmann::ordered_json json = PlacementJson(SummarisePlacement("model.onnx", kNpu, MixedSubgraphs()));
  EXPECT_EQ(json.at("session"), "model.onnx");
  EXPECT_EQ(json.at("requested_ep"), kNpu);
  EXPECT_EQ(json.at("nodes"), 8);
  ASSERT_EQ(json.at("eps").size(), 2u);
  EXPECT_EQ(json.at("eps")[0].at("ep"), kNpu);
  EXPECT_EQ(json.at("eps")[0].at("nodes"), 5);
  EXPECT_EQ(json.at("eps")[0].at("partitions"), 2);
  EXPECT_EQ(json.at("eps")[1].at("op_types"), nlohmann::ordered_json({{"Gather", 1}, {"Shape", 2}}));
}

TEST(PlacementLine, ShowsTheShareOfTheFirstEpAndWhatTheOthersRan) {
  EXPECT_EQ(PlacementLine(PlacementJson(SummarisePlacement("ctx", kNpu, MixedSubgraphs()))),
            "ctx: SimNpu 5/8 nodes (2 partitions), CPU 3 (Shape, Gather)");
  // The CPU EP's subgraphs are single nodes: no partition count for it.
  EXPECT_EQ(
      PlacementLine(PlacementJson(SummarisePlacement("embeddings", kNpu, {{kCpu, {"Gather"}}, {kCpu, {"Cast"}}}))),
      "embeddings: CPU 2/2 nodes");
  EXPECT_EQ(PlacementLine(PlacementJson(SummarisePlacement("empty", kNpu, {}))), "empty: no nodes");
  // Past four operator types the rest is elided.
  const std::vector<AssignedSubgraph> many = {
      {kNpu, {"MatMul", "MatMul"}}, {kCpu, {"A"}}, {kCpu, {"B"}}, {kCpu, {"C"}}, {kCpu, {"D"}}, {kCpu, {"E"}}};
  EXPECT_EQ(PlacementLine(PlacementJson(SummarisePlacement("m", kNpu, many))), "m: CPU 5/7 nodes, SimNpu 2 (MatMul)");
  const std::vector<AssignedSubgraph> many_fallback = {{kNpu, {"X", "X", "X", "X", "X", "X"}},
                                                       {kCpu, {"A"}},
                                                       {kCpu, {"B"}},
                                                       {kCpu, {"C"}},
                                                       {kCpu, {"D"}},
                                                       {kCpu, {"E"}}};
  EXPECT_EQ(PlacementLine(PlacementJson(SummarisePlacement("m", kNpu, many_fallback))),
            "m: SimNpu 6/11 nodes (1 partition), CPU 5 (A, B, C, D, ...)");
}

}  // namespace
}  // namespace modelkit::report
