"""The proved upper bound each architecture comes with, in one place.

An architecture may define ``known_bound(partition) -> dict`` (keys ``upper``, ``kind``,
``tag``, ``source``) when its bound needs nothing beyond the architecture itself (the mps
min-cut, the convac channel bounds, the gnn walk-index bound). Bounds that rest on this
package's theorems live here instead, so that nets/ never imports theory/:
:class:`~seprank.nets.embedded_attention.EmbeddedAttention` is bounded by the attention
block bound at width min(d_x, r).
"""

from __future__ import annotations

from seprank.nets.attention import LinearSelfAttention
from seprank.nets.embedded_attention import EmbeddedAttention
from seprank.theory.bounds import upper_bound


def embedded_attention_bound(net: EmbeddedAttention, partition) -> dict:
    """The proven attention bound at width min(d_x, r) (one head: it bounds every H),
    and the token grid's size V^min(|A|, |B|) [D]."""
    k = min(len(set(partition)), net.seq_len - len(set(partition)))
    eff = min(net.width, net.embed_rank)
    ub = upper_bound(LinearSelfAttention(depth=net.depth, width=eff, heads=1,
                                         seq_len=net.seq_len), partition)["upper"]  # fmt: skip
    return {"upper": min(ub, net.vocab**k), "kind": "upper bound (every weight) [D]",
            "tag": "D", "source": f"attention block bound at width min(d_x, r) = {eff} "
            "(the embedding has rank r; structural lemma) and the token grid size "
            f"V^{k} [D]; saturation in d_x at r: Wies-Levine-Jannai-Shashua 2021 [M]"}  # fmt: skip


def has_known_bound(net) -> bool:
    """Whether :func:`known_bound` can answer for ``net`` (checked before any partition)."""
    return isinstance(net, EmbeddedAttention) or callable(getattr(net, "known_bound", None))


def known_bound(net, partition) -> dict | None:
    """The architecture's own proved bound for the A side ``partition`` (a dict as above),
    or None when seprank knows none."""
    if isinstance(net, EmbeddedAttention):
        return embedded_attention_bound(net, partition)
    own = getattr(net, "known_bound", None)
    return own(partition) if callable(own) else None
