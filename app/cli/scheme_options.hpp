// The coding-scheme options of `codesim codes` and `codesim theory`, made from the scheme
// descriptors (models/coding/scheme_spec.hpp): one option per descriptor field.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "models/coding/scheme_spec.hpp"

namespace codesim::app {

/// "  gpd:          --m M --n N --nodes NODES [--orientation default|mirrored]" per scheme.
std::string scheme_usage_lines(const std::string& indent);
/// Adds --scheme and every field's option (the union over the schemes).
void add_scheme_options(boost::program_options::options_description& options);
/// The spec the options describe (fields in their ranges are not checked here: validate_scheme
/// does), or what is wrong with the options, ending in "(expected ...)". Precondition: --scheme
/// was given.
std::variant<models::SchemeSpec, std::string> read_scheme_options(
    const boost::program_options::variables_map& values);
/// Every scheme field's option name (without dashes), each once.
std::vector<std::string> scheme_option_names();
/// The spec's fields under their option names, choices by name, in descriptor order.
nlohmann::ordered_json scheme_parameters_json(const models::SchemeSpec& spec);

}  // namespace codesim::app
