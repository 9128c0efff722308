#pragma once
/// A long C++ call from Python that Ctrl-C can stop: the call runs on a thread of its own, the
/// GIL released, while the calling thread looks at Python's signals every 50 ms.
#include <atomic>
#include <functional>

namespace fedsim::python {

/// Runs `work` on a new thread and waits for it, the GIL released. Meanwhile, every 50 ms, the
/// calling thread runs Python's signal handlers (PyErr_CheckSignals, which only the main
/// thread does): when one raises (SIGINT's default raises KeyboardInterrupt), `interrupt` is
/// set to SIGINT for `work` to stop at its next chance, and `work` is still waited for (no
/// thread is left behind). Then the handler's exception is raised (pybind11::error_already_set),
/// whatever `work` did; otherwise `work`'s exception, if any, is rethrown. Call with the GIL held.
void run_interruptible(std::atomic<int>& interrupt, const std::function<void()>& work);

}  // namespace fedsim::python
