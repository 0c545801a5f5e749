// Reads workload.network: the input shape and the layers, then the network's own validation at the
// pointer of the layer (and field) it names.
#include "app/config/network_section.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/config/scenario_error.hpp"

namespace codesim::app {

namespace {

// Far beyond any network a 2-core machine trains, and below int overflow in the shape products
// (validate_network checks those); the layers' bounds are beside them (models::kMaxChannels).
constexpr std::int64_t kMaxSide = 100000;

int read_int(ObjectReader& r, std::string_view key, std::optional<std::int64_t> fallback,
             std::int64_t min, std::int64_t max) {
  return static_cast<int>(r.integer(key, fallback, min, max));
}

// The scenario's key of the field that validate_network names `member` in `layer`.
std::string scenario_key(const models::Layer& layer, const std::string& member) {
  for (const models::LayerField& field : models::layer_descriptor(layer).fields)
    if (field.member == member) return std::string(field.key);
  return member;
}

}  // namespace

models::Layer read_layer(ObjectReader& r) {
  if (!r.has("kind")) {
    std::string kinds;
    for (std::string_view name : models::kLayerKindNames)
      kinds += (kinds.empty() ? "" : ", ") + in_quotes(name);
    r.fail("kind", "missing required key (expected one of " + kinds + ")");
  }
  const std::string name = r.choice("kind", std::nullopt, models::kLayerKindNames);
  r.set_unknown_key_note("for layer kind " + in_quotes(name));
  const models::LayerDescriptor& kind = *models::find_layer_kind(name);
  std::vector<int> values;
  for (const models::LayerField& field : kind.fields) {
    const std::optional<std::int64_t> fallback =
        field.fallback_field >= 0 ? values[static_cast<std::size_t>(field.fallback_field)]
                                  : std::optional<std::int64_t>(field.fallback);
    values.push_back(read_int(r, field.key, fallback, field.min, field.max));
  }
  return kind.make(values);
}

models::NetworkSpec read_network(ObjectReader& r) {
  models::NetworkSpec network;
  r.object("input", [&](ObjectReader& input) {
    network.input.channels = read_int(input, "channels", 1, 1, models::kMaxChannels);
    network.input.height = read_int(input, "height", 28, 1, kMaxSide);
    network.input.width = read_int(input, "width", 28, 1, kMaxSide);
  });
  const Json* raw = r.raw("layers");
  if (raw == nullptr || !raw->is_array() || raw->empty()) {
    const std::string problem = raw == nullptr    ? std::string("missing required key")
                                : raw->is_array() ? std::string("an empty array of layers")
                                                  : "wrong type: got " + describe_json(*raw);
    r.fail("layers", problem +
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
    // The scenario may name a field otherwise (a conv's out_channels is "channels").
    const std::string field =
        issue->layer >= 0
            ? scenario_key(network.layers[static_cast<std::size_t>(issue->layer)], issue->field)
            : issue->field;
    if (!field.empty()) key += (key.empty() ? "" : "/") + field;
    throw ScenarioError(r.file(), key.empty() ? r.pointer() : r.pointer() + "/" + key,
                        issue->message);
  }
  return network;
}

}  // namespace codesim::app
