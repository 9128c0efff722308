#pragma once
/// What a process worker and a TCP worker share: reading lines through a LineSplitter (at most
/// max_line bytes held), writing lines in order, and the once-only end report. Internal to
/// external/ (it includes Boost.Asio).
#include <array>
#include <boost/asio.hpp>
#include <deque>
#include <memory>
#include <string>

#include "external/line_splitter.hpp"
#include "external/worker.hpp"

namespace fedsim::external {

class StreamWorker : public Worker, public std::enable_shared_from_this<StreamWorker> {
 protected:
  StreamWorker(std::size_t max_line, WorkerEvents events)
      : max_line_(max_line), splitter_(max_line), events_(std::move(events)) {}

  /// Reads from `stream` (a member of the derived class) until stopped, an end or a line too
  /// long; the end (EOF or a read error) goes to on_end.
  template <class Stream>
  void read_more(Stream& stream) {
    stream.async_read_some(boost::asio::buffer(buffer_), [self = shared_from_this(), &stream](
                                                             const boost::system::error_code& ec,
                                                             std::size_t n) {
      if (self->stopped_) return;
      if (ec) {
        self->on_end(ec == boost::asio::error::eof ? std::string("end of output") : ec.message());
        return;
      }
      self->before_lines();
      const bool go = self->splitter_.feed(
          std::string_view(self->buffer_.data(), n), [&self](std::string&& line) {
            return !self->stopped_ && self->events_.on_line(std::move(line)) && !self->stopped_;
          });
      if (self->stopped_) return;
      if (self->splitter_.too_long()) {
        self->fail({FailureKind::line_too_long,
                    "an answer line longer than " + std::to_string(self->max_line_) + " bytes"});
        return;
      }
      if (go) self->read_more(stream);
    });
  }

  /// Queues `line` and writes the queue in order; a write error goes to on_end.
  template <class Stream>
  void write_line(Stream& stream, std::string line) {
    writes_.push_back(std::move(line));
    if (writes_.size() == 1) write_next(stream);
  }

  /// The stream ended (EOF or an error on either direction): find out why, then fail().
  virtual void on_end(std::string what) = 0;
  /// Releases what the derived class holds (kills, closes). Called once, by stop().
  virtual void release() = 0;
  /// Output came, before its lines are handled (a process worker takes its stderr so far).
  virtual void before_lines() {}

  /// Stops and reports `failure` once.
  void fail(WorkerFailure failure) {
    if (stopped_) return;
    stop();
    if (events_.on_failed) events_.on_failed(std::move(failure));
  }

 public:
  void stop() override {
    if (stopped_) return;
    stopped_ = true;
    release();
  }

 protected:
  bool stopped_ = false;
  bool ending_ = false;  ///< on_end is finding out why (its first call only counts)

 private:
  template <class Stream>
  void write_next(Stream& stream) {
    boost::asio::async_write(
        stream, boost::asio::buffer(writes_.front()),
        [self = shared_from_this(), &stream](const boost::system::error_code& ec, std::size_t) {
          if (self->stopped_) return;
          if (ec) {
            self->on_end("writing the request: " + ec.message());
            return;
          }
          self->writes_.pop_front();
          if (!self->writes_.empty()) self->write_next(stream);
        });
  }

  std::size_t max_line_;
  LineSplitter splitter_;
  WorkerEvents events_;
  std::array<char, 65536> buffer_{};
  std::deque<std::string> writes_;
};

}  // namespace fedsim::external
