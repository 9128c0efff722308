"""Fed-PNE (Li et al.) on the results page: figures 2a-b (against HCT), 6 and 7."""
import os

import numpy as np

from .common import combine, compare, judged, metric_table, num, pm, read_csv, word

OBJECTIVES = [("garland", "Garland"), ("double-sine", "DoubleSine")]
REGRET = "cumulative_regret"


def fed_pne_sections(R, w, cmds, img):
    """Every Fed-PNE section, in the page's order; figures 2 and 6 share the sweeps."""
    fp = {o: read_csv(os.path.join(R, f"fed-pne-{o}.csv")) for o, _ in OBJECTIVES}
    # HCT's sweep (scenarios/papers/hct-*.toml, one grid point): cumulative_regret is its R(T).
    hct = {o: read_csv(os.path.join(R, f"hct-{o}.csv"))[0] for o, _ in OBJECTIVES}
    # PyXAB's HCT (algorithm.hct_variant = "pyxab"), when tools/reproduce ran it.
    pyxab = {o: (read_csv(os.path.join(R, f"hct-pyxab-{o}.csv"))[0],
                 read_csv(os.path.join(R, f"hct-pyxab-{o}_tree.csv")))
             for o, _ in OBJECTIVES if os.path.exists(os.path.join(R, f"hct-pyxab-{o}.csv"))}
    fig2_section(R, fp, hct, pyxab, w, cmds, img)
    fig6_section(R, fp, w)
    fig7_section(R, w, cmds)


def fig2_section(R, fp, hct, pyxab, w, cmds, img):
    """Figure 2a-b: average cumulative regret per client against HCT's on Garland and DoubleSine,
    HCT as Azar et al. define it and (when run) as PyXAB implements it."""
    w("## Fed-PNE figure 2a-b: Fed-PNE against HCT")
    w("")
    cmds("fedpne-garland", "hct-garland", "fedpne-double-sine", "hct-double-sine")
    w("Average cumulative regret per client after T = 10000 pulls per client (Fed-PNE, as actors "
      "from `scenarios/papers/fed-pne-*.toml`) against HCT's cumulative regret after T = 10000 "
      "evaluations of the global objective (`scenarios/papers/hct-*.toml` through the engine loop, "
      "ρ = 0.75), in two variants (`algorithm.hct_variant`): **Azar**, the algorithm of Azar et "
      "al. (2014), which expands only leaves, and **PyXAB**, the implementation in the PyXAB "
      "library (`engine/xarmed/hct_pyxab.hpp`), which expands a node again whenever its count "
      "reaches τ_h, leaf or not: after t⁺ doubles, τ_h grows, an inner node whose count is now "
      "below τ_h stops the descent and is pulled, and when its count reaches τ_h fresh children "
      "replace its subtree, whose statistics are lost to the search. The claims pair Fed-PNE's "
      "and HCT's runs by seed number (different scenarios: they share few random numbers, the "
      "design above says why the interval is valid all the same).")
    w("")
    has_pyxab = len(pyxab) == len(OBJECTIVES)
    w("| objective | Fed-PNE M = 5 | M = 10 | M = 20 | M = 50 | HCT (Azar) |"
      + (" HCT (PyXAB) | PyXAB re-expansions per run |" if has_pyxab else ""))
    w("|---|---|---|---|---|---|" + ("---|---|" if has_pyxab else ""))
    for o, title in OBJECTIVES:
        cells = [pm(num(r["cumulative_regret_mean"]), num(r["cumulative_regret_se"]), 1) for r in fp[o]]
        h_mean, h_se = num(hct[o]["cumulative_regret_mean"]), num(hct[o]["cumulative_regret_se"])
        row = f"| {title} | " + " | ".join(cells) + f" | {pm(h_mean, h_se, 1)} |"
        if has_pyxab:
            p, tree = pyxab[o]
            re = [int(t["re_expansions"]) for t in tree]
            row += (f" {pm(num(p['cumulative_regret_mean']), num(p['cumulative_regret_se']), 1)} | "
                    f"{min(re)}–{max(re)} |")
        w(row)
    w("")

    def runs(name):
        return os.path.join(R, f"{name}_runs.csv")

    def against(o, baseline):
        """Fed-PNE at each M below the baseline: {M: compare result}."""
        return {r["world.agents"]: compare(runs(f"fed-pne-{o}"), {"world.agents": r["world.agents"]},
                                           runs(baseline), {}, "less", REGRET) for r in fp[o]}

    def by_verdict(results):
        parts = []
        for v in ("reproduced", "undecided", "contradicted"):
            ms = [m for m, r in results.items() if r["verdict"] == v]
            if ms:
                parts.append(f"{v} for M = {', '.join(ms)}")
        return "; ".join(parts)

    if has_pyxab:
        parts = []
        for o, title in OBJECTIVES:
            higher = compare(runs(f"hct-pyxab-{o}"), {}, runs(f"hct-{o}"), {}, "greater", REGRET)
            vs_p = against(o, f"hct-pyxab-{o}")
            parts.append(f"on {title}, PyXAB's HCT above Azar's (a = PyXAB, b = Azar): "
                         f"{judged(higher, 3)}; Fed-PNE at M = 10 below PyXAB's HCT (a = Fed-PNE, "
                         f"b = HCT): {judged(vs_p['10'], 3)}, and at each M: {by_verdict(vs_p)}")
        w("Which baseline the paper ran: its appendix E.1.1 says \"We have used the "
          "publicly-available implementation by Li et al. [2023]\" — PyXAB — so the paper's HCT "
          "curve is most likely PyXAB's variant, with its re-expansions. In cumulative regret: "
          + "; ".join(parts) + ".")
        w("")
    sentences = []
    for o, title in OBJECTIVES:
        vs_a = against(o, f"hct-{o}")
        sentences.append(f"On {title}, Fed-PNE at the paper's M = 10 below HCT (Azar) (a = Fed-PNE, "
                         f"b = HCT): {judged(vs_a['10'], 3)}; at each M: {by_verdict(vs_a)}.")
    w("Paper: Fed-PNE has the smallest cumulative regret. " + " ".join(sentences))
    w("")
    img("fed-pne-garland/cumulative_regret.png", "Fed-PNE on Garland, M = 5..50, and both HCTs")
    img("fed-pne-double-sine/cumulative_regret.png", "Fed-PNE on DoubleSine, M = 5..50, and both HCTs")
    w("")


def fig6_section(R, fp, w):
    """Figure 6: the regret per client for M = 5..50."""
    w("## Fed-PNE figure 6: more clients")
    w("")
    w("The same sweeps as figure 2 (`--grid world.agents=5,10,20,50`).")
    w("")
    w("| M | " + " | ".join(t for _, t in OBJECTIVES) + " |")
    w("|---|---|---|")
    for i, r in enumerate(fp["garland"]):
        w(f"| {r['world.agents']} | " + " | ".join(
            pm(num(fp[o][i]["cumulative_regret_mean"]), num(fp[o][i]["cumulative_regret_se"]), 1)
            for o, _ in OBJECTIVES) + " |")
    w("")
    parts = []
    for o, title in OBJECTIVES:
        runs = os.path.join(R, f"fed-pne-{o}_runs.csv")
        ms = [r["world.agents"] for r in fp[o]]
        steps = [(f"M = {m} below M = {k}", compare(runs, {"world.agents": m}, runs,
                                                     {"world.agents": k}, "less", REGRET))
                 for k, m in zip(ms, ms[1:])]
        parts.append(f"{title}: " + "; ".join(f"{label}: {judged(r, 3)}" for label, r in steps)
                     + f" — the whole ordering: {word(combine(r['verdict'] for _, r in steps))}")
    w("Paper: more clients lower the average cumulative regret per client. Step by step, a the "
      "larger M: " + ". ".join(parts) + "."
      + (" (A standard error of 0.0 means every seed gave the same regret: in 1-D with centre "
         "pulls the seed only enters through the offsets, which do not change the regret on the "
         "global objective, and the reward noise; presumably with many clients the averaged noise "
         "no longer changes any elimination.)" if any(num(r["cumulative_regret_se"]) == 0.0
                                                       for o, _ in OBJECTIVES for r in fp[o]) else ""))
    w("")


def residuals(values, x):
    """The residual sum of squares of the least-squares line of values against x."""
    fit = np.polyfit(x, values, 1)
    return float(np.sum((np.polyval(fit, x) - values) ** 2))


def fig7_section(R, w, cmds):
    """Figure 7: rounds and communicated nodes against the budget T."""
    w("## Fed-PNE figure 7: communication")
    w("")
    cmds("fig7-garland", "fig7-double-sine")
    fig7 = {o: {int(r["algorithm.budget"]): r for r in read_csv(os.path.join(R, f"fig7-{o}.csv"))}
            for o, _ in OBJECTIVES}
    budgets = sorted(fig7[OBJECTIVES[0][0]])
    w("M = 10; rounds (broadcasts) and nodes sent per client, means over seeds (the engine loop's "
      "counts: `communication_rounds` and `nodes_sent_per_client` of `sweep.csv`).")
    w("")
    w("| T | " + " | ".join(f"{t} rounds | {t} nodes/client" for _, t in OBJECTIVES) + " |")
    w("|---|---|---|---|---|")
    series = {}
    for T in budgets:
        cells = []
        for o, _ in OBJECTIVES:
            r = fig7[o][T]
            rounds, nodes = num(r["communication_rounds_mean"]), num(r["nodes_sent_per_client_mean"])
            series.setdefault(o, []).append((T, rounds, nodes))
            cells += [f"{rounds:.1f}", f"{nodes:.1f}"]
        w(f"| {T} | " + " | ".join(cells) + " |")
    w("")
    parts = []
    for o, title in OBJECTIVES:
        # Per seed: the rounds and the nodes against T, fitted by a line in log T and by a line
        # in T; the claim is that the line in log T leaves the smaller residual sum of squares.
        per_seed = {}
        for r in read_csv(os.path.join(R, f"fig7-{o}_runs.csv")):
            per_seed.setdefault(r["seed"], []).append(
                (int(r["algorithm.budget"]), float(r["communication_rounds"]),
                 float(r["nodes_sent_per_client"])))
        rows = []
        for seed, pts in per_seed.items():
            t, rnd, nodes = (np.array(x, dtype=float) for x in zip(*sorted(pts)))
            for fit, x in (("log T", np.log10(t)), ("T", t)):
                rows.append({"fit": fit, "seed": seed, "rounds_rss": residuals(rnd, x),
                             "nodes_rss": residuals(nodes, x)})
        table = metric_table(f"fig7-{o}-fits", rows, ["fit"], ["rounds_rss", "nodes_rss"])
        judged_fits = [(what, compare(table, {"fit": "log T"}, table, {"fit": "T"}, "less", metric))
                       for what, metric in (("rounds", "rounds_rss"), ("nodes", "nodes_rss"))]
        t, rnd, nodes = (np.array(x, dtype=float) for x in zip(*series[o]))
        lt = np.log10(t)
        slope_r = np.polyfit(lt, rnd, 1)[0]
        slope_n = np.polyfit(lt, nodes, 1)[0]
        parts.append(f"on {title} the mean rounds go from {rnd[0]:.1f} to {rnd[-1]:.1f} and nodes "
                     f"per client from {nodes[0]:.1f} to {nodes[-1]:.1f} while T grows "
                     f"{t[-1] / t[0]:.0f}-fold (least-squares slopes of the means: {slope_r:.2f} "
                     f"rounds and {slope_n:.1f} nodes per decade of T); per seed, the residual "
                     "sum of squares of a line in log T below that of a line in T (a = log T, "
                     "b = T): " + "; ".join(f"{what}: {judged(r)}" for what, r in judged_fits)
                     + f" — both: {word(combine(r['verdict'] for _, r in judged_fits))}")
    w("Paper: rounds and communicated nodes grow logarithmically in T. Read as: on each seed a "
      "line in log T fits the counts better than a line in T. Here " + "; ".join(parts) + ".")
    w("")
