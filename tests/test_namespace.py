"""Installed, attnge is one package: a user's own modules named theory, numerics or
derivations (here: folders in the working directory that break on import) shadow nothing."""

import subprocess
import sys

import pytest

SCRIPT = """
import attnge
nu = attnge.law(beta=1, y=2)
assert abs(nu.edge - 10.8975041270372) < 1e-9
assert abs(float(nu.cdf(nu.ppf(0.3))) - 0.3) < 1e-10 and nu.pdf(1.0) > 0
assert nu.moment(1, exact=True) == attnge.thetas(1)[0]
out = attnge.law(beta=1, y=2, heads=2, kind="output", gamma_o=1)
assert out.rvs(3, random_state=0).shape == (3,)
run = attnge.verify(steps=["not-marchenko-pastur"], sizes=[100, 200, 400], draws=2)
assert run.passed
import theory, numerics, derivations    # the user's own, untouched
print("ok", theory.MINE, numerics.MINE, derivations.MINE)
"""


@pytest.mark.slow
def test_a_users_theory_numerics_and_derivations_folders_shadow_nothing(tmp_path):
    for name in ("theory", "numerics", "derivations"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f"MINE = {name!r}\n")
        (tmp_path / name / "inputs.py").write_text("raise ImportError('the user module')\n")
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["ok", "theory", "numerics", "derivations"]
