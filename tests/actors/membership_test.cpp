#include <catch2/catch.hpp>

#include <vector>

#include "actors/membership.hpp"

using fedsim::actors::Membership;

TEST_CASE("membership: dead_after_missed rounds in a row presume an agent dead", "[membership]") {
  Membership m(3, 2);
  CHECK(m.expected_count() == 3);
  m.set_contributed(0, true);
  m.set_contributed(1, true);
  CHECK(m.contributors() == 2);
  CHECK(m.expected_missing() == 1);
  CHECK_FALSE(m.all_expected_contributed());
  CHECK(m.close_round().empty());  // agent 2 missed one round
  CHECK(m.missed(2) == 1);
  CHECK(m.missed(0) == 0);
  for (int n : {0, 1}) m.set_contributed(n, false);
  m.set_contributed(0, true);  // agent 1 misses its first, agent 2 its second
  CHECK(m.close_round() == std::vector<int>{2});
  CHECK(m.presumed_dead(2));
  CHECK_FALSE(m.expected(2));
  CHECK(m.expected_count() == 2);
  CHECK(m.missed(1) == 1);
  // A contribution in between resets the count: misses must be in a row.
  m.set_contributed(0, false);
  m.set_contributed(1, true);
  CHECK(m.close_round().empty());
  CHECK(m.missed(1) == 0);
}

TEST_CASE("membership: a late report revives an agent and resets its missed count",
          "[membership]") {
  Membership m(2, 3);
  for (int k = 0; k < 3; ++k) m.close_round();
  REQUIRE(m.presumed_dead(0));
  REQUIRE(m.missed(0) == 3);
  CHECK(m.heard_from(0));        // was presumed dead
  CHECK_FALSE(m.heard_from(0));  // no longer
  CHECK(m.expected(0));
  CHECK(m.missed(0) == 0);
  // It gets dead_after_missed rounds again before it is presumed dead once more.
  CHECK(m.close_round().empty());
  CHECK(m.close_round().empty());
  CHECK(m.close_round() == std::vector<int>{0});
  CHECK(m.expected_count() == 0);
  CHECK(m.all_expected_contributed());  // vacuously: nobody expected
}

TEST_CASE("membership: crash and recovery notices, done, and the counts stay exact",
          "[membership]") {
  Membership m(4, 5);
  m.set_contributed(1, true);
  m.set_contributed(2, true);
  CHECK(m.expected_missing() == 2);
  m.notice(3, false);  // crashed: no longer expected, at once
  CHECK(m.presumed_dead(3));
  CHECK(m.expected_count() == 3);
  CHECK(m.expected_missing() == 1);
  m.notice(1, false);  // a contributor crashes: its contribution stays, it is not expected
  CHECK(m.contributors() == 2);
  CHECK(m.expected_count() == 2);
  CHECK(m.expected_missing() == 1);
  m.mark_done(0);
  CHECK(m.done(0));
  CHECK(m.done_count() == 1);
  CHECK(m.expected_count() == 1);
  CHECK(m.all_expected_contributed());
  m.close_round();
  m.close_round();
  CHECK(m.missed(3) == 0);  // not expected: no misses counted
  m.notice(3, true);        // recovered
  CHECK(m.expected(3));
  CHECK(m.missed(3) == 0);
  m.notice(1, true);
  CHECK(m.expected_count() == 3);
  CHECK(m.expected_missing() == 1);  // 1 and 2 contributed, 3 did not
  m.mark_done(0);                    // done twice counts once
  CHECK(m.done_count() == 1);
  // A done agent that is also presumed dead stays done; revived, it is still not expected.
  m.notice(0, false);
  m.heard_from(0);
  CHECK(m.done(0));
  CHECK_FALSE(m.expected(0));
  CHECK(m.expected_count() == 3);
}

TEST_CASE("membership: garbage sizes are refused, ids are range-checked", "[membership]") {
  CHECK_THROWS(Membership(-1, 3));
  CHECK_THROWS(Membership(3, 0));
  const Membership m(3, 1);
  CHECK(m.valid(0));
  CHECK(m.valid(2));
  CHECK_FALSE(m.valid(3));
  CHECK_FALSE(m.valid(-1));
  CHECK_FALSE(m.valid(4294967295LL));
}
