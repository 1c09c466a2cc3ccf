"""Capabilities an architecture declares, read by name, never inferred from its type.

A fast path (a compiled evaluator, the catalecticant strategy, a closed-form entry
degree) is taken because the network *declares* what it needs, not because it is one
class: a mixer or a user's class that declares a capability gets the same path, and a
subclass that is no longer what the capability describes (``SoftmaxSelfAttention``)
undeclares it by setting the name to ``None``.

Each capability is an optional method; :func:`capability` returns it bound, or None
where the architecture does not declare it (or declares it ``None``):

- ``kernel() -> callable | None``: a compiled GF(p) grid evaluator
  ``evaluate(params, A_pts, B_pts, pos_a, pos_b, p) -> F`` (an int64 matrix, or None
  where it cannot run at that prime: the generic path then runs). The evaluator must
  compute exactly what ``apply`` computes in ModP; seprank ships one, for the paper's
  weights layout (:mod:`seprank.nets.attention_kernel`), and tests it against ``apply``.
- ``structural_polynomial() -> StructuralForm | None``: f = e_c^T P_L(S) x^i, the
  structural lemma's form (proofs/structural_lemma.md) with the weights in the paper's
  layout (``Wq``, ``Wk``, ``Wv`` of shape (L, H, d_a, d), ``Wo`` (L, H, d, d_a)), which is
  what the catalecticant strategy and its certificates need.
- ``entry_degree(random_weights) -> int``: the total degree of one grid entry in the
  random quantities (inputs, and weights when random), for the Schwartz-Zippel labels.
- ``upper_bound(partition)``: the architecture's own upper bound on the separation rank
  (see :mod:`seprank.theory.architecture_bounds`).

The declarations that describe f itself (``degree``, ``homogeneous``, ``polynomial``,
``alphabet``) are attributes read by :mod:`seprank.nets.base` and checked before use.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The capability names and what each enables (docs/architecture.md lists them too).
CAPABILITIES = {
    "kernel": "a compiled GF(p) grid evaluator (the direct and graded strategies' grids)",
    "structural_polynomial": "the structural lemma's form (the catalecticant strategy)",
    "entry_degree": "a closed-form entry degree (saturation labels without tracing apply)",
    "upper_bound": "the architecture's own upper bound (labels, estimates)",
}


def capability(net, name: str):
    """The bound method ``name`` that ``net`` declares, or None.

    Parameters
    ----------
    net : Architecture
        The network.
    name : str
        One of :data:`CAPABILITIES`.

    Returns
    -------
    callable or None
        The declared method; None when it is absent, declared None, not callable, or
        inherited past a subclass that defines methods of its own (:func:`inherited_past`).

    Examples
    --------
    >>> from seprank.nets import LinearSelfAttention, SoftmaxSelfAttention
    >>> capability(LinearSelfAttention(depth=1, width=2), "kernel") is not None
    True
    >>> capability(SoftmaxSelfAttention(depth=1, width=2), "kernel") is None
    True
    """
    if name not in CAPABILITIES:
        raise KeyError(f"capability {name!r} is not one of {', '.join(CAPABILITIES)}")
    fn = getattr(net, name, None)
    if not callable(fn) or inherited_past(type(net), name) is not None:
        return None
    return fn


def inherited_past(klass: type, name: str) -> str | None:
    """The subclass that makes an inherited capability untrustworthy, or None.

    A capability describes the function of the class that declares it. A subclass that
    defines a method of its own (an ``apply``, a ``_scores``, anything but the
    dataclass's generated dunders) may compute another function, so the capability it
    inherits is not honoured: the generic path measures it (a subclass that is still the
    same function re-declares the capability).

    Parameters
    ----------
    klass : type
        The network's class.
    name : str
        The capability.

    Returns
    -------
    str or None
        The name of the first class (from ``klass`` up) that defines methods of its own
        before the one declaring ``name``; None when the capability is honoured.
    """
    for owner in klass.__mro__:
        if name in vars(owner):
            return None
        if own_methods(owner):
            return owner.__name__
    return None


def own_methods(klass: type) -> list[str]:
    """The methods (functions, properties, static and class methods) a class defines in
    its own body, but the dunders (a dataclass generates those)."""
    return [k for k, v in vars(klass).items() if not (k.startswith("__") and k.endswith("__"))
            and (callable(v) or isinstance(v, (property, staticmethod, classmethod)))]


def declared(net, name: str):
    """What the capability ``name`` returns (called with no argument), or None when the
    network does not declare it or the declaration returns None."""
    fn = capability(net, name)
    return None if fn is None else fn()


def structural_form(net):
    """The structural form a network declares.

    Parameters
    ----------
    net : Architecture or StructuralForm
        The network (a form is returned as it is).

    Returns
    -------
    StructuralForm or None
        What ``structural_polynomial()`` declares; None where nothing is declared.
    """
    return net if isinstance(net, StructuralForm) else declared(net, "structural_polynomial")


def homogeneous_by_theorem(net) -> bool:
    """Whether f's homogeneity (degree 3^L) is a theorem, not a measurement: ``net``
    declares the structural form (proofs/structural_lemma.md) without the residual.

    Parameters
    ----------
    net : Architecture or StructuralForm
        The network (or its form).

    Returns
    -------
    bool
        True for the paper's network without residual and what declares its form.
    """
    form = structural_form(net)
    return form is not None and not form.residual


@dataclass(frozen=True)
class StructuralForm:
    r"""The structural lemma's form of f, declared through ``structural_polynomial()``.

    .. math::

        f = e_c^\top P_L(S)\, x^i, \qquad S = \sum_j x^j x^{j\top}, \qquad P_0 = I,

        P_{l+1} = \sum_h W^O_h W^V_h P_l S P_l^\top W^{K\top}_h W^Q_h P_l
        \quad (+\, P_l \text{ with the residual}),

    the weights in the paper's layout. Its fields carry the names of
    :class:`~seprank.nets.attention.LinearSelfAttention`'s, so the code that reads the
    form reads a network of the paper's family.

    Parameters
    ----------
    depth, width, heads, seq_len : int
        :math:`L`, :math:`d_x`, :math:`H` and :math:`N`.
    residual : bool
        Whether :math:`P_{l+1}` adds :math:`P_l`.
    query_position, output_coord : int
        :math:`i` and :math:`c`.
    """

    depth: int
    width: int
    heads: int
    seq_len: int
    residual: bool
    query_position: int
    output_coord: int

    @property
    def matrix_degree(self) -> int:
        """D = (3^L - 1)/2, the degree of P_L in S."""
        return (3**self.depth - 1) // 2

    def sides(self, partition) -> tuple[int, int]:
        """Return the sizes of the query's side of a partition and of the other side.

        Parameters
        ----------
        partition : iterable of int
            The positions of side A.

        Returns
        -------
        tuple of (int, int)
            ``(n_query, n_other)`` (as :func:`seprank.theory.bounds.sides`).
        """
        A = set(partition)
        nA, nB = len(A), self.seq_len - len(A)
        return (nA, nB) if self.query_position in A else (nB, nA)
