"""Coefficient tables for papers: ``attnge tables`` (exact closed forms and decimals).

For each (β, y): the Hermite coefficients a_k = β^k/k! of f (a_0 = 0), θ₁, θ₂, θ₁ − θ₂;
E D_ii and Var D_ii (exact at given ℓ, d_qk, else the leading terms 1 + β⁴/(4d_qk) and
θ₁/ℓ + β⁴/(2d_qk)); the moments m_1..m_K of ν∞ and of the surrogate θ₁·MP₁; the right edge
of ν∞, the surrogate's edge 4θ₁ and their ratio. Closed forms come from SymPy, decimals
from mpmath at the requested digits.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field

import mpmath as mp
import sympy as sp

from attnge.numerics import multi_head_law as mhl
from attnge.numerics.limit_density import right_edge
from attnge.provenance import provenance
from attnge.theory import exponential as ex
from attnge.theory import inputs, printing
from attnge.theory import limit_law as ll
from attnge.theory import multi_head as mh
from attnge.theory import normalizer as nz
from attnge.theory.inputs import integer
from attnge.theory.laws import describe
from attnge.theory.symbols import beta, d_qk, ell, eps, exact, positive_beta

FORMATS = ("md", "latex", "csv", "json")
ORDER_MAX = MOMENTS_MAX = 60    # a few seconds each at 30 digits on 2 cores
HEADS_MOMENTS_MAX = 30          # the output law's 30 moments: about 2 s (60: a minute)
DIGITS_MAX = 300                # the edge and the decimals to 300 digits: about 2 s
HEADS_MAX = 1024


def parse_list(text: str, name: str, positive: bool = True) -> list[sp.Expr]:
    """'0.5,1,2' → exact numbers; ValueError naming the parameter otherwise."""
    parts = [p.strip() for p in str(text).split(",")]
    if not all(parts):
        raise ValueError(f"{name} must be a comma-separated list of numbers (got {text!r})")
    out = []
    for p in parts:
        try:
            v = exact(p, name)
        except ValueError:
            raise ValueError(f"{name} must be a comma-separated list of positive finite "
                             f"numbers (got {text!r})") from None
        if positive and not v.is_positive:
            raise ValueError(f"{name} must be a comma-separated list of positive finite "
                             f"numbers (got {text!r})")
        out.append(v)
    return out


@dataclass
class Quantity:
    """One entry: its name, index k (or None), closed form (None if none) and decimal."""

    name: str
    closed: sp.Expr | None
    decimal: str
    k: int | None = None


@dataclass
class Row:
    beta: sp.Expr
    y: sp.Expr | None
    quantities: list[Quantity] = field(default_factory=list)
    heads: dict | None = None       # h, gamma_k, gamma_v, gamma_o, sharing (multi-head rows)

    def get(self, name: str) -> list[Quantity]:
        return [q for q in self.quantities if q.name == name]

    def heading(self) -> str:
        if self.heads is None:
            return f"beta = {self.beta}, y = {self.y}"
        return f"beta = {self.beta}, " + ", ".join(f"{k} = {v}" for k, v in self.heads.items())


def decimal(expr: sp.Expr | mp.mpf, digits: int) -> str:
    """A closed form or an mpmath number as a decimal string of ``digits`` significant digits."""
    if isinstance(expr, sp.Expr):
        return str(sp.N(expr, digits))
    with mp.workdps(digits + 5):
        return mp.nstr(expr, digits, strip_zeros=False)


def normalizer_terms(b: sp.Expr, ell_value: int | None, d_value: int | None) -> dict:
    """E D_ii and Var D_ii: exact at (ℓ, d_qk), or their leading terms in 1/ℓ and 1/d_qk.

    The leading terms: 1 + β⁴/(4d_qk) and θ₁/ℓ + β⁴/(2d_qk) (the 1/(ℓ d_qk) terms dropped).
    """
    if ell_value is None:
        mean = nz.expansion("E D_ii", 1).subs(eps, 1 / d_qk)
        first = sp.expand(nz.expansion("Var D_ii", 1)).coeff(eps, 1)
        var = nz.expansion("Var D_ii", 0) + first.as_independent(ell)[0] / d_qk
        return {"E D_ii": mean.subs(beta, b), "Var D_ii": var.subs(beta, b)}
    at = {beta: b, ell: ell_value, d_qk: d_value}
    return {"E D_ii": nz.mean().subs(at), "Var D_ii": nz.variance().subs(at)}


def validate(betas: list[sp.Expr], ys: list[sp.Expr], order: int, digits: int,
             ell_value: int | None = None, d_value: int | None = None,
             moments: int | None = None) -> tuple[int, int, int, int | None, int | None]:
    """Check every input of ``build`` (ValueError naming it); the checked integers."""
    order = integer(order, "order", 1, ORDER_MAX)
    moments = order if moments is None else integer(moments, "moments", 1, MOMENTS_MAX)
    digits = integer(digits, "digits", 1, DIGITS_MAX)
    for yy in ys:
        inputs.ratio(float(yy), "y")
    if (ell_value is None) != (d_value is None):
        raise ValueError("ell and dqk must be given together (exact E D_ii, Var D_ii)")
    if ell_value is not None:
        ell_value, d_value = integer(ell_value, "ell", 2), integer(d_value, "dqk", 1)
    for b in betas:
        b = positive_beta(b)
        if ell_value is not None and not d_value > 4 * b**2:
            raise ValueError(f"dqk must be > 4 beta^2 = {float(4 * b**2):g} for Var D_ii to "
                             f"exist (got {d_value})")
    return order, moments, digits, ell_value, d_value


def build(betas: list[sp.Expr], ys: list[sp.Expr], order: int, digits: int,
          ell_value: int | None = None, d_value: int | None = None,
          moments: int | None = None) -> list[Row]:
    """The rows for every (β, y): Hermite coefficients to ``order``, ``moments`` moments."""
    order, moments, digits, ell_value, d_value = validate(betas, ys, order, digits, ell_value,
                                                          d_value, moments)
    rows = []
    for b in betas:
        b = positive_beta(b)
        t1, t2 = ll.from_beta(b)
        hermite = [ex.hermite_coefficient(k, "f").subs(beta, b) for k in range(order + 1)]
        norm = normalizer_terms(b, ell_value, d_value)
        for yy in ys:
            row = Row(b, yy)
            add = lambda name, closed, k=None: row.quantities.append(  # noqa: E731
                Quantity(name, closed, decimal(closed, digits), k))
            for k, a in enumerate(hermite):
                add("hermite", a, k)
            add("theta1", t1)
            add("theta2", t2)
            add("noise_variance", sp.expand(t1 - t2))
            for name, value in norm.items():  # leading terms keep ℓ, d_qk: no decimal
                row.quantities.append(Quantity(name, value, "" if value.free_symbols
                                               else decimal(value, digits)))
            for k, m in enumerate(ll.limit_moments(moments, t1, t2, yy), start=1):
                add("moment", m, k)
            for k, m in enumerate(ll.mp_surrogate_moments(moments, t1), start=1):
                add("mp_moment", m, k)
            with mp.workdps(digits + 10):
                edge = right_edge(t1, t2, yy, dps=digits + 5)
                row.quantities.append(Quantity("right_edge", None, decimal(edge, digits)))
                add("mp_edge", 4 * t1)
                ratio = edge / mp.mpf(sp.N(4 * t1, digits + 10))
                row.quantities.append(Quantity("edge_ratio", None, decimal(ratio, digits)))
            rows.append(row)
    return rows


HEADS_OPTIONS = ("gamma_k", "gamma_v", "gamma_o")


def validate_heads(betas: list[sp.Expr], heads: list[sp.Expr], gammas: dict, order: int,
                   digits: int, moments: int | None, sharing: str) -> tuple[int, int]:
    """Check the inputs of ``build_heads`` (ValueError naming them); (moments, digits)."""
    order = integer(order, "order", 1, ORDER_MAX)
    moments = integer(order if moments is None else moments, "moments", 1, HEADS_MOMENTS_MAX)
    digits = integer(digits, "digits", 1, DIGITS_MAX)
    for b in betas:
        positive_beta(b)
    for h in heads:
        if not (h.is_integer and 1 <= h <= HEADS_MAX):
            raise ValueError(f"heads must be a comma-separated list of integers from 1 to "
                             f"{HEADS_MAX} (got {h})")
    if sharing not in ("none", "kv"):
        raise ValueError(f"sharing must be none or kv for the laws (mqa has the laws of "
                         f"independent heads) (got {sharing!r})")
    for name in HEADS_OPTIONS:
        for g in gammas[name] or ():
            inputs.ratio(float(g), name.replace("_", "-"))
    if sharing == "kv" and gammas["gamma_v"]:
        raise ValueError("gamma-v is gamma-k for tied keys and values (d_V = d_K): leave it out "
                         "with --sharing kv")
    return moments, digits


def build_heads(betas: list[sp.Expr], heads: list[sp.Expr], gammas: dict, order: int,
                digits: int, moments: int | None = None, sharing: str = "none") -> list[Row]:
    """Rows for every (β, h, γ_K, γ_V, γ_O): θ₁, θ₂, the moments and right edges of the
    attention law ν_{∞,h} and of the output law (``theory.multi_head``, stated route; the
    edge by ``numerics.multi_head_law.right_edge``). γ_V defaults to γ_K, γ_O to γ_V."""
    moments, digits = validate_heads(betas, heads, gammas, order, digits, moments, sharing)
    gks = gammas["gamma_k"]
    rows = []
    for b in betas:
        b = positive_beta(b)
        t1, t2 = ll.from_beta(b)
        for h in heads:
            for gk in gks:
                for gv in gammas["gamma_v"] or [gk]:
                    for go in gammas["gamma_o"] or [gv]:
                        row = Row(b, None, heads={"h": h, "gamma_K": gk, "gamma_V": gv,
                                                  "gamma_O": go, "sharing": sharing})
                        add = lambda name, closed, k=None: row.quantities.append(  # noqa: E731
                            Quantity(name, closed, decimal(closed, digits), k))
                        add("theta1", t1)
                        add("theta2", t2)
                        add("noise_variance", sp.expand(t1 - t2))
                        for kind, name in (("attention", "head"), ("output", "output")):
                            out = kind == "output"
                            law = describe(beta=b, heads=int(h), gamma_k=gk, kind=kind,
                                           gamma_v=gv if out else None,
                                           gamma_o=go if out else None,
                                           sharing=sharing).layered()
                            for k, m in enumerate(mh.moments(law, moments), start=1):
                                add(f"{name}_moment", m, k)
                            with mp.workdps(digits + 10):
                                edge = mhl.right_edge(law, dps=digits + 5)
                                row.quantities.append(Quantity(f"{name}_edge", None,
                                                               decimal(edge, digits)))
                        rows.append(row)
    return rows


LABELS = {"theta1": r"\theta_1", "theta2": r"\theta_2", "noise_variance": r"\theta_1 - \theta_2",
          "E D_ii": r"\mathbb{E} D_{ii}", "Var D_ii": r"\operatorname{Var} D_{ii}",
          "right_edge": r"E(\nu_\infty)", "mp_edge": r"4\theta_1",
          "edge_ratio": r"E(\nu_\infty)/4\theta_1", "hermite": "a_k", "moment": r"m_k(\nu_\infty)",
          "mp_moment": r"m_k(\theta_1 \mathrm{MP}_1)",
          "head_moment": r"m_k(\nu_{\infty,h})", "head_edge": r"E(\nu_{\infty,h})",
          "output_moment": r"m_k(\nu_{\mathrm{MHA}})", "output_edge": r"E(\nu_{\mathrm{MHA}})"}
SCALARS = ("theta1", "theta2", "noise_variance", "E D_ii", "Var D_ii", "right_edge", "mp_edge",
           "edge_ratio", "head_edge", "output_edge")
SERIES = ("hermite", "moment", "mp_moment", "head_moment", "output_moment")


def _closed(q: Quantity, wrap: str) -> str:
    return "" if q.closed is None else wrap.format(printing.latex(q.closed))


def to_markdown(rows: list[Row]) -> str:
    out = []
    for row in rows:
        out.append(f"## {row.heading()}\n")
        out.append("| quantity | closed form | decimal |\n|---|---|---|")
        for name in SCALARS:
            for q in row.get(name):
                out.append(f"| ${LABELS[name]}$ | {_closed(q, '${}$')} | {q.decimal} |")
        out.append("")
        out.append("| k | quantity | closed form | decimal |\n|---|---|---|---|")
        for name in SERIES:
            for q in row.get(name):
                out.append(f"| {q.k} | ${LABELS[name]}$ | {_closed(q, '${}$')} | {q.decimal} |")
        out.append("")
    return "\n".join(out)


def to_latex(rows: list[Row]) -> str:
    out = []
    for row in rows:
        out.append(f"% {row.heading()}")
        out.append(r"\begin{tabular}{llll}")
        out.append(r"\hline")
        out.append(r"$k$ & quantity & closed form & decimal \\")
        out.append(r"\hline")
        for name in SCALARS + SERIES:
            for q in row.get(name):
                k = "" if q.k is None else str(q.k)
                out.append(f"{k} & ${LABELS[name]}$ & {_closed(q, '${}$')} & {q.decimal} \\\\")
        out.append(r"\hline")
        out.append(r"\end{tabular}")
        out.append("")
    return "\n".join(out)


def to_csv(rows: list[Row]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    keys = list(rows[0].heads) if rows and rows[0].heads else ["y"]
    w.writerow(["beta", *keys, "quantity", "k", "closed_form", "decimal"])
    for row in rows:
        given = [str(v) for v in row.heads.values()] if row.heads else [str(row.y)]
        for q in row.quantities:
            w.writerow([str(row.beta), *given, q.name, "" if q.k is None else q.k,
                        "" if q.closed is None else str(q.closed), q.decimal])
    return buf.getvalue()


def to_json(rows: list[Row], provenance: dict) -> str:
    out = []
    for row in rows:
        one = lambda name: row.get(name)[0].decimal  # noqa: E731
        if row.heads is not None:
            out.append({
                "beta": decimal(row.beta, 17),
                **{k: str(v) for k, v in row.heads.items()},
                "theta1": one("theta1"), "theta2": one("theta2"),
                "noise_variance": one("noise_variance"),
                "attention_moments": [q.decimal for q in row.get("head_moment")],
                "attention_edge": one("head_edge"),
                "output_moments": [q.decimal for q in row.get("output_moment")],
                "output_edge": one("output_edge")})
            continue
        out.append({
            "beta": decimal(row.beta, 17), "y": decimal(row.y, 17),
            "theta1": one("theta1"), "theta2": one("theta2"),
            "noise_variance": one("noise_variance"),
            "hermite": [q.decimal for q in row.get("hermite")],
            "moments": [q.decimal for q in row.get("moment")],
            "mp_moments": [q.decimal for q in row.get("mp_moment")],
            "right_edge": one("right_edge"), "mp_edge": one("mp_edge"),
            "edge_ratio": one("edge_ratio"),
            "normalizer": {name: {"closed_form": str(row.get(name)[0].closed),
                                  "decimal": row.get(name)[0].decimal}
                           for name in ("E D_ii", "Var D_ii")},
        })
    return json.dumps({"rows": out, "provenance": provenance}, indent=2) + "\n"


def render(rows: list[Row], fmt: str, provenance: dict) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)} (got {fmt!r})")
    if fmt == "json":
        return to_json(rows, provenance)
    return {"md": to_markdown, "latex": to_latex, "csv": to_csv}[fmt](rows)


@dataclass
class Tables:
    """The rows of :func:`tables` and their provenance; :meth:`render` writes them."""

    rows: list[Row]
    provenance: dict

    def render(self, fmt: str = "md") -> str:
        """The rows as ``md``, ``latex``, ``csv`` or ``json`` (with the provenance)."""
        return render(self.rows, fmt, self.provenance)


def _listed(value: object, name: str) -> list[sp.Expr] | None:
    """A number, a ratio string, a comma-separated string or a sequence of them, as exact
    numbers (None stays None)."""
    if value is None:
        return None
    if isinstance(value, str):
        return parse_list(value, name)
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    return [exact(v, name) for v in values]


def tables(beta: object = (0.5, 1, 2), y: object = None, *, order: int = 8,
           digits: int = 20, moments: int | None = None, ell: int | None = None,
           dqk: int | None = None, heads: object = None, gamma_k: object = None,
           gamma_v: object = None, gamma_o: object = None, sharing: str = "none") -> Tables:
    r"""Coefficient tables for papers: closed forms and decimals for every (β, y), or with
    ``heads`` for every (β, h, γ_K, γ_V, γ_O).

    Parameters
    ----------
    beta, y : number, str or sequence
        The grid (y defaults to 1; not with ``heads``). Strings may be ratios, "1/2".
    order : int
        Hermite coefficients :math:`a_0..a_K` and moments :math:`m_1..m_K`, K = order.
    digits : int
        Significant digits of the decimals.
    moments : int, optional
        The number of moments, if not ``order``.
    ell, dqk : int, optional
        Together: the normalizer's exact :math:`\mathbb E D_{ii}`, :math:`\mathrm{Var}\,D_{ii}`.
    heads, gamma_k, gamma_v, gamma_o : optional
        The multi-head and output laws instead (γ_V defaults to γ_K, γ_O to γ_V).
    sharing : {"none", "kv"}

    Returns
    -------
    Tables

    Examples
    --------
    >>> t = tables(beta=1, y=1, order=2, digits=8)
    >>> [q.decimal for q in t.rows[0].get("moment")]
    ['1.7182818', '6.9049849']
    """
    import time

    start = time.perf_counter()
    betas, ys = _listed(beta, "beta"), _listed(y, "y")
    if heads is None:
        given = [n for n, v in (("gamma_k", gamma_k), ("gamma_v", gamma_v),
                                ("gamma_o", gamma_o)) if v is not None]
        if given or sharing != "none":
            raise ValueError(f"{(given or ['sharing'])[0]} applies with heads only")
        ys = ys or [sp.Integer(1)]
        validate(betas, ys, order, digits, ell, dqk, moments)
        parameters = {"beta": [str(b) for b in betas], "y": [str(v) for v in ys],
                      "order": int(order), "moments": int(moments or order),
                      "digits": int(digits), "ell": ell, "dqk": dqk}
        rows = build(betas, ys, order, digits, ell, dqk, moments)
    else:
        for name, value in (("y", ys), ("ell", ell), ("dqk", dqk)):
            if value is not None:
                raise ValueError(f"{name} does not apply with heads (the multi-head laws take "
                                 "gamma_k, gamma_v, gamma_o)")
        if gamma_k is None:
            raise ValueError("gamma_k is needed with heads (gamma_K = h d_K/n)")
        hs = _listed(heads, "heads")
        gammas = {"gamma_k": _listed(gamma_k, "gamma_k"), "gamma_v": _listed(gamma_v, "gamma_v"),
                  "gamma_o": _listed(gamma_o, "gamma_o")}
        validate_heads(betas, hs, gammas, order, digits, moments, sharing)
        parameters = {"beta": [str(b) for b in betas], "heads": [str(h) for h in hs],
                      **{k: None if v is None else [str(g) for g in v]
                         for k, v in gammas.items()}, "sharing": sharing,
                      "moments": int(moments or order), "digits": int(digits)}
        rows = build_heads(betas, hs, gammas, order, digits, moments, sharing)
    return Tables(rows, provenance(parameters, time.perf_counter() - start))
