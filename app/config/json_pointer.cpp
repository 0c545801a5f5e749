// JSON pointers: the walk that --set and sweeps use to put a value into a scenario document.
#include "app/config/json_pointer.hpp"

#include <utility>

#include "app/config/scenario_error.hpp"

namespace codesim::app {

namespace {

/// The array index a pointer token names, or -1 when it is not a canonical index.
long long parse_index(const std::string& token) {
  if (token.empty() || token.size() > 9 || (token.size() > 1 && token.front() == '0')) return -1;
  long long index = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return -1;
    index = index * 10 + (c - '0');
  }
  return index;
}

}  // namespace

std::vector<std::string> split_json_pointer(std::string_view pointer, const std::string& file,
                                            const std::string& error_pointer) {
  auto malformed = [&](const std::string& what) {
    return ScenarioError(file, error_pointer,
                         "invalid JSON pointer " + in_quotes(pointer) + ": " + what +
                             " (expected \"\" or /-separated tokens such as /cluster/nodes, "
                             "with ~0 for ~ and ~1 for /)");
  };
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  if (pointer.front() != '/') throw malformed("it does not start with '/'");
  std::string token;
  for (std::size_t i = 1; i <= pointer.size(); ++i) {
    if (i == pointer.size() || pointer[i] == '/') {
      tokens.push_back(std::move(token));
      token.clear();
    } else if (pointer[i] == '~') {
      if (i + 1 >= pointer.size() || (pointer[i + 1] != '0' && pointer[i + 1] != '1')) {
        throw malformed("'~' at position " + std::to_string(i) + " is not followed by 0 or 1");
      }
      token += pointer[i + 1] == '0' ? '~' : '/';
      ++i;
    } else {
      token += pointer[i];
    }
  }
  return tokens;
}

void set_at_json_pointer(Json& document, std::string_view pointer, Json value,
                         const std::string& file, const std::string& error_pointer) {
  const std::vector<std::string> tokens = split_json_pointer(pointer, file, error_pointer);
  std::string cannot = "cannot set ";
  cannot.append(pointer.empty() ? std::string_view("/") : pointer).append(": ");
  Json* current = &document;
  std::string walked;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& token = tokens[i];
    const bool last = i + 1 == tokens.size();
    const std::string parent = walked.empty() ? "/" : walked;
    // Two appends rather than "/" + token: GCC 12 warns falsely (-Wrestrict) on the latter.
    walked += '/';
    walked += escape_pointer_token(token);
    if (current->is_null()) *current = Json::object();
    if (current->is_object()) {
      current = &(*current)[token];
    } else if (current->is_array()) {
      const long long size = static_cast<long long>(current->size());
      const long long index = parse_index(token);
      if (last && token == "-") {
        current->push_back(Json());
        current = &current->back();
      } else if (index < 0 || index >= size) {
        std::string expected;
        if (size == 0) {
          expected = last ? "- to append to the empty array" : "an element; the array is empty";
        } else {
          expected = "an index in [0, " + std::to_string(size - 1) + "]" +
                     (last ? ", or - to append" : "");
        }
        throw ScenarioError(file, error_pointer,
                            cannot + "no array element " + walked + " (expected " + expected + ")");
      } else {
        current = &(*current)[static_cast<std::size_t>(index)];
      }
    } else {
      throw ScenarioError(file, error_pointer,
                          cannot + parent + " is " + describe_json(*current) +
                              " (expected an object or an array at " + parent + ")");
    }
  }
  *current = std::move(value);
}

}  // namespace codesim::app
