// The configurations codesim advise compares (strategy_space.hpp).
#include "app/advise/strategy_space.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "models/coding/coding_scheme.hpp"

namespace codesim::app {
namespace {

std::vector<int> divisors_in(int length, const models::SchemeField& field) {
  std::vector<int> values;
  for (int d = field.min; d <= std::min(length, field.max); ++d)
    if (length % d == 0) values.push_back(d);
  return values;
}

/// The values `field` can take on this cluster and these layers (its ranges; cross-field rules
/// and the node count are checked on the whole spec).
std::vector<int> field_values(const models::SchemeField& field, int rows_gcd, int cols_gcd,
                              int cluster_nodes) {
  if (!field.choices.empty()) {
    std::vector<int> values(field.choices.size());
    std::iota(values.begin(), values.end(), 0);
    return values;
  }
  switch (field.splits) {
    case models::SplitOf::rows:
      return divisors_in(rows_gcd, field);
    case models::SplitOf::cols:
      return divisors_in(cols_gcd, field);
    case models::SplitOf::both:
      return divisors_in(std::gcd(rows_gcd, cols_gcd), field);
    case models::SplitOf::nothing:
      break;
  }
  std::vector<int> values;
  for (int v = field.min; v <= std::min(field.max, cluster_nodes); ++v) values.push_back(v);
  return values;
}

bool fits(const models::SchemeSpec& spec, const std::vector<models::WeightShape>& shapes,
          int cluster_nodes) {
  if (!models::validate_scheme(spec).empty()) return false;
  if (models::summarize_scheme(spec).nodes > cluster_nodes) return false;
  return std::all_of(shapes.begin(), shapes.end(), [&](const models::WeightShape& w) {
    return models::validate_scheme(spec, w.rows, w.cols).empty();
  });
}

}  // namespace

std::vector<models::SchemeSpec> enumerate_schemes(const std::vector<models::WeightShape>& shapes,
                                                  int cluster_nodes) {
  int rows_gcd = 0;
  int cols_gcd = 0;
  for (const models::WeightShape& w : shapes) {
    rows_gcd = std::gcd(rows_gcd, w.rows);
    cols_gcd = std::gcd(cols_gcd, w.cols);
  }
  std::vector<models::SchemeSpec> specs;
  for (const models::SchemeDescriptor& descriptor : models::scheme_descriptors()) {
    std::vector<std::vector<int>> choices;
    for (const models::SchemeField& field : descriptor.fields)
      choices.push_back(field_values(field, rows_gcd, cols_gcd, cluster_nodes));
    if (std::any_of(choices.begin(), choices.end(), [](const auto& c) { return c.empty(); }))
      continue;
    // An odometer over the fields' values, the last field fastest.
    std::vector<std::size_t> at(choices.size(), 0);
    std::vector<int> values(choices.size());
    while (true) {
      for (std::size_t f = 0; f < choices.size(); ++f) values[f] = choices[f][at[f]];
      models::SchemeSpec spec = descriptor.make(values);
      if (fits(spec, shapes, cluster_nodes)) specs.push_back(std::move(spec));
      std::size_t f = choices.size();
      while (f > 0 && ++at[f - 1] == choices[f - 1].size()) at[--f] = 0;
      if (f == 0) break;
    }
  }
  return specs;
}

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

std::string scheme_label(const models::SchemeSpec& spec) {
  const models::SchemeDescriptor& descriptor = models::descriptor_of(spec);
  const std::vector<int> values = descriptor.values(spec);
  std::string label(descriptor.name);
  for (std::size_t f = 0; f < descriptor.fields.size(); ++f) {
    const models::SchemeField& field = descriptor.fields[f];
    label += ' ';
    label += field.key;
    label += '=';
    label += field.choices.empty()
                 ? std::to_string(values[f])
                 : std::string(field.choices[static_cast<std::size_t>(values[f])]);
  }
  return label;
}

std::string checkpoint_label(const CheckpointChoice& choice) {
  const std::string name(kCheckpointChoiceNames[static_cast<std::size_t>(choice.kind)]);
  const bool scaled =
      choice.kind == CheckpointChoiceKind::young || choice.kind == CheckpointChoiceKind::daly;
  return scaled && choice.factor != 1.0 ? name + " x" + number_text(choice.factor) : name;
}

std::string configuration_label(const Configuration& configuration) {
  return scheme_label(configuration.scheme) + " | " + checkpoint_label(configuration.checkpoint) +
         " | " + (configuration.decentralized ? "decentralized" : "centralized");
}

Json strategy_json(const models::SchemeSpec& spec) {
  const models::SchemeDescriptor& descriptor = models::descriptor_of(spec);
  const std::vector<int> values = descriptor.values(spec);
  Json strategy = {{"scheme", descriptor.name}};
  for (std::size_t f = 0; f < descriptor.fields.size(); ++f) {
    const models::SchemeField& field = descriptor.fields[f];
    if (field.choices.empty()) {
      strategy[std::string(field.key)] = values[f];
    } else {
      strategy[std::string(field.key)] =
          std::string(field.choices[static_cast<std::size_t>(values[f])]);
    }
  }
  return strategy;
}

}  // namespace codesim::app
