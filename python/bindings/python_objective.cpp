#include "python_objective.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

#include <pybind11/numpy.h>

#include "errors.hpp"

namespace fedsim::python {
namespace py = pybind11;

namespace {

/// A sequence attribute of `dimension` finite numbers.
Eigen::VectorXd vector_attribute(const py::object& object, const char* name, int dimension) {
  const std::string where = std::string("objective.") + name;
  if (!py::hasattr(object, name)) raise(PyExc_TypeError, where + ": missing (the box's " + name + " corner)");
  const py::object value = object.attr(name);
  if (!py::isinstance<py::sequence>(value) || py::isinstance<py::str>(value))
    raise(PyExc_TypeError, where + ": give a sequence of " + std::to_string(dimension) + " numbers");
  const py::sequence seq = value;
  if (static_cast<int>(seq.size()) != dimension)
    raise(PyExc_ValueError, where + ": has " + std::to_string(seq.size()) + " entries, dimension is " +
                                std::to_string(dimension));
  Eigen::VectorXd out(dimension);
  for (int i = 0; i < dimension; ++i) {
    const py::handle item = seq[static_cast<std::size_t>(i)];
    if (!PyFloat_Check(item.ptr()) && !PyLong_Check(item.ptr()))
      raise(PyExc_TypeError, where + "[" + std::to_string(i) + "]: not a number");
    out(i) = item.cast<double>();
    if (!std::isfinite(out(i))) raise(PyExc_ValueError, where + "[" + std::to_string(i) + "]: not finite");
  }
  return out;
}

/// The first line of a Python exception's description ("ValueError: boom").
std::string first_line(const py::error_already_set& e) {
  const std::string what = e.what();
  return what.substr(0, what.find('\n'));
}

/// A number of evaluate's answer, or nothing for None.
std::optional<double> optional_number(py::handle v, bool& ok) {
  if (v.is_none()) return std::nullopt;
  if (py::isinstance<py::bool_>(v) || !(PyFloat_Check(v.ptr()) || PyLong_Check(v.ptr()) ||
                                        PyIndex_Check(v.ptr()) || py::hasattr(v, "__float__"))) {
    ok = false;
    return std::nullopt;
  }
  return py::float_(py::reinterpret_borrow<py::object>(v)).cast<double>();
}

}  // namespace

PythonObjective::PythonObjective(py::object object) : object_(std::move(object)) {
  if (!py::hasattr(object_, "dimension")) raise(PyExc_TypeError, "objective.dimension: missing");
  const py::object dim = object_.attr("dimension");
  if (!PyLong_Check(dim.ptr()) || py::isinstance<py::bool_>(dim))
    raise(PyExc_TypeError, "objective.dimension: give an int");
  const long long d = dim.cast<long long>();
  if (d < 1 || d > 10000)
    raise(PyExc_ValueError, "objective.dimension: must be in [1, 10000], got " + std::to_string(d));
  Box bounds{vector_attribute(object_, "lower", static_cast<int>(d)),
             vector_attribute(object_, "upper", static_cast<int>(d))};
  for (int i = 0; i < bounds.dim(); ++i)
    if (!(bounds.lower(i) < bounds.upper(i)))
      raise(PyExc_ValueError, "objective.lower[" + std::to_string(i) + "] must be below objective.upper[" +
                                  std::to_string(i) + "]");
  if (!py::hasattr(object_, "evaluate") || !PyCallable_Check(object_.attr("evaluate").ptr()))
    raise(PyExc_TypeError, "objective.evaluate: missing (a method evaluate(agent, x) returning y, or (y, f, cost))");
  evaluate_ = object_.attr("evaluate");
  if (py::hasattr(object_, "optimum")) optimum_ = object_.attr("optimum");
  domain_.box = Box::unit(bounds.dim());
  domain_.bounds = std::move(bounds);
}

PythonObjective::~PythonObjective() {
  py::gil_scoped_acquire gil;
  first_error_.reset();
  optimum_ = py::object();
  evaluate_ = py::object();
  object_ = py::object();
}

void PythonObjective::failed(const std::string& call, py::error_already_set& e) const {
  const std::string what = "the Python objective's " + call + " raised " + first_line(e);
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!first_error_) first_error_.emplace(std::move(e));
  }
  throw std::runtime_error(what);
}

Answer PythonObjective::evaluate(const Query& query, RandomStream& /*noise*/) const {
  const Eigen::VectorXd x = domain_.to_bounds(query.x);
  py::gil_scoped_acquire gil;
  py::object result;
  try {
    result = evaluate_(query.agent, py::array_t<double>(x.size(), x.data()));
  } catch (py::error_already_set& e) {
    failed("evaluate", e);
  }
  Answer a;
  bool ok = true;
  std::optional<double> y;
  if (py::isinstance<py::tuple>(result)) {
    const py::tuple t = result;
    ok = t.size() >= 1 && t.size() <= 3;
    if (ok) y = optional_number(t[0], ok);
    if (ok && t.size() >= 2) a.f = optional_number(t[1], ok);
    if (ok && t.size() == 3) a.cost = optional_number(t[2], ok);
  } else {
    y = optional_number(result, ok);
  }
  if (!ok || !y)
    throw std::runtime_error("the Python objective's evaluate returned " +
                             py::repr(result).cast<std::string>().substr(0, 80) +
                             ": expected a number y, or a tuple (y, f) or (y, f, cost)");
  if (a.cost && !(*a.cost >= 0.0 && std::isfinite(*a.cost)))
    throw std::runtime_error("the Python objective's evaluate returned cost " + std::to_string(*a.cost) +
                             ": expected a finite number of seconds >= 0");
  a.y = *y;  // a y that is not finite fails the agent as any objective's (engine/fbo/agent_step.cpp)
  return a;
}

std::optional<double> PythonObjective::optimum(int agent) const {
  if (!optimum_) return std::nullopt;
  py::gil_scoped_acquire gil;
  py::object value;
  try {
    value = PyCallable_Check(optimum_.ptr()) ? optimum_(agent) : optimum_;
  } catch (py::error_already_set& e) {
    failed("optimum", e);
  }
  bool ok = true;
  const std::optional<double> out = optional_number(value, ok);
  if (!ok)
    throw std::runtime_error("the Python objective's optimum is " +
                             py::repr(value).cast<std::string>().substr(0, 80) + ": expected a number or None");
  return out;
}

std::optional<py::error_already_set> PythonObjective::raised_error() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return first_error_;
}

}  // namespace fedsim::python
