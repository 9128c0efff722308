#include "interruptible.hpp"

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include <pybind11/pybind11.h>

namespace fedsim::python {
namespace py = pybind11;

void run_interruptible(std::atomic<int>& interrupt, const std::function<void()>& work) {
  std::exception_ptr failure;
  std::optional<py::error_already_set> raised;  // the signal handler's exception
  std::mutex mutex;
  std::condition_variable ended;
  bool done = false;
  {
    py::gil_scoped_release release;
    std::thread worker([&] {
      try {
        work();
      } catch (...) {
        failure = std::current_exception();
      }
      const std::lock_guard<std::mutex> lock(mutex);
      done = true;
      ended.notify_all();
    });
    std::unique_lock<std::mutex> lock(mutex);
    while (!ended.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; })) {
      lock.unlock();
      {
        py::gil_scoped_acquire gil;
        if (!raised && PyErr_CheckSignals() != 0) {
          raised.emplace();  // takes Python's error indicator
          interrupt.store(SIGINT);
        }
      }
      lock.lock();
    }
    lock.unlock();
    worker.join();
  }
  if (raised) throw std::move(*raised);
  if (failure) std::rethrow_exception(failure);
}

}  // namespace fedsim::python
