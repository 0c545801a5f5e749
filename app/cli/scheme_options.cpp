// Command-line options of the coding schemes, from their descriptors.
#include "app/cli/scheme_options.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace po = boost::program_options;

namespace codesim::app {
namespace {

// Every field's option once, in the order the descriptors first name them.
std::vector<const models::SchemeField*> distinct_fields() {
  std::vector<const models::SchemeField*> fields;
  std::set<std::string_view> seen;
  for (const models::SchemeDescriptor& descriptor : models::scheme_descriptors()) {
    for (const models::SchemeField& field : descriptor.fields) {
      if (seen.insert(field.option).second) fields.push_back(&field);
    }
  }
  return fields;
}

std::string placeholder(const models::SchemeField& field) {
  std::string name(field.option);
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) {
    return c == '-' ? '_' : static_cast<char>(std::toupper(c));
  });
  return name;
}

std::string choice_list(const models::SchemeField& field, const char* separator,
                        const char* last_separator) {
  std::string list;
  for (std::size_t i = 0; i < field.choices.size(); ++i) {
    if (i > 0) list += i + 1 == field.choices.size() ? last_separator : separator;
    list += field.choices[i];
  }
  return list;
}

// Which schemes take the option, for its help line.
std::string schemes_taking(std::string_view option) {
  std::string names;
  for (const models::SchemeDescriptor& descriptor : models::scheme_descriptors()) {
    const bool takes =
        std::any_of(descriptor.fields.begin(), descriptor.fields.end(),
                    [&](const models::SchemeField& f) { return f.option == option; });
    if (takes) names += (names.empty() ? "" : ", ") + std::string(descriptor.name);
  }
  return names;
}

std::string option_list(const models::SchemeDescriptor& descriptor) {
  std::string list;
  for (const models::SchemeField& field : descriptor.fields) {
    list += (list.empty() ? "--" : ", --") + std::string(field.option);
  }
  return list;
}

}  // namespace

std::string scheme_usage_lines(const std::string& indent) {
  std::string lines;
  for (const models::SchemeDescriptor& descriptor : models::scheme_descriptors()) {
    std::string line = indent + std::string(descriptor.name) + ":";
    line.resize(std::max(line.size() + 1, indent.size() + 15), ' ');
    for (const models::SchemeField& field : descriptor.fields) {
      if (field.choices.empty()) {
        line += "--" + std::string(field.option) + " " + placeholder(field) + " ";
      } else {
        line += "[--" + std::string(field.option) + " " + choice_list(field, "|", "|") + "] ";
      }
    }
    line.pop_back();
    lines += line + "\n";
  }
  return lines;
}

void add_scheme_options(po::options_description& options) {
  static const std::string scheme_help = models::scheme_names_list();
  options.add_options()("scheme", po::value<std::string>()->value_name("KIND"),
                        scheme_help.c_str());
  for (const models::SchemeField* field : distinct_fields()) {
    const std::string option(field->option);
    const std::string help = std::string(field->doc) + " (" + schemes_taking(field->option) + ")";
    if (field->choices.empty()) {
      options.add_options()(option.c_str(), po::value<int>()->value_name(placeholder(*field)),
                            help.c_str());
    } else {
      options.add_options()(
          option.c_str(), po::value<std::string>()->value_name(placeholder(*field)), help.c_str());
    }
  }
}

std::vector<std::string> scheme_option_names() {
  std::vector<std::string> names;
  for (const models::SchemeField* field : distinct_fields()) names.emplace_back(field->option);
  return names;
}

std::variant<models::SchemeSpec, std::string> read_scheme_options(const po::variables_map& values) {
  const std::string kind = values["scheme"].as<std::string>();
  const models::SchemeDescriptor* descriptor = models::find_scheme(kind);
  if (descriptor == nullptr) {
    return "unknown scheme '" + kind + "' (expected " + models::scheme_names_list() + ")";
  }
  std::vector<int> field_values;
  for (const models::SchemeField& field : descriptor->fields) {
    const std::string option(field.option);
    if (!field.choices.empty()) {
      const std::string chosen =
          values.count(option) ? values[option].as<std::string>() : std::string(field.choices[0]);
      const auto at = std::find(field.choices.begin(), field.choices.end(), chosen);
      if (at == field.choices.end()) {
        return "unknown " + option + " '" + chosen + "' (expected " +
               choice_list(field, ", ", " or ") + ")";
      }
      field_values.push_back(static_cast<int>(at - field.choices.begin()));
    } else if (values.count(option)) {
      field_values.push_back(values[option].as<int>());
    } else {
      return "--scheme " + kind + " needs --" + option + " (expected --" + option +
             " with an integer)";
    }
  }
  for (const models::SchemeField* field : distinct_fields()) {
    const std::string option(field->option);
    const bool mine = std::any_of(descriptor->fields.begin(), descriptor->fields.end(),
                                  [&](const models::SchemeField& f) { return f.option == option; });
    if (values.count(option) && !mine) {
      return "--" + option + " does not apply to --scheme " + kind + " (expected only " +
             option_list(*descriptor) + ")";
    }
  }
  return descriptor->make(field_values);
}

nlohmann::ordered_json scheme_parameters_json(const models::SchemeSpec& spec) {
  const models::SchemeDescriptor& descriptor = models::descriptor_of(spec);
  const std::vector<int> field_values = descriptor.values(spec);
  nlohmann::ordered_json parameters = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < field_values.size(); ++i) {
    const models::SchemeField& field = descriptor.fields[i];
    const std::string option(field.option);
    if (field.choices.empty()) {
      parameters[option] = field_values[i];
    } else {
      parameters[option] = std::string(field.choices[static_cast<std::size_t>(field_values[i])]);
    }
  }
  return parameters;
}

}  // namespace codesim::app
