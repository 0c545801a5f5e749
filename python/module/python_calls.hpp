// The module's calls that do not run a scenario: reading and editing a scenario document,
// validating it, resolving its defaults, and the other commands (codes, theory) in-process. Each
// is the command line's own code on a document held as JSON text, so that the answers and the
// errors are the command line's.
#pragma once

#include <string>
#include <vector>

namespace codesim::python {

/// The scenario file at `path` as JSON text (a ScenarioError when it cannot be read or parsed).
std::string read_scenario(const std::string& path);

/// `text` with `value_json` set at `pointer`, exactly as `codesim run --set POINTER=VALUE`.
std::string set_value(const std::string& text, const std::string& file, const std::string& pointer,
                      const std::string& value_json);

/// Every check `codesim validate` makes on the document (`arithmetic` as --arithmetic); returns
/// its warnings (ill-conditioned decoding systems), a ScenarioError when it is bad.
std::vector<std::string> validate(const std::string& text, const std::string& file,
                                  const std::string& arithmetic);

/// The document with every default filled in, as `codesim validate --resolved` prints it.
std::string resolved(const std::string& text, const std::string& file);

/// What a command line `codesim ARGS...` prints and its exit code.
struct CommandOutput {
  int exit_code = 0;
  std::string out;
  std::string err;
};
CommandOutput run_command(const std::vector<std::string>& args);

}  // namespace codesim::python
