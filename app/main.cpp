// The codesim command-line entry point: runs the CLI and turns any escaped exception into exit 1.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli.hpp"

int main(int argc, char** argv) {
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    return codesim::app::run_cli(args, std::cout, std::cerr);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "error: unknown failure\n";
  }
  return 1;
}
