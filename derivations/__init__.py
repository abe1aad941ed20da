r"""attnge: the Gaussian equivalence of softmax self-attention at random initialisation,
verified step by step.

The public API, flat as in mpmath (the names load when first used, so that ``import
attnge`` and the command line stay quick):

Laws (``attnge.numerics.laws``, ``attnge.theory.laws``)
    :func:`law` (β, y or θ's, heads, γ's, kind, sharing) → :class:`Law`, with ``pdf``,
    ``cdf``, ``ppf``, ``moment``, ``mean``, ``var``, ``support``, ``edge``, ``stieltjes``,
    ``rvs``, ``plot``; :func:`describe` → :class:`Description`, the exact parameters.
θ's and coefficients (``attnge.theory``)
    :func:`thetas` (θ₁ = e^{β²} − 1, θ₂ = β², exact), :func:`hermite_coefficients`,
    :func:`taylor_coefficients`; other kernels: :func:`kernel` → :class:`Kernel`,
    :func:`kernel_thetas` (θ₁[g], θ₂[g], exact where SymPy finds them).
Attention variants (``attnge.theory.variants``, ``attnge.derivations.variants``)
    :class:`Variant` (kernel, weight law, inputs, mask), :func:`predict_variant` (θ's and
    the bulk's m₁, m₂ with their routes and status), :func:`check_variant` (sampled, judged:
    GE HOLDS, GE BREAKS or INCONCLUSIVE); :class:`Init` and :func:`effective_beta` (the β an
    init scheme gives a layer).
Samplers (``attnge.numerics.samplers``)
    :func:`sample_attention` (scores, attention, its centred form and the linear Gaussian
    model on the same scores), :func:`squared_singular_values`.
The ledger and the tools (``attnge.runner``, ``attnge.coefficient_tables``,
``attnge.edge_certificates``)
    :func:`verify` → :class:`Run`; :func:`tables` → ``Tables``; :func:`certify` →
    ``Certificates``; :func:`check_certificate`; :data:`STEPS`.

Examples
--------
>>> import attnge
>>> nu = attnge.law(beta=1, y=2)
>>> round(nu.edge, 4), nu.moment(1, exact=True)
(10.8975, -1 + E)
>>> attnge.thetas(1)
(-1 + E, 1)
"""

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("attnge")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.2.0+src"

_PUBLIC = {
    "law": "attnge.numerics.laws", "Law": "attnge.numerics.laws",
    "Support": "attnge.numerics.laws", "Atom": "attnge.numerics.laws",
    "describe": "attnge.theory.laws", "Description": "attnge.theory.laws",
    "hermite_coefficients": "attnge.theory.exponential",
    "taylor_coefficients": "attnge.theory.exponential",
    "Kernel": "attnge.theory.kernels",
    "Variant": "attnge.theory.variants",
    "Init": "attnge.theory.initialisation", "effective_beta": "attnge.theory.initialisation",
    "sample_attention": "attnge.numerics.samplers",
    "squared_singular_values": "attnge.numerics.spectra",
    "verify": "attnge.runner", "Run": "attnge.runner", "StepResult": "attnge.runner",
    "STEPS": "attnge.ledger",
    "tables": "attnge.coefficient_tables", "certify": "attnge.edge_certificates",
}
_RENAMED = {"thetas": ("attnge.theory.limit_law", "from_beta"),
            "kernel": ("attnge.theory.kernels", "parse"),
            "kernel_thetas": ("attnge.theory.kernels", "thetas"),
            "predict_variant": ("attnge.theory.variants", "predict"),
            "check_variant": ("attnge.variants", "check"),
            "check_certificate": ("attnge.edge_certificates", "check")}

__all__ = sorted([*_PUBLIC, *_RENAMED, "__version__"])


def __getattr__(name: str):
    """The public names, imported on first use (PEP 562)."""
    if name in _PUBLIC:
        value = getattr(import_module(_PUBLIC[name]), name)
    elif name in _RENAMED:
        module, attribute = _RENAMED[name]
        value = getattr(import_module(module), attribute)
    else:
        raise AttributeError(f"module 'attnge' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
