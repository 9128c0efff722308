// ExternalEvaluator over TCP: a tiny evaluation service on 127.0.0.1 (port 0, the chosen port
// read back), one connection per worker slot, the same lines as a process worker.
#include <atomic>
#include <boost/asio.hpp>
#include <catch2/catch.hpp>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "external/external_evaluator.hpp"
#include "tests/external/external_test_support.hpp"

using namespace fedsim::external;
using namespace fedsim::external::test;
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

/// What the service does with a request whose x[0] < 0.
enum class OnNegative { answer, close, ignore };

/// Answers y = sum x_i^2 on each connection, except as `on_negative` says. Stops (closing
/// every connection) when destroyed.
class LoopbackService {
 public:
  explicit LoopbackService(OnNegative on_negative = OnNegative::answer)
      : on_negative_(on_negative),
        acceptor_(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
    accept();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~LoopbackService() {
    asio::post(io_, [this] {
      acceptor_.close();
      for (auto& s : sockets_) s->close();
    });
    thread_.join();
  }
  unsigned short port() const { return acceptor_.local_endpoint().port(); }
  int connections() const { return connections_; }

 private:
  struct Connection {
    std::shared_ptr<tcp::socket> socket;
    asio::streambuf buffer;
  };

  void accept() {
    acceptor_.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
      if (ec) return;
      ++connections_;
      auto c = std::make_shared<Connection>();
      c->socket = std::make_shared<tcp::socket>(std::move(socket));
      sockets_.push_back(c->socket);
      serve(c);
      accept();
    });
  }

  void serve(const std::shared_ptr<Connection>& c) {
    asio::async_read_until(
        *c->socket, c->buffer, '\n', [this, c](const boost::system::error_code& ec, std::size_t n) {
          if (ec) return;
          std::string line(asio::buffers_begin(c->buffer.data()),
                           asio::buffers_begin(c->buffer.data()) + n);
          c->buffer.consume(n);
          const auto request = nlohmann::json::parse(line);
          double y = 0;
          for (double v : request["x"]) y += v * v;
          const bool negative = !request["x"].empty() && request["x"][0].get<double>() < 0;
          if (negative && on_negative_ == OnNegative::close) {
            c->socket->close();
            return;
          }
          if (negative && on_negative_ == OnNegative::ignore) return serve(c);
          auto answer = std::make_shared<std::string>(
              nlohmann::json{{"id", request["id"]}, {"y", y}}.dump() + "\n");
          asio::async_write(*c->socket, asio::buffer(*answer),
                            [this, c, answer](const boost::system::error_code& ec, std::size_t) {
                              if (!ec) serve(c);
                            });
        });
  }

  OnNegative on_negative_;
  asio::io_context io_;
  tcp::acceptor acceptor_;
  std::vector<std::shared_ptr<tcp::socket>> sockets_;
  std::atomic<int> connections_{0};
  std::thread thread_;
};

Settings tcp_settings(unsigned short port, int workers) {
  Settings s;
  s.kind = WorkerKind::tcp;
  s.address = "127.0.0.1:" + std::to_string(port);
  s.workers = workers;
  s.timeout = 5;
  s.on_failure = OnFailure::skip;
  return s;
}

}  // namespace

TEST_CASE("ExternalEvaluator over TCP: one connection per worker slot, kept", "[external]") {
  LoopbackService service;
  ExternalEvaluator evaluator(tcp_settings(service.port(), 3));
  std::vector<Request> requests;
  for (std::uint64_t id = 0; id < 12; ++id) requests.push_back({id, 0, 0, {double(id), 1.0}});
  for (int round = 0; round < 2; ++round) {
    const auto outcomes = evaluate_all(evaluator, requests);
    for (std::size_t k = 0; k < outcomes.size(); ++k) {
      REQUIRE(outcomes[k].ok());
      CHECK(outcomes[k].answer().y == double(k * k + 1));
    }
  }
  CHECK(service.connections() <= 3);  // connections are reused, never more than the slots
  CHECK(service.connections() >= 1);
  CHECK(evaluator.stats().succeeded == 24);
}

TEST_CASE("ExternalEvaluator over TCP: a closed connection and a refused one", "[external]") {
  LoopbackService service(OnNegative::close);
  {
    ExternalEvaluator evaluator(tcp_settings(service.port(), 1));
    REQUIRE(evaluate_now(evaluator, {1, 0, 0, {2.0}}).ok());
    const Outcome closed = evaluate_now(evaluator, {2, 0, 0, {-2.0}});
    REQUIRE_FALSE(closed.ok());
    CHECK(closed.failure().kind == FailureKind::closed_output);
    CHECK_THAT(closed.failure().message, Catch::Contains("the service closed the connection"));
    const Outcome again = evaluate_now(evaluator, {3, 0, 0, {3.0}});  // on a new connection
    REQUIRE(again.ok());
    CHECK(again.answer().y == 9);
    CHECK(evaluator.stats().count(FailureKind::closed_output) == 1);
    CHECK(service.connections() == 2);
  }
  // A port nobody listens on: take one from the kernel and close it again.
  unsigned short unused = 0;
  {
    asio::io_context io;
    tcp::acceptor probe(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    unused = probe.local_endpoint().port();
  }
  Settings settings = tcp_settings(unused, 1);
  settings.on_failure = OnFailure::retry;
  settings.max_retries = 1;
  ExternalEvaluator refused(settings);
  const Outcome failed = evaluate_now(refused, {4, 0, 0, {1.0}});
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.failure().kind == FailureKind::connect_failed);
  CHECK_THAT(failed.failure().message, Catch::Contains("Connection refused"));
  CHECK(failed.failure().attempts == 2);
  CHECK(refused.stats().count(FailureKind::connect_failed) == 2);
}

TEST_CASE("ExternalEvaluator over TCP: a service that never answers times out", "[external]") {
  LoopbackService service(OnNegative::ignore);
  Settings settings = tcp_settings(service.port(), 1);
  settings.timeout = 0.3;
  ExternalEvaluator evaluator(settings);
  const Outcome failed = evaluate_now(evaluator, {1, 0, 0, {-1.0}});
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.failure().kind == FailureKind::timeout);
  const Outcome after = evaluate_now(evaluator, {2, 0, 0, {2.0}});  // a new connection
  REQUIRE(after.ok());
  CHECK(after.answer().y == 4);
  CHECK(service.connections() == 2);
  CHECK(evaluator.stats().count(FailureKind::timeout) == 1);
}
