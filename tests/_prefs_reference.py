"""A plain, loop-by-loop port of trec_eval's preference code, one query at a time: the
independent reference of the vectorised measures (form_prefs_counts.c, m_prefs_*.c).

Written from the C source, not from the package: lists and dicts, the same loops, the same
quirks (the Rnonrel recount pairs the lowest level with its own first R documents; a 0/0
group makes the average 0).
"""

import itertools
import math


def _docid_ranks(ranked, judged):
    retrieved = [d for d in ranked if d in judged]
    rest = sorted(judged - set(retrieved))
    return {d: i for i, d in enumerate(retrieved + rest)}, len(retrieved)


def _ec_group(lines, docid, njr, counts):
    levels = sorted({level for _, level in lines}, reverse=True)
    ecs = [sorted(docid[d] for d, lv in lines if lv == level) for level in levels]
    jg = dict.fromkeys(["ful_ret", "poss_ret", "ful_imp", "poss_imp", "notoccur"], 0)
    jg.update(rel=0, rel_ret=0, nonrel=0, nonrel_ret=0, ecs=ecs, levels=levels)
    for e1, ec in enumerate(ecs):
        n_ret = sum(1 for r in ec if r < njr)
        kind = "rel" if levels[e1] > 0 else "nonrel" if levels[e1] == 0 else None
        if kind:
            jg[kind] += len(ec)
            jg[kind + "_ret"] += n_ret
        for ec2 in ecs[e1 + 1 :]:
            for r1, r2 in itertools.product(ec, ec2):
                counts[(r1, r2)] = counts.get((r1, r2), 0) + 1
                _count_pair(jg, r1, r2, njr)
    return jg


def _count_pair(jg, r1, r2, njr):
    if r1 < r2:
        key = "ful_ret" if r2 < njr else "ful_imp" if r1 < njr else "notoccur"
    else:
        key = "poss_ret" if r1 < njr else "poss_imp" if r2 < njr else "notoccur"
    jg[key] += 1
    if key == "ful_ret":
        jg["poss_ret"] += 1
    if key == "ful_imp":
        jg["poss_imp"] += 1


def _pa_group(lines, docid, njr, n, counts):
    """``lines``: (jsg, doc, level) of one group; None on an inconsistency."""
    order = sorted(lines, key=lambda t: (t[0], -t[2], docid[t[1]]))
    rel = [-1.0] * n
    pa = [[0] * n for _ in range(n)]
    for i, (jsg, doc, level) in enumerate(order):
        r = docid[doc]
        if (rel[r] > 0 and level == 0) or (rel[r] == 0 and level > 0):
            return None
        rel[r] = level
        for jsg2, doc2, level2 in order[i + 1 :]:
            if jsg2 == jsg and level2 < level:
                pa[r][docid[doc2]] = 1
    for k, i, j in itertools.product(range(n), repeat=3):  # Warshall
        if pa[i][k] and pa[k][j]:
            pa[i][j] = 1
    if any(pa[i][j] and pa[j][i] for i in range(n) for j in range(n)):
        return None
    jg = dict.fromkeys(["ful_ret", "poss_ret", "ful_imp", "poss_imp", "notoccur"], 0)
    jg.update(pa=pa, rel_array=rel, ecs=None)
    jg["rel"] = sum(1 for v in rel if v > 0)
    jg["nonrel"] = sum(1 for v in rel if v == 0)
    jg["rel_ret"] = sum(1 for v in rel[:njr] if v > 0)
    jg["nonrel_ret"] = sum(1 for v in rel[:njr] if v == 0)
    for i, j in itertools.product(range(n), repeat=2):
        if i != j and pa[i][j]:
            counts[(i, j)] = counts.get((i, j), 0) + 1
            _count_pair(jg, i, j, njr)
    return jg


def _recount(jg, njr, n, *, ret):
    """m_prefs_avgjg_Rnonrel(_ret).c's ``recalculate``."""
    ful = poss = 0
    if jg["ecs"] is not None:
        ecs = jg["ecs"]
        size = jg["rel_ret"] if ret else jg["rel"]
        new = ecs[-1][:size]
        pairs = [(a, b) for e1 in range(len(ecs)) for e2 in range(e1 + 1, len(ecs) - 1)
                 for a in ecs[e1] for b in ecs[e2]]  # fmt: skip
        pairs += [(a, b) for ec in ecs for a in ec for b in new]
        for a, b in pairs:
            if ret and (a >= njr or b >= njr):
                continue
            if a < b and (ret or a < njr):
                ful += 1
            else:
                poss += 1
        return ful, poss + ful
    rel, pa = jg["rel_array"], jg["pa"]
    seen, first_discarded = 0, njr if ret else n
    for i in range(njr if ret else n):
        if rel[i] == 0.0:
            seen += 1
            if seen == jg["rel"] + 1:
                first_discarded = i
                break
    kept = [not (i >= first_discarded and rel[i] == 0.0) for i in range(n)]
    top = njr if ret else n
    for i, j in itertools.product(range(top), repeat=2):
        if i != j and pa[i][j] and kept[i] and kept[j]:
            if i < j and i < njr:
                ful += 1
            else:
                poss += 1
    return ful, poss + ful


def _rnonrel(jgs, njr, n, *, ret):
    total = 0.0
    for jg in jgs:
        big_r, big_n = (jg["rel_ret"], jg["nonrel_ret"]) if ret else (jg["rel"], jg["nonrel"])
        if big_r >= big_n:
            ful = jg["ful_ret"] + (0 if ret else jg["ful_imp"])
            poss = jg["poss_ret"] + (0 if ret else jg["poss_imp"] + jg["notoccur"])
            ful += jg["rel_ret"] * (big_r - big_n)
            poss += jg["rel"] * (big_r - big_n)
        else:
            ful, poss = _recount(jg, njr, n, ret=ret)
        total += ful / poss if poss else math.nan
    return total / len(jgs) if total > 0 else 0.0  # NaN > 0 is False, as in C


def _pairs(counts, njr, n, scope):
    total, number = 0.0, 0
    for i, j in itertools.combinations(range(n), 2):
        c_ij, c_ji = counts.get((i, j), 0), counts.get((j, i), 0)
        if not (c_ij or c_ji):
            continue
        both, one = j < njr, i < njr <= j
        if (scope == "ret" and not both) or (scope == "imp" and not (both or one)):
            continue
        number += 1
        total += c_ij / (c_ij + c_ji) if (both or one) else 0.0
    return total / number if number else 0.0


def _avg(jgs, keys_ful, keys_poss):
    total = 0.0
    for jg in jgs:
        poss = sum(jg[k] for k in keys_poss)
        if poss:
            total += sum(jg[k] for k in keys_ful) / poss
    return total / len(jgs) if total > 0 else 0.0


def query_measures(ranked, lines, max_docs=None):
    """``ranked``: [(doc, score)]; ``lines``: [(jg, jsg, doc, level)] of one query.
    Returns {measure: value}, or None where trec_eval stops on an inconsistent group."""
    order = sorted(ranked, key=lambda t: (-t[1], t[0]))[:max_docs]
    docid, njr = _docid_ranks([d for d, _ in order], {t[2] for t in lines})
    n = len(docid)
    counts, jgs = {}, []
    for jg_id in sorted({t[0] for t in lines}):
        group = [t for t in lines if t[0] == jg_id]
        if len({t[1] for t in group}) == 1:
            jg = _ec_group([(t[2], t[3]) for t in group], docid, njr, counts)
        else:
            jg = _pa_group([(t[1], t[2], t[3]) for t in group], docid, njr, n, counts)
        if jg is None:
            return None
        jgs.append(jg)
    ful_ret = sum(jg["ful_ret"] for jg in jgs)
    ful = ful_ret + sum(jg["ful_imp"] for jg in jgs)
    poss_ret = sum(jg["poss_ret"] for jg in jgs)
    poss_imp = poss_ret + sum(jg["poss_imp"] for jg in jgs)
    poss = poss_imp + sum(jg["notoccur"] for jg in jgs)
    every, imp = ["poss_ret", "poss_imp", "notoccur"], ["poss_ret", "poss_imp"]
    return {
        "prefs_num_prefs_poss": poss,
        "prefs_num_prefs_ful": ful,
        "prefs_num_prefs_ful_ret": ful_ret,
        "prefs_simp": ful / poss if poss else 0.0,
        "prefs_pair": _pairs(counts, njr, n, "all"),
        "prefs_avgjg": _avg(jgs, ["ful_ret", "ful_imp"], every),
        "prefs_avgjg_Rnonrel": _rnonrel(jgs, njr, n, ret=False),
        "prefs_simp_ret": ful_ret / poss_ret if poss_ret else 0.0,
        "prefs_pair_ret": _pairs(counts, njr, n, "ret"),
        "prefs_avgjg_ret": _avg(jgs, ["ful_ret"], ["poss_ret"]),
        "prefs_avgjg_Rnonrel_ret": _rnonrel(jgs, njr, n, ret=True),
        "prefs_simp_imp": ful / poss_imp if poss_imp else 0.0,
        "prefs_pair_imp": _pairs(counts, njr, n, "imp"),
        "prefs_avgjg_imp": _avg(jgs, ["ful_ret", "ful_imp"], imp),
    }


def judgment_group_measures(ranked, lines, cutoffs, mults, *, level=1, max_docs=None):
    """m_map_avgjg.c, m_P_avgjg.c and m_Rprec_mult_avgjg.c for one query: ``ranked``
    [(doc, score)], ``lines`` [(jg, doc, label)]; ties by doc descending (form_res_rels_jg)."""
    by_doc = sorted(ranked, key=lambda t: t[0], reverse=True)
    order = sorted(by_doc, key=lambda t: -t[1])[:max_docs]  # stable: ties keep doc descending
    out = {"map": 0.0, **{f"P_{k}": 0.0 for k in cutoffs}, **{f"R_{m}": 0.0 for m in mults}}
    groups = sorted({g for g, _, _ in lines})
    for group in groups:
        rel = {d: lab for g, d, lab in lines if g == group}
        hits = [rel.get(d, -1) >= level for d, _ in order]
        num_rel = sum(1 for lab in rel.values() if lab >= level)
        found, total = 0, 0.0
        for i, hit in enumerate(hits):
            if hit:
                found += 1
                total += found / (i + 1)
        if found:
            out["map"] += total / num_rel
        for k in cutoffs:
            out[f"P_{k}"] += sum(hits[:k]) / k
        for m in mults:
            cut = int(m * num_rel + 0.9)
            if cut > len(hits):
                out[f"R_{m}"] += sum(hits) / cut
            elif cut > 0:
                out[f"R_{m}"] += sum(hits[:cut]) / cut
    return {name: value / len(groups) for name, value in out.items()}
