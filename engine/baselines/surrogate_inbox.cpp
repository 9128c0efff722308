#include "engine/baselines/surrogate_inbox.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

namespace fedsim::baselines {

SurrogateInbox::SurrogateInbox(int num_features, double lambda, SurrogatePayload kind)
    : num_features_(num_features), lambda_(lambda), kind_(kind) {
  if (num_features < 1) throw std::invalid_argument("surrogate inbox: M must be >= 1");
  if (!(lambda > 0) || !std::isfinite(lambda))
    throw std::invalid_argument("surrogate inbox: lambda must be a finite number > 0");
}

std::string SurrogateInbox::receive(int source, const std::vector<double>& payload) {
  const std::string why = check_surrogate_payload(payload, num_features_, kind_);
  if (!why.empty()) {
    ++rejected_;
    return why;
  }
  FeatureSurrogate surrogate = FeatureSurrogate::decode(payload, num_features_, lambda_, kind_);
  const auto at = std::lower_bound(sources_.begin(), sources_.end(), source);
  const auto k = std::distance(sources_.begin(), at);
  if (at != sources_.end() && *at == source) {
    payloads_[k] = payload;
    surrogates_[k] = std::move(surrogate);
    return "";
  }
  sources_.insert(at, source);
  payloads_.insert(payloads_.begin() + k, payload);
  surrogates_.insert(surrogates_.begin() + k, std::move(surrogate));
  return "";
}

SurrogateInbox::State SurrogateInbox::state() const { return {sources_, payloads_, rejected_}; }

void SurrogateInbox::restore(const State& state) {
  if (state.sources.size() != state.payloads.size())
    throw std::invalid_argument("surrogate inbox state: as many senders as payloads expected");
  for (std::size_t k = 1; k < state.sources.size(); ++k)
    if (state.sources[k - 1] >= state.sources[k])
      throw std::invalid_argument("surrogate inbox state: senders must be strictly ascending");
  std::vector<FeatureSurrogate> surrogates;
  surrogates.reserve(state.payloads.size());
  for (const auto& payload : state.payloads)
    surrogates.push_back(FeatureSurrogate::decode(payload, num_features_, lambda_, kind_));
  sources_ = state.sources;
  payloads_ = state.payloads;
  surrogates_ = std::move(surrogates);
  rejected_ = state.rejected;
}

}  // namespace fedsim::baselines
