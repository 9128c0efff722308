// A worker slot served by a TCP evaluation service: one connection, the same lines as a
// process's stdin and stdout.
#include <boost/asio/ip/tcp.hpp>

#include "external/stream_worker.hpp"

namespace fedsim::external {

namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

class TcpWorker final : public StreamWorker {
 public:
  TcpWorker(asio::io_context& io, Address address, std::size_t max_line, WorkerEvents events)
      : StreamWorker(max_line, std::move(events)), address_(std::move(address)), socket_(io) {}

  void start(std::function<void(std::optional<WorkerFailure>)> started) override {
    boost::system::error_code ec;
    const auto ip = asio::ip::make_address(address_.host, ec);
    const std::string where = address_.host + ":" + std::to_string(address_.port);
    if (ec) {  // parse_address checked it; kept for a hand-made Address
      stop();
      asio::post(socket_.get_executor(), [started = std::move(started), where] {
        started(WorkerFailure{FailureKind::connect_failed, "bad address " + where});
      });
      return;
    }
    socket_.async_connect(
        tcp::endpoint(ip, address_.port),
        [self = shared_from_this(), this, started = std::move(started),
         where](const boost::system::error_code& ec) {
          if (stopped_) return;  // stopped while connecting: no event after stop()
          if (ec) {
            stop();
            started(WorkerFailure{FailureKind::connect_failed,
                                  "cannot connect to " + where + ": " + ec.message()});
            return;
          }
          boost::system::error_code ignored;
          socket_.set_option(tcp::no_delay(true), ignored);
          started(std::nullopt);
          read_more(socket_);
        });
  }

  void send(std::string line) override {
    if (!stopped_) write_line(socket_, std::move(line));
  }

 private:
  void on_end(std::string what) override {
    if (stopped_ || ending_) return;
    ending_ = true;
    fail({FailureKind::closed_output, "the service closed the connection (" + what + ")"});
  }

  void release() override {
    boost::system::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  Address address_;
  tcp::socket socket_;
};

}  // namespace

std::shared_ptr<Worker> make_tcp_worker(asio::io_context& io, Address address, std::size_t max_line,
                                        WorkerEvents events) {
  return std::make_shared<TcpWorker>(io, std::move(address), max_line, std::move(events));
}

}  // namespace fedsim::external
