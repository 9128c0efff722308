#pragma once
/// The Python exception classes of the module (fedsim.ScenarioError, fedsim.RunError), made by
/// module.cpp, and raising them from C++.
#include <string>

#include <pybind11/pybind11.h>

namespace fedsim::python {

/// fedsim.ScenarioError (a ValueError): a bad scenario, key or value; the message is the
/// loader's one line, as `fedsim run` prints it.
extern PyObject* scenario_error;
/// fedsim.RunError (a RuntimeError): a run or sweep that failed; the message is fedsim run's.
extern PyObject* run_error;

/// Sets `type` with `message` as Python's error and throws pybind11::error_already_set.
[[noreturn]] void raise(PyObject* type, const std::string& message);

/// Makes the classes on `module` (named fedsim.ScenarioError, fedsim.RunError).
void add_errors(pybind11::module_& module);

}  // namespace fedsim::python
