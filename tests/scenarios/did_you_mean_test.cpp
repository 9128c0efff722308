#include "scenarios/did_you_mean.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace fedsim::scenario;

TEST_CASE("edit_distance counts insertions, deletions, substitutions and adjacent swaps",
          "[scenario][did-you-mean]") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("", "run") == 3);
  CHECK(edit_distance("run", "") == 3);
  CHECK(edit_distance("run", "run") == 0);
  CHECK(edit_distance("runn", "run") == 1);      // insertion
  CHECK(edit_distance("rn", "run") == 1);        // deletion
  CHECK(edit_distance("rum", "run") == 1);       // substitution
  CHECK(edit_distance("urn", "run") == 1);       // adjacent swap: one edit, not two
  CHECK(edit_distance("dedline", "deadline") == 1);
  CHECK(edit_distance("ca", "abc") == 3);        // optimal string alignment, not full DL (2)
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("sync", "fedbuff") == 7);
}

TEST_CASE("closest_name suggests the one close name, and nothing when none or several are",
          "[scenario][did-you-mean]") {
  const std::vector<std::string> commands{"run", "serve", "agents", "privacy", "reference",
                                          "algorithms", "sweep", "compare", "plot", "xarmed",
                                          "dashboard", "report"};
  CHECK(closest_name("runn", commands) == "run");
  CHECK(closest_name("swep", commands) == "sweep");
  CHECK(closest_name("agent", commands) == "agents");
  CHECK(closest_name("dashbaord", commands) == "dashboard");
  CHECK(closest_name("algoritms", commands) == "algorithms");
  CHECK(closest_name("reprot", commands) == "report");
  CHECK(closest_name("bogus", commands).empty());
  CHECK(closest_name("run", commands).empty());  // not unknown: nothing to suggest
  CHECK(closest_name("", commands).empty());
  // Short names: one edit at most, and never all of the name.
  CHECK(closest_name("q", {"z", "clip"}).empty());
  CHECK(closest_name("qq", {"q", "z"}) == "q");
  CHECK(closest_name("rnu", {"run"}) == "run");
  CHECK(closest_name("ruin", {"run", "rain"}).empty());  // two at one edit: no guess
  CHECK(closest_name("sedd", {"seed"}) == "seed");
  CHECK(closest_name("sd", {"seed"}).empty());  // two edits is too many for a short name
  // Longer names: two edits.
  CHECK(closest_name("dedlin", {"sync", "deadline", "quorum", "async", "fedbuff"}) == "deadline");
  CHECK(closest_name("fts-dee", {"ts", "fts", "fts-de", "dp-fts-de"}) == "fts-de");
  CHECK(closest_name("bohachevsk", {"branin", "ackley", "hartmann3"}).empty());
}

TEST_CASE("did_you_mean is the tail of a message, or nothing", "[scenario][did-you-mean]") {
  CHECK(did_you_mean("kindd", {"kind", "deadline"}) == ", did you mean 'kind'?");
  CHECK(did_you_mean("kindd", {"kind", "deadline"}, "policy.") == ", did you mean 'policy.kind'?");
  CHECK(did_you_mean("zzz", {"kind", "deadline"}).empty());
}
