#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "engine/xarmed/fed_pne_server.hpp"

using fedsim::Box;
using fedsim::xarmed::ClientReport;
using fedsim::xarmed::FedPneParams;
using fedsim::xarmed::FedPneServer;
using fedsim::xarmed::PartitionTree;
using fedsim::xarmed::ReportStatus;

namespace {

ClientReport report(const FedPneServer& s, int client, std::vector<double> means) {
  ClientReport r;
  r.client = client;
  r.phase = s.broadcast().phase;
  r.means = std::move(means);
  r.pulls.assign(r.means.size(), s.broadcast().pulls_per_node);
  return r;
}

FedPneParams with_c(double c, double c1 = 1.0) {
  FedPneParams p;
  p.c = c;
  p.c1 = c1;
  return p;
}

}  // namespace

TEST_CASE("fed-pne server: the first phase starts at the root's depth (depth counter fixed)",
          "[xarmed]") {
  // c = 1, M = 20, T = 100: tau_0 = 8, tau_1 = 31. The root (depth 0) has |K| tau_0 = 8 < 20,
  // so it expands once; depth 1 has 2 x 31 >= 20. (The listing's counter, h = 1 at the root,
  // would test 1 x 31 >= 20 and sample the root.)
  const FedPneServer s(PartitionTree(Box::unit(1)), with_c(1.0), 20, 100);
  const auto& b = s.broadcast();
  CHECK(b.phase == 1);
  CHECK(b.depth == 1);
  CHECK(b.indices == std::vector<std::uint64_t>{1, 2});
  CHECK(b.pulls_per_node == 2);  // ceil(31 / 20)
  CHECK(b.length() == 4);
}

TEST_CASE("fed-pne server: expansion stops when |K| tau_h >= M, equality included", "[xarmed]") {
  // c = 1, c1 = 2, M = 8, T = 100: L = log 1600 = 7.378, tau_0 = 8 = M. The prose's rule
  // (expand until |K| tau >= M) samples the root; the listing's "<= M" would expand it.
  const FedPneServer s(PartitionTree(Box::unit(1)), with_c(1.0, 2.0), 8, 100);
  CHECK(s.schedule().tau(0) == 8.0);
  CHECK(s.broadcast().depth == 0);
  CHECK(s.broadcast().indices == std::vector<std::uint64_t>{1});
  CHECK(s.broadcast().pulls_per_node == 1);
}

TEST_CASE("fed-pne server: nodes with tau_h <= 1 are always expanded", "[xarmed]") {
  // c = 0.1, M = 1, delta = 1, T = 100: tau = ceil(0.046 * 4^h) = 1, 1, 1, 3. With M = 1 the
  // |K| tau >= M rule alone would stop at the root.
  FedPneParams p = with_c(0.1);
  p.delta = 1.0;
  const FedPneServer s(PartitionTree(Box::unit(1)), p, 1, 100);
  CHECK(s.broadcast().depth == 3);
  CHECK(s.broadcast().size() == 8);
  CHECK(s.broadcast().pulls_per_node == 3);
}

TEST_CASE("fed-pne server: a phase cycle by hand: global means, elimination, k children",
          "[xarmed]") {
  // Defaults, M = 10, T = 1e4: phase 1 is depth 3 (8 nodes, tau_3 = 8, t = 1);
  // b = 0.1 sqrt(log(1e5) / 10) = 0.1073, nu1 rho^3 = 0.125.
  FedPneServer s(PartitionTree(Box::unit(1)), FedPneParams{}, 10, 10000);
  REQUIRE(s.broadcast().depth == 3);
  REQUIRE(s.broadcast().size() == 8);
  REQUIRE(s.broadcast().pulls_per_node == 1);
  // Client m reports j / 10 + (m - 4.5) / 10 for node j: heterogeneous, mean over m is j / 10.
  for (int m = 0; m < 10; ++m) {
    std::vector<double> means(8);
    for (int j = 0; j < 8; ++j) means[j] = j / 10.0 + (m - 4.5) / 10.0;
    REQUIRE(s.receive(report(s, m, means)) == ReportStatus::accepted);
  }
  REQUIRE(s.ready());
  const auto out = s.close_phase();
  for (int j = 0; j < 8; ++j) CHECK(out.global_means[j] == Approx(j / 10.0).margin(1e-12));
  CHECK(out.confidence_width == Approx(0.10729830131446737).epsilon(1e-13));
  CHECK(out.smoothness == 0.125);
  // Eliminated iff j / 10 + 0.1073 + 0.125 < 0.7 - 0.1073, i.e. j / 10 < 0.3604: j = 0..3.
  CHECK(out.elimination.best == 7);
  CHECK(out.elimination.eliminated ==
        std::vector<bool>{true, true, true, true, false, false, false, false});
  // Survivors (3, 5..8) -> all k = 2 children each: (4, 9..16); tau_4 = 30: 8 x 30 >= 10.
  const auto& b = s.broadcast();
  CHECK(b.phase == 2);
  CHECK(b.depth == 4);
  CHECK(b.indices == std::vector<std::uint64_t>{9, 10, 11, 12, 13, 14, 15, 16});
  CHECK(b.pulls_per_node == 3);  // ceil(30 / 10)
  CHECK(s.reports_received() == 0);
}

TEST_CASE("fed-pne server: malformed reports are refused and change nothing", "[xarmed]") {
  FedPneServer s(PartitionTree(Box::unit(1)), with_c(1.0), 3, 100);
  const std::size_t n = s.broadcast().size();
  const std::vector<double> ok(n, 0.5);
  ClientReport r = report(s, 5, ok);
  CHECK(s.receive(r) == ReportStatus::unknown_client);
  r = report(s, 0, ok);
  r.phase = 2;
  CHECK(s.receive(r) == ReportStatus::wrong_phase);
  CHECK(s.receive(report(s, 0, std::vector<double>(n + 1, 0.5))) == ReportStatus::wrong_size);
  r = report(s, 0, ok);
  r.pulls[0] = 1;  // a partial phase
  CHECK(s.receive(r) == ReportStatus::wrong_pulls);
  std::vector<double> bad = ok;
  bad[0] = std::numeric_limits<double>::quiet_NaN();
  CHECK(s.receive(report(s, 0, bad)) == ReportStatus::non_finite);
  CHECK(s.reports_received() == 0);
  CHECK(s.receive(report(s, 0, ok)) == ReportStatus::accepted);
  CHECK(s.receive(report(s, 0, ok)) == ReportStatus::duplicate);
  CHECK_FALSE(s.ready());
  CHECK_THROWS_AS(s.close_phase(), std::logic_error);
}

TEST_CASE("fed-pne server: the order reports arrive in never changes the result", "[xarmed]") {
  FedPneServer forward(PartitionTree(Box::unit(1)), FedPneParams{}, 10, 10000);
  FedPneServer backward = forward;
  std::vector<ClientReport> reports;
  for (int m = 0; m < 10; ++m) {
    std::vector<double> means(forward.broadcast().size());
    for (std::size_t j = 0; j < means.size(); ++j) means[j] = std::sin(0.37 * m + 1.3 * j) / 3;
    reports.push_back(report(forward, m, means));
  }
  for (int m = 0; m < 10; ++m) forward.receive(reports[m]);
  for (int m = 9; m >= 0; --m) backward.receive(reports[m]);
  const auto a = forward.close_phase();
  const auto b = backward.close_phase();
  CHECK(a.global_means == b.global_means);  // bit for bit
  CHECK(forward.broadcast().indices == backward.broadcast().indices);
}

TEST_CASE("a phase closed with some clients' reports averages those clients only",
          "[xarmed]") {
  using namespace fedsim;
  using namespace fedsim::xarmed;
  const PartitionTree tree(Box::unit(1), 2, SplitRule::random_axis, 1);
  FedPneServer full(tree, FedPneParams{}, 3, 10000), partial(tree, FedPneParams{}, 3, 10000);
  const PhaseBroadcast b = partial.broadcast();  // phase 1, kept after partial moves on
  auto report = [&](int m, double level) {
    ClientReport r;
    r.client = m;
    r.phase = b.phase;
    r.means.assign(b.size(), level);
    for (size_t j = 0; j < b.size(); ++j) r.means[j] += 0.01 * static_cast<double>(j);
    r.pulls.assign(b.size(), b.pulls_per_node);
    return r;
  };
  CHECK_THROWS_AS(partial.close_phase_with_reports(), std::logic_error);
  REQUIRE(partial.receive(report(0, 0.2)) == ReportStatus::accepted);
  REQUIRE(partial.receive(report(2, 0.6)) == ReportStatus::accepted);
  CHECK_THROWS_AS(partial.close_phase(), std::logic_error);  // not every client reported
  const PhaseOutcome out = partial.close_phase_with_reports();
  CHECK(out.reporters == 2);
  for (size_t j = 0; j < out.global_means.size(); ++j)
    CHECK(out.global_means[j] == Approx(0.4 + 0.01 * static_cast<double>(j)));
  // Two clients' pulls give a wider confidence band than three.
  for (int m = 0; m < 3; ++m) REQUIRE(full.receive(report(m, 0.4)) == ReportStatus::accepted);
  CHECK(out.confidence_width > full.close_phase().confidence_width);
}
