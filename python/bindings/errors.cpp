#include "errors.hpp"

namespace fedsim::python {

PyObject* scenario_error = nullptr;
PyObject* run_error = nullptr;

void raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw pybind11::error_already_set();
}

namespace {

PyObject* make_class(pybind11::module_& module, const char* name, PyObject* base, const char* doc) {
  PyObject* type = PyErr_NewExceptionWithDoc((std::string("fedsim.") + name).c_str(), doc, base, nullptr);
  if (!type) throw pybind11::error_already_set();
  module.add_object(name, pybind11::handle(type));  // the module keeps a reference
  return type;
}

}  // namespace

void add_errors(pybind11::module_& module) {
  scenario_error = make_class(module, "ScenarioError", PyExc_ValueError,
                              "A bad scenario file, key or value: the message is the one line "
                              "`fedsim run` prints, naming the file or key and the allowed values.");
  run_error = make_class(module, "RunError", PyExc_RuntimeError,
                         "A run or sweep that failed (a member of the federation failed, a file "
                         "could not be written): the message is the one `fedsim run` prints.");
}

}  // namespace fedsim::python
