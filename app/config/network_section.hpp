// The `workload.network` section of a training scenario: a convolutional (or any feed-forward)
// network as a list of layers, read into models::NetworkSpec. Its errors point at the
// offending layer and field.
#pragma once

#include "app/config/object_reader.hpp"
#include "models/nn/network_spec.hpp"

namespace codesim::app {

/// Reads the object `r` (workload.network): "input" {channels, height, width} (default 1 x 28 x
/// 28, the MNIST family's images) and "layers", an array of layer objects (read_layer). The
/// network's own checks (validate_network) fail at the layer's pointer. learning_rate and
/// batch_size are left at their defaults (the workload's learning_rate and batch apply).
models::NetworkSpec read_network(ObjectReader& r);

/// Reads one layer object: its "kind" among models::kLayerKindNames (conv2d, max_pool, avg_pool,
/// flatten, dense, relu) and the fields of that kind's models::LayerDescriptor (conv2d {channels,
/// kernel, stride = 1, padding = 0}, max_pool and avg_pool {kernel = 2, stride = kernel}, dense
/// {units}).
models::Layer read_layer(ObjectReader& r);

}  // namespace codesim::app
