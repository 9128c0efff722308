#pragma once
/// What a server believes of each of its agents (FBO server) or clients (Fed-PNE server), kept
/// in one place with one semantics for both:
///  done           - the agent said it has nothing left to do (agent_done); final.
///  presumed dead  - after `dead_after_missed` rounds (phases) in a row closed without its
///                   contribution, or on the network's crash notice. Never final: any report
///                   from it (timely, late or duplicate) or a recovery notice revives it and
///                   resets its count of missed rounds to 0, so a straggler that reports late
///                   gets `dead_after_missed` more rounds before it is presumed dead again.
///  expected       - neither done nor presumed dead: the rounds wait for these.
///  contributed    - has a contribution for the round being collected.
/// Counts (expected, contributors, expected contributors, done) are kept up to date on every
/// change, so a report costs O(1); closing a round is O(N). Pure C++: no actors.
#include <functional>
#include <string>
#include <vector>

namespace fedsim::actors {

class Membership {
 public:
  Membership(int members, int dead_after_missed);

  int size() const { return static_cast<int>(done_.size()); }
  bool valid(long long n) const { return n >= 0 && n < size(); }
  bool done(int n) const { return done_[n]; }
  bool presumed_dead(int n) const { return dead_[n]; }
  bool expected(int n) const { return !done_[n] && !dead_[n]; }
  bool contributed(int n) const { return contributed_[n]; }
  int missed(int n) const { return missed_[n]; }

  int expected_count() const { return expected_; }
  int done_count() const { return done_count_; }
  int contributors() const { return contributors_; }
  /// Expected members without a contribution this round.
  int expected_missing() const { return expected_ - expected_contributors_; }
  /// Every expected member has contributed (vacuously true when nobody is expected).
  bool all_expected_contributed() const { return expected_missing() == 0; }

  /// agent_done: final.
  void mark_done(int n);
  /// A report of any kind from n: it is alive. Returns true if it was presumed dead.
  bool heard_from(int n);
  /// The network's notice: crashed (alive = false) or recovered (alive = true, revives and
  /// resets the missed count as a report does).
  void notice(int n, bool alive);
  /// n has (or, cleared, no longer has) a contribution for the current round.
  void set_contributed(int n, bool yes);
  /// The round closed: contributors' missed counts go to 0, every expected member without a
  /// contribution misses it. Returns the members presumed dead by this close. Contributions
  /// are kept (the caller clears them when it has used them).
  std::vector<int> close_round();

  /// Called with (n, presumed dead) whenever n's presumed-dead flag changes, for the live view
  /// (agent_state_event); not part of the state (a restored membership keeps its listener).
  void on_presumed_dead(std::function<void(int, bool)> listener) { listener_ = std::move(listener); }

  /// What is wrong with a restored membership (empty if nothing): another size or
  /// dead_after_missed than the scenario's `members` and `dead_after_missed`, a flag that is not
  /// 0 or 1, a missed count out of [0, dead_after_missed] (below it for an expected member), or a
  /// count that disagrees with the flags.
  std::string check(int members, int dead_after_missed) const;
  /// Every field, for checkpoints (actors/checkpoint.hpp).
  template <class Inspector>
  friend typename Inspector::result_type inspect(Inspector& f, Membership& m) {
    return f(m.dead_after_missed_, m.done_, m.dead_, m.contributed_, m.missed_, m.expected_,
             m.done_count_, m.contributors_, m.expected_contributors_);
  }

 private:
  /// Applies a change of n's flags, keeping the counts right.
  void set(int n, bool done, bool dead);

  int dead_after_missed_;
  std::function<void(int, bool)> listener_;
  std::vector<char> done_, dead_, contributed_;
  std::vector<int> missed_;
  int expected_ = 0, done_count_ = 0, contributors_ = 0, expected_contributors_ = 0;
};

}  // namespace fedsim::actors
