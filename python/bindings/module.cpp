// The extension module fedsim._fedsim, which the package fedsim (python/fedsim/) wraps: the
// exception classes, fedsim.Scenario, and the C++ halves of fedsim.run and fedsim.sweep.
#include <string>

#include <pybind11/pybind11.h>

#include "errors.hpp"
#include "scenario.hpp"
#include "tools/fedsim/run_folder.hpp"
#include "tools/fedsim/version.hpp"

namespace fedsim::python {
void add_runs(pybind11::module_& m);
}

PYBIND11_MODULE(_fedsim, m) {
  namespace py = pybind11;
  m.doc() = "fedsim's C++ library, as the package fedsim uses it (docs/python.md).";
  fedsim::python::add_errors(m);
  fedsim::python::add_scenario(m);
  fedsim::python::add_runs(m);
  m.attr("__version__") = fedsim::cli::fedsim_version();
  m.attr("build") = fedsim::cli::fedsim_build();
  // What the lock files of the folders this process runs into name (as fedsim run's do): the
  // interpreter's command line.
  const py::module_ sys = py::module_::import("sys");
  std::string command = py::str(sys.attr("executable"));
  for (const py::handle a : py::getattr(sys, "argv", py::list())) command += " " + std::string(py::str(a));
  fedsim::cli::set_command_line(command);
}
