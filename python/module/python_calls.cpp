// Scenario documents as JSON text through the command line's loader, validator and commands.
#include "python/module/python_calls.hpp"

#include <sstream>

#include "analysis/results_json.hpp"
#include "app/cli/cli.hpp"
#include "app/cli/run_checks.hpp"
#include "app/config/json_input.hpp"
#include "app/config/scenario_loader.hpp"
#include "python/module/python_run.hpp"

namespace codesim::python {

std::string read_scenario(const std::string& path) { return app::read_scenario_file(path).dump(); }

std::string set_value(const std::string& text, const std::string& file, const std::string& pointer,
                      const std::string& value_json) {
  app::Json document = app::parse_json_text(text, file);
  app::apply_set(document, pointer + "=" + value_json, file);
  return document.dump();
}

std::vector<std::string> validate(const std::string& text, const std::string& file,
                                  const std::string& arithmetic) {
  RunArguments arguments;
  arguments.text = text;
  arguments.file = file;
  arguments.arithmetic = arithmetic;
  const app::RunRequest request = run_request(arguments);
  return app::validate_experiment(load_for_run(arguments, request), request);
}

std::string resolved(const std::string& text, const std::string& file) {
  return analysis::json_text(app::make_experiment(app::parse_json_text(text, file), file).scenario);
}

CommandOutput run_command(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = app::run_cli(args, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace codesim::python
