#include "python_observer.hpp"

#include <stdexcept>
#include <utility>

namespace fedsim::python {
namespace py = pybind11;

namespace {

/// The type of a stream line: its first field (`{"type":"round",...`, live_run.cpp), or ""
/// when the line does not start so.
std::string line_type(const std::string& line) {
  static const std::string head = "{\"type\":\"";
  if (line.compare(0, head.size(), head) != 0) return {};
  const std::size_t end = line.find('"', head.size());
  return end == std::string::npos ? std::string() : line.substr(head.size(), end - head.size());
}

}  // namespace

PythonObserver::PythonObserver(py::object deliver, std::set<std::string> types)
    : deliver_(std::move(deliver)), types_(std::move(types)) {}

PythonObserver::~PythonObserver() {
  py::gil_scoped_acquire gil;
  error_.reset();
  deliver_ = py::object();
}

void PythonObserver::write(const std::string& line) {
  if (!types_.empty()) {
    const std::string type = line_type(line);
    if (!type.empty() && types_.count(type) == 0) return;
  }
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
