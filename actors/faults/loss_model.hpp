#pragma once
/// Loss models: how a link loses messages. One model object per link (per agent and direction)
/// holds that link's state; the network asks it once per message that reaches the wire, in the
/// network's deterministic processing order, and the model draws only from the message's keyed
/// stream. A new kind is one file defining a `LossKind` plus one line in `loss_kinds()`
/// (actors/faults/loss_registry.cpp); the scenario loader and validation read the registry.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/rng.hpp"

namespace fedsim::actors::faults {

/// The state of one link's loss process.
class LossModel {
 public:
  virtual ~LossModel() = default;
  /// Whether the message now crossing the link is lost. Called once per message in the order
  /// the link carries them; draws only from `rng` (the message's keyed stream).
  virtual bool lost(RandomStream& rng) = 0;
  /// The link's state as numbers, for a checkpoint (empty for a memoryless model), and the
  /// state put back from them: load(save()) on a fresh model of the same parameters gives a
  /// model that loses exactly what the saved one would have. Throws std::invalid_argument on
  /// numbers that save() could not have written.
  virtual std::vector<double> save() const = 0;
  virtual void load(const std::vector<double>& state) = 0;
};

/// A model's numeric parameters by name (every parameter of its kind is present once resolved).
using LossParams = std::map<std::string, double>;

/// One parameter of a kind: its name, default (NaN: required) and a one-line description.
struct LossParameter {
  std::string name;
  double default_value;
  std::string doc;
};

/// A registered loss kind: what the scenario key `loss = { kind = NAME, ... }` selects.
struct LossKind {
  std::string name;
  std::string doc;
  std::vector<LossParameter> parameters;
  /// Throws std::invalid_argument "key 'KEY.PARAM': ..." for a bad parameter set (complete).
  void (*validate)(const LossParams& params, const std::string& key);
  /// One link's fresh state.
  std::unique_ptr<LossModel> (*make)(const LossParams& params);
};

/// Every registered kind, in registration order.
const std::vector<LossKind>& loss_kinds();
/// The kind called `name`, or nullptr.
const LossKind* find_loss_kind(const std::string& name);
/// "bernoulli, gilbert-elliott": the names for an "allowed:" list.
std::string loss_kind_names();

/// `params` with every missing parameter of `kind` set to its default; throws
/// std::invalid_argument naming `key` for an unknown parameter or a missing required one.
LossParams complete_params(const LossKind& kind, const LossParams& params, const std::string& key);

/// Helpers for kinds' validate(): throw std::invalid_argument "key 'KEY': RULE, got V".
void require(bool ok, const std::string& key, const std::string& rule, double got);
/// params[name] in [0, 1], named KEY.NAME.
void require_probability(const LossParams& params, const std::string& name, const std::string& key);
[[noreturn]] void fail(const std::string& key, const std::string& what);

}  // namespace fedsim::actors::faults
