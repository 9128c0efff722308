#pragma once
/// Small scenarios full of faults, for tests that compare two ways of running the same
/// federation (a checkpointed run with an uninterrupted one, a run without files with one that
/// writes them): every piece of state a run holds is exercised.
namespace fedsim::test::faulty {

/// DP-FTS-DE under a deadline with late vectors carried, Gilbert-Elliott and Bernoulli loss,
/// duplicates, corrupted reports of every kind, lognormal links, a slow group and crashes that
/// lose state and recover: every piece of state a checkpoint holds is exercised.
inline const char* faulty_fbo = R"(
name = "faulty-fbo"
seed = 11
[world]
agents = 10
[world.objective]
grid_size = 200
[world.network]
compute = { kind = "lognormal", mu = 0.0, sigma = 0.5 }
uplink = { kind = "lognormal", mu = -2.0, sigma = 0.7 }
downlink = { kind = "lognormal", mu = -2.0, sigma = 0.7 }
drop = 0.05
duplicate = 0.1
[world.network.malformed]
rate = 0.2
[[world.network.groups]]
agents = [1, 4]
speed_factor = 3.0
loss = { kind = "gilbert-elliott", p = 0.2, r = 0.4 }
[[world.network.crashes]]
agents = [2, 7]
time = 4.0
recover = 9.0
keep_state = false
[[world.network.crashes]]
agents = [5]
time = 6.0
[algorithm]
name = "dp-fts-de"
iterations = 14
n_init = 3
features = 10
subregions = 2
[policy]
kind = "deadline"
deadline = 2.5
carry_late = true
dead_after_missed = 3
)";

/// FTS with one-shot messages (the pool's weights change with every draw) under async.
inline const char* fts_async = R"(
name = "fts-async"
seed = 5
[world]
agents = 8
[world.objective]
grid_size = 150
[world.network]
compute = { kind = "lognormal", mu = 0.0, sigma = 0.6 }
uplink = 0.05
downlink = 0.05
drop = 0.1
[algorithm]
name = "fts"
iterations = 12
n_init = 2
features = 8
fts_one_shot = true
[policy]
kind = "async"
async_every = 3
max_staleness = 4
)";

/// Fed-PNE under a deadline with loss, corrupted phase reports, a slow group and a crash.
inline const char* faulty_fed_pne = R"(
name = "faulty-fed-pne"
seed = 3
[world]
agents = 6
[world.objective]
kind = "garland"
[world.network]
compute = { kind = "lognormal", mu = -4.6, sigma = 0.5 }
uplink = { kind = "lognormal", mu = -5.0, sigma = 0.5 }
downlink = { kind = "lognormal", mu = -5.0, sigma = 0.5 }
drop = 0.05
[world.network.malformed]
rate = 0.3
[[world.network.groups]]
agents = [0]
speed_factor = 4.0
[[world.network.crashes]]
agents = [3]
time = 2.0
recover = 5.0
[algorithm]
name = "fed-pne"
budget = 3000
[policy]
kind = "deadline"
deadline = 0.05
)";

/// Zero compute and link times with corrupted reports under a quorum: most rounds close at
/// t = 0, so only the saved event sequences keep the server's rejections of different rounds
/// in order across a resume.
inline const char* zero_time = R"(
name = "zero-time"
seed = 2
[world]
agents = 6
[world.objective]
grid_size = 100
[world.network]
compute = 0.0
uplink = 0.0
downlink = 0.0
[world.network.malformed]
rate = 0.4
[algorithm]
name = "fts-de"
iterations = 8
n_init = 2
features = 6
subregions = 2
[policy]
kind = "quorum"
quorum = 0.5
)";

}  // namespace fedsim::test::faulty
