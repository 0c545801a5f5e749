// What every codesim command shares: its exit codes and how it reads its options.
#pragma once

#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace codesim::app {

/// Exit codes: 0 ok, 1 runtime failure, 2 bad input (README).
inline constexpr int kOk = 0;
inline constexpr int kRuntimeFailure = 1;
inline constexpr int kBadInput = 2;

/// Parses `args` (after the command's name) into `values`: Unix style without abbreviated
/// options, so a misspelt option is an error rather than a guess. Throws boost's po::error.
inline void parse_options(const std::vector<std::string>& args,
                          const boost::program_options::options_description& options,
                          const boost::program_options::positional_options_description& positional,
                          boost::program_options::variables_map& values) {
  namespace po = boost::program_options;
  const auto style = po::command_line_style::unix_style ^ po::command_line_style::allow_guessing;
  po::store(
      po::command_line_parser(args).options(options).positional(positional).style(style).run(),
      values);
  po::notify(values);
}

}  // namespace codesim::app
