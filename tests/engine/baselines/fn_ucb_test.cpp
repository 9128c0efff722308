// FN-UCB (engine/baselines/fn_ucb*): the features g(x; theta_0)/sqrt(m), the two UCB parts and
// alpha, the synchronisation criterion by hand, payloads and their checks, the server's
// aggregation, state and restore, and concentration on toy problems.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <stdexcept>

#include "engine/baselines/fn_ucb.hpp"
#include "engine/baselines/fn_ucb_run.hpp"
#include "test_problems.hpp"

using namespace fedsim;
using namespace fedsim::baselines;

namespace {

FnUcbParams small(int clients, std::int64_t budget, int k, int width = 5) {
  FnUcbParams p;
  p.clients = clients;
  p.budget = budget;
  p.arms_per_dim = k;
  p.width = width;
  return p;
}

std::shared_ptr<const FnUcbModel> model_of(const FnUcbParams& p, std::uint64_t seed, int d = 1) {
  RandomStream mesh(seed, "baselines.mesh"), init(seed, "fnucb.init");
  return std::make_shared<const FnUcbModel>(make_fn_ucb_model(Box::unit(d), p, mesh, init));
}

Eigen::MatrixXd at(const std::vector<double>& v, std::size_t from, int p) {
  Eigen::MatrixXd m(p, p);
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < p; ++j) m(i, j) = v[from + static_cast<std::size_t>(i * p + j)];
  return m;
}

}  // namespace

TEST_CASE("fn-ucb: bad parameters are refused naming the parameter", "[baselines][fn-ucb]") {
  auto refused = [](auto change, const char* name) {
    FnUcbParams p;
    change(p);
    CHECK_THROWS_WITH(p.validate(), Catch::Contains(name));
  };
  refused([](FnUcbParams& p) { p.arms_per_dim = 0; }, "arms_per_dim");
  refused([](FnUcbParams& p) { p.width = 0; }, "width");
  refused([](FnUcbParams& p) { p.lambda = 0.0; }, "lambda");
  refused([](FnUcbParams& p) { p.nu_gp = -1.0; }, "nu_gp");
  refused([](FnUcbParams& p) { p.nu_nn = std::nan(""); }, "nu_nn");
  refused([](FnUcbParams& p) { p.sync_threshold = -0.1; }, "sync_threshold");
  refused([](FnUcbParams& p) { p.alpha_delay = -1; }, "alpha_delay");
  refused([](FnUcbParams& p) { p.alpha_ramp = 0; }, "alpha_ramp");
  refused([](FnUcbParams& p) { p.train_steps = 0; }, "train_steps");
  refused([](FnUcbParams& p) { p.learning_rate = 0.0; }, "learning_rate");
  refused([](FnUcbParams& p) { p.stop_training_after = -1; }, "stop_training_after");
  refused([](FnUcbParams& p) { p.budget = 0; }, "budget");
  refused([](FnUcbParams& p) { p.budget = 1000000001; }, "budget");
  refused([](FnUcbParams& p) { p.clients = 0; }, "clients");
  CHECK_NOTHROW(FnUcbParams{}.validate());
  const FnUcbParams a = FnUcbParams::authors();
  CHECK(a.width == 20);
  CHECK(a.train_steps == 30);
  CHECK(a.stop_training_after == 2000);
  CHECK(a.lambda == 0.1);
  CHECK(a.sync_threshold == 0.0);
}

TEST_CASE("fn-ucb: alpha's schedule and what a synchronisation carries", "[baselines][fn-ucb]") {
  const FnUcbParams p = FnUcbParams::authors();  // delay 3, ramp 700
  for (int t = 1; t <= 4; ++t) CHECK(p.alpha(t) == 0.0);
  CHECK(p.alpha(5) == Approx(1.0 / 700));
  CHECK(p.alpha(354) == Approx(0.5));
  CHECK(p.alpha(704) == 1.0);
  CHECK(p.alpha(100000) == 1.0);
  CHECK_FALSE(p.sends_variance(3));
  CHECK(p.sends_variance(4));
  CHECK(p.trains_network(2000));
  CHECK_FALSE(p.trains_network(2001));
  CHECK(p.sends_variance(2001));
  CHECK(fn_ucb_payload_length(61, false, false) == 61 * 61 + 61);
  CHECK(fn_ucb_payload_length(61, true, true) == 2 * 61 * 61 + 2 * 61);
  CHECK(fn_ucb_payload_length(61, true, false) == 2 * 61 * 61 + 61);
}

TEST_CASE("fn-ucb: the features are g(x, theta_0)/sqrt(m) by finite differences on the arms",
          "[baselines][fn-ucb]") {
  const FnUcbParams p = small(2, 10, 4, 6);
  const auto model = model_of(p, 2, 2);  // 2-D: 16 arms, p = 6 * 4 + 1 = 25
  REQUIRE(model->parameters() == 25);
  REQUIRE(model->features.rows() == 16);
  const double h = 1e-6;
  for (Eigen::Index k = 0; k < 16; ++k) {
    const Eigen::VectorXd x = model->inputs.row(k).transpose();
    CHECK(x.minCoeff() >= 0.0);
    CHECK(x.maxCoeff() <= 1.0);
    for (Eigen::Index i = 0; i < 25; ++i) {
      trainers::RegressionMlp plus = model->initial, minus = model->initial;
      Eigen::VectorXd t = model->initial.theta();
      t(i) += h;
      plus.set_theta(t);
      t(i) -= 2 * h;
      minus.set_theta(t);
      const double fd = (plus.value(x) - minus.value(x)) / (2 * h) / std::sqrt(6.0);
      CHECK(model->features(k, i) == Approx(fd).margin(1e-6));
    }
  }
}

TEST_CASE("fn-ucb: U_b by hand before any synchronisation (alpha = 0)", "[baselines][fn-ucb]") {
  const FnUcbParams p = small(1, 10, 5, 3);
  const auto model = model_of(p, 8);
  FnUcbClient c(0, p, model);
  c.observe(1, 2, 0.7);
  c.observe(2, 4, -0.1);
  const int q = model->parameters();
  const Eigen::MatrixXd& g = model->features;
  Eigen::MatrixXd v = p.lambda * Eigen::MatrixXd::Identity(q, q);
  Eigen::VectorXd b = Eigen::VectorXd::Zero(q);
  v += g.row(2).transpose() * g.row(2) + g.row(4).transpose() * g.row(4);
  b += 0.7 * g.row(2).transpose() - 0.1 * g.row(4).transpose();
  const Eigen::MatrixXd vinv = v.inverse();
  const Eigen::VectorXd s = c.scores(3);
  for (Eigen::Index k = 0; k < 5; ++k) {
    const Eigen::VectorXd gk = g.row(k).transpose();
    const double want =
        gk.dot(vinv * b) + p.nu_gp * std::sqrt(p.lambda) * std::sqrt(gk.dot(vinv * gk));
    CHECK(s(k) == Approx(want).epsilon(1e-9));
  }
}

TEST_CASE("fn-ucb: U = alpha U_a + (1 - alpha) U_b by hand after a synchronisation",
          "[baselines][fn-ucb]") {
  FnUcbParams p = small(2, 50, 6, 3);
  p.alpha_delay = 0;
  p.alpha_ramp = 8;  // alpha_t = (t - 1) / 8: 0.25 at t = 3
  p.nu_nn = 0.7;
  const auto model = model_of(p, 21);
  std::vector<FnUcbClient> cs{FnUcbClient(0, p, model), FnUcbClient(1, p, model)};
  FnUcbServer s(p, *model);
  cs[0].observe(1, 1, 0.4);
  cs[1].observe(1, 5, -0.3);
  s.begin_sync(1);
  for (auto& c : cs) REQUIRE(s.receive(c.id(), c.sync_report(1)).empty());
  const auto b = s.close_sync();
  for (auto& c : cs) c.apply_broadcast(b, 1);
  cs[0].observe(2, 3, 0.1);
  REQUIRE(p.alpha(3) == 0.25);
  const int q = model->parameters();
  const auto pp = static_cast<std::size_t>(q) * q, uq = static_cast<std::size_t>(q);
  const Eigen::MatrixXd& g = model->features;
  // U_b with W_sync, B_sync from the broadcast and client 0's pull of round 2.
  const Eigen::VectorXd g3 = g.row(3).transpose();
  Eigen::MatrixXd v =
      p.lambda * Eigen::MatrixXd::Identity(q, q) + at(b, 0, q) + g3 * g3.transpose();
  Eigen::VectorXd bb(q);
  for (int i = 0; i < q; ++i) bb(i) = b[pp + static_cast<std::size_t>(i)] + 0.1 * g3(i);
  const Eigen::MatrixXd vinv = v.inverse();
  // U_a with the averaged network and inverse.
  const Eigen::MatrixXd ring = at(b, pp + uq, q);
  Eigen::VectorXd theta(q);
  for (int i = 0; i < q; ++i) theta(i) = b[2 * pp + uq + static_cast<std::size_t>(i)];
  trainers::RegressionMlp net = model->initial;
  net.set_theta(theta);
  const Eigen::VectorXd scores = cs[0].scores(3);
  for (Eigen::Index k = 0; k < g.rows(); ++k) {
    const Eigen::VectorXd gk = g.row(k).transpose();
    const double ub =
        gk.dot(vinv * bb) + p.nu_gp * std::sqrt(p.lambda) * std::sqrt(gk.dot(vinv * gk));
    const double ua = net.value(model->inputs.row(k).transpose()) +
                      p.nu_nn * std::sqrt(p.lambda) * std::sqrt(gk.dot(ring * gk));
    CHECK(scores(k) == Approx(0.25 * ua + 0.75 * ub).epsilon(1e-9));
  }
  CHECK(cs[0].scores(100) != scores);  // alpha = 1 later: U_a alone
}

TEST_CASE("fn-ucb: the synchronisation criterion (t - t_last) log(det V / det V_last) by hand",
          "[baselines][fn-ucb]") {
  // Pulling the same arm with feature g: det(lambda I + n g g') = lambda^p (1 + n |g|^2/lambda).
  FnUcbParams p = small(1, 100, 3, 2);
  const auto model = model_of(p, 3);
  const Eigen::VectorXd g = model->features.row(1).transpose();
  const double a = g.squaredNorm() / p.lambda;
  const double c1 = 1 * std::log(1 + a), c2 = 2 * std::log(1 + 2 * a);
  p.sync_threshold = 0.5 * (c1 + c2);
  FnUcbClient c(0, p, model);
  c.observe(1, 1, 0.0);
  CHECK(c.sync_criterion() == Approx(c1).epsilon(1e-10));
  CHECK_FALSE(c.wants_sync());
  c.observe(2, 1, 0.0);
  CHECK(c.sync_criterion() == Approx(c2).epsilon(1e-10));
  CHECK(c.wants_sync());
  // After the synchronisation of round 2, V_last = lambda I + 2 g g' and t_last = 2.
  FnUcbServer s(p, *model);
  s.begin_sync(2);
  REQUIRE(s.receive(0, c.sync_report(2)).empty());
  c.apply_broadcast(s.close_sync(), 2);
  CHECK(c.sync_criterion() == 0.0);
  c.observe(5, 1, 0.0);  // (5 - 2) log((1 + 3a) / (1 + 2a))
  CHECK(c.sync_criterion() == Approx(3 * std::log((1 + 3 * a) / (1 + 2 * a))).epsilon(1e-9));
  // Threshold exactly at the criterion: strict inequality, no sync.
  FnUcbParams q = p;
  q.sync_threshold = c1;
  FnUcbClient d(0, q, model);
  d.observe(1, 1, 0.0);
  CHECK(d.sync_criterion() <= q.sync_threshold);
  CHECK_FALSE(d.wants_sync());
}

TEST_CASE("fn-ucb run: D = 0 synchronises after every round but the last, a huge D never",
          "[baselines][fn-ucb]") {
  const auto problem = test::offset_problem(test::quadratic_1d(0.5), {0.0, 1.0}, 0.01);
  FnUcbRunConfig cfg;
  cfg.params = small(2, 12, 6);
  const auto r = run_fn_ucb(cfg, problem);
  CHECK(r.sync_rounds.size() == 11);
  const int q = r.model->parameters();
  // Rounds 1..3 plain; from round 4 (alpha_5 > 0) the variance and the network travel too.
  const auto len = [&](std::int64_t t) {
    return static_cast<std::int64_t>(
        fn_ucb_payload_length(q, cfg.params.sends_variance(t), cfg.params.trains_network(t)));
  };
  std::int64_t want = 0;
  for (std::int64_t t = 1; t <= 11; ++t) want += len(t);
  CHECK(len(3) == q * q + q);
  CHECK(len(4) == 2 * q * q + 2 * q);
  CHECK(r.numbers_sent_per_client == want);
  CHECK(r.numbers_received_per_client == want);
  cfg.params.sync_threshold = 1e12;
  CHECK(run_fn_ucb(cfg, problem).sync_rounds.empty());
}

TEST_CASE("fn-ucb run: on_round sees every round's cumulative regret per client and the syncs so far",
          "[baselines][fn-ucb]") {
  const auto problem = test::offset_problem(test::quadratic_1d(0.5), {0.0, 1.0, -0.5}, 0.01);
  FnUcbRunConfig cfg;
  cfg.params = small(3, 12, 6);
  cfg.params.sync_threshold = 0.5;  // some rounds without a synchronisation
  std::vector<std::int64_t> rounds, syncs;
  std::vector<std::vector<double>> regret;
  cfg.on_round = [&](std::int64_t t, const std::vector<double>& client_regret, std::int64_t s) {
    rounds.push_back(t);
    regret.push_back(client_regret);
    syncs.push_back(s);
  };
  const auto r = run_fn_ucb(cfg, problem);
  REQUIRE(rounds.size() == 12);
  std::vector<double> sum(3, 0.0);
  for (std::size_t k = 0; k < 12; ++k) {
    const auto t = static_cast<std::int64_t>(k + 1);
    CHECK(rounds[k] == t);
    for (const auto& pull : r.pulls)
      if (pull.step == t) sum[static_cast<std::size_t>(pull.client)] += pull.regret;
    CHECK(regret[k] == sum);  // the same additions in the same order
    std::int64_t before = 0;
    for (const std::int64_t s : r.sync_rounds) before += s <= t ? 1 : 0;
    CHECK(syncs[k] == before);
  }
  CHECK(regret.back() == r.client_regret);
  CHECK(syncs.back() == static_cast<std::int64_t>(r.sync_rounds.size()));
  CHECK_FALSE(r.sync_rounds.empty());
  CHECK(r.sync_rounds.size() < 11);
  // Watching changes nothing.
  cfg.on_round = nullptr;
  CHECK(run_fn_ucb(cfg, problem).client_regret == r.client_regret);
}

TEST_CASE("fn-ucb server: sums W and B, averages the inverses and thetas, refuses bad reports",
          "[baselines][fn-ucb]") {
  FnUcbParams p = small(3, 50, 4, 2);
  p.alpha_delay = 0;  // the network and the variance travel from the first synchronisation
  const auto model = model_of(p, 6);
  const int q = model->parameters();
  std::vector<FnUcbClient> clients;
  for (int i = 0; i < 3; ++i) clients.emplace_back(i, p, model);
  clients[0].observe(1, 0, 1.0);
  clients[1].observe(1, 3, 2.0);
  clients[2].observe(1, 3, 0.5);
  FnUcbServer s(p, *model);
  CHECK_THAT(s.receive(0, clients[0].sync_report(1)), Catch::Contains("no synchronisation"));
  s.begin_sync(1);
  CHECK_THROWS_AS(s.begin_sync(2), std::logic_error);
  std::vector<std::vector<double>> reports;
  for (auto& c : clients) reports.push_back(c.sync_report(1));
  REQUIRE(reports[0].size() == fn_ucb_payload_length(q, true, true));
  CHECK_THAT(s.receive(3, reports[0]), Catch::Contains("unknown client"));
  CHECK(s.receive(0, reports[0]).empty());
  CHECK_THAT(s.receive(0, reports[0]), Catch::Contains("duplicate"));
  auto broken = reports[1];
  broken[5] = NAN;
  CHECK_THAT(s.receive(1, broken), Catch::Contains("non-finite"));
  CHECK(s.reports_received() == 1);
  CHECK(s.receive(1, reports[1]).empty());
  CHECK_THROWS_AS(s.close_sync(), std::logic_error);
  CHECK(s.receive(2, reports[2]).empty());
  const auto b = s.close_sync();
  REQUIRE(b.size() == fn_ucb_payload_length(q, true, true));
  const auto pp = static_cast<std::size_t>(q) * q, uq = static_cast<std::size_t>(q);
  Eigen::MatrixXd w = Eigen::MatrixXd::Zero(q, q), inv = w;
  Eigen::VectorXd bb = Eigen::VectorXd::Zero(q), theta = bb;
  for (const auto& r : reports) {
    w += at(r, 0, q);
    inv += at(r, pp + uq, q) / 3.0;
    for (int i = 0; i < q; ++i) {
      bb(i) += r[pp + static_cast<std::size_t>(i)];
      theta(i) += r[2 * pp + uq + static_cast<std::size_t>(i)] / 3.0;
    }
  }
  const Eigen::VectorXd g0 = model->features.row(0).transpose(),
                        g3 = model->features.row(3).transpose();
  CHECK((w - (g0 * g0.transpose() + 2 * g3 * g3.transpose())).cwiseAbs().maxCoeff() < 1e-12);
  CHECK((at(b, 0, q) - w).cwiseAbs().maxCoeff() < 1e-12);
  CHECK((at(b, pp + uq, q) - inv).cwiseAbs().maxCoeff() < 1e-12);
  for (int i = 0; i < q; ++i) {
    CHECK(b[pp + static_cast<std::size_t>(i)] == Approx(bb(i)).margin(1e-12));
    CHECK(b[2 * pp + uq + static_cast<std::size_t>(i)] == Approx(theta(i)).margin(1e-12));
  }
  // The client's inverse is V_local^-1 = (lambda I + g g')^-1.
  const Eigen::MatrixXd v0 = p.lambda * Eigen::MatrixXd::Identity(q, q) + g0 * g0.transpose();
  CHECK((at(reports[0], pp + uq, q) - v0.inverse()).cwiseAbs().maxCoeff() < 1e-9);
  // Trained networks differ from theta_0.
  CHECK(theta != model->initial.theta());
  for (auto& c : clients) c.apply_broadcast(b, 1);
  // The same broadcast again (a duplicate) is refused and changes nothing.
  const auto before = clients[0].state();
  CHECK_THROWS_WITH(clients[0].apply_broadcast(b, 1), Catch::Contains("not after the last"));
  CHECK(clients[0].state().w_sync == before.w_sync);
  CHECK(clients[0].state().t_last == 1);
}

TEST_CASE("fn-ucb payloads: every rejection reason", "[baselines][fn-ucb]") {
  const int q = 3;
  const double lambda = 0.5;
  // W = g g' (PSD), B, V^-1 = (lambda I + W)^-1, theta.
  Eigen::Vector3d g(0.3, -0.2, 1.0);
  const Eigen::Matrix3d w = g * g.transpose();
  const Eigen::Matrix3d vinv = (lambda * Eigen::Matrix3d::Identity() + w).inverse();
  auto payload = [&](const Eigen::Matrix3d& ww, const Eigen::Matrix3d& vi) {
    std::vector<double> out;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) out.push_back(ww(i, j));
    for (int i = 0; i < 3; ++i) out.push_back(i);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) out.push_back(vi(i, j));
    for (int i = 0; i < 3; ++i) out.push_back(0.1 * i);
    return out;
  };
  const auto good = payload(w, vinv);
  CHECK(check_fn_ucb_report(good, q, true, true, lambda).empty());
  CHECK(check_fn_ucb_broadcast(good, q, true, true, lambda).empty());
  std::vector<double> plain(good.begin(), good.begin() + 12);
  CHECK(check_fn_ucb_report(plain, q, false, false, lambda).empty());
  CHECK_THAT(check_fn_ucb_report(plain, q, true, true, lambda), Catch::Contains("wrong length"));
  CHECK_THAT(check_fn_ucb_report(good, q, false, false, lambda), Catch::Contains("wrong length"));
  auto nan = good;
  nan[20] = INFINITY;
  CHECK_THAT(check_fn_ucb_report(nan, q, true, true, lambda), Catch::Contains("non-finite"));
  Eigen::Matrix3d asym = w;
  asym(0, 1) += 0.1;
  CHECK_THAT(check_fn_ucb_report(payload(asym, vinv), q, true, true, lambda),
             Catch::Contains("W_new is not symmetric"));
  CHECK_THAT(check_fn_ucb_broadcast(payload(asym, vinv), q, true, true, lambda),
             Catch::Contains("W_sync is not symmetric"));
  Eigen::Matrix3d indefinite = w;
  indefinite(2, 2) = -0.5;
  CHECK_THAT(check_fn_ucb_report(payload(indefinite, vinv), q, true, true, lambda),
             Catch::Contains("W_new is not positive semi-definite"));
  Eigen::Matrix3d vasym = vinv;
  vasym(1, 0) += 0.01;
  CHECK_THAT(check_fn_ucb_report(payload(w, vasym), q, true, true, lambda),
             Catch::Contains("V_local^-1 is not symmetric"));
  const Eigen::Matrix3d singular = Eigen::Matrix3d::Zero();
  CHECK_THAT(check_fn_ucb_report(payload(w, singular), q, true, true, lambda),
             Catch::Contains("V_local^-1 is not positive definite"));
  CHECK_THAT(check_fn_ucb_broadcast(payload(w, -vinv), q, true, true, lambda),
             Catch::Contains("V_ring^-1 is not positive definite"));
  const Eigen::Matrix3d big = Eigen::Matrix3d::Identity() * (1.0 / lambda) * 1.01;
  CHECK_THAT(check_fn_ucb_report(payload(w, big), q, true, true, lambda),
             Catch::Contains("above 1/lambda"));
  // A client refuses a malformed broadcast and keeps its state.
  FnUcbParams p = small(1, 10, 3, 1);
  const auto model = model_of(p, 1);
  FnUcbClient c(0, p, model);
  c.observe(1, 0, 1.0);
  const auto before = c.state();
  CHECK_THROWS_WITH(c.apply_broadcast({1.0, 2.0}, 1), Catch::Contains("wrong length"));
  CHECK(c.state().w_new == before.w_new);
}

TEST_CASE("fn-ucb: clients and server restored from their state continue bit-identically",
          "[baselines][fn-ucb]") {
  const auto problem = test::offset_problem(test::quadratic_1d(0.3), {0.0, 0.5}, 0.05);
  FnUcbParams p = small(2, 40, 8, 4);
  p.alpha_delay = 2;
  p.alpha_ramp = 10;
  p.sync_threshold = 0.5;
  const auto model = model_of(p, 12);
  auto run = [&](std::vector<FnUcbClient>& cs, FnUcbServer& s, std::int64_t from, std::int64_t to) {
    std::vector<std::int64_t> arms;
    for (std::int64_t t = from; t <= to; ++t) {
      bool sync = false;
      for (auto& c : cs) {
        arms.push_back(run_fn_ucb_client_round(c, t, problem, *model, 12).arm);
        sync = sync || c.wants_sync();
      }
      if (!sync) continue;
      s.begin_sync(t);
      for (auto& c : cs) REQUIRE(s.receive(c.id(), c.sync_report(t)).empty());
      const auto b = s.close_sync();
      for (auto& c : cs) c.apply_broadcast(b, t);
    }
    return arms;
  };
  std::vector<FnUcbClient> a{FnUcbClient(0, p, model), FnUcbClient(1, p, model)};
  FnUcbServer sa(p, *model);
  run(a, sa, 1, 15);
  std::vector<FnUcbClient> b{FnUcbClient(0, p, model), FnUcbClient(1, p, model)};
  FnUcbServer sb(p, *model);
  for (int i = 0; i < 2; ++i)
    b[static_cast<std::size_t>(i)].restore(a[static_cast<std::size_t>(i)].state());
  sb.restore(sa.state());
  CHECK(sa.syncs() > 0);
  for (int i = 0; i < 2; ++i) {
    CHECK(b[static_cast<std::size_t>(i)].sync_criterion() ==
          a[static_cast<std::size_t>(i)].sync_criterion());
    CHECK(b[static_cast<std::size_t>(i)].scores(16) == a[static_cast<std::size_t>(i)].scores(16));
  }
  const auto ra = run(a, sa, 16, 40), rb = run(b, sb, 16, 40);
  CHECK(ra == rb);
  CHECK(a[0].scores(41) == b[0].scores(41));
  CHECK(a[1].state().theta_sync == b[1].state().theta_sync);
  CHECK(sa.state().w_sync == sb.state().w_sync);
  // Inconsistent states are refused.
  auto bad = a[0].state();
  bad.rewards.pop_back();
  CHECK_THROWS_AS(b[0].restore(bad), std::invalid_argument);
  auto bad_server = sa.state();
  bad_server.w_sync.pop_back();
  CHECK_THROWS_AS(sb.restore(bad_server), std::invalid_argument);
}

namespace {

/// The share of the pulls after round `from` that went to the mesh's best arm under f.
double best_share(const FnUcbRunResult& r, const Objective& f, std::int64_t from) {
  std::int64_t best = 0;
  for (std::int64_t k = 1; k < r.model->arms(); ++k)
    if (f.value(r.model->mesh.points.row(k).transpose()) >
        f.value(r.model->mesh.points.row(best).transpose()))
      best = k;
  int hits = 0, total = 0;
  for (const auto& pull : r.pulls)
    if (pull.step > from) {
      ++total;
      hits += pull.arm == best;
    }
  return static_cast<double>(hits) / total;
}

}  // namespace

TEST_CASE(
    "fn-ucb run: the GP-UCB part concentrates on the best arm of a linear toy in the "
    "features",
    "[baselines][fn-ucb][sanitizer-heavy]") {
  // f(x) = g(x; theta_0)' theta* / sqrt(m) with theta* ~ N(0, I): the model U_b assumes, built
  // on the model the run builds (same seed). alpha stays 0 (U_b alone), nu_gp = 1. K = 20,
  // N = 3, heterogeneous offsets, noise U[-0.01, 0.01], T = 150: over the last 50 rounds at
  // least 80% of the pulls go to the best arm, on each of 5 seeds. (With the default
  // nu_gp = 0.1, tuned by the authors for their problems, seeds 1 and 5 settle on an arm
  // whose mean is lower: docs/baselines/fn-ucb.md.)
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    FnUcbParams p = small(3, 150, 20, 20);
    p.alpha_delay = 1000;
    p.nu_gp = 1.0;
    const auto model = model_of(p, seed);
    RandomStream star_rng(seed, "test.theta_star");
    Eigen::VectorXd star(model->parameters());
    for (Eigen::Index i = 0; i < star.size(); ++i) star(i) = star_rng.normal();
    const trainers::RegressionMlp net0 = model->initial;
    auto f_of = [net0, star](const Eigen::VectorXd& x) {
      return net0.gradient(x).dot(star) / std::sqrt(20.0);
    };
    double best = -INFINITY;
    for (Eigen::Index k = 0; k < model->features.rows(); ++k)
      best = std::max(best, model->features.row(k).dot(star));
    const auto f =
        std::make_shared<test::FunctionObjective>(1, f_of, best, Eigen::VectorXd::Zero(1));
    const auto problem = test::offset_problem(f, {0.2, -0.4, 1.0}, 0.01);
    FnUcbRunConfig cfg;
    cfg.params = p;
    cfg.seed = seed;
    const auto r = run_fn_ucb(cfg, problem);
    const double share = best_share(r, *f, 100);
    INFO("seed " << seed << ": share " << share);
    CHECK(share >= 0.8);
  }
}

TEST_CASE("fn-ucb run: with the default parameters it concentrates on the best arm of f(x) = x",
          "[baselines][fn-ucb][sanitizer-heavy]") {
  // K = 10 arms on [0, 1] (the best is x = 1), N = 3, offsets, noise U[-0.01, 0.01], T = 150,
  // every default (alpha's schedule, nu, lambda, width, training): over the last 50 rounds at
  // least 90% of the pulls go to the best arm, on each of 5 seeds.
  const auto f = test::linear_1d();
  const auto problem = test::offset_problem(f, {0.2, -0.4, 1.0}, 0.01);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    FnUcbRunConfig cfg;
    cfg.params = small(3, 150, 10, FnUcbParams{}.width);
    cfg.seed = seed;
    const auto r = run_fn_ucb(cfg, problem);
    const double share = best_share(r, *f, 100);
    INFO("seed " << seed << ": share " << share);
    CHECK(share >= 0.9);
    CHECK(r.average_regret_curve.back() == Approx(r.average_regret).epsilon(1e-12));
  }
}

TEST_CASE("fn-ucb: after 20000 pulls of two arms a report still passes the server's checks",
          "[baselines][fn-ucb][sanitizer-heavy]") {
  // V_local = lambda I + sum g g' accumulates rounding; V^-1 <= I / lambda holds only up to
  // it (a T = 1e4 Garland run was refused before the checker allowed a relative 1e-6).
  FnUcbParams p = small(1, 30000, 10, 10);
  const auto model = model_of(p, 4);
  FnUcbClient c(0, p, model);
  for (std::int64_t t = 1; t <= 20000; ++t) c.observe(t, t % 3 == 0 ? 9 : 8, 0.5);
  const auto report = c.sync_report(20000);
  CHECK(check_fn_ucb_report(report, model->parameters(), true, false, p.lambda).empty());
}
