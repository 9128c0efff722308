#!/usr/bin/python3
"""Federated hyperparameter tuning from a scikit-learn training script (issue 14 item 5): a
fedsim external objective worker (docs/external-objectives.md) that trains scikit-learn's SVC
on agent n's own shard of the breast-cancer data set (bundled with scikit-learn: Debian's
python3-sklearn) and answers the validation AUC.

fedsim writes one request per line on stdin:
    {"id": 17, "agent": 3, "iteration": 5, "x": [-0.5, 0.2]}
and reads one answer per line on stdout:
    {"id": 17, "y": 0.97}
x holds log10 of the RBF kernel's gamma and of the penalty C: the scenario's lower/upper
(scenarios/objectives/command-sklearn-svm.toml) map fedsim's unit square onto
[log10 0.01, log10 10] x [log10 1e-4, log10 10], DP-FTS-DE's ranges for its landmine SVM.

Usage: sklearn_svm.py [--shard-size K] [--seed S]
Agent n's shard is K samples (default 70) drawn without replacement with a generator seeded by
(S, n), so the script serves any number of agents; it is halved into training and validation and
standardised with its training half, as the paper's agents do.
SVC is deterministic, so every worker gives the same answer to the same request and runs are
reproducible with several workers. No "cost" is sent: a measured time would differ between
runs and, charged in virtual time, move the records; fedsim records each evaluation's wall time
itself. Nothing but answers goes to stdout.
"""
import argparse
import json
import sys

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import roc_auc_score
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC


DATA = load_breast_cancer()


def shard(agent, size, seed):
    """Agent `agent`'s training and validation halves, standardised with the training half."""
    part = np.random.RandomState([seed, agent]).choice(len(DATA.target), size, replace=False)
    half = (size + 1) // 2
    train, valid = part[:half], part[half:]
    scaler = StandardScaler().fit(DATA.data[train])
    return (scaler.transform(DATA.data[train]), DATA.target[train],
            scaler.transform(DATA.data[valid]), DATA.target[valid])


def evaluate(shard, x):
    xt, yt, xv, yv = shard
    gamma, c = 10.0 ** x[0], 10.0 ** x[1]
    model = SVC(C=c, gamma=gamma, kernel="rbf").fit(xt, yt)
    return roc_auc_score(yv, model.decision_function(xv))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shard-size", type=int, default=70)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not 10 <= args.shard_size <= len(DATA.target):
        sys.exit(f"sklearn_svm.py: --shard-size must be in 10..{len(DATA.target)}")
    shards = {}
    for line in sys.stdin:
        request = json.loads(line)
        try:
            agent = int(request["agent"])
            if agent < 0:
                raise ValueError(f"agent {agent} is not an agent id")
            if agent not in shards:
                shards[agent] = shard(agent, args.shard_size, args.seed)
            answer = {"id": request["id"], "y": float(evaluate(shards[agent], request["x"]))}
        except Exception as e:  # reported: fedsim counts it and follows on_failure
            answer = {"id": request["id"], "error": str(e)}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
