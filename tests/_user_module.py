"""A user's own architecture, written into a temporary folder as a theorist would (tests
of the open registry: ``--arch mymod:MyNet``, grids, certificates)."""

import sys
import textwrap

SOURCE = textwrap.dedent('''
    """A user's architectures (not part of seprank)."""
    from dataclasses import dataclass

    import numpy as np

    from seprank.errors import ConfigError


    @dataclass(frozen=True)
    class MyNet:
        """A sum of R products of linear forms, one per position (CP rank R)."""

        seq_len: int
        width: int = 2
        terms: int = 2

        def __post_init__(self):
            if self.terms < 1:
                raise ConfigError(f"terms={self.terms} must be >= 1")

        def init(self, rng, domain):
            return {"W": domain.random(rng, (self.seq_len, self.terms, self.width))}

        def apply(self, params, X, domain):
            W = params["W"]
            P = domain.einsum("bd,rd->br", X[:, 0], W[0])
            for n in range(1, self.seq_len):
                P = domain.mul(P, domain.einsum("bd,rd->br", X[:, n], W[n]))
            ones = domain.from_ints(np.ones(self.terms, dtype=np.int64))
            return domain.einsum("br,r->b", P, ones)

        def upper_bound(self, partition):
            from seprank.nets.bound import Bound

            k = min(len(partition), self.seq_len - len(partition))
            return Bound(min(self.terms, self.width**k), "CP rank R: a sum of R products",
                         "architecture")


    @dataclass(frozen=True)
    class MyPlain(MyNet):
        """MyNet without a bound of its own."""

        upper_bound = None


    def not_a_class():
        return 1


    class NoApply:
        seq_len = 2

        def init(self, rng, domain):
            return {}
''')


def install(tmp_path, monkeypatch, name: str = "mymod"):
    """Write the module ``name`` into ``tmp_path`` and put that folder on sys.path (and
    PYTHONPATH, for subprocesses); the module is forgotten after the test."""
    (tmp_path / f"{name}.py").write_text(SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    return tmp_path
