// The network description: LeNet-5's shapes, weight matrices and flops, and each validation
// error naming its layer and field.
#include <doctest/doctest.h>

#include <string>
#include <variant>
#include <vector>

#include "models/nn/network_spec.hpp"

using namespace codesim::models;

namespace {

NetworkSpec network(TensorShape input, std::vector<Layer> layers) {
  NetworkSpec spec;
  spec.input = input;
  spec.layers = std::move(layers);
  return spec;
}

// The issue of `spec`, which must have one.
NetworkIssue issue_of(const NetworkSpec& spec) {
  const std::optional<NetworkIssue> issue = validate_network(spec);
  REQUIRE(issue.has_value());
  return *issue;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("lenet5 chains 6x28x28, 6x14x14, 16x10x10, 16x5x5, 400, 120, 84 and 10") {
  const NetworkSpec spec = lenet5();
  REQUIRE_FALSE(validate_network(spec).has_value());
  const std::vector<LayerGeometry> g = network_geometry(spec);
  REQUIRE(g.size() == 12);
  CHECK(g[0].output == TensorShape{6, 28, 28, false});
  CHECK(g[1].output == TensorShape{6, 28, 28, false});
  CHECK(g[2].output == TensorShape{6, 14, 14, false});
  CHECK(g[3].output == TensorShape{16, 10, 10, false});
  CHECK(g[5].output == TensorShape{16, 5, 5, false});
  CHECK(g[6].output == TensorShape{400, 1, 1, true});
  CHECK(g[7].output == TensorShape{120, 1, 1, true});
  CHECK(g[9].output == TensorShape{84, 1, 1, true});
  CHECK(g[11].output == TensorShape{10, 1, 1, true});
}

TEST_CASE("lenet5's weight matrices are C_out x C_in k k and units x inputs with their flops") {
  const std::vector<LayerGeometry> g = network_geometry(lenet5());
  struct Expected {
    std::size_t layer;
    int index, rows, cols, positions;
  };
  for (const Expected& e :
       {Expected{0, 0, 6, 25, 784}, Expected{3, 1, 16, 150, 100}, Expected{7, 2, 120, 400, 1},
        Expected{9, 3, 84, 120, 1}, Expected{11, 4, 10, 84, 1}}) {
    CAPTURE(e.layer);
    CHECK(g[e.layer].weighted_index == e.index);
    CHECK(g[e.layer].weight_rows == e.rows);
    CHECK(g[e.layer].weight_cols == e.cols);
    CHECK(g[e.layer].positions == e.positions);
    CHECK(g[e.layer].flops_per_sample == 2.0 * e.rows * e.cols * e.positions);
  }
  for (std::size_t l : {1, 2, 4, 5, 6, 8, 10}) {
    CHECK(g[l].weighted_index == -1);
    CHECK(g[l].flops_per_sample == 0.0);
  }
}

TEST_CASE("a kernel larger than its input is rejected at that layer's kernel") {
  const NetworkIssue issue = issue_of(network({1, 5, 5}, {Conv2d{4, 7}, Flatten{}, Dense{10}}));
  CHECK(issue.layer == 0);
  CHECK(issue.field == "kernel");
  CHECK(issue.message == "kernel 7 is larger than the 5 x 5 input (expected kernel <= 5)");

  const NetworkIssue padded =
      issue_of(network({1, 5, 5}, {Conv2d{4, 3, 1, 1}, MaxPool{6, 1}, Flatten{}, Dense{10}}));
  CHECK(padded.layer == 1);
  CHECK(padded.field == "kernel");
  CHECK(contains(padded.message, "expected kernel <= 5"));

  const NetworkIssue with_padding =
      issue_of(network({1, 5, 5}, {Conv2d{4, 9, 1, 1}, Flatten{}, Dense{10}}));
  CHECK(with_padding.message ==
        "kernel 9 is larger than the 5 x 5 input padded to 7 x 7 (expected kernel <= 7)");
}

TEST_CASE("strides of 0 and non-positive sizes are rejected at their field") {
  struct Case {
    NetworkSpec spec;
    int layer;
    std::string field;
  };
  const TensorShape in{1, 8, 8};
  const std::vector<Case> cases = {
      {network(in, {Conv2d{4, 3, 0}, Flatten{}, Dense{2}}), 0, "stride"},
      {network(in, {Relu{}, MaxPool{2, 0}, Flatten{}, Dense{2}}), 1, "stride"},
      {network(in, {AvgPool{0, 1}, Flatten{}, Dense{2}}), 0, "kernel"},
      {network(in, {Conv2d{0, 3}, Flatten{}, Dense{2}}), 0, "out_channels"},
      {network(in, {Conv2d{2, 3, 1, -1}, Flatten{}, Dense{2}}), 0, "padding"},
      {network(in, {Flatten{}, Dense{0}}), 1, "units"},
      {network({0, 8, 8}, {Flatten{}, Dense{2}}), -1, "input/channels"},
      {network({1, 8, 8}, {}), -1, "layers"},
  };
  for (const Case& c : cases) {
    const NetworkIssue issue = issue_of(c.spec);
    CAPTURE(issue.message);
    CHECK(issue.layer == c.layer);
    CHECK(issue.field == c.field);
  }
  CHECK(issue_of(network(in, {Conv2d{4, 3, 0}, Flatten{}, Dense{2}})).message ==
        "stride 0 must be at least 1");
}

TEST_CASE("layers out of order are rejected as a whole: dense before flatten, conv after it") {
  const NetworkIssue dense = issue_of(network({1, 8, 8}, {Conv2d{2, 3}, Relu{}, Dense{10}}));
  CHECK(dense.layer == 2);
  CHECK(dense.field.empty());
  CHECK(dense.message ==
        "dense layer before flatten: its input is 2 x 6 x 6 (add a flatten layer before it)");

  const NetworkIssue conv = issue_of(network({1, 8, 8}, {Flatten{}, Conv2d{2, 3}, Dense{10}}));
  CHECK(conv.layer == 1);
  CHECK(conv.field.empty());
  CHECK(contains(conv.message, "conv2d after flatten: its input is 64 features"));

  const NetworkIssue pool = issue_of(network({1, 8, 8}, {Flatten{}, MaxPool{2, 2}, Dense{10}}));
  CHECK(pool.layer == 1);
  CHECK(contains(pool.message, "max_pool after flatten"));

  const NetworkIssue open_end = issue_of(network({1, 8, 8}, {Conv2d{2, 3}, Relu{}}));
  CHECK(open_end.layer == 1);
  CHECK(open_end.field.empty());
  CHECK(contains(open_end.message, "ends with a 2 x 6 x 6 output"));
}

TEST_CASE("sizes beyond 2^31 values per sample are rejected, not overflowed") {
  const NetworkIssue issue =
      issue_of(network({1, 4096, 4096}, {Conv2d{1000, 1}, Flatten{}, Dense{2}}));
  CHECK(issue.layer == 0);
  CHECK(contains(issue.message, "the output has 16777216000 values per sample"));
  const NetworkIssue dense = issue_of(network({1, 1, 1}, {Flatten{}, Dense{2000000000}, Dense{2}}));
  CHECK(dense.layer == 2);
  CHECK(contains(dense.message, "the weight matrix"));
}

TEST_CASE("a flat input feeds dense layers directly, as an MLP") {
  const NetworkSpec mlp = network({784, 1, 1, true}, {Dense{256}, Relu{}, Dense{10}});
  REQUIRE_FALSE(validate_network(mlp).has_value());
  const std::vector<LayerGeometry> g = network_geometry(mlp);
  CHECK(g[0].weight_rows == 256);
  CHECK(g[0].weight_cols == 784);
  CHECK(g[2].output == TensorShape{10, 1, 1, true});
  CHECK(layer_kind_name(mlp.layers[0]) == "dense");
  CHECK(layer_kind_name(Layer{MaxPool{}}) == "max_pool");
}

TEST_CASE("every layer kind has one descriptor, named as its struct, that rebuilds its layers") {
  const std::vector<Layer> layers = {Conv2d{6, 5, 2, 1}, MaxPool{3, 2}, AvgPool{2, 1},
                                     Flatten{},          Dense{120},    Relu{}};
  REQUIRE(layer_descriptors().size() == std::variant_size_v<Layer>);
  REQUIRE(layers.size() == std::variant_size_v<Layer>);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const Layer& layer = layers[i];
    const LayerDescriptor& kind = layer_descriptor(layer);
    CAPTURE(kind.name);
    CHECK(layer.index() == i);
    CHECK(kind.name == kLayerKindNames[i]);
    CHECK(kind.name == layer_kind_name(layer));
    CHECK(find_layer_kind(kind.name) == &kind);
    const std::vector<int> values = kind.values(layer);
    CHECK(values.size() == kind.fields.size());
    const Layer rebuilt = kind.make(values);
    CHECK(rebuilt.index() == i);
    CHECK(kind.values(rebuilt) == values);
  }
  CHECK(find_layer_kind("tanh") == nullptr);
  CHECK(layer_descriptor(Layer{Conv2d{}}).fields[0].key == "channels");
  CHECK(layer_descriptor(Layer{Conv2d{}}).fields[0].member == "out_channels");
}

TEST_CASE("a layer is described on one line as run summaries print it") {
  CHECK(describe(Layer{Conv2d{6, 5, 1, 2}}) == "conv2d 6@5x5+2");
  CHECK(describe(Layer{Conv2d{16, 3, 2, 0}}) == "conv2d 16@3x3/2");
  CHECK(describe(Layer{MaxPool{2, 2}}) == "max_pool 2/2");
  CHECK(describe(Layer{AvgPool{3, 1}}) == "avg_pool 3/1");
  CHECK(describe(Layer{Flatten{}}) == "flatten");
  CHECK(describe(Layer{Dense{120}}) == "dense 120");
  CHECK(describe(Layer{Relu{}}) == "relu");
}
