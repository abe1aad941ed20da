"""``attnge certify``: certified claims on right edges, and their independent checker.

For each cell (β and a law: one head at ratio y, or h heads, attention or the layer's
output), :func:`produce` writes

* ``edge``, ``mp_edge``: enclosures of the right edge of the law and of its i.i.d.
  surrogate (the same law at θ₂ = 0: θ₁·MP₁ for one head, θ₁·MP_{1/h} for h heads), by
  interval Newton in arb (:mod:`numerics.edge_enclosure`), rounded outward to decimals, with
  the rational base points that bracket each;
* ``verdict`` of the claim ``edge > R*mp-edge``: certified (edge.lo > R·mp_edge.hi),
  refuted (edge.hi ≤ R·mp_edge.lo) or undecided; only "certified" is certified;
* ``moment_ratio``: the smallest k ≤ K_MAX with m_{k+1}/m_k > R·mp-edge proved in exact
  rationals (:mod:`theory.certificates`), a second proof that needs no root;
* ``m2_gap``: m₂(law) − m₂(surrogate), exact.

:func:`check` re-derives every number of such a file with exact rationals and mpmath's
outward-rounded intervals only (:mod:`numerics.edge_bracket`, the other moment route), and
lists each inconsistency.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from decimal import Decimal
from fractions import Fraction

import sympy as sp

from attnge import coefficient_tables as tables
from attnge.numerics import edge_bracket as eb
from attnge.provenance import provenance
from attnge.theory import certificates as ce
from attnge.theory import limit_law as ll
from attnge.theory import multi_head as mh
from attnge.theory.inputs import integer
from attnge.theory.symbols import exact, positive_beta

FORMATS = ("md", "latex", "csv", "json")
KINDS = ("attention", "output")
K_MAX = 64              # moments searched for the ratio certificate
DIGITS = 30             # working digits of arb
DIGITS_RANGE = (20, 200)
EXACT_DIGITS = 40       # rational bounds of e^(beta^2), and the checker's margin
CLAIM = re.compile(r"\s*edge\s*>\s*(?:(?P<factor>[0-9.]+(?:\s*/\s*[0-9]+)?)\s*\*\s*)?"
                   r"mp-edge\s*")
CLAIMS = ("edge > mp-edge", "edge > R*mp-edge")
FORMAT_VERSION = 1


def parse_claim(text: str) -> Fraction:
    """'edge > mp-edge' → 1, 'edge > 3/2*mp-edge' → 3/2; ValueError naming claim."""
    match = CLAIM.fullmatch(str(text))
    factor = Fraction(1) if match and match["factor"] is None else None
    if match and match["factor"] is not None:
        try:
            factor = Fraction(match["factor"].replace(" ", ""))
        except (ValueError, ZeroDivisionError):
            factor = None
    if factor is None or factor <= 0:
        raise ValueError(f"claim must be one of {', '.join(repr(c) for c in CLAIMS)} with "
                         f"R a positive number such as 2 or 3/2 (got {text!r})")
    return factor


def spec(beta: sp.Expr, kind: str = "attention", y: sp.Expr | None = None,
         heads: sp.Expr | None = None, gamma_k: sp.Expr | None = None,
         gamma_v: sp.Expr | None = None, gamma_o: sp.Expr | None = None,
         sharing: str = "none") -> dict:
    """A cell's law as strings: one head at ratio y (γ_K = 1/y) or h heads."""
    if y is not None:
        heads, gamma_k = sp.Integer(1), 1 / sp.Rational(y)
    text = lambda v: None if v is None else str(sp.Rational(v))  # noqa: E731
    return {"beta": text(beta), "theta2": text(ll.from_beta(beta)[1]), "kind": kind,
            "y": text(y), "heads": text(heads), "gamma_k": text(gamma_k),
            "gamma_v": text(gamma_v if kind == "output" else None),
            "gamma_o": text(gamma_o if kind == "output" else None), "sharing": sharing}


def cells(betas: list, kind: str = "attention", ys: list | None = None,
          heads: list | None = None, gammas: dict | None = None,
          sharing: str = "none") -> list[dict]:
    """The cells of a grid, its inputs checked (ValueError naming them): one head at each y,
    or every (h, γ_K, γ_V, γ_O), γ_V defaulting to γ_K and γ_O to γ_V."""
    if heads is None:
        tables.validate(betas, ys, 1, 1)
        return [spec(b, y=v) for b in betas for v in ys]
    tables.validate_heads(betas, heads, gammas, 1, 1, None, sharing)
    return [spec(b, kind, heads=h, gamma_k=gk, gamma_v=gv, gamma_o=go, sharing=sharing)
            for b in betas for h in heads for gk in gammas["gamma_k"]
            for gv in (gammas["gamma_v"] or [gk]) for go in (gammas["gamma_o"] or [gv])]


def _single(cell: dict) -> bool:
    return cell["kind"] == "attention" and cell["heads"] == "1"


def _law(cell: dict, theta2: sp.Expr) -> mh.Law:
    """The cell's law on the Gaussian-model route, θ₁ the symbol of the enclosures."""
    return ce.law_of(cell, ce.THETA1, theta2, "matrix")


def exact_digits(digits: int) -> int:
    """Digits of the rational bounds (θ₁, √h) behind the moment proof and the checker."""
    return max(EXACT_DIGITS, digits + 10)


def _closed_mp_edge(cell: dict, t1: tuple[Fraction, Fraction]) -> tuple | None:
    """Rational bounds of θ₁(1 + h^(-1/2))², the surrogate's edge of the attention law."""
    if cell["kind"] != "attention":
        return None
    h = Fraction(cell["heads"])
    root_lo, root_hi = ce.sqrt_bounds(h, exact_digits(cell["digits"]))
    return (t1[0] * (1 + 1 / root_hi) ** 2, t1[1] * (1 + 1 / root_lo) ** 2)


def _interval(lo: Fraction, hi: Fraction, digits: int) -> dict:
    return {"lo": ce.decimal_down(lo, digits), "hi": ce.decimal_up(hi, digits)}


def _read(pair: dict) -> tuple[Fraction, Fraction]:
    return Fraction(pair["lo"]), Fraction(pair["hi"])


def verdict(edge: tuple, mp_edge: tuple, factor: Fraction) -> str:
    """certified: edge.lo > R·mp.hi; refuted: edge.hi ≤ R·mp.lo; else undecided."""
    if edge[0] > factor * mp_edge[1]:
        return "certified"
    if edge[1] <= factor * mp_edge[0]:
        return "refuted"
    return "undecided"


# ---------------------------------------------------------------------------
# the producer
# ---------------------------------------------------------------------------


def produce(cell: dict, factor: Fraction, digits: int = DIGITS) -> dict:
    """Every number of one cell (see the module docstring)."""
    from attnge.numerics import edge_enclosure as ee

    fl = ee.flint()
    shown = digits - 5
    t2 = sp.Rational(cell["theta2"])
    t1_exact = sp.exp(t2) - 1
    with fl.ctx.workdps(digits + ce.small_digits(Fraction(cell["beta"]))):
        t1 = fl.arb(fl.fmpq(int(t2.p), int(t2.q))).exp() - 1
        t1_bounds = (ee.to_fraction(t1.lower()), ee.to_fraction(t1.upper()))
    edge = ee.enclose(_law(cell, t2), t1_exact, t1, digits)
    mp = ee.enclose(_law(cell, sp.Integer(0)), t1_exact, t1, digits)
    out = dict(cell)
    out["digits"] = digits
    out["theta1"] = _interval(*t1_bounds, shown)
    out["edge"] = _interval(edge.lo, edge.hi, shown)
    out["mp_edge"] = _interval(mp.lo, mp.hi, shown)
    e, m = _read(out["edge"]), _read(out["mp_edge"])
    out["relative_width"] = f"{Decimal(ce.decimal_up((e[1] - e[0]) / e[0], 2)):.1e}"
    out["bracket"] = dict(zip(("lo", "hi"), edge.bracket))
    out["mp_bracket"] = dict(zip(("lo", "hi"), mp.bracket))
    closed = _closed_mp_edge(out, t1_bounds)
    if closed is not None and (closed[0] > m[1] or closed[1] < m[0]):
        raise ArithmeticError("the surrogate's enclosure misses its closed form "
                              "theta1 (1 + h^(-1/2))^2")
    out["claim"] = "edge > mp-edge" if factor == 1 else f"edge > {factor}*mp-edge"
    out["factor"] = str(factor)
    out["verdict"] = verdict(e, m, factor)
    out["certified"] = out["verdict"] == "certified"
    out["moment_ratio"] = _moment_ratio(out, factor, m, e)
    gap = ce.m2_gap(cell, "matrix")
    out["m2_gap"] = {"value": str(gap), "positive": ce.positive(gap)}
    return out


def _threshold(cell: dict, factor: Fraction, mp_edge: tuple, t1: tuple) -> Fraction:
    """An upper bound of R·(the surrogate's edge): the closed form where there is one (one
    head 4θ₁, h heads θ₁(1 + h^(-1/2))²), else the enclosure's upper end."""
    closed = _closed_mp_edge(cell, t1)
    return factor * (closed[1] if closed is not None else mp_edge[1])


def _moment_ratio(cell: dict, factor: Fraction, mp_edge: tuple, edge: tuple) -> dict:
    route = "quartic" if _single(cell) else "matrix"
    out = {"k": None, "k_max": K_MAX, "route": route, "threshold_from": _threshold_from(cell)}
    if verdict(edge, mp_edge, factor) == "refuted":
        return out                                  # not searched: the claim is false
    t1 = ce.theta1_bounds(Fraction(cell["beta"]), exact_digits(cell["digits"]))
    threshold = _threshold(cell, factor, mp_edge, t1)
    K = 8
    while True:
        lower, upper = (ce.law_moments_at(t, K + 1, cell, route) for t in t1)
        top = ce.ratio_bound(K, lower, upper)       # the largest ratio (they grow with k)
        if top > edge[1]:
            raise ArithmeticError(f"m_{K + 1}/m_{K} >= {float(top)!r} exceeds the edge's "
                                  f"enclosure [{float(edge[0])!r}, {float(edge[1])!r}]: the "
                                  "moments or the edge are wrong")
        found = _ratio_rule(lower, upper, threshold, cell["digits"] - 5)
        if found["k"] is not None or K >= K_MAX:
            return {**out, **found}
        K = min(2 * K, K_MAX)


def _threshold_from(cell: dict) -> str:
    return "mp_edge.hi" if cell["kind"] == "output" else "theta1 (1 + h^(-1/2))^2"


def _ratio_rule(lower: list, upper: list, threshold: Fraction, shown: int) -> dict:
    """The smallest k with m_{k+1}(θ₁^lo)/m_k(θ₁^hi), rounded down to ``shown`` digits, above
    R·E_MP rounded up (its decimals), among the k the moments reach; {"k": None} if none."""
    hi = ce.decimal_up(threshold, shown)
    for k in range(1, len(lower)):
        lo = ce.decimal_down(ce.ratio_bound(k, lower, upper), shown)
        if Fraction(lo) > Fraction(hi):
            return {"k": k, "ratio_lo": lo, "threshold_hi": hi}
    return {"k": None}


# ---------------------------------------------------------------------------
# the checker
# ---------------------------------------------------------------------------


MAX_BYTES = 16 * 2**20
"""The largest certificate file ``--check`` reads (a cell takes about 2 kB)."""
MAX_DEPTH = 8
"""The deepest nesting of a certificate (document → cells → cell → field → value is 4)."""
MAX_EXPONENT = 400
"""The largest decimal exponent of a number in a certificate (its numbers are edges of
laws and θ's at β ≤ 6, between 1e-2 and 1e20): a larger one is refused before it is read,
as Fraction("1e999999999") would compute for hours."""
DOCUMENT_KEYS = {"format", "version", "cells", "provenance"}
PRODUCED = ("digits", "theta1", "edge", "mp_edge", "relative_width", "bracket", "mp_bracket",
            "claim", "factor", "verdict", "certified", "moment_ratio", "m2_gap")
"""The fields the producer adds to a cell's law (``produce``)."""
_NUMBER = re.compile(r"^\s*[+-]?(\d+\.?\d*|\.\d+)(?:[eE](?P<exp>[+-]?\d+))?\s*$")


def _bounded(value: object, depth: int = 0) -> str | None:
    """What makes a document unsafe to read (nesting, an oversized number or string), or
    None."""
    if depth > MAX_DEPTH:
        return f"nested deeper than {MAX_DEPTH} levels"
    if isinstance(value, dict):
        items = list(value.values()) + list(value)
    elif isinstance(value, list):
        items = value
    elif isinstance(value, str):
        if len(value) > 4000:
            return f"a string of {len(value)} characters"
        found = _NUMBER.match(value)
        if found and found.group("exp") and abs(int(found.group("exp"))) > MAX_EXPONENT:
            return f"the number {value[:40]!r} has an exponent beyond ±{MAX_EXPONENT}"
        return None
    elif isinstance(value, float) and not math.isfinite(value):
        return f"the number {value!r} is not finite"
    else:
        return None
    for item in items:
        why = _bounded(item, depth + 1)
        if why is not None:
            return why
    return None


def parse(text: bytes) -> dict:
    """A certificate file's JSON, read within the limits (``MAX_BYTES``, ``MAX_DEPTH``,
    ``MAX_EXPONENT``); ValueError saying which one it breaks, in one line."""
    if len(text) > MAX_BYTES:
        raise ValueError(f"larger than {MAX_BYTES // 2**20} MiB: not a certificate")
    try:
        document = json.loads(text.decode("utf-8"), parse_constant=_not_json)
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"not JSON ({err})") from None
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None
    why = _bounded(document)
    if why is not None:
        raise ValueError(why)
    return document


def _not_json(name: str):
    raise ValueError(f"{name} is not a JSON number")


def check(document: dict) -> list[str]:
    """Every inconsistency of a certificate document (empty: it holds)."""
    if not isinstance(document, dict) or document.get("format") != "attnge-certificate":
        return ["not an attnge certificate (its 'format' is not 'attnge-certificate')"]
    if document.get("version") != FORMAT_VERSION:
        return [f"certificate version {document.get('version')!r}, this checker reads "
                f"{FORMAT_VERSION}"]
    unknown = sorted(set(document) - DOCUMENT_KEYS)
    if unknown:
        return [f"unknown fields {', '.join(map(repr, unknown))} (a certificate holds "
                f"{', '.join(sorted(DOCUMENT_KEYS))})"]
    cells = document.get("cells")
    if not isinstance(cells, list) or not cells:
        return ["the file holds no cells"]
    problems = []
    for i, cell in enumerate(cells):
        try:
            problems += [f"cell {i + 1} ({_name(cell)}): {p}" for p in check_cell(cell)]
        except (KeyError, TypeError, ValueError, ZeroDivisionError, ArithmeticError,
                AttributeError) as err:
            problems.append(f"cell {i + 1}: unreadable or inconsistent ({err})")
    return problems


def _name(cell: dict) -> str:
    if cell.get("y") is not None:
        return f"beta = {cell['beta']}, y = {cell['y']}"
    keys = ("kind", "heads", "gamma_k", "gamma_v", "gamma_o", "sharing")
    return f"beta = {cell['beta']}, " + ", ".join(f"{k} = {cell[k]}" for k in keys
                                                  if cell.get(k) is not None)


def _canonical(cell: dict) -> dict:
    """The law fields a cell must have, rebuilt from its own β and law (ValueError naming
    the field otherwise): within the command's limits, and nothing else on display."""
    beta = positive_beta(cell["beta"])
    if cell["kind"] not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)} (got {cell['kind']!r})")
    if cell.get("y") is not None:
        (want,) = cells([beta], ys=[exact(cell["y"], "y")])
    else:
        given = lambda k: None if cell.get(k) is None else [exact(cell[k], k)]  # noqa: E731
        output = cell["kind"] == "output"
        gammas = {"gamma_k": given("gamma_k"),   # K = V: gamma_v is gamma_k, not an input
                  "gamma_v": given("gamma_v") if output and cell["sharing"] != "kv" else None,
                  "gamma_o": given("gamma_o") if output else None}
        (want,) = cells([beta], cell["kind"], heads=given("heads"), gammas=gammas,
                        sharing=cell["sharing"])
    for key, value in want.items():
        if cell.get(key) != value:
            raise ValueError(f"{key} is {cell.get(key)!r}, not {value!r} for this law")
    return want


def check_cell(cell: dict) -> list[str]:
    """Re-derive one cell with exact rationals and mpmath intervals: every number it shows
    is derived again, and an interval that holds the derived one but is wider than the
    producer writes it (more than ``SLACK`` units of its last digit) is reported as
    loosened."""
    if not isinstance(cell, dict):
        raise TypeError("a cell is an object")
    want = _canonical(cell)
    unknown = sorted(set(cell) - set(want) - set(PRODUCED))
    if unknown:
        raise ValueError(f"unknown fields {', '.join(map(repr, unknown))}")
    for name in ("theta1", "edge", "mp_edge", "bracket", "mp_bracket"):
        if not isinstance(cell[name], dict) or set(cell[name]) != {"lo", "hi"}:
            raise ValueError(f"{name} must be exactly {{'lo': ..., 'hi': ...}}")
    digits = validate_digits(cell["digits"])
    shown = digits - 5
    problems = []
    beta = Fraction(cell["beta"])
    t1 = ce.theta1_bounds(beta, exact_digits(digits))
    t2 = sp.Rational(str(beta * beta))
    stated = _read(cell["theta1"])
    if not (stated[0] <= t1[0] and t1[1] <= stated[1]):
        problems.append(f"theta1 is not in [{cell['theta1']['lo']}, {cell['theta1']['hi']}]")
    elif _loosened(stated, t1, shown):
        problems.append(f"theta1: [{cell['theta1']['lo']}, {cell['theta1']['hi']}] is "
                        f"loosened: theta1 is in [{ce.decimal_down(t1[0], shown)}, "
                        f"{ce.decimal_up(t1[1], shown)}]")
    for name, bracket, theta2 in (("edge", "bracket", t2), ("mp_edge", "mp_bracket", 0)):
        lo, hi = _read(cell[name])
        try:
            found = eb.bounds(_law(cell, sp.sympify(theta2)), ce.THETA1, t1,
                              *_read(cell[bracket]), dps=2 * exact_digits(digits))
        except ValueError as err:
            problems.append(f"{name}: {err}")
            continue
        if not (lo <= found[0] and found[1] <= hi):
            problems.append(f"{name}: [{cell[name]['lo']}, {cell[name]['hi']}] does not "
                            f"hold the proved [{ce.decimal_down(found[0], 20)}, "
                            f"{ce.decimal_up(found[1], 20)}]")
        elif _loosened((lo, hi), found, shown):
            problems.append(f"{name}: [{cell[name]['lo']}, {cell[name]['hi']}] is loosened: "
                            f"the proved enclosure is [{ce.decimal_down(found[0], shown)}, "
                            f"{ce.decimal_up(found[1], shown)}]")
    e, m = _read(cell["edge"]), _read(cell["mp_edge"])
    width = f"{Decimal(ce.decimal_up((e[1] - e[0]) / e[0], 2)):.1e}"
    if cell["relative_width"] != width:
        problems.append(f"relative_width is {cell['relative_width']!r}, the edge's "
                        f"enclosure gives {width!r}")
    closed = _closed_mp_edge(cell, t1)
    if closed is not None and (closed[0] > m[1] or closed[1] < m[0]):
        problems.append("mp_edge misses the closed form theta1 (1 + h^(-1/2))^2")
    factor = parse_claim(cell["claim"])
    if Fraction(cell["factor"]) != factor:
        problems.append("factor differs from the claim's")
    found = verdict(e, m, factor)
    if cell["verdict"] != found or cell["certified"] is not (found == "certified"):
        problems.append(f"verdict {cell['verdict']!r} (certified: {cell['certified']}) but "
                        f"the enclosures give {found!r}")
    problems += _check_ratio(cell, factor, m, t1, found)
    gap = ce.m2_gap(cell, "stated")
    if cell["m2_gap"] != {"value": str(gap), "positive": ce.positive(gap)}:   # no eval
        problems.append(f"m2_gap is {gap}, not {cell['m2_gap']['value']}")
    return problems


SLACK = 4
"""Units of the last shown digit by which a stated bound may lie outside the checker's own
rounding of what it proves (the producer's enclosures are computed by another route, at
``digits``, and shown at ``digits - 5``)."""


def _loosened(stated: tuple, proved: tuple, shown: int) -> bool:
    """Whether a stated interval that holds ``proved`` is wider than ``shown`` digits of it,
    by more than ``SLACK`` units of its last digit on either side."""
    lo, hi = ce.decimal_down(proved[0], shown), ce.decimal_up(proved[1], shown)
    top = max(Decimal(lo).copy_abs(), Decimal(hi).copy_abs())   # adjusted(): its exponent
    unit = Fraction(10) ** (top.adjusted() - shown + 1)
    return stated[0] < Fraction(lo) - SLACK * unit or stated[1] > Fraction(hi) + SLACK * unit


def _check_ratio(cell: dict, factor: Fraction, mp_edge: tuple, t1: tuple,
                 found: str) -> list[str]:
    """The ratio certificate by the other moment route (the stated law's S-transforms): the
    producer's rule rerun on those moments must give the file's k and decimals exactly
    (every j < k fails, k holds; with k null every j ≤ k_max fails)."""
    ratio = dict(cell["moment_ratio"])
    expected = {"k_max": K_MAX, "route": "quartic" if _single(cell) else "matrix",
                "threshold_from": _threshold_from(cell)}
    for key, value in expected.items():
        if ratio.pop(key, None) != value:
            return [f"moment_ratio: {key} is not {value!r}"]
    if found == "refuted":
        return [] if ratio == {"k": None} else ["moment_ratio: searched for a refuted claim"]
    k = ratio.get("k")
    top = K_MAX if k is None else integer(k, "k", 1, K_MAX)
    lower, upper = (ce.law_moments_at(t, top + 1, cell, "stated") for t in t1)
    rerun = _ratio_rule(lower, upper, _threshold(cell, factor, mp_edge, t1),
                        validate_digits(cell["digits"]) - 5)
    if rerun != ratio:
        return [f"moment_ratio: {ratio} where the exact moments give {rerun}"]
    return []


# ---------------------------------------------------------------------------
# formats
# ---------------------------------------------------------------------------


def document(cells: list[dict], provenance: dict) -> dict:
    return {"format": "attnge-certificate", "version": FORMAT_VERSION, "cells": cells,
            "provenance": provenance}


def _columns(cells: list[dict]) -> list[str]:
    if all(c.get("y") is not None for c in cells):
        return ["beta", "y"]
    return ["beta", "kind", "heads", "gamma_k", "gamma_v", "gamma_o", "sharing"]


def _k(cell: dict) -> str:
    k = cell["moment_ratio"]["k"]
    return f"none ≤ {cell['moment_ratio']['k_max']}" if k is None else str(k)


def render(cells: list[dict], fmt: str, provenance: dict) -> str:
    """The cells as ``md``, ``latex``, ``csv`` or ``json`` (the certificate itself)."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)} (got {fmt!r})")
    if fmt == "json":
        return json.dumps(document(cells, provenance), indent=2) + "\n"
    keys = _columns(cells)
    heads = [*keys, "edge lo", "edge hi", "mp-edge lo", "mp-edge hi", "claim", "verdict",
             "k", "m_(k+1)/m_k >=", "m2 gap"]
    rows = [["" if c[k] is None else str(c[k]) for k in keys]
            + [c["edge"]["lo"], c["edge"]["hi"], c["mp_edge"]["lo"], c["mp_edge"]["hi"],
               c["claim"], c["verdict"], _k(c), c["moment_ratio"].get("ratio_lo", ""),
               c["m2_gap"]["value"]] for c in cells]
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(heads)
        writer.writerows(rows)
        return buf.getvalue()
    if fmt == "md":
        lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines) + "\n"
    tex = lambda s: s.replace("_", r"\_").replace("≤", r"$\le$")  # noqa: E731
    lines = [r"\begin{tabular}{" + "l" * len(heads) + "}", r"\hline",
             " & ".join(tex(h) for h in heads) + r" \\", r"\hline"]
    lines += [" & ".join(tex(v) for v in r) + r" \\" for r in rows]
    return "\n".join([*lines, r"\hline", r"\end{tabular}"]) + "\n"


def require() -> None:
    """Fail before computing when python-flint is missing (one line naming the extra)."""
    from attnge.numerics.edge_enclosure import flint

    flint()


def summary(cell: dict) -> str:
    """One line per cell: the verdict, and for a claim not certified what stops it."""
    e, m = cell["edge"], cell["mp_edge"]
    where = _name(cell)
    factor = "" if cell["factor"] == "1" else f"{cell['factor']}*"
    if cell["verdict"] == "certified":
        k = cell["moment_ratio"]["k"]
        moments = (f"; also m_{k + 1}/m_{k} >= {cell['moment_ratio']['ratio_lo']}"
                   if k is not None else f"; no moment ratio up to k = {K_MAX}")
        return (f"certified: {cell['claim']} at {where}: edge >= {e['lo']} > "
                f"{factor}mp-edge (mp-edge <= {m['hi']}){moments}")
    if cell["verdict"] == "refuted":
        return (f"refused: {cell['claim']} is false at {where}: edge <= {e['hi']} <= "
                f"{factor}mp-edge (mp-edge >= {m['lo']})")
    return (f"refused: {cell['claim']} is undecided at {where}: edge in [{e['lo']}, {e['hi']}], "
            f"mp-edge in [{m['lo']}, {m['hi']}] (raise --digits)")


def validate_digits(digits: object) -> int:
    return integer(digits, "digits", *DIGITS_RANGE)


class Certificates:
    """The cells of :func:`certify`: ``cells`` (one dict each, see the module docstring),
    ``certified`` (every claim proved), :meth:`render` and :meth:`document` (the JSON
    certificate that :func:`check` re-verifies)."""

    def __init__(self, cells: list[dict], provenance: dict) -> None:
        self.cells, self.provenance = cells, provenance

    @property
    def certified(self) -> bool:
        return all(c["certified"] for c in self.cells)

    def document(self) -> dict:
        return document(self.cells, self.provenance)

    def render(self, fmt: str = "md") -> str:
        """The cells as ``md``, ``latex``, ``csv`` or ``json`` (the certificate)."""
        return render(self.cells, fmt, self.provenance)


def grid(beta: object = 1, y: object = None, *, heads: object = None, gamma_k: object = None,
         gamma_v: object = None, gamma_o: object = None, sharing: str = "none",
         law: str = "attention") -> list[dict]:
    """The cells of :func:`certify`'s grid, every input checked (ValueError naming it)."""
    betas = [positive_beta(b) for b in tables._listed(beta, "beta")]
    if heads is None:
        given = [n for n, v in (("gamma_k", gamma_k), ("gamma_v", gamma_v),
                                ("gamma_o", gamma_o)) if v is not None]
        if given or sharing != "none" or law != "attention":
            raise ValueError(f"{(given or ['sharing' if sharing != 'none' else 'law'])[0]} "
                             "applies with heads only (the multi-head laws)")
        return cells(betas, ys=tables._listed(1 if y is None else y, "y"))
    if y is not None:
        raise ValueError("y does not apply with heads (the multi-head laws take gamma_k, "
                         "gamma_v, gamma_o)")
    if gamma_k is None:
        raise ValueError("gamma_k is needed with heads (gamma_K = h d_K/n)")
    if law not in KINDS:
        raise ValueError(f"law must be one of {', '.join(KINDS)} (got {law!r})")
    if law == "attention" and (gamma_v is not None or gamma_o is not None):
        raise ValueError("gamma_v and gamma_o apply with law output only")
    gammas = {"gamma_k": tables._listed(gamma_k, "gamma_k"),
              "gamma_v": tables._listed(gamma_v, "gamma_v"),
              "gamma_o": tables._listed(gamma_o, "gamma_o")}
    return cells(betas, law, heads=tables._listed(heads, "heads"), gammas=gammas,
                 sharing=sharing)


def certify(beta: object = 1, y: object = None, *, heads: object = None,
            gamma_k: object = None, gamma_v: object = None, gamma_o: object = None,
            sharing: str = "none", law: str = "attention", claim: str = "edge > mp-edge",
            digits: int = DIGITS, progress=None) -> Certificates:
    r"""Certified enclosures of right edges, and the claim ``edge > R*mp-edge`` decided on
    them, for every cell of the grid (needs the ``certify`` extra, python-flint).

    Parameters
    ----------
    beta, y : number, str or sequence
        One head at each (β, y) (y defaults to 1), or with ``heads``:
    heads, gamma_k, gamma_v, gamma_o : optional
        every (β, h, γ_K, γ_V, γ_O) of the ``law`` ("attention" or "output").
    sharing : {"none", "kv"}
    claim : str
        "edge > mp-edge" or "edge > R*mp-edge" for a factor R > 0.
    digits : int
        Working digits of the interval arithmetic, 20 to 200.
    progress : callable, optional
        Called with each finished cell.

    Returns
    -------
    Certificates

    Notes
    -----
    The claim is certified when the enclosure's lower end exceeds R times the surrogate's
    upper end: :math:`E_{lo} > R \cdot E^{MP}_{hi}`.
    """
    import time

    start = time.perf_counter()
    factor = parse_claim(claim)
    digits = validate_digits(digits)
    found = grid(beta, y, heads=heads, gamma_k=gamma_k, gamma_v=gamma_v, gamma_o=gamma_o,
                 sharing=sharing, law=law)
    require()
    done = []
    for cell in found:
        done.append(produce(cell, factor, digits))
        if progress is not None:
            progress(done[-1])
    parameters = {"cells": len(found), "claim": claim, "digits": digits,
                  "beta": _given(beta), "y": _given(y), "heads": _given(heads),
                  "gamma_k": _given(gamma_k), "gamma_v": _given(gamma_v),
                  "gamma_o": _given(gamma_o), "sharing": sharing, "law": law}
    return Certificates(done, provenance(parameters, time.perf_counter() - start))


def _given(value: object) -> str | None:
    """A grid option as the command line writes it ("1,2"), for the provenance."""
    if value is None or isinstance(value, str):
        return value
    values = value if isinstance(value, (list, tuple)) else [value]
    return ",".join(str(v) for v in values)
