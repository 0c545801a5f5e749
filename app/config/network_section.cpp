// Reads workload.network: the input shape and the layers, then the network's own validation at the
// pointer of the layer (and field) it names.
#include "app/config/network_section.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "app/config/scenario_error.hpp"

namespace codesim::app {

namespace {

// Far beyond any network a 2-core machine trains, and below int overflow in the shape products
// (validate_network checks those).
constexpr std::int64_t kMaxChannels = 1000000;
constexpr std::int64_t kMaxSide = 100000;
constexpr std::int64_t kMaxKernel = 10000;

enum class LayerKind { conv2d, max_pool, avg_pool, flatten, dense, relu };
constexpr std::array<std::string_view, 6> kLayerKinds = {"conv2d",  "max_pool", "avg_pool",
                                                         "flatten", "dense",    "relu"};

int read_int(ObjectReader& r, std::string_view key, std::optional<std::int64_t> fallback,
             std::int64_t min, std::int64_t max) {
  return static_cast<int>(r.integer(key, fallback, min, max));
}

models::Layer read_layer(ObjectReader& r) {
  if (!r.has("kind")) {
    r.fail("kind",
           "missing required key (expected one of \"conv2d\", \"max_pool\", \"avg_pool\", "
           "\"flatten\", \"dense\", \"relu\")");
  }
  const LayerKind kind = r.kind("kind", LayerKind::relu, kLayerKinds, "layer kind");
  switch (kind) {
    case LayerKind::conv2d: {
      models::Conv2d conv;
      conv.out_channels = read_int(r, "channels", std::nullopt, 1, kMaxChannels);
      conv.kernel = read_int(r, "kernel", std::nullopt, 1, kMaxKernel);
      conv.stride = read_int(r, "stride", 1, 1, kMaxKernel);
      conv.padding = read_int(r, "padding", 0, 0, kMaxKernel);
      return conv;
    }
    case LayerKind::max_pool:
    case LayerKind::avg_pool: {
      const int kernel = read_int(r, "kernel", 2, 1, kMaxKernel);
      const int stride = read_int(r, "stride", kernel, 1, kMaxKernel);
      if (kind == LayerKind::max_pool) return models::MaxPool{kernel, stride};
      return models::AvgPool{kernel, stride};
    }
    case LayerKind::flatten:
      return models::Flatten{};
    case LayerKind::dense:
      return models::Dense{read_int(r, "units", std::nullopt, 1, kMaxChannels)};
    case LayerKind::relu:
      break;
  }
  return models::Relu{};
}

}  // namespace

models::NetworkSpec read_network(ObjectReader& r) {
  models::NetworkSpec network;
  r.object("input", [&](ObjectReader& input) {
    network.input.channels = read_int(input, "channels", 1, 1, kMaxChannels);
    network.input.height = read_int(input, "height", 28, 1, kMaxSide);
    network.input.width = read_int(input, "width", 28, 1, kMaxSide);
  });
  const Json* raw = r.raw("layers");
  if (raw == nullptr || !raw->is_array() || raw->empty()) {
    r.fail("layers", (raw == nullptr ? std::string("missing required key")
                                     : "wrong type: got " + describe_json(*raw)) +
                         " (expected a non-empty array of layer objects, e.g. [{\"kind\": "
                         "\"conv2d\", \"channels\": 6, \"kernel\": 5}, ...])");
  }
  Json resolved = Json::array();
  for (std::size_t i = 0; i < raw->size(); ++i) {
    ObjectReader layer(&(*raw)[i], r.pointer_of("layers") + "/" + std::to_string(i), r.file());
    if (!(*raw)[i].is_object()) {
      layer.fail("", "wrong type: got " + describe_json((*raw)[i]) + " (expected a layer object)");
    }
    network.layers.push_back(read_layer(layer));
    resolved.push_back(layer.finish());
  }
  r.record("layers", std::move(resolved));
  if (const std::optional<models::NetworkIssue> issue = models::validate_network(network)) {
    std::string key;
    if (issue->layer >= 0) key = "layers/" + std::to_string(issue->layer);
    // The scenario calls a conv's output channels "channels".
    const std::string field = issue->field == "out_channels" ? "channels" : issue->field;
    if (!field.empty()) key += (key.empty() ? "" : "/") + field;
    throw ScenarioError(r.file(), key.empty() ? r.pointer() : r.pointer() + "/" + key,
                        issue->message);
  }
  return network;
}

}  // namespace codesim::app
