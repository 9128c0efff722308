#include "python_observer.hpp"

#include <stdexcept>
#include <utility>

namespace fedsim::python {
namespace py = pybind11;

PythonObserver::PythonObserver(py::object deliver) : deliver_(std::move(deliver)) {}

PythonObserver::~PythonObserver() {
  py::gil_scoped_acquire gil;
  error_.reset();
  deliver_ = py::object();
}

void PythonObserver::write(const std::string& line) {
  py::gil_scoped_acquire gil;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (error_) return;  // the run is failing: the observer is told nothing more
  }
  try {
    deliver_(py::str(line));
  } catch (py::error_already_set& e) {
    const std::string what = e.what();
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      error_.emplace(std::move(e));
    }
    throw std::runtime_error("the Python observer raised " + what.substr(0, what.find('\n')));
  }
}

std::optional<py::error_already_set> PythonObserver::raised_error() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

cli::LineSink observer_sink(std::shared_ptr<PythonObserver> observer) {
  return {[observer](const std::string& line) { observer->write(line); }, nullptr};
}

}  // namespace fedsim::python
