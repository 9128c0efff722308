#pragma once
/// Helpers of the external/ tests: scripted workers in a temp folder, blocking evaluation with
/// a bound (a test fails instead of hanging), polling with a bound.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "external/external_evaluator.hpp"

namespace fedsim::external::test {

/// Debian's interpreter when there (quick to start; a pyenv shim is not), else the PATH's.
inline std::string python3() {
  return ::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

inline std::filesystem::path write_script(const std::filesystem::path& dir, const std::string& name,
                                          const std::string& text) {
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path;
}

/// The outcomes of `requests`, in request order, waiting at most 20 s for all of them.
inline std::vector<Outcome> evaluate_all(ExternalEvaluator& evaluator,
                                         const std::vector<Request>& requests) {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::optional<Outcome>> outcomes(requests.size());
  std::size_t done = 0, twice = 0;
  for (std::size_t k = 0; k < requests.size(); ++k)
    evaluator.evaluate(requests[k], [&, k](Outcome o) {
      std::lock_guard<std::mutex> lock(mutex);
      if (outcomes[k]) {  // Catch's assertions are for the test's thread: counted, checked below
        ++twice;
        return;
      }
      outcomes[k] = std::move(o);
      ++done;
      changed.notify_all();
    });
  std::unique_lock<std::mutex> lock(mutex);
  const bool all =
      changed.wait_for(lock, std::chrono::seconds(20), [&] { return done == requests.size(); });
  if (!all) FAIL("the evaluator did not answer within 20 s");  // destroying it cancels the rest
  CHECK(twice == 0);                                           // each callback exactly once
  std::vector<Outcome> out;
  for (auto& o : outcomes) out.push_back(std::move(*o));
  return out;
}

inline Outcome evaluate_now(ExternalEvaluator& evaluator, const Request& request) {
  return evaluate_all(evaluator, {request}).front();
}

/// Polls `condition` every 10 ms for up to 5 s; fails the test if it never holds.
inline void wait_until(const std::function<bool()>& condition) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > end) FAIL("condition not met within 5 s");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

/// The pids the scripted workers wrote to their logs ("worker pid N ...", one line per start).
inline std::vector<int> worker_pids(const std::filesystem::path& logs) {
  std::vector<int> pids;
  if (!std::filesystem::is_directory(logs)) return pids;
  for (const auto& entry : std::filesystem::directory_iterator(logs)) {
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      std::istringstream words(line);
      std::string worker, pid_word;
      int pid = 0;
      if (words >> worker >> pid_word >> pid && worker == "worker" && pid_word == "pid")
        pids.push_back(pid);
    }
  }
  return pids;
}

}  // namespace fedsim::external::test
