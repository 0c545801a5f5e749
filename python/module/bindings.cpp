// The module codesim._codesim: the bindings the package codesim (python/codesim) wraps, and the
// exceptions every failure becomes. Kept thin: everything a binding does is the command line's
// code (python_calls, python_run), so that the module and `codesim` agree byte for byte.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <new>
#include <string>

#include "app/config/json_input.hpp"
#include "app/config/scenario_error.hpp"
#include "app/exec/runner.hpp"
#include "python/module/python_calls.hpp"
#include "python/module/python_run.hpp"

namespace py = pybind11;

namespace codesim::python {

namespace {

// The exception types, created once with the module and never freed (the interpreter may tear
// the module down before the last exception is raised).
PyObject* g_error = nullptr;
PyObject* g_scenario_error = nullptr;

/// The "(expected ...)" of a ScenarioError's message, without its parentheses; "" when none.
std::string expected_part(const std::string& message) {
  const std::size_t at = message.rfind("(expected ");
  if (at == std::string::npos || !message.ends_with(")")) return "";
  return message.substr(at + 1, message.size() - at - 2);
}

void raise_scenario_error(const app::ScenarioError& e) {
  const py::object error = py::reinterpret_borrow<py::object>(g_scenario_error)(e.what());
  error.attr("file") = e.file();
  error.attr("pointer") = e.pointer();
  error.attr("message") = e.message();
  error.attr("expected") = expected_part(e.message());
  PyErr_SetObject(g_scenario_error, error.ptr());
}

/// C++ failures as codesim exceptions; Python's own pass through.
void translate(std::exception_ptr failure) {
  try {
    if (failure) std::rethrow_exception(failure);
  } catch (const py::error_already_set&) {
    throw;
  } catch (const py::builtin_exception&) {
    throw;
  } catch (const app::ScenarioError& e) {
    raise_scenario_error(e);
  } catch (const std::bad_alloc&) {
    PyErr_SetString(g_error,
                    "out of memory: the run needed more memory than this machine could give "
                    "(std::bad_alloc; expected a smaller scheme, scenario or fewer trials)");
  } catch (const std::exception& e) {
    PyErr_SetString(g_error, app::printable(e.what()).c_str());
  }
}

/// glibc's malloc hands blocks above its mmap threshold back to the system on free, and raises
/// the threshold as a program frees large blocks. In a fresh Python interpreter the first run
/// kept mapping and faulting its matrices anew: 100,631 page faults against the command line's
/// 37,019 for the same quickstart run, and twice its time. Fixing the thresholds at glibc's
/// dynamic maximum (32 MiB, trimmed beyond 64 MiB) gave 39,056 and the command line's time
/// (bench/README.md: the Python module).
void keep_large_blocks() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

PyObject* new_exception(py::module_& m, const char* name, PyObject* bases, const char* doc) {
  const std::string full_name = "codesim." + std::string(name);
  PyObject* type = PyErr_NewExceptionWithDoc(full_name.c_str(), doc, bases, nullptr);
  if (type == nullptr) throw py::error_already_set();
  m.attr(name) = py::reinterpret_borrow<py::object>(type);  // the module's reference; ours stays
  return type;
}

}  // namespace

}  // namespace codesim::python

PYBIND11_MODULE(_codesim, m) {
  using namespace codesim::python;
  m.doc() = "codesim's C++ core; use the package codesim, which wraps it.";
  keep_large_blocks();
  g_error = new_exception(m, "Error", PyExc_Exception, "A codesim failure other than bad input.");
  const py::tuple bases = py::make_tuple(py::handle(g_error), py::handle(PyExc_ValueError));
  g_scenario_error = new_exception(
      m, "ScenarioError", bases.ptr(),
      "Bad input: str() is the command line's exit-2 line without its 'error: ' prefix; .file, "
      ".pointer (RFC 6901, '' for the whole document), .message and .expected locate it.");
  py::register_exception_translator(translate);

  m.def("version", &codesim::app::codesim_version);
  // The command line's input limits, so that documents built in Python meet the same ones.
  m.attr("max_json_depth") = codesim::app::kMaxJsonDepth;
  m.attr("max_json_file_bytes") = codesim::app::kMaxJsonFileBytes;
  m.def(
      "raise_scenario_error",
      [](const std::string& file, const std::string& pointer, const std::string& message) {
        throw codesim::app::ScenarioError(file, pointer, message);
      },
      py::arg("file"), py::arg("pointer"), py::arg("message"));
  m.def("read_scenario", &read_scenario, py::arg("path"));
  m.def("set_value", &set_value, py::arg("text"), py::arg("file"), py::arg("pointer"),
        py::arg("value_json"));
  m.def("validate", &validate, py::arg("text"), py::arg("file"), py::arg("arithmetic"),
        py::call_guard<py::gil_scoped_release>());
  m.def("resolved", &resolved, py::arg("text"), py::arg("file"));
  m.def(
      "run_command",
      [](const std::vector<std::string>& args) {
        const CommandOutput output = run_command(args);
        return py::make_tuple(output.exit_code, py::bytes(output.out), py::bytes(output.err));
      },
      py::arg("args"));

  py::class_<RunArguments>(m, "RunArguments")
      .def(py::init<>())
      .def_readwrite("text", &RunArguments::text)
      .def_readwrite("file", &RunArguments::file)
      .def_readwrite("arithmetic", &RunArguments::arithmetic)
      .def_readwrite("jobs", &RunArguments::jobs)
      .def_readwrite("threads", &RunArguments::threads)
      .def_readwrite("force", &RunArguments::force)
      .def_readwrite("memory_limit_gb", &RunArguments::memory_limit_gb);
  py::class_<RunOutcome>(m, "RunOutcome")
      .def_property_readonly("results_json",
                             [](const RunOutcome& o) { return py::bytes(o.results_json); })
      .def_readonly("complete", &RunOutcome::complete)
      .def_readonly("warnings", &RunOutcome::warnings)
      .def_readonly("errors", &RunOutcome::errors)
      .def_readonly("fault_logs", &RunOutcome::fault_logs)
      .def_readonly("traces", &RunOutcome::traces)
      .def_property_readonly("inputs", [](const RunOutcome& o) {
        py::list inputs;
        for (const RunInput& input : o.inputs)
          inputs.append(py::make_tuple(input.path, input.name, input.directory));
        return inputs;
      });
  m.def("run", &run, py::arg("arguments"), py::arg("progress"));
}
